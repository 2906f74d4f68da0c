/**
 * Which uploaded asset a slot shows (spec 02 §4 "Preview asset choice"); used by the delivery
 * endpoint and the preview screen (DECISIONS 14).
 */
import type { BannerSize, BannerSizes, SlotType, Variant } from './schemas';
import { WIDE_HEADER_RATIO } from './constants';
import { SIZE_FAMILIES, slotSizeKey, SLOTS } from './slots';
import { modelKey } from './model-keys';
import { isLive, type Instant } from './schedule';
import { campaignCovers, campaignLive, type CampaignRule } from './campaigns';

/** The fields of an asset the choice reads; stored assets (schemas.ts Asset) satisfy it. */
export interface ChoosableAsset {
  model: string;
  isActive: boolean;
  /** `trim` as the filename writes it ('sport', 'ex-l'); compared case-insensitively, spaces as hyphens. */
  parsedMetadata: { isValid: boolean; trim?: string };
  /** Pixels. */
  dimensions: { width: number; height: number };
  /** Promotion window: shown only from startsAt (inclusive) until endsAt (exclusive); absent/null = open. */
  startsAt?: Instant;
  endsAt?: Instant;
  /**
   * The campaign the asset was uploaded into (domain/campaigns.ts), or absent/null. Such an asset
   * is live only while its campaign is (published, inside the campaign's window: the campaign owns
   * the window, the asset's own startsAt/endsAt are then ignored), and only for the campaign's
   * slots and models.
   */
  campaign?: CampaignRule | null;
}

/** True when an asset may show in slot `slot` of model `model` at `now` (ms): live (schedule.ts isLive) or, for a campaign's creative, active, its campaign live and covering the slot and model. */
export function assetLiveFor(a: ChoosableAsset, slot: SlotType, model: string, now: number): boolean {
  if (!a.campaign) return isLive(a, now);
  return a.isActive && campaignLive(a.campaign, now) && campaignCovers(a.campaign, slot, model);
}

/**
 * The configured size (pixels) of a slot on a device (spec 02 §4 step 3), its size family's
 * (slots.ts): header -> srpHeaderDesktop / srpHeaderMobile; primary and upsell (inline slots) ->
 * inlineDesktop / inlineMobile. Returns the object held in `sizes` (not a copy).
 */
export function slotSize(slot: SlotType, variant: Variant, sizes: BannerSizes): BannerSize {
  return sizes[slotSizeKey(slot, variant)];
}

/** The size and fallback-list key of a slot and device (slots.ts), see slotSize. */
export { slotSizeKey };

/**
 * The CDN auto-discovery URL of a slot (DECISIONS 14 b): the dealer's asset-storage base URL plus
 * its naming pattern with {year} {manufacturer} {model} {trim} {size} {ext} {dealerId} filled in
 * (lowercase; model as its comparison key's readable form, size as WIDTHxHEIGHT, ext 'jpg'); an
 * empty variable's separator is dropped ("new_2026_civic__1920x300" -> "new_2026_civic_1920x300").
 * Any other {name}, "{constructor}" included, is left as written.
 * Returns null without an http(s) base URL or a pattern.
 */
export function cdnAssetUrl(
  storage: { baseUrl: string; customNaming: { pattern: string } },
  v: { year: number; manufacturer: string; model: string; trim?: string; size: BannerSize; dealerId: string },
): string | null {
  const base = storage.baseUrl.trim().replace(/\/+$/, '');
  const pattern = storage.customNaming.pattern.trim();
  if (!/^https?:\/\//i.test(base) || !pattern || !v.model) return null;
  const slug = (x: string) => x.trim().toLowerCase().replace(/\s+/g, '-');
  const values: Record<string, string> = {
    year: String(v.year),
    manufacturer: slug(v.manufacturer),
    model: slug(v.model),
    trim: slug(v.trim ?? ''),
    size: `${v.size.width}x${v.size.height}`,
    ext: 'jpg',
    dealerId: v.dealerId,
  };
  const name = pattern
    .replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(values, k) ? encodeURIComponent(values[k]!) : m))
    .replace(/([_-])\1+/g, '$1')
    .replace(/[_-]+\./g, '.');
  return `${base}/${name}`;
}

/**
 * The fallback asset a slot shows (DECISIONS 14 c): among `list`, the active ones with an http(s)
 * URL, the lowest priority number first (1 before 2), then the oldest. Null when none qualifies.
 */
