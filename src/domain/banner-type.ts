/** Banner type from image dimensions (spec 01 §5 "Banner type from dimensions"). */
import type { BannerSizes } from './schemas';
import { WIDE_HEADER_RATIO } from './constants';

/**
 * 'header' or 'primary' for an image of width x height pixels: an exact match to a configured
 * header size gives header, to an inline size primary; otherwise width > 2 x height is a header.
 */
export function bannerTypeFromDimensions(width: number, height: number, sizes?: BannerSizes): 'header' | 'primary' {
  const is = (s: { width: number; height: number }) => s.width === width && s.height === height;
  if (sizes) {
    if (is(sizes.srpHeaderDesktop) || is(sizes.srpHeaderMobile)) return 'header';
    if (is(sizes.inlineDesktop) || is(sizes.inlineMobile)) return 'primary';
  }
  return width > WIDE_HEADER_RATIO * height ? 'header' : 'primary';
}

/** The upload panel's label for a banner type (spec 02 §2 Asset upload panel). */
export function bannerTypeLabel(type: 'header' | 'primary' | 'upsell'): 'Header Banner' | 'Inline Banner' {
  return type === 'header' ? 'Header Banner' : 'Inline Banner';
}
