import { describe, expect, it } from 'vitest';
import { cdnAssetUrl, chooseAsset, chooseRotation, rotationPick, shapeMismatch, slotSize, type ChoosableAsset, pickFallback } from './asset-choice';
import { ROTATION_BUCKETS } from './page-constants';
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
    now: 0,
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

describe('cdnAssetUrl (DECISIONS 14 b)', () => {
  const storage = { baseUrl: 'https://cdn.example.com/assets/honda-of-demo/', customNaming: { pattern: 'new_{year}_{model}_{trim}_{size}.{ext}' } };
  const v = { year: 2026, manufacturer: 'Honda', model: 'CR-V', size: { width: 1920, height: 300 }, dealerId: 'honda-of-demo' };

  it('fills the naming pattern under the base URL', () => {
    expect(cdnAssetUrl(storage, { ...v, trim: 'EX L' })).toBe('https://cdn.example.com/assets/honda-of-demo/new_2026_cr-v_ex-l_1920x300.jpg');
  });
  it('drops the separator of an empty trim', () => {
    expect(cdnAssetUrl(storage, v)).toBe('https://cdn.example.com/assets/honda-of-demo/new_2026_cr-v_1920x300.jpg');
  });
  it('keeps unknown variables as written and knows manufacturer and dealerId', () => {
    const s = { ...storage, customNaming: { pattern: '{dealerId}/{manufacturer}-{model}-{size}-{color}.{ext}' } };
    expect(cdnAssetUrl(s, v)).toBe('https://cdn.example.com/assets/honda-of-demo/honda-of-demo/honda-cr-v-1920x300-{color}.jpg');
  });
  it('leaves {constructor}, {__proto__} and {toString} as written', () => {
    const s = { ...storage, customNaming: { pattern: '{model}-{constructor}-{__proto__}-{toString}.{ext}' } };
    // Doubled separators collapse as anywhere in the name; nothing is filled from Object.prototype.
    expect(cdnAssetUrl(s, v)).toBe('https://cdn.example.com/assets/honda-of-demo/cr-v-{constructor}-{_proto_}-{toString}.jpg');
  });
  it('is null without an http(s) base URL, a pattern or a model', () => {
    expect(cdnAssetUrl({ ...storage, baseUrl: '' }, v)).toBeNull();
    expect(cdnAssetUrl({ ...storage, baseUrl: 'ftp://x' }, v)).toBeNull();
    expect(cdnAssetUrl({ ...storage, customNaming: { pattern: ' ' } }, v)).toBeNull();
    expect(cdnAssetUrl(storage, { ...v, model: '' })).toBeNull();
  });
});

describe('pickFallback (DECISIONS 14 c)', () => {
  const f = (id: string, priority: number, extra: Partial<{ isActive: boolean; url: string; createdAt: string }> = {}) => ({
    id,
    priority,
    isActive: true,
    url: `https://cdn.example.com/${id}.jpg`,
    createdAt: '2026-01-01T00:00:00Z',
    ...extra,
  });
  it('takes the active fallback with the lowest priority number, then the oldest', () => {
    expect(pickFallback([f('b', 2), f('a', 1, { createdAt: '2026-02-01T00:00:00Z' }), f('c', 1)])?.id).toBe('c');
  });
  it('skips inactive ones and ones without an http(s) URL', () => {
    expect(pickFallback([f('a', 1, { isActive: false }), f('b', 2, { url: 'javascript:alert(1)' }), f('c', 3)])?.id).toBe('c');
    expect(pickFallback([f('a', 1, { isActive: false })])).toBeNull();
    expect(pickFallback([])).toBeNull();
  });
});

