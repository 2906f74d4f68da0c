/** Unit tests of the spec rules the foundation uses: filenames, banner type, slugs, metrics, model keys, provider URLs, asset choice, upsell. */
import { describe, expect, it } from 'vitest';
import { parseAssetFilename, validateAssetFilename, fileExtension } from './filename';
import { bannerTypeFromDimensions, bannerTypeLabel } from './banner-type';
import { slugify } from './slug';
import { conversionRate, ctr, formatCtr, formatTrend, isAboveAverage, performanceScore, trendPercent } from './metrics';
import { canonicalModel, modelKey, sameModel } from './model-keys';
import { inventoryUrl, modelFromPageUrl } from './provider-urls';
import { chooseAsset, slotSize } from './asset-choice';
import { activeUpsellRules, isHigherTrimRule, optimalUpsellRules, upsellTarget } from './upsell';
import { priorityScore } from './priority-score';
import { maxRequestsOrDefault, alertThresholdOrDefault, parseAllowedDomains, sizesWithFallback, weightLabel, defaultSecurity } from './defaults';
import { DEFAULT_BANNER_SIZES, TEXT } from './constants';
import type { BannerSizes } from './schemas';

const sizes = structuredClone(DEFAULT_BANNER_SIZES) as unknown as BannerSizes;

describe('asset filename (spec 01 §5)', () => {
  it('parses the documented pattern with extras', () => {
    const p = parseAssetFilename('new_2025_Honda_CR-V_EX-L_promo_1920x300_v2.JPG');
    expect(p).toMatchObject({
      isValid: true,
      year: '2025',
      manufacturer: 'honda',
      model: 'cr-v',
      trim: 'ex-l',
      size: '1920x300',
      dimensions: { width: 1920, height: 300 },
      extension: 'jpg',
      extraParts: ['promo', 'v2'],
    });
  });
  it.each([
    ['fewer than 6 parts', 'new_2025_honda_civic_1920x300.jpg'],
    ['first part not new', 'used_2025_honda_civic_sport_1920x300.jpg'],
    ['no size part', 'new_2025_honda_civic_sport_banner.jpg'],
    ['empty model', 'new_2025_honda__sport_1920x300.jpg'],
  ])('is invalid with %s', (_why, name) => {
    expect(parseAssetFilename(name).isValid).toBe(false);
    expect(validateAssetFilename(name)).toEqual({ ok: false, error: TEXT.invalidFilename, suggestion: TEXT.invalidFilenameHint });
  });
  it('reads the extension', () => {
    expect(fileExtension('a.b.WEBP')).toBe('webp');
    expect(fileExtension('noext')).toBe('');
  });
});

describe('banner type from dimensions (spec 01 §5)', () => {
  it('uses exact configured sizes first', () => {
    expect(bannerTypeFromDimensions(600, 500, sizes)).toBe('header'); // SRP header mobile, ratio 1.2
    expect(bannerTypeFromDimensions(350, 564, sizes)).toBe('primary');
  });
  it('falls back to width > 2 x height', () => {
    expect(bannerTypeFromDimensions(1000, 499)).toBe('header');
    expect(bannerTypeFromDimensions(1000, 500)).toBe('primary');
    expect(bannerTypeFromDimensions(1200, 250, sizes)).toBe('header');
  });
  it('labels', () => {
    expect(bannerTypeLabel('header')).toBe('Header Banner');
    expect(bannerTypeLabel('primary')).toBe('Inline Banner');
  });
});

describe('slug (DECISIONS 8)', () => {
  it('lowercases, hyphenates spaces and drops other characters', () => {
    expect(slugify('Honda of Demo')).toBe('honda-of-demo');
    expect(slugify("  Bob's  Ford & Sons!! ")).toBe('bobs-ford-sons');
    expect(slugify('Ünïcode Motors 2')).toBe('ncode-motors-2');
  });
});

describe('metrics (spec 01 §9, DECISIONS 19)', () => {
  it('computes CTR, score and formats', () => {
    expect(ctr(5, 200)).toBe(2.5);
    expect(ctr(3, 0)).toBeNull();
    expect(performanceScore(2.5)).toBe(50);
    expect(performanceScore(7)).toBe(100);
    expect(performanceScore(null)).toBe(0);
    expect(formatCtr(2.5)).toBe('2.50%');
    expect(formatCtr(null)).toBe('--');
    expect(isAboveAverage(3)).toBe(false);
    expect(isAboveAverage(3.01)).toBe(true);
    expect(conversionRate(1, 4)).toBe(25);
  });
  it('computes trends against the previous period', () => {
    expect(trendPercent(150, 100)).toBe(50);
    expect(trendPercent(10, 0)).toBeNull();
    expect(formatTrend(12.5)).toBe('+12.5%');
    expect(formatTrend(-3)).toBe('-3.0%');
    expect(formatTrend(null)).toBe('--');
  });
});

