/**
 * Banner delivery: which image a slot shows and its web-optimised bytes (spec 02 §4 "Preview
 * asset choice", DECISIONS 11, 14). The same `resolveBanner` serves the embed script's image
 * requests and the dealer's preview screen.
 *
 * Promotion windows: an asset outside its [startsAt, endsAt) window at the context's
 * `now` is not live and never chosen; a campaign's creative follows its campaign's window and
 * status instead (domain/campaigns.ts), and a live takeover campaign's creatives replace the others. Time passing writes nothing (the dealer's version stays),
 * so every choice is cached under the next window boundary after `now` as well as the version
 * (`DealerDelivery.boundaries`): the first request after a boundary misses and chooses again, and
 * the image answer's browser caching ends at that boundary (`ResolvedBanner.expiresAt`).
 */
import { createHash } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { AppMetrics } from '../observability/metrics';
import sharp from 'sharp';
import type { Db } from '../db/client';
import { assetBlobs, assets, campaigns } from '../db/schema';
import type { AssetQuery, SlotType, Variant } from '../../domain/schemas';
import { SLOT_TYPES, SLOTS, VARIANTS } from '../../domain/slots';
import { cdnAssetUrl, chooseRotation, type ChoosableAsset, pickFallback, rotationPick, slotSize, slotSizeKey, trimKey } from '../../domain/asset-choice';
import type { PlannedModel } from '../../domain/slot-plan';
import { modelKey } from '../../domain/model-keys';
import { NotFound } from '../errors';
import { nextBoundary } from '../../domain/schedule';
import { MAX_IMAGE_PIXELS } from '../../domain/constants';
import { placeholderSvg } from './placeholder';
import type { CdnProber } from './cdn-probe';
import type { AppCaches } from './caches';
import type { DealerDelivery } from '../dealer-sites';
import type { InlineLogo } from './logo-fetcher';
import { raiseImageJob, runImageJob, type ImageJobPriority } from '../assets/image-queue';
import { compressVariants, type Encoded } from './encoding';

export interface ResolvedBanner {
  /**
   * DECISIONS 14 order: 'asset' = an uploaded asset; 'cdn' = found on the dealer's CDN by its naming
   * pattern; 'fallback' = the dealer's fallback asset for the banner type; 'placeholder' = generated SVG.
   */
  source: 'asset' | 'cdn' | 'fallback' | 'placeholder';
  assetId: string | null;
  /** Where 'cdn' and 'fallback' banners live (the delivery endpoint redirects there); else null. */
  url: string | null;
  /** The standard model name the slot shows ('cr-v'; for upsell the chosen target). */
  model: string;
  /** That model's comparison key ('crv'): the X-Banner-Model answer, what links and beacons name. */
  modelKey: string;
  /** Its catalogue display name ('CR-V'). */
  displayName: string;
  /** The slot's configured size, pixels. */
  width: number;
  height: number;
  /** The chosen asset's own size, pixels (null without an asset): a different shape is shown letterboxed, never stretched. */
  creative: { width: number; height: number } | null;
  /**
   * The live assets the slot rotates (A/B; chooseRotation), the first chooseAsset's; [] when
   * no asset shows. The request's rotation bucket picks `assetId` among them (rotationPick).
   */
  rotation: Array<{ id: string; width: number; height: number; hash: string }>;
  /** The chosen asset's content hash (a file replaced in place has a new one), '' without an asset: part of its encodings' cache key. */
  assetHash: string;
  /** Cache key part that changes whenever the answer may change. */
  version: number;
  /** The next promotion-window boundary (ms since the epoch) after the choice was made, or null: the choice may change then. */
  expiresAt: number | null;
}

/**
 * What the delivery functions work with: the app's database, its caches (delivery/caches.ts,
 * keyed by dealers.version, which the database raises on every delivery-affecting write), its
 * clock (which assets are inside their promotion window) and its metrics (cache hits and misses,
 * encodings made). The Fastify app itself is one (`app.db`, `app.caches`, `app.now`,
 * `app.metrics`). The dealer itself comes from the dealer read model (`app.dealerSites.find`, dealer-sites/).
 */