export function pickFallback<F extends { url: string; isActive: boolean; priority: number; createdAt: string }>(list: F[]): F | null {
  const usable = list.filter((f) => f.isActive && /^https?:\/\//i.test(f.url));
  usable.sort((a, b) => a.priority - b.priority || a.createdAt.localeCompare(b.createdAt));
  return usable[0] ?? null;
}

/** Comparison form of a trim, as asset choice, delivery caching and Free up space compare trims: 'Sport Touring' -> 'sport-touring'. */
export const trimKey = (t: string | undefined): string => (t ?? '').trim().toLowerCase().replace(/\s+/g, '-');

/**
 * Chooses the asset a slot shows (spec 02 §4 "Preview asset choice"), scanning `assets` in the given
 * order (callers pass newest first: among equally good assets the newest wins), the
 * assets of `q.trim` (when given) ahead of the others at every step:
 * 1-2. only live assets (active and inside their promotion window at `q.now`, ms; a campaign's
 *      creatives while their campaign is live and covers the slot and model, assetLiveFor) with
 *      valid parsed metadata whose model has q.model's modelKey; when a live takeover campaign's
 *      creative is among them, only the takeover creatives (campaigns.ts);
 * 3. the first whose dimensions equal slotSize(q.slot, q.variant, q.sizes) exactly;
 * 4. else the first on its size family's side of the ratio rule (slots.ts SIZE_FAMILIES `wide`):
 *    for header the first with width/height > 2, for primary/upsell the first with ratio <= 2;
 * 5. else the first of the model;
 * 6. else null (the caller falls back: CDN, fallback asset, placeholder; DECISIONS 14).
 * For 'upsell' the caller passes the upsell target as q.model (spec 02 §4). Returns the element of
 * `assets` itself; the first of chooseRotation.
 */
export function chooseAsset<A extends ChoosableAsset>(assets: A[], q: ChoiceQuery): A | null {
  return chooseRotation(assets, q)[0] ?? null;
}

/** What a slot asks of chooseAsset and chooseRotation. */
export interface ChoiceQuery {
  model: string;
  slot: SlotType;
  variant: Variant;
  sizes: BannerSizes;
  trim?: string;
  /** Milliseconds since the epoch: which assets are inside their promotion window. */
  now: number;
}

/**
 * The creatives a slot rotates (A/B): the asset chooseAsset picks
 * first, then every other live asset of the same model, trim and pixel size, newest first; [] when
 * chooseAsset finds none. Banner requests pick `rotation[r % length]` with their rotation bucket
 * (rotationPick; page-constants.ts ROTATION_BUCKETS), so the creatives share the slot's impressions evenly.
 */
export function chooseRotation<A extends ChoosableAsset>(assets: A[], q: ChoiceQuery): A[] {
  const key = modelKey(q.model);
  const trim = trimKey(q.trim);
  const live = assets.filter((a) => assetLiveFor(a, q.slot, q.model, q.now) && a.parsedMetadata.isValid && modelKey(a.model) === key);
  // A live takeover campaign's creatives replace every other creative of the slot (campaigns.ts).
  const takeover = live.filter((a) => a.campaign?.mode === 'takeover');
  const ofModel = takeover.length > 0 ? takeover : live;
  const mine = trim ? [...ofModel.filter((a) => trimKey(a.parsedMetadata.trim) === trim), ...ofModel.filter((a) => trimKey(a.parsedMetadata.trim) !== trim)] : ofModel;
  const size = slotSize(q.slot, q.variant, q.sizes);
  const wide = (a: A) => a.dimensions.width > WIDE_HEADER_RATIO * a.dimensions.height;
  const chosen =
    mine.find((a) => a.dimensions.width === size.width && a.dimensions.height === size.height) ??
    mine.find((a) => wide(a) === SIZE_FAMILIES[SLOTS[q.slot].family].wide) ??
    mine[0];
  if (!chosen) return [];
  const same = (a: A) =>
    a.dimensions.width === chosen.dimensions.width && a.dimensions.height === chosen.dimensions.height && trimKey(a.parsedMetadata.trim) === trimKey(chosen.parsedMetadata.trim);
  // `chosen` is the first of its size and trim in `mine`'s order, so it leads the rotation.
  return mine.filter(same);
}

/** The creative of `rotation` that rotation bucket `r` shows (r absent: the first, chooseAsset's). */
export function rotationPick<T>(rotation: readonly T[], r = 0): T | undefined {
  return rotation[r % Math.max(1, rotation.length)];
}

/**
 * True when a creative's shape differs from its slot's by more than 1 % (width/height ratios): it is
 * then shown whole, letterboxed in the slot's box, and Preview marks it amber.
 */
export function shapeMismatch(creative: { width: number; height: number }, slot: { width: number; height: number }): boolean {
  const a = creative.width / creative.height;
  const b = slot.width / slot.height;
  return Math.abs(a - b) / b > 0.01;
}
