/**
 * The slot registry and what is derived from it: slot and size-key lists, size keys per slot and
 * device, the spec's default sizes, ranges, presets and labels, and the upload classification.
 */
import { describe, expect, it } from 'vitest';
import {
  BANNER_SIZE_LABELS,
  BANNER_SLOTS,
  bannerSizeLabel,
  familyOf,
  perSlotType,
  showsUpsell,
  SIZE_FAMILIES,
  SIZE_FAMILY_SETTINGS,
  sizeKeyOf,
  slotColor,
  slotSizeKey,
  SLOT_TEXTS,
  SLOT_TYPES,
  SLOTS,
  UPLOAD_TYPES,
  VARIANTS,
  type SizeFamily,
} from './slots';
import { BANNER_SIZE_PRESETS, BANNER_SIZE_RANGES, DEFAULT_BANNER_SIZES } from './constants';
import { ASSET_TYPES } from './enums';
import { bannerSizesSchema, fallbackAssetsSchema, slotTypeSchema } from './schemas';
import { copySizes, emptyFallbackAssets } from './defaults';
import { bannerTypeFromDimensions, bannerTypeLabel } from './banner-type';

describe('slot registry', () => {
  it('lists the three slot types in default order, and the stored asset types are the same', () => {
    expect(SLOT_TYPES).toEqual(['header', 'primary', 'upsell']);
    expect(ASSET_TYPES).toEqual(SLOT_TYPES);
    expect(slotTypeSchema.options).toEqual(SLOT_TYPES);
  });

  it('derives the four size keys, family by family, desktop first (spec 02 §5)', () => {
    expect(VARIANTS).toEqual(['desktop', 'mobile']);
    expect(BANNER_SLOTS).toEqual(['srpHeaderDesktop', 'srpHeaderMobile', 'inlineDesktop', 'inlineMobile']);
    for (const key of BANNER_SLOTS) expect(sizeKeyOf(...familyOf(key))).toBe(key);
    expect(familyOf('inlineMobile')).toEqual(['inline', 'mobile']);
  });

  it('gives the header the SRP header sizes and both inline slots the inline sizes', () => {
    const keys = Object.fromEntries(SLOT_TYPES.flatMap((s) => VARIANTS.map((v) => [`${s} ${v}`, slotSizeKey(s, v)])));
    expect(keys).toEqual({
      'header desktop': 'srpHeaderDesktop',
      'header mobile': 'srpHeaderMobile',
      'primary desktop': 'inlineDesktop',
      'primary mobile': 'inlineMobile',
      'upsell desktop': 'inlineDesktop',
      'upsell mobile': 'inlineMobile',
    });
  });

  it('caps slot widths at 1920 px for the header and 350 px inline (spec 01 §9)', () => {
    expect(perSlotType((s) => SIZE_FAMILIES[SLOTS[s].family].maxWidthPx)).toEqual({ header: 1920, primary: 350, upsell: 350 });
  });

  it('has the upsell slot, and only it, show the upsell target', () => {
    expect(perSlotType(showsUpsell)).toEqual({ header: false, primary: false, upsell: true });
  });

  it('uses every size family, and classifies each family as one of its own slot types', () => {
    const families = Object.keys(SIZE_FAMILIES) as SizeFamily[];
    expect(new Set(SLOT_TYPES.map((s) => SLOTS[s].family))).toEqual(new Set(families));
    for (const f of families) expect(SLOTS[SIZE_FAMILY_SETTINGS[f].uploadType].family).toBe(f);
    expect(UPLOAD_TYPES).toEqual(['header', 'primary']);
    // Exactly one wide family, so the ratio rule always names one type.
    expect(families.filter((f) => SIZE_FAMILIES[f].wide)).toEqual(['srpHeader']);
  });
});