export interface DeliveryContext {
  db: Db;
  caches: AppCaches;
  now: () => Date;
  metrics: Pick<AppMetrics, 'lookups' | 'bannerEncodings'>;
}

/**
 * Per dealer and version, the model keys that have uploaded assets (active or not): the negative
 * cache. A model outside the set has no candidate asset, known without a query.
 * The version changes with every asset upload, change or deletion (database triggers, migration
 * 0007), so a new set is loaded (one query) after each change; concurrent first requests share the load.
 */
function assetModelKeys({ db, caches, metrics }: DeliveryContext, dealer: DealerDelivery): Promise<Set<string>> {
  const assetKeySets = caches.assetKeySets;
  const key = `${dealer.id}|${dealer.version}`;
  const hit = assetKeySets.get(key);
  if (hit) {
    metrics.lookups.assetKeys.hit();
    return hit;
  }
  metrics.lookups.assetKeys.miss();
  const load = db
    .selectDistinct({ modelKey: assets.modelKey })
    .from(assets)
    .where(eq(assets.dealerId, dealer.id))
    .then((rows) => new Set(rows.map((r) => r.modelKey)));
  assetKeySets.set(key, load);
  load.catch(() => assetKeySets.delete(key)); // a failed load is retried by the next request
  return load;
}

/** The model a slot of a page model shows (header, primary: the page's model; upsell: its chosen target); null hides the slot. */
export function slotModelOf(dealer: Pick<DealerDelivery, 'plans'>, pageModel: string, slot: SlotType): PlannedModel | null {
  const plan = dealer.plans.get(modelKey(pageModel));
  if (!plan) return null;
  return plan[SLOTS[slot].shows];
}

/** A delivery choice with the dealer settings it was made from. */
export type DeliveryChoice = ResolvedBanner & { dealer: DealerDelivery };

/**
 * Chooses the banner for a slot (the one decision the script, Preview and analytics
 * share). The slot's model comes from the dealer's page plans (slot-plan.ts: mappings, catalogue,
 * upsell strategy and inventory weights); a page model that maps to nothing is refused with
 * NotFound without a query (the script hides such slots). Then the DECISIONS 14 order: the
 * dealer's uploaded asset by the preview rules (newest first, the page's trim preferred); else the
 * CDN auto-discovery URL when the CDN is known to serve it (cdn-probe.ts, `cdn` = app.cdnProbes);
 * else, with fallback enabled, the dealer's best fallback asset for the banner type; else the
 * placeholder. Only assets live at `ctx.now()` (active, inside their promotion window)
 * are chosen. Choices are cached per dealer version and next window boundary (caches.choices),
 * used only while the cached dealer object they were made for is current, so a hot banner costs
 * no query and a promotion starts and ends on time; one with a trim outside the catalogue and
 * trim ladders (any string a visitor's URL carries) is neither cached nor probed.
 * `dealer` is the caller's lookup (`app.dealerSites.find`): the request counts it once.
 * @throws NotFound for a model the dealer does not have.
 */
export async function resolveBanner(
  ctx: DeliveryContext,
  dealer: DealerDelivery,
  q: { model: string; type: SlotType; variant: Variant; trim?: string; r?: number },
  cdn: CdnProber,
): Promise<DeliveryChoice> {
  const slot = slotKey(ctx, dealer, q);
  if (!slot) throw new NotFound(NO_SUCH_MODEL);
  const hit = cachedChoice(ctx, dealer, slot, q, cdn);
  if (hit) return hit;
  ctx.metrics.lookups.choice.miss();
  const { planned, trim, now, expiresAt } = slot;
  const size = slotSize(q.type, q.variant, dealer.sizes);
  const cacheable = !trim || dealer.knownTrims.has(q.trim!.trim().toLowerCase()) || dealer.knownTrims.has(trim);
  const withAssets = await assetModelKeys(ctx, dealer);
  const candidates = withAssets.has(planned.key) ? await assetCandidates(ctx, dealer, planned.key) : [];
  const rotation = chooseRotation(candidates, { model: planned.name, slot: q.type, variant: q.variant, sizes: dealer.sizes, trim, now });
  const chosen = rotation[0];
  const resolved: DeliveryChoice = {
    dealer,
    ...(chosen ? { source: 'asset' as const, url: null } : otherSource(dealer, planned.name, q, cdn, cacheable)),
    assetId: chosen?.id ?? null,
    model: planned.name,
    modelKey: planned.key,
    displayName: planned.displayName,
    width: size.width,
    height: size.height,
    creative: chosen ? { width: chosen.width, height: chosen.height } : null,
    rotation: rotation.map((a) => ({ id: a.id, width: a.width, height: a.height, hash: a.contentHash ?? '' })),
    assetHash: chosen?.contentHash ?? '',
    version: dealer.version,
    expiresAt,
  };
  if (cacheable) ctx.caches.choices.set(slot.key, resolved);
  return rotate(resolved, q.r);
}

