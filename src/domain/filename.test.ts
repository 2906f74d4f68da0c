import { describe, expect, it } from 'vitest';
import { fileExtension, parseAssetFilename, validateAssetFilename } from './filename';
import { TEXT } from './constants';

describe('fileExtension', () => {
  it.each([
    ['a.jpg', 'jpg'],
    ['A.JPEG', 'jpeg'],
    ['new_2025.x.PNG', 'png'],
    ['noext', ''],
    ['trailing.', ''],
  ])('%j -> %j', (name, ext) => {
    expect(fileExtension(name)).toBe(ext);
  });
});

describe('parseAssetFilename (spec 01 §5, spec 02 §5)', () => {
  it('parses the canonical pattern', () => {
    expect(parseAssetFilename('new_2025_honda_civic_sport_1920x300.jpg')).toEqual({
      isValid: true,
      year: '2025',
      manufacturer: 'honda',
      model: 'civic',
      trim: 'sport',
      size: '1920x300',
      dimensions: { width: 1920, height: 300 },
      extension: 'jpg',
      originalFilename: 'new_2025_honda_civic_sport_1920x300.jpg',
      extraParts: [],
    });
  });

  it('keeps extra parts before and after the size, in order', () => {
    const p = parseAssetFilename('new_2025_honda_cr-v_ex-l_spring_promo_350x564_v2_final.webp');
    expect(p.isValid).toBe(true);
    expect(p.model).toBe('cr-v');
    expect(p.trim).toBe('ex-l');
    expect(p.dimensions).toEqual({ width: 350, height: 564 });
    expect(p.extraParts).toEqual(['spring', 'promo', 'v2', 'final']);
    expect(p.extension).toBe('webp');
  });

  it('takes the first size-like part as the size; later ones are extras', () => {
    const p = parseAssetFilename('new_2025_honda_civic_lx_600x500_1920x300.png');
    expect(p.size).toBe('600x500');
    expect(p.extraParts).toEqual(['1920x300']);
  });

  it("accepts 'NEW' in any case, an upper-case X and lowercases manufacturer/model/trim", () => {
    const p = parseAssetFilename('NEW_2025_Honda_Civic_Sport_1920X300.JPG');
    expect(p.isValid).toBe(true);
    expect(p).toMatchObject({ manufacturer: 'honda', model: 'civic', trim: 'sport', extension: 'jpg' });
    expect(p.dimensions).toEqual({ width: 1920, height: 300 });
  });

  it('works without an extension', () => {
    const p = parseAssetFilename('new_2025_honda_civic_sport_1920x300');
    expect(p.isValid).toBe(true);
    expect(p.extension).toBe('');
  });

  it('rejects fewer than 6 parts', () => {
    const p = parseAssetFilename('new_2025_honda_civic_1920x300.jpg');
    expect(p.isValid).toBe(false);
    expect(p.year).toBe('2025');
  });

  it("rejects a first part other than 'new'", () => {
    const p = parseAssetFilename('used_2025_honda_civic_sport_1920x300.jpg');
    expect(p.isValid).toBe(false);
    expect(p.model).toBe('civic');
    expect(p.dimensions).toEqual({ width: 1920, height: 300 });
  });

  it('rejects a name without a size part, with zero dimensions', () => {
    const p = parseAssetFilename('new_2025_honda_civic_sport_banner.jpg');
    expect(p.isValid).toBe(false);
    expect(p.size).toBe('');
    expect(p.dimensions).toEqual({ width: 0, height: 0 });
    expect(p.extraParts).toEqual(['banner']);
  });

  it.each(['new_2025_honda_civic_sport_1920x.jpg', 'new_2025_honda_civic_sport_x300.jpg', 'new_2025_honda_civic_sport_19a0x300.jpg'])(
    'rejects a malformed size %j',
    (name) => {
      expect(parseAssetFilename(name).isValid).toBe(false);
    },
  );

  it('does not take a size-like trim as the size', () => {
    expect(parseAssetFilename('new_2025_honda_civic_1920x300_promo.jpg').isValid).toBe(false);
  });

  it.each([
    'new__honda_civic_sport_1920x300.jpg',
    'new_2025__civic_sport_1920x300.jpg',
    'new_2025_honda__sport_1920x300.jpg',
    'new_2025_honda_civic__1920x300.jpg',
  ])('rejects an empty year/manufacturer/model/trim %j', (name) => {
    expect(parseAssetFilename(name).isValid).toBe(false);
  });

  it('handles garbage without throwing', () => {
    for (const name of ['', '.jpg', '{hash}.jpg', '______', 'a.b.c']) {
      const p = parseAssetFilename(name);
      expect(p.isValid).toBe(false);
      expect(p.originalFilename).toBe(name);
    }
    expect(parseAssetFilename('{hash}.jpg')).toMatchObject({ year: '', manufacturer: '', model: '', trim: '', size: '', extraParts: [] });
  });
});

describe('validateAssetFilename', () => {
  it('returns the parsed name when valid', () => {
    const r = validateAssetFilename('new_2025_toyota_rav4_xle_350x564.png');
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.parsed.model).toBe('rav4');
  });

  it('returns the spec error and hint when invalid (spec 01 §8)', () => {
    expect(validateAssetFilename('IMG_1234.jpg')).toEqual({
      ok: false,
      error: TEXT.invalidFilename,
      suggestion: TEXT.invalidFilenameHint,
    });
    expect(TEXT.invalidFilename).toBe('Invalid filename format. Expected: new_{year}_{manufacturer}_{model}_{trim}_{size}.{ext}');
  });

  it('hints with a file name that is itself valid, not a placeholder', () => {
    const example = /^Example: (\S+)$/.exec(TEXT.invalidFilenameHint)?.[1] ?? '';
    expect(validateAssetFilename(example).ok).toBe(true);
    expect(TEXT.invalidFilenameHint).not.toMatch(/[{}]/);
  });
});
