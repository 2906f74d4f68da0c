/**
 * Campaigns in the one asset choice (asset-choice.ts chooseRotation): a campaign's creative shows
 * only while its campaign is published and inside its window, only in the campaign's slots and
 * models; a live takeover campaign's creatives replace the regular ones, a rotate campaign's join
 * them. And the state a campaign's badge reads (campaignState), and which existing assets may
 * become a campaign's creatives (campaignMisfit).
 */
import { describe, expect, it } from 'vitest';
import { chooseRotation, type ChoosableAsset } from './asset-choice';
import { campaignCovers, campaignMisfit, campaignState, type CampaignRule } from './campaigns';
import { sizesWithFallback } from './defaults';

const sizes = sizesWithFallback({});
const START = Date.parse('2026-11-27T05:00:00Z');
const END = Date.parse('2026-11-30T05:00:00Z');
const rule = (extra: Partial<CampaignRule> = {}): CampaignRule => ({ mode: 'takeover', status: 'published', startsAt: new Date(START), endsAt: new Date(END), models: [], slots: [], ...extra });

type A = ChoosableAsset & { id: string };
const banner = (id: string, campaign: CampaignRule | null = null): A => ({ id, model: 'civic', isActive: true, parsedMetadata: { isValid: true }, dimensions: { width: 1920, height: 300 }, campaign });
const ids = (list: A[], now: number, slot: 'header' | 'primary' = 'header', model = 'civic') => chooseRotation(list, { model, slot, variant: 'desktop', sizes, now }).map((a) => a.id);

describe('a campaign in the asset choice', () => {
  it('takes over its slot only inside its window, and the regular creative returns at its end', () => {
    const list = [banner('promo', rule()), banner('regular')];
    expect(ids(list, START - 1)).toEqual(['regular']);
    expect(ids(list, START)).toEqual(['promo']);
    expect(ids(list, END - 1)).toEqual(['promo']);
    expect(ids(list, END)).toEqual(['regular']);
  });

  it('rotates with the regular creative in rotate mode', () => {
    expect(ids([banner('promo', rule({ mode: 'rotate' })), banner('regular')], START)).toEqual(['promo', 'regular']);
  });

  it('shows nothing of a draft, paused or ended campaign, and its own window does not count', () => {
    for (const status of ['draft', 'paused', 'ended'] as const) expect(ids([banner('promo', rule({ status })), banner('regular')], START + 1000)).toEqual(['regular']);
    const withOwnWindow = { ...banner('promo', rule()), startsAt: new Date(0), endsAt: new Date(1) };
    expect(ids([withOwnWindow, banner('regular')], START)).toEqual(['promo']);
  });

  it('keeps to its slots and models', () => {
    const list = [banner('promo', rule({ slots: ['header'], models: ['Civic'] })), banner('regular')];
    expect(ids(list, START, 'header')).toEqual(['promo']);
    expect(ids(list, START, 'primary')).toEqual(['regular']);
    expect(campaignCovers(rule({ models: ['cr-v'] }), 'header', 'CR-V')).toBe(true);
    expect(campaignCovers(rule({ models: ['cr-v'] }), 'header', 'civic')).toBe(false);
  });
});

describe('campaignState', () => {
  it('reads draft, paused and ended as set, else scheduled, live or ended by the window', () => {
    expect(campaignState(rule({ status: 'draft' }), START)).toBe('draft');
    expect(campaignState(rule({ status: 'paused' }), START)).toBe('paused');
    expect(campaignState(rule({ status: 'ended' }), START - 1)).toBe('ended');
    expect(campaignState(rule(), START - 1)).toBe('scheduled');
    expect(campaignState(rule(), START)).toBe('live');
    expect(campaignState(rule(), END)).toBe('ended');
    expect(campaignState(rule({ endsAt: null }), END * 2)).toBe('live');
  });
});

describe('campaignMisfit', () => {
  it('lets an asset join when its size family serves one of the slots and its model is covered; empty lists take all', () => {
    expect(campaignMisfit(rule(), { type: 'header', model: 'Civic' })).toBeNull();
    expect(campaignMisfit(rule({ slots: ['header'], models: ['civic'] }), { type: 'header', model: 'CIVIC' })).toBeNull();
    // An inline creative ('primary') serves the upsell slot too: same size family.
    expect(campaignMisfit(rule({ slots: ['upsell'] }), { type: 'primary', model: 'civic' })).toBeNull();
  });

  it('names the field that does not fit: the slots first, then the models', () => {
    expect(campaignMisfit(rule({ slots: ['header'] }), { type: 'primary', model: 'civic' })).toBe('slots');
    expect(campaignMisfit(rule({ slots: ['primary', 'upsell'] }), { type: 'header', model: 'pilot' })).toBe('slots');
    expect(campaignMisfit(rule({ models: ['cr-v'] }), { type: 'header', model: 'Civic' })).toBe('models');
    expect(campaignMisfit(rule({ models: ['CR-V'] }), { type: 'header', model: 'crv' })).toBeNull();
  });
});
