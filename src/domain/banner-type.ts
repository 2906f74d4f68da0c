/** Banner type from image dimensions (spec 01 §5 "Banner type from dimensions", spec 02 §5). */
import type { BannerSizes } from './schemas';
import { WIDE_HEADER_RATIO } from './constants';

/**
 * Banner type of an image of `width` x `height` pixels (spec 01 §5). With the dealer's configured
 * sizes: an exact match to srpHeaderDesktop or srpHeaderMobile gives 'header' (checked first), an
 * exact match to inlineDesktop or inlineMobile gives 'primary'. Otherwise (or without sizes) the
 * ratio rule: width > WIDE_HEADER_RATIO (2) x height is 'header', anything else 'primary'.
 */
export function bannerTypeFromDimensions(width: number, height: number, sizes?: BannerSizes): 'header' | 'primary' {
  const is = (s: { width: number; height: number }) => s.width === width && s.height === height;
  if (sizes) {
    if (is(sizes.srpHeaderDesktop) || is(sizes.srpHeaderMobile)) return 'header';
    if (is(sizes.inlineDesktop) || is(sizes.inlineMobile)) return 'primary';
  }
  return width > WIDE_HEADER_RATIO * height ? 'header' : 'primary';
}

/**
 * Label of a banner type in the upload results (spec 02 §2 Asset upload panel): 'header' ->
 * 'Header Banner'; 'primary' and 'upsell' (both inline slots) -> 'Inline Banner'.
 */
export function bannerTypeLabel(type: 'header' | 'primary' | 'upsell'): 'Header Banner' | 'Inline Banner' {
  return type === 'header' ? 'Header Banner' : 'Inline Banner';
}
