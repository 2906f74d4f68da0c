/**
 * Which uploaded asset a slot shows (spec 02 §4 "Preview asset choice"); used by the delivery
 * endpoint and the preview screen (DECISIONS 14).
 */
import type { BannerSize, BannerSizes, SlotType, Variant } from './schemas';
import { WIDE_HEADER_RATIO } from './constants';
import { modelKey } from './model-keys';

/** The fields of an asset the choice reads; stored assets (schemas.ts Asset) satisfy it. */
export interface ChoosableAsset {
  model: string;
  isActive: boolean;
  parsedMetadata: { isValid: boolean };
  /** Pixels. */
  dimensions: { width: number; height: number };
}

/**
 * The configured size (pixels) of a slot on a device (spec 02 §4 step 3): header ->
 * srpHeaderDesktop / srpHeaderMobile; primary and upsell (inline slots) -> inlineDesktop / inlineMobile.
 * Returns the object held in `sizes` (not a copy).
 */
export function slotSize(slot: SlotType, variant: Variant, sizes: BannerSizes): BannerSize {
  if (slot === 'header') return variant === 'mobile' ? sizes.srpHeaderMobile : sizes.srpHeaderDesktop;
  return variant === 'mobile' ? sizes.inlineMobile : sizes.inlineDesktop;
}

/**
 * Chooses the asset a slot shows (spec 02 §4 "Preview asset choice"), scanning `assets` in the given
 * order (callers pass their preferred order, e.g. newest first):
 * 1-2. only active assets with valid parsed metadata whose model has q.model's modelKey;
 * 3. the first whose dimensions equal slotSize(q.slot, q.variant, q.sizes) exactly;
 * 4. else for header the first with width/height > 2, for primary/upsell the first with ratio <= 2;
 * 5. else the first of the model;
 * 6. else null (the caller falls back: CDN, fallback asset, placeholder; DECISIONS 14).
 * For 'upsell' the caller passes the upsell target as q.model (spec 02 §4). Returns the element of
 * `assets` itself.
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
  const wide = (a: A) => a.dimensions.width > WIDE_HEADER_RATIO * a.dimensions.height;
  const byRatio = mine.find((a) => (q.slot === 'header' ? wide(a) : !wide(a)));
  return byRatio ?? mine[0] ?? null;
}
