import { describe, expect, it } from 'vitest';
import { chooseAsset, slotSize, type ChoosableAsset } from './asset-choice';
import { sizesWithFallback } from './defaults';

const sizes = sizesWithFallback({});

type A = ChoosableAsset & { id: string };
const asset = (id: string, model: string, width: number, height: number, extra: Partial<A> = {}): A => ({
  id,
  model,
  isActive: true,
  parsedMetadata: { isValid: true },
  dimensions: { width, height },
  ...extra,
});

describe('slotSize', () => {
  it('maps slot and device to the configured size', () => {
    expect(slotSize('header', 'desktop', sizes)).toEqual({ width: 1920, height: 300 });
    expect(slotSize('header', 'mobile', sizes)).toEqual({ width: 600, height: 500 });
    expect(slotSize('primary', 'desktop', sizes)).toEqual({ width: 350, height: 564 });
    expect(slotSize('upsell', 'mobile', sizes)).toEqual({ width: 350, height: 564 });
  });

  it('uses the dealer sizes', () => {
    const custom = { ...sizes, inlineMobile: { width: 300, height: 500 } };
    expect(slotSize('upsell', 'mobile', custom)).toEqual({ width: 300, height: 500 });
    expect(slotSize('primary', 'desktop', custom)).toEqual({ width: 350, height: 564 });
  });
});

describe('chooseAsset (spec 02 §4 Preview asset choice)', () => {
  const q = (model: string, slot: 'header' | 'primary' | 'upsell', variant: 'desktop' | 'mobile' = 'desktop') => ({
    model,
    slot,
    variant,
    sizes,
  });

  it('prefers the exact slot size over earlier assets', () => {
    const assets = [asset('wide', 'cr-v', 1200, 250), asset('exact', 'cr-v', 1920, 300)];
    expect(chooseAsset(assets, q('CR-V', 'header'))?.id).toBe('exact');
  });

  it('uses the device variant size', () => {
    const assets = [asset('desk', 'civic', 1920, 300), asset('mob', 'civic', 600, 500)];
    expect(chooseAsset(assets, q('civic', 'header', 'mobile'))?.id).toBe('mob');
    expect(chooseAsset(assets, q('civic', 'header', 'desktop'))?.id).toBe('desk');
  });

  it('matches models by key (crv, CR-V, cr_v)', () => {
    const assets = [asset('a', 'crv', 350, 564)];
    expect(chooseAsset(assets, q('CR-V', 'primary'))?.id).toBe('a');
    expect(chooseAsset(assets, q('cr_v', 'upsell'))?.id).toBe('a');
    expect(chooseAsset(assets, q('hr-v', 'primary'))).toBeNull();
  });

  it('header without exact size: first with ratio over 2', () => {
    const assets = [asset('tall', 'civic', 350, 564), asset('two', 'civic', 600, 300), asset('wide', 'civic', 1200, 250)];
    expect(chooseAsset(assets, q('civic', 'header'))?.id).toBe('wide');
  });

  it('primary/upsell without exact size: first with ratio 2 or less', () => {
    const assets = [asset('wide', 'civic', 1200, 250), asset('two', 'civic', 600, 300), asset('tall', 'civic', 300, 500)];
    expect(chooseAsset(assets, q('civic', 'primary'))?.id).toBe('two');
    expect(chooseAsset(assets, q('civic', 'upsell'))?.id).toBe('two');
  });

  it('else the first asset of the model', () => {
    expect(chooseAsset([asset('tall', 'civic', 300, 500), asset('t2', 'civic', 200, 400)], q('civic', 'header'))?.id).toBe('tall');
    expect(chooseAsset([asset('wide', 'civic', 1200, 250)], q('civic', 'primary'))?.id).toBe('wide');
  });

  it('ignores inactive and invalid assets and other models', () => {
    const assets = [
      asset('inactive', 'civic', 1920, 300, { isActive: false }),
      asset('invalid', 'civic', 1920, 300, { parsedMetadata: { isValid: false } }),
      asset('other', 'accord', 1920, 300),
      asset('ok', 'civic', 1200, 250),
    ];
    expect(chooseAsset(assets, q('civic', 'header'))?.id).toBe('ok');
    expect(chooseAsset(assets.slice(0, 3), q('civic', 'header'))).toBeNull();
  });

  it('returns null with no assets', () => {
    expect(chooseAsset([], q('civic', 'header'))).toBeNull();
  });

  it('returns the same object it was given', () => {
    const a = asset('x', 'civic', 350, 564);
    expect(chooseAsset([a], q('civic', 'primary'))).toBe(a);
  });
});