/** The 404 of a page model that maps to nothing for the dealer (the embed script hides such slots). */
export const NO_SUCH_MODEL = "No banner: the model is not one of this dealer's models";

/** Where a slot request's choice is cached, and what the choice is made from. */
interface SlotKey {
  /** caches.choices key: dealer, version, next window boundary, slot model, slot type, variant, trim. */
  key: string;
  planned: PlannedModel;
  /** trimKey of the request's trim ('' for none). */
  trim: string;
  /** The context's clock, ms since the epoch. */
  now: number;
  /** The next promotion-window boundary after `now`, or null (ResolvedBanner.expiresAt). */
  expiresAt: number | null;
}

/**
 * The choice cache key of a slot request; null when the page model maps to nothing for this dealer.
 * Time passing bumps no version: the next window boundary is part of the key.
 */
function slotKey(ctx: DeliveryContext, dealer: DealerDelivery, q: { model: string; type: SlotType; variant: Variant; trim?: string }): SlotKey | null {
  const planned = slotModelOf(dealer, q.model, q.type);
  if (!planned) return null;
  const trim = trimKey(q.trim);
  const now = ctx.now().getTime();
  const expiresAt = nextBoundary(dealer.boundaries, now);
  return { key: `${dealer.id}|${dealer.version}|${expiresAt ?? '-'}|${planned.key}|${q.type}|${q.variant}|${trim}`, planned, trim, now, expiresAt };
}

/**
 * resolveBanner's answer when the choice is cached for this very dealer object (no query, no
 * promise), counted as a hit; undefined on a miss, which the caller counts. The CDN's answer changes without a
 * version bump (a probe settles or expires): it is re-read (no query).
 */
function cachedChoice(ctx: DeliveryContext, dealer: DealerDelivery, slot: SlotKey, q: { model: string; type: SlotType; variant: Variant; trim?: string; r?: number }, cdn: CdnProber): DeliveryChoice | undefined {
  const hit = ctx.caches.choices.get(slot.key);
  if (!hit || hit.dealer !== dealer) return undefined;
  ctx.metrics.lookups.choice.hit();
  return hit.source === 'asset' ? rotate(hit, q.r) : { ...hit, ...otherSource(dealer, hit.model, q, cdn, true) };
}

/** The choice with the creative rotation bucket `r` picks (rotationPick); the cached object itself when that is its first. */
function rotate(c: DeliveryChoice, r: number | undefined): DeliveryChoice {
  const a = rotationPick(c.rotation, r);
  return !a || a.id === c.assetId ? c : { ...c, assetId: a.id, assetHash: a.hash, creative: { width: a.width, height: a.height } };
}

/**
 * What a banner request shows (the delivery route's answer and, for beacons, the creative they
 * report): resolveBanner, then `placeholder=1` (the script's one swap after a failed image load)
 * turns it into the slot's placeholder. @throws NotFound as resolveBanner.
 */
export async function slotChoice(ctx: DeliveryContext, dealer: DealerDelivery, q: AssetQuery, cdn: CdnProber): Promise<DeliveryChoice> {
  const chosen = await resolveBanner(ctx, dealer, q, cdn);
  return q.placeholder ? asPlaceholder(chosen) : chosen;
}

