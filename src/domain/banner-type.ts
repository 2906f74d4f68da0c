/** Banner type from image dimensions (spec 01 §5 "Banner type from dimensions", spec 02 §5). */
import type { BannerSizes } from './schemas';
import { WIDE_HEADER_RATIO } from './constants';
import { BANNER_SLOTS, familyOf, SIZE_FAMILIES, SIZE_FAMILY_SETTINGS, SLOTS, type SizeFamily, type SlotType, type UploadType } from './slots';

/**
 * Banner type of an image of `width` x `height` pixels (spec 01 §5), one per size family of the
 * slot registry ('header' for SRP header sizes, 'primary' for inline sizes). With the dealer's
 * configured sizes: an exact match to a configured size gives its family's type, families in
 * registry order (the SRP header's checked first). Otherwise (or without sizes) the ratio rule:
 * width > WIDE_HEADER_RATIO (2) x height is the wide family's type ('header'), anything else the
 * other's ('primary').
 */
export function bannerTypeFromDimensions(width: number, height: number, sizes?: BannerSizes): UploadType {
  const exact = sizes && BANNER_SLOTS.find((k) => sizes[k].width === width && sizes[k].height === height);
  if (exact) return SIZE_FAMILY_SETTINGS[familyOf(exact)[0]].uploadType;
  const wide = width > WIDE_HEADER_RATIO * height;
  const family = (Object.keys(SIZE_FAMILIES) as SizeFamily[]).find((f) => SIZE_FAMILIES[f].wide === wide)!;
  return SIZE_FAMILY_SETTINGS[family].uploadType;
}

/**
 * Label of a banner type in the upload results (spec 02 §2 Asset upload panel), its size family's:
 * 'header' -> 'Header Banner'; 'primary' and 'upsell' (both inline slots) -> 'Inline Banner'.
 */
export function bannerTypeLabel<T extends SlotType>(type: T): (typeof SIZE_FAMILY_SETTINGS)[(typeof SLOTS)[T]['family']]['typeLabel'] {
  return SIZE_FAMILY_SETTINGS[SLOTS[type].family].typeLabel;
}
