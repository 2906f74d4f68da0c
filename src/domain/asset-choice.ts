/**
 * Which uploaded asset a slot shows (spec 02 §4 "Preview asset choice"); used by the delivery
 * endpoint and the preview screen (DECISIONS 14).
 */
import type { BannerSize, BannerSizes, SlotType, Variant } from './schemas';
import { WIDE_HEADER_RATIO } from './constants';
import { modelKey } from './model-keys';

export interface ChoosableAsset {
  model: string;
  isActive: boolean;
  parsedMetadata: { isValid: boolean };
  dimensions: { width: number; height: number };
}

/** The configured size of a slot for a device: header -> SRP header sizes, primary/upsell -> inline sizes. */
export function slotSize(slot: SlotType, variant: Variant, sizes: BannerSizes): BannerSize {
  if (slot === 'header') return variant === 'mobile' ? sizes.srpHeaderMobile : sizes.srpHeaderDesktop;
  return variant === 'mobile' ? sizes.inlineMobile : sizes.inlineDesktop;
}

/**
 * Chooses among the dealer's assets, in their given order: only active assets with valid parsed
 * metadata of the model (compared by modelKey); an exact match of the slot size wins; else for
 * header the first with width/height > 2, for primary/upsell the first with ratio <= 2; else the
 * first of the model; else null (the caller shows the placeholder).
 */
export function chooseAsset<A extends ChoosableAsset>(
  assets: A[],
  q: { model: string; slot: SlotType; variant: Variant; sizes: BannerSizes },
): A | null {
  const key = modelKey(q.model);
  const mine = assets.filter((a) => a.isActive && a.parsedMetadata.isValid && modelKey(a.model) === key);
  const size = slotSize(q.slot, q.variant, q.sizes);
  const exact = mine.find((a) => a.dimensions.width === size.width && a.dimensions.height === size.height);
  if (exact) return exact;
  const wide = (a: A) => a.dimensions.width / a.dimensions.height > WIDE_HEADER_RATIO;
  const byRatio = mine.find((a) => (q.slot === 'header' ? wide(a) : !wide(a)));
  return byRatio ?? mine[0] ?? null;
}