/**
 * The slots with nothing to show, for a dealer whose empty slots are hidden (configs.emptySlots
 * 'hide'): page model key (dealer.plans) -> the first letters of its slot types ('h', 'p', 'u')
 * whose choice is the placeholder on both variants without a trim, as resolveBanner decides it at
 * `ctx.now()` (a CDN image counts once a probe has found it). Omits keys with a creative in every
 * slot; {} under 'placeholder'. The embed script and its inline snippet read it (EmbedConfig.bare,
 * SnippetConfig.b) to reserve no box and count nothing. Choices are cached, so this costs no query
 * once a dealer version's slots have been asked for.
 */
export async function bareSlots(ctx: DeliveryContext, dealer: DealerDelivery, cdn: CdnProber): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (dealer.configs.emptySlots !== 'hide') return out;
  for (const key of dealer.plans.keys()) {
    let letters = '';
    for (const type of SLOT_TYPES) {
      const choices = await Promise.all(VARIANTS.map((variant) => resolveBanner(ctx, dealer, { model: key, type, variant }, cdn)));
      if (choices.every((c) => c.source === 'placeholder')) letters += type[0];
    }
    if (letters) out[key] = letters;
  }
  return out;
}

/** A choice turned into the slot's placeholder (`placeholder=1`). */
const asPlaceholder = (c: DeliveryChoice): DeliveryChoice => ({ ...c, source: 'placeholder', assetId: null, assetHash: '', url: null, creative: null, rotation: [] });

/** The creative a choice shows, as events store it: the asset id, else 'cdn', 'fallback' or 'placeholder'. */
export const creativeOf = (c: Pick<ResolvedBanner, 'assetId' | 'source'>): string => c.assetId ?? c.source;

/** An uploaded asset as the preview rules read it. */
export interface Candidate extends ChoosableAsset {
  id: string;
  width: number;
  height: number;
  contentHash: string | null;
}

/**
 * A model's uploaded assets (the preview rules' candidates) with their windows and campaigns
 * (a campaign's creative follows its campaign's status and window, domain/campaigns.ts), newest first (a new promotion
 * replaces the old one at once), cached per dealer
 * version and model key: one query per model with assets and version, whatever slot, variant or
 * trim is asked (a flood of unique trims costs no query either).
 */
function assetCandidates({ db, caches, metrics }: DeliveryContext, dealer: DealerDelivery, key: string): Promise<Candidate[]> {
  const candidateCache = caches.candidates;
  const cacheKey = `${dealer.id}|${dealer.version}|${key}`;
  const hit = candidateCache.get(cacheKey);
  if (hit) {
    metrics.lookups.candidates.hit();
    return hit;
  }
  metrics.lookups.candidates.miss();
  const load = db
    .select({
      id: assets.id,
      model: assets.model,
      isActive: assets.isActive,
      parsedMetadata: assets.parsedMetadata,
      width: assets.width,
      height: assets.height,
      startsAt: assets.startsAt,
      endsAt: assets.endsAt,
      contentHash: assets.contentHash,
      campaign: {
        id: campaigns.id,
        mode: campaigns.mode,
        status: campaigns.status,
        startsAt: campaigns.startsAt,
        endsAt: campaigns.endsAt,
        models: campaigns.models,
        slots: campaigns.slots,
      },
    })
    .from(assets)
    .leftJoin(campaigns, eq(campaigns.id, assets.campaignId))
    .where(and(eq(assets.dealerId, dealer.id), eq(assets.modelKey, key)))
    .orderBy(desc(assets.createdAt), desc(assets.id))
    .then((rows) => rows.map((c) => ({ ...c, campaign: c.campaign?.id ? c.campaign : null, dimensions: { width: c.width, height: c.height } })));
  candidateCache.set(cacheKey, load);
  load.catch(() => candidateCache.delete(cacheKey));
  return load;
}

/** Steps b-d of the choice order (no uploaded asset matched); only known models and trims (`probe`) start CDN probes. */
function otherSource(
  dealer: DealerDelivery,
  model: string,
  q: { type: SlotType; variant: Variant; trim?: string },
  cdn: CdnProber,
  probe: boolean,
): Pick<ResolvedBanner, 'source' | 'url'> {
  const cdnUrl = cdnAssetUrl(dealer.storage, {
    year: new Date().getFullYear(),
    manufacturer: dealer.manufacturerName,
    model,
    trim: q.trim,
    size: slotSize(q.type, q.variant, dealer.sizes),
    dealerId: dealer.id,
  });
  if (cdnUrl && cdn.serves(cdnUrl, { probe })) return { source: 'cdn', url: cdnUrl };
  const fallback = dealer.storage.fallbackEnabled ? pickFallback(dealer.fallbackAssets[slotSizeKey(q.type, q.variant)] ?? []) : null;
  if (fallback) return { source: 'fallback', url: fallback.url };
  return { source: 'placeholder', url: null };
}