describe('model keys (DECISIONS 25)', () => {
  it('compares names by one key', () => {
    expect(modelKey('CR-V')).toBe('crv');
    expect(modelKey('Civic Type_R.')).toBe('civictyper');
    expect(sameModel('cr-v', 'CRV')).toBe(true);
  });
  it('finds canonical names through the dealer map, then aliases', () => {
    expect(canonicalModel('CRV')).toBe('cr-v');
    expect(canonicalModel('hrv')).toBe('hr-v');
    expect(canonicalModel('Civic Sedan', { civicsedan: 'civic' })).toBe('civic');
    expect(canonicalModel('Grand Highlander')).toBe('grand-highlander');
  });
});

describe('provider URLs (spec 01 §9)', () => {
  it('builds and reads mxs links', () => {
    const url = inventoryUrl('mxs', 'https://dealer.example/', 'CR-V');
    expect(url).toBe('https://dealer.example/new-inventory?new=true&model=crv&fq=1&min-year=2003&max-year=2026');
    expect(modelFromPageUrl('mxs', url)).toBe('crv');
    expect(modelFromPageUrl('mxs', 'https://dealer.example/new-inventory?new=true')).toBeNull();
    expect(modelFromPageUrl('mxs', 'https://dealer.example/used-inventory?model=civic')).toBeNull();
  });
  it('builds and reads dealer-inspire links', () => {
    const url = inventoryUrl('dealer-inspire', 'https://dealer.example', 'Pilot');
    expect(url).toBe('https://dealer.example/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Pilot&_dFR%5Btype%5D%5B0%5D=New');
    expect(modelFromPageUrl('dealer-inspire', url)).toBe('Pilot');
    expect(modelFromPageUrl('dealer-inspire', 'https://dealer.example/new-vehicles/?_dFR[model][0]=Accord&_dFR[type][0]=New')).toBe('Accord');
    expect(modelFromPageUrl('dealer-inspire', 'https://dealer.example/new-vehicles/?_dFR[model][0]=Accord&_dFR[type][0]=Used')).toBeNull();
  });
  it('builds and reads custom links', () => {
    const url = inventoryUrl('custom', 'https://dealer.example', 'civic');
    expect(url).toBe('https://dealer.example/inventory?model=civic&type=new');
    expect(modelFromPageUrl('custom', url)).toBe('civic');
    expect(modelFromPageUrl('custom', 'https://dealer.example/inventory?model=civic&type=used')).toBeNull();
  });
});

describe('asset choice (spec 02 §4)', () => {
  const a = (model: string, width: number, height: number, extra: Partial<{ isActive: boolean; isValid: boolean }> = {}) => ({
    id: `${model}-${width}x${height}`,
    model,
    isActive: extra.isActive ?? true,
    parsedMetadata: { isValid: extra.isValid ?? true },
    dimensions: { width, height },
  });
  it('prefers the exact slot size over the ratio rule', () => {
    const list = [a('civic', 1200, 250), a('civic', 1920, 300)];
    expect(chooseAsset(list, { model: 'Civic', slot: 'header', variant: 'desktop', sizes })?.id).toBe('civic-1920x300');
  });
  it('uses the ratio rule: header > 2, inline <= 2', () => {
    const list = [a('civic', 400, 600), a('civic', 1200, 250)];
    expect(chooseAsset(list, { model: 'civic', slot: 'header', variant: 'desktop', sizes })?.id).toBe('civic-1200x250');
    expect(chooseAsset(list, { model: 'civic', slot: 'primary', variant: 'desktop', sizes })?.id).toBe('civic-400x600');
  });
  it('falls back to the first asset of the model, ignoring inactive and invalid ones and other models', () => {
    const list = [a('accord', 1920, 300), a('civic', 1920, 300, { isActive: false }), a('civic', 1000, 1000, { isValid: false }), a('civic', 800, 600)];
    expect(chooseAsset(list, { model: 'civic', slot: 'header', variant: 'desktop', sizes })?.id).toBe('civic-800x600');
  });
  it('returns null (placeholder) when nothing matches', () => {
    expect(chooseAsset([a('accord', 1920, 300)], { model: 'civic', slot: 'header', variant: 'desktop', sizes })).toBeNull();
  });
  it('maps slots to configured sizes', () => {
    expect(slotSize('upsell', 'mobile', sizes)).toEqual({ width: 350, height: 564 });
    expect(slotSize('header', 'mobile', sizes)).toEqual({ width: 600, height: 500 });
  });
});