describe('values derived from the registry', () => {
  it('has the default sizes of spec 01 §9 and DECISIONS 23', () => {
    expect(DEFAULT_BANNER_SIZES).toEqual({
      srpHeaderDesktop: { width: 1920, height: 300 },
      srpHeaderMobile: { width: 600, height: 500 },
      inlineDesktop: { width: 350, height: 564 },
      inlineMobile: { width: 350, height: 564 },
    });
    expect(copySizes()).toEqual(DEFAULT_BANNER_SIZES);
    expect(copySizes().srpHeaderDesktop).not.toBe(DEFAULT_BANNER_SIZES.srpHeaderDesktop);
    expect(bannerSizesSchema.parse({ srpHeaderDesktop: {}, srpHeaderMobile: {}, inlineDesktop: {}, inlineMobile: {} })).toEqual(DEFAULT_BANNER_SIZES);
  });

  it('has the input ranges of spec 02 §5', () => {
    expect(BANNER_SIZE_RANGES).toEqual({
      srpHeaderDesktop: { width: { min: 100, max: 3000 }, height: { min: 50, max: 1000 } },
      srpHeaderMobile: { width: { min: 100, max: 1000 }, height: { min: 50, max: 1000 } },
      inlineDesktop: { width: { min: 100, max: 1000 }, height: { min: 100, max: 1000 } },
      inlineMobile: { width: { min: 100, max: 1000 }, height: { min: 100, max: 1000 } },
    });
    expect(bannerSizesSchema.safeParse({ ...DEFAULT_BANNER_SIZES, srpHeaderDesktop: { width: 3001, height: 300 } }).success).toBe(false);
    expect(bannerSizesSchema.safeParse({ ...DEFAULT_BANNER_SIZES, inlineMobile: { width: 350, height: 99 } }).success).toBe(false);
  });

  it('has the size presets of spec 02 §9, Standard being the defaults', () => {
    expect(Object.keys(BANNER_SIZE_PRESETS)).toEqual(['Standard', 'Compact', 'Large/High-Res']);
    expect(BANNER_SIZE_PRESETS.Standard).toEqual(DEFAULT_BANNER_SIZES);
    expect(BANNER_SIZE_PRESETS.Compact).toEqual({
      srpHeaderDesktop: { width: 1200, height: 250 },
      srpHeaderMobile: { width: 500, height: 400 },
      inlineDesktop: { width: 300, height: 500 },
      inlineMobile: { width: 300, height: 500 },
    });
    expect(BANNER_SIZE_PRESETS['Large/High-Res']).toEqual({
      srpHeaderDesktop: { width: 2560, height: 400 },
      srpHeaderMobile: { width: 800, height: 600 },
      inlineDesktop: { width: 400, height: 600 },
      inlineMobile: { width: 400, height: 600 },
    });
  });

  it('labels the four sizes as spec 02 §2 names them', () => {
    expect(BANNER_SLOTS.map(bannerSizeLabel)).toEqual(['SRP Header Desktop', 'SRP Header Mobile', 'Inline Desktop', 'Inline Mobile']);
    expect(Object.values(BANNER_SIZE_LABELS)).toEqual(BANNER_SLOTS.map(bannerSizeLabel));
  });

  it('names the asset groups and upload labels as spec 02 §2 does', () => {
    expect(SLOT_TYPES.map((s) => SLOT_TEXTS[s].group)).toEqual(['SRP Header Banners', 'Inline Banners', 'Upsell Banners']);
    expect(SLOT_TYPES.map((s) => bannerTypeLabel(s))).toEqual(['Header Banner', 'Inline Banner', 'Inline Banner']);
    expect(SLOT_TYPES.map(slotColor)).toEqual(['indigo', 'grape', 'orange']);
  });

  it('has an empty fallback list per size key', () => {
    expect(emptyFallbackAssets()).toEqual({ srpHeaderDesktop: [], srpHeaderMobile: [], inlineDesktop: [], inlineMobile: [] });
    expect(fallbackAssetsSchema.keyof().options).toEqual(BANNER_SLOTS);
  });

  it('classifies uploads by exact configured size first, in family order, then by the ratio rule', () => {
    expect(bannerTypeFromDimensions(600, 500, copySizes())).toBe('header');
    const same = { ...copySizes(), inlineMobile: { width: 600, height: 500 } };
    expect(bannerTypeFromDimensions(600, 500, same)).toBe('header'); // the SRP header family is checked first
    expect(bannerTypeFromDimensions(350, 564, copySizes())).toBe('primary');
    expect(bannerTypeFromDimensions(601, 300)).toBe('header');
    expect(bannerTypeFromDimensions(600, 300)).toBe('primary');
  });
});