export interface BannerBytes {
  contentType: string;
  body: Buffer;
  etag: string;
  /** Brotli and gzip copies of an SVG body, made once with the entry; raster images have none. */
  encoded?: Encoded;
}

/**
 * The bytes of a resolved banner: the asset resized to fit the slot size times `scale` (1 or 2, the
 * srcset candidate; never enlarged, aspect ratio kept),
 * as WebP when the client accepts it, else in its own format; or the placeholder SVG.
 * Results are cached in the app (caches.bannerBytes, LRU by size in bytes): an asset's encodings by asset id, size and format (they outlive
 * the dealer's version), placeholders by dealer version; so a hot banner is encoded once. Requests
 * that miss while the same encoding is being made wait for it instead of starting their own (after a
 * restart, 50 connections asking for one banner cost one resize, not one each); a failed encoding
 * is not kept, so the next request tries again. Each encoding made counts in
 * dcb_banner_encodings_total. Resizing runs in the bounded image queue at delivery priority; with
 * `opts.background` (the warm-up's speculative encodings) at the lowest, and a request that comes
 * to wait for such an encoding raises it to delivery priority. @throws NotFound when the asset vanished.
 */
export async function bannerBytes(
  { db, caches, metrics }: DeliveryContext,
  r: DeliveryChoice,
  q: { type: SlotType; acceptsWebp: boolean; scale?: number },
  opts: { background?: boolean } = {},
): Promise<BannerBytes> {
  const { key, format, box, logo } = bytesKey(caches, r, q);
  const hit = caches.bannerBytes.get(key);
  if (hit) {
    metrics.lookups.bytes.hit();
    return hit;
  }
  metrics.lookups.bytes.miss();
  const pending = encodingsOf(caches);
  const running = pending.get(key);
  if (running) {
    if (!opts.background && running.priority === 'background') {
      // A request waits for a speculative encoding: it jumps the queue now (or when it is queued).
      running.priority = 'delivery';
      raiseImageJob(running.id, 'delivery');
    }
    return running.bytes;
  }
  const queued: Pick<Encoding, 'id' | 'priority'> = { id: `${key}|${++encodingIds}`, priority: opts.background ? 'background' : 'delivery' };
  // The same object: a request raising `priority` later is seen by encodeBytes when it queues the resize.
  const encoding: Encoding = Object.assign(queued, { bytes: encodeBytes({ db, caches, metrics }, key, r, q.type, format, box, logo, queued) });
  pending.set(key, encoding);
  // Settled: the bytes are in caches.bannerBytes (or the failure is forgotten); later misses start anew.
  const forget = () => void pending.delete(key);
  encoding.bytes.then(forget, forget);
  return encoding.bytes;
}

/** One encoding in progress: the promise its requests share, and the image-queue priority it is (to be) queued at. */
interface Encoding {
  /** The image-queue job id (unique per encoding, so raising one never moves another app's job). */
  id: string;
  priority: ImageJobPriority;
  bytes: Promise<BannerBytes>;
}
let encodingIds = 0;

/** Encodings in progress per app cache set, by bannerBytes key (the waiting requests share the promise). */
const inFlight = new WeakMap<AppCaches, Map<string, Encoding>>();

/** The encodings in progress for these caches (an app's; two apps in one process never share one). */
function encodingsOf(caches: AppCaches): Map<string, Encoding> {
  let pending = inFlight.get(caches);
  if (!pending) inFlight.set(caches, (pending = new Map()));
  return pending;
}

/**
 * Makes one banner encoding (bannerBytes' miss), caches it under `key` and counts it in
 * dcb_banner_encodings_total. The resize is queued at `encoding.priority` as it stands when the
 * asset's bytes have been read (a request may have raised it meanwhile), under `encoding.id`.
 */