describe('upsell rules (spec 01 §9)', () => {
  const candidates = { civic: ['accord'], 'cr-v': ['pilot', 'passport'] };
  it('(1) suggests a trim upsell when deep trim stock tops another trim than the first', () => {
    const rules = optimalUpsellRules({ breakdown: { civic: { totalUnits: 14, agedUnits: 0, trims: { lx: 5, sport: 9 } } }, candidates, existing: {} });
    expect(rules).toEqual({ civic: 'civic' });
    expect(isHigherTrimRule('civic', 'Civic')).toBe(true);
  });
  it('(2) otherwise takes the first candidate with >= 5 units, >= 2 trims and < 60 % aged', () => {
    const breakdown = {
      'cr-v': { totalUnits: 3, agedUnits: 0, trims: { lx: 3 } },
      pilot: { totalUnits: 10, agedUnits: 6, trims: { sport: 5, elite: 5 } }, // 60 % aged: refused
      passport: { totalUnits: 5, agedUnits: 1, trims: { rtl: 3, trailsport: 2 } },
    };
    expect(optimalUpsellRules({ breakdown, candidates, existing: {} })['cr-v']).toBe('passport');
  });
  it('(3) otherwise keeps the existing mapping when its target is in stock', () => {
    const breakdown = { civic: { totalUnits: 2, agedUnits: 0, trims: { lx: 2 } }, accord: { totalUnits: 1, agedUnits: 0, trims: { lx: 1 } } };
    expect(optimalUpsellRules({ breakdown, candidates: {}, existing: { civic: 'accord' } })).toEqual({ civic: 'accord' });
    expect(optimalUpsellRules({ breakdown: { civic: breakdown.civic }, candidates: {}, existing: { civic: 'accord' } })).toEqual({});
  });
  it('picks the active rule set per strategy and resolves targets by model key', () => {
    const src = { manufacturerRules: { civic: 'accord' }, dealerUpsellMap: {}, customRules: { civic: 'hr-v' }, inventoryRules: null };
    expect(activeUpsellRules('manufacturer', src)).toEqual({ civic: 'accord' });
    expect(activeUpsellRules('custom', src)).toEqual({ civic: 'hr-v' });
    expect(activeUpsellRules('inventory', src)).toEqual({});
    expect(upsellTarget('CIVIC', { civic: 'accord' })).toBe('accord');
    expect(upsellTarget('pilot', { civic: 'accord' })).toBe('pilot');
  });
});

describe('priority score (spec 02 §9)', () => {
  const base = { totalUnits: 10, agedUnits: 0, avgDaysOnLot: 45, trimCount: 2, exteriorColorCount: 2, interiorColorCount: 1, yearCount: 1 };
  it('starts at 5', () => expect(priorityScore(base)).toBe(5));
  it('adds each rule', () => {
    expect(priorityScore({ ...base, agedUnits: 5 })).toBe(8); // + min(4, 2.5)
    expect(priorityScore({ ...base, totalUnits: 16 })).toBe(7);
    expect(priorityScore({ ...base, totalUnits: 4 })).toBe(3);
    expect(priorityScore({ ...base, avgDaysOnLot: 91 })).toBe(8);
    expect(priorityScore({ ...base, avgDaysOnLot: 61 })).toBe(7);
    expect(priorityScore({ ...base, avgDaysOnLot: 29 })).toBe(5); // 4.5 rounds to 5
    expect(priorityScore({ ...base, trimCount: 4, yearCount: 2 })).toBe(6); // 5.8
  });
  it('clamps to 1..10', () => {
    expect(priorityScore({ ...base, totalUnits: 20, agedUnits: 20, avgDaysOnLot: 120, trimCount: 5, exteriorColorCount: 6, yearCount: 2 })).toBe(10);
    expect(priorityScore({ ...base, totalUnits: 2, avgDaysOnLot: 5 })).toBe(3);
  });
});

describe('settings fallbacks (spec 01 §5, spec 02 §5, DECISIONS 22-23)', () => {
  it('falls back when not numeric', () => {
    expect(maxRequestsOrDefault('abc')).toBe(100);
    expect(maxRequestsOrDefault('250')).toBe(250);
    expect(alertThresholdOrDefault('')).toBe(2);
    expect(sizesWithFallback({ inlineMobile: { width: 'x', height: '' }, srpHeaderDesktop: { width: '1200', height: 250 } })).toMatchObject({
      inlineMobile: { width: 350, height: 564 },
      srpHeaderDesktop: { width: 1200, height: 250 },
    });
  });
  it('parses allowed domains and weight labels', () => {
    expect(parseAllowedDomains('a.com\n\n  b.com \r\n')).toEqual(['a.com', 'b.com']);
    expect([10, 8, 7, 4, 3, 1].map(weightLabel)).toEqual(['High Priority', 'High Priority', 'Normal Priority', 'Normal Priority', 'Low Priority', 'Low Priority']);
    expect(defaultSecurity('https://www.hondaofdemo.com/').allowedDomains).toEqual(['www.hondaofdemo.com']);
  });
});