describe('chooseAsset: newest first and the page trim', () => {
  const withTrim = (id: string, trim: string, width = 1920, height = 300): A => asset(id, 'civic', width, height, { parsedMetadata: { isValid: true, trim } });
  const header = { model: 'civic', slot: 'header' as const, variant: 'desktop' as const, sizes, now: 0 };

  it('among equally good assets the first given wins (callers pass newest first)', () => {
    expect(chooseAsset([withTrim('new', 'lx'), withTrim('old', 'lx')], header)!.id).toBe('new');
  });

  it("prefers the page trim's asset at each step, but never over a better shape", () => {
    const list = [withTrim('lx', 'lx'), withTrim('sport', 'sport'), withTrim('touring-wide', 'sport-touring', 1200, 300)];
    expect(chooseAsset(list, { ...header, trim: 'Sport' })!.id).toBe('sport');
    expect(chooseAsset(list, { ...header, trim: 'sport touring' })!.id).toBe('lx'); // exact size beats trim
    expect(chooseAsset(list, { ...header, trim: 'EX' })!.id).toBe('lx'); // no such trim: the usual order
    expect(chooseAsset([withTrim('lx', 'lx', 1200, 300), withTrim('st', 'sport-touring', 1200, 300)], { ...header, trim: 'Sport Touring' })!.id).toBe('st');
  });

  it('tells a creative whose shape differs from its slot by more than 1 %', () => {
    expect(shapeMismatch({ width: 1920, height: 300 }, { width: 1920, height: 300 })).toBe(false);
    expect(shapeMismatch({ width: 3840, height: 600 }, { width: 1920, height: 300 })).toBe(false);
    expect(shapeMismatch({ width: 1920, height: 302 }, { width: 1920, height: 300 })).toBe(false);
    expect(shapeMismatch({ width: 1920, height: 310 }, { width: 1920, height: 300 })).toBe(true);
    expect(shapeMismatch({ width: 350, height: 564 }, { width: 1920, height: 300 })).toBe(true);
  });
});

describe('chooseAsset: promotion windows', () => {
  const at = Date.parse('2026-07-01T12:00:00Z');
  const header = { model: 'civic', slot: 'header' as const, variant: 'desktop' as const, sizes };
  const promo = asset('promo', 'civic', 1920, 300, { startsAt: '2026-07-01T00:00:00Z', endsAt: new Date('2026-07-08T00:00:00Z') });
  const evergreen = asset('evergreen', 'civic', 1920, 300);

  it('shows a windowed asset only from its start (inclusive) until its end (exclusive)', () => {
    const list = [promo, evergreen];
    expect(chooseAsset(list, { ...header, now: Date.parse('2026-06-30T23:59:59Z') })!.id).toBe('evergreen');
    expect(chooseAsset(list, { ...header, now: Date.parse('2026-07-01T00:00:00Z') })!.id).toBe('promo');
    expect(chooseAsset(list, { ...header, now: at })!.id).toBe('promo');
    expect(chooseAsset(list, { ...header, now: Date.parse('2026-07-08T00:00:00Z') })!.id).toBe('evergreen');
  });

  it('never shows an inactive asset, even inside its window', () => {
    expect(chooseAsset([{ ...promo, isActive: false }], { ...header, now: at })).toBeNull();
  });
});

describe('chooseRotation and rotationPick', () => {
  const q = { model: 'civic', slot: 'header' as const, variant: 'desktop' as const, sizes, now: 0 };
  it('rotates the live assets of the chosen size and trim, newest first, and nothing else', () => {
    const assets = [
      asset('new', 'civic', 1920, 300),
      asset('other-size', 'civic', 1200, 300),
      asset('sport', 'civic', 1920, 300, { parsedMetadata: { isValid: true, trim: 'sport' } }),
      asset('off', 'civic', 1920, 300, { isActive: false }),
      asset('expired', 'civic', 1920, 300, { endsAt: new Date(-1) }),
      asset('old', 'Civic', 1920, 300),
    ];
    expect(chooseRotation(assets, q).map((a) => a.id)).toEqual(['new', 'old']);
    expect(chooseRotation(assets, { ...q, trim: 'Sport' }).map((a) => a.id)).toEqual(['sport']);
    expect(chooseRotation(assets, { ...q, model: 'pilot' })).toEqual([]);
    expect(chooseAsset(assets, q)?.id).toBe('new');
  });
  it('splits the buckets exactly evenly for rotations of 1 to 10 creatives', () => {
    for (let n = 1; n <= 10; n++) {
      const rotation = Array.from({ length: n }, (_, i) => i);
      const counts = new Map<number | undefined, number>();
      for (let r = 0; r < ROTATION_BUCKETS; r++) counts.set(rotationPick(rotation, r), (counts.get(rotationPick(rotation, r)) ?? 0) + 1);
      expect([...counts.keys()].sort((a, b) => a! - b!), `${n} creatives`).toEqual(rotation);
      expect(new Set(counts.values()), `${n} creatives`).toEqual(new Set([ROTATION_BUCKETS / n]));
    }
    expect(rotationPick(['a', 'b'])).toBe('a');
    expect(rotationPick([], 5)).toBeUndefined();
  });
});