async function encodeBytes(
  { db, caches, metrics }: Pick<DeliveryContext, 'db' | 'caches' | 'metrics'>,
  key: string,
  r: DeliveryChoice,
  type: SlotType,
  format: string,
  box: { width: number; height: number },
  logo: InlineLogo | null,
  encoding: Pick<Encoding, 'id' | 'priority'>,
): Promise<BannerBytes> {
  let result: Omit<BannerBytes, 'etag'>;
  if (r.source === 'placeholder' || !r.assetId) {
    const svg = placeholderSvg({
      manufacturer: r.dealer.manufacturerName,
      model: r.displayName,
      slot: type,
      width: r.width,
      height: r.height,
      color: r.dealer.color,
      branding: r.dealer.branding,
      logo,
    });
    result = { contentType: 'image/svg+xml', body: Buffer.from(svg) };
  } else {
    const assetId = r.assetId;
    const [row] = await db
      .select({ data: assetBlobs.data, mimeType: assets.mimeType })
      .from(assetBlobs)
      .innerJoin(assets, eq(assets.id, assetBlobs.assetId))
      .where(eq(assetBlobs.assetId, assetId));
    if (!row) throw new NotFound('Asset not found');
    result = await runImageJob(() => encodeBanner(row.data, row.mimeType, format, box), encoding.priority, encoding.id);
  }
  metrics.bannerEncodings.inc({ format });
  const etag = `"${createHash('sha256').update(result.body).digest('base64url').slice(0, 27)}"`;
  const bytes: BannerBytes = { ...result, etag };
  // Text (SVG) is compressed once here; WebP, JPEG and PNG are already compressed.
  if (bytes.contentType === 'image/svg+xml') bytes.encoded = await compressVariants(bytes.body);
  caches.bannerBytes.set(key, bytes); // keys bounded by the dealers' models and uploaded assets
  return bytes;
}

/** Where bannerBytes caches a choice's bytes, and what it makes them from. */
function bytesKey(caches: AppCaches, r: DeliveryChoice, q: { type: SlotType; acceptsWebp: boolean; scale?: number }) {
  const format = r.source === 'placeholder' ? 'svg' : q.acceptsWebp ? 'webp' : 'orig';
  // srcset's 2x candidate: twice the slot's pixels (an SVG placeholder is the same at any scale).
  const scale = r.assetId && q.scale === 2 ? 2 : 1;
  const box = { width: r.width * scale, height: r.height * scale };
  // An asset's encodings are keyed by its id and content hash (a file replaced in place has a new
  // hash), not the dealer's version: uploads and deletions elsewhere do not make hot banners re-encode.
  // A placeholder shows the dealer's logo once fetched in the background (never waited for): its tag is in the key.
  const logo = r.assetId ? null : caches.logos.logo(r.dealer.branding.logoUrl);
  const key = r.assetId ? `asset|${r.assetId}|${r.assetHash}|${box.width}x${box.height}|${format}` : `${r.dealer.id}|${r.version}|${r.model}|${q.type}|${r.width}x${r.height}|${format}|${logo?.tag ?? ''}`;
  return { key, format, box, logo };
}

/** The asset resized to fit the slot (never enlarged), in the format chosen; run in the image queue. */
async function encodeBanner(data: Buffer, mimeType: string, format: string, size: { width: number; height: number }): Promise<Omit<BannerBytes, 'etag'>> {
  const resized = sharp(data, { limitInputPixels: MAX_IMAGE_PIXELS }).resize({ width: size.width, height: size.height, fit: 'inside', withoutEnlargement: true });
  if (format === 'webp') return { contentType: 'image/webp', body: await resized.webp({ quality: 82 }).toBuffer() };
  if (mimeType === 'image/png') return { contentType: 'image/png', body: await resized.png({ compressionLevel: 9 }).toBuffer() };
  if (mimeType === 'image/webp') return { contentType: 'image/webp', body: await resized.webp({ quality: 82 }).toBuffer() };
  return { contentType: 'image/jpeg', body: await resized.jpeg({ quality: 82, mozjpeg: true }).toBuffer() };
}
