/**
 * Banner delivery: which image a slot shows and its web-optimised bytes (spec 02 §4 "Preview
 * asset choice", DECISIONS 11, 14). The same `resolveBanner` serves the embed script's image
 * requests and the dealer's preview screen.
 */
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import type { Db } from '../db/client';
import { assetBlobs, assets, dealerInventory, dealers, manufacturers } from '../db/schema';
import type { AssetStorage, BannerSizes, DealerConfigs, FallbackAssets, Security, SlotType, Variant } from '../../domain/schemas';
import { cdnAssetUrl, chooseAsset, pickFallback, slotSize, slotSizeKey } from '../../domain/asset-choice';
import { activeUpsellRules, upsellTarget } from '../../domain/upsell';
import { modelKey } from '../../domain/model-keys';
import { NotFound } from '../errors';
import { placeholderSvg } from './placeholder';
import { cdnServes } from './cdn-probe';

/**
 * The model a slot shows: for `upsell`, the upsell target under the dealer's active strategy.
 * `inventoryRules` are the dealer's inventory-optimised rules (dealer_inventory.upsell_rules), or null
 * without inventory data; used when the strategy is 'inventory'.
 */
export function slotModel(
  configs: DealerConfigs,
  manufacturerRules: Record<string, string>,
  model: string,
  slot: SlotType,
  inventoryRules: Record<string, string> | null = null,
): string {
  if (slot !== 'upsell') return model;
  const rules = activeUpsellRules(configs.customUpsellLogic, {
    manufacturerRules,
    dealerUpsellMap: configs.upsellMap,
    customRules: configs.customUpsellRules,
    inventoryRules,
  });
  return upsellTarget(model, rules);
}

export interface ResolvedBanner {
  /**
   * DECISIONS 14 order: 'asset' = an uploaded asset; 'cdn' = found on the dealer's CDN by its naming
   * pattern; 'fallback' = the dealer's fallback asset for the banner type; 'placeholder' = generated SVG.
   */
  source: 'asset' | 'cdn' | 'fallback' | 'placeholder';
  assetId: string | null;
  /** Where 'cdn' and 'fallback' banners live (the delivery endpoint redirects there); else null. */
  url: string | null;
  model: string;
  width: number;
  height: number;
  /** Cache key part that changes whenever the answer may change. */
  version: number;
}

export interface DealerDelivery {
  id: string;
  version: number;
  security: Security;
  sizes: BannerSizes;
  storage: AssetStorage;
  fallbackAssets: FallbackAssets;
  configs: DealerConfigs;
  manufacturerName: string;
  /** modelKey -> the catalogue's display name ('highlander' -> 'Highlander'), for placeholders. */
  displayNames: Map<string, string>;
  manufacturerRules: Record<string, string>;
  inventoryRules: Record<string, string> | null;
  color: string;
}

const MAX_CACHE_ENTRIES = 500;

/** How long a process trusts its cached copy of a dealer's delivery settings (cross-process staleness bound). */
export const DEALER_CACHE_TTL_MS = 1000;
/** One database per process, so the cache is per process. */
const dealerCache = new Map<string, { at: number; value: DealerDelivery | null }>();

/** Drops this process's cached copy of a dealer (called when its assets or settings change). */
export function forgetDealer(dealerId: string): void {
  dealerCache.delete(dealerId);
}

/**
 * A dealer's delivery settings, cached in-process for DEALER_CACHE_TTL_MS so hot public
 * endpoints (banner images, tracking) do not query the database on every request. Changes made
 * by this process invalidate at once (forgetDealer); other processes see them within the TTL,
 * and the dealer's version number in every cache key keeps their image caches consistent.
 * @returns null for an unknown dealer (also cached, against id probing).
 */
export async function findDeliveryDealer(db: Db, dealerId: string): Promise<DealerDelivery | null> {
  const cache = dealerCache;
  const hit = cache.get(dealerId);
  if (hit && Date.now() - hit.at < DEALER_CACHE_TTL_MS) return hit.value;
  const value = await queryDealer(db, dealerId);
  if (cache.size > 10_000) cache.clear();
  cache.set(dealerId, { at: Date.now(), value });
  return value;
}

async function loadDealer(db: Db, dealerId: string): Promise<DealerDelivery> {
  const dealer = await findDeliveryDealer(db, dealerId);
  if (!dealer) throw new NotFound('Unknown dealer');
  return dealer;
}

async function queryDealer(db: Db, dealerId: string): Promise<DealerDelivery | null> {
  const [row] = await db
    .select({
      id: dealers.id,
      version: dealers.version,
      security: dealers.security,
      storage: dealers.assetStorage,
      fallbackAssets: dealers.fallbackAssets,
      configs: dealers.configs,
      manufacturerName: manufacturers.name,
      manufacturerRules: manufacturers.defaultUpsellRules,
      color: manufacturers.primaryColor,
      models: manufacturers.models,
      inventoryRules: dealerInventory.upsellRules,
    })
    .from(dealers)
    .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
    .leftJoin(dealerInventory, eq(dealerInventory.dealerId, dealers.id))
    .where(eq(dealers.id, dealerId));
  if (!row) return null;
  const { models, ...rest } = row;
  const displayNames = new Map(models.map((m) => [modelKey(m.name), m.displayName]));
  return { ...rest, sizes: row.storage.bannerSizes, displayNames };
}

/**
 * Chooses the banner for a slot in the DECISIONS 14 order: the dealer's uploaded asset by the
 * preview rules; else the CDN auto-discovery URL when the CDN is known to serve it (cdn-probe.ts);
 * else, with fallback enabled, the dealer's best fallback asset for the banner type; else the
 * placeholder. @throws NotFound for an unknown dealer.
 */
export async function resolveBanner(
  db: Db,
  dealerId: string,
  q: { model: string; type: SlotType; variant: Variant; trim?: string },
): Promise<ResolvedBanner & { dealer: DealerDelivery }> {
  const dealer = await loadDealer(db, dealerId);
  const key = `${dealer.id}|${dealer.version}|${modelKey(q.model)}|${q.type}|${q.variant}|${q.trim ?? ''}`;
  const hit = choiceCache.get(key);
  if (hit && hit.dealer === dealer) return hit;
  const model = slotModel(dealer.configs, dealer.manufacturerRules, q.model, q.type, dealer.inventoryRules);
  const size = slotSize(q.type, q.variant, dealer.sizes);
  const candidates = model
    ? await db
        .select({
          id: assets.id,
          model: assets.model,
          isActive: assets.isActive,
          parsedMetadata: assets.parsedMetadata,
          width: assets.width,
          height: assets.height,
        })
        .from(assets)
        .where(and(eq(assets.dealerId, dealerId), eq(assets.modelKey, modelKey(model))))
        .orderBy(assets.createdAt)
    : [];
  const chosen = chooseAsset(
    candidates.map((c) => ({ ...c, dimensions: { width: c.width, height: c.height } })),
    { model, slot: q.type, variant: q.variant, sizes: dealer.sizes },
  );
  const resolved = { dealer, ...(chosen ? { source: 'asset' as const, url: null } : otherSource(dealer, model, q)), assetId: chosen?.id ?? null, model,
    width: size.width,
    height: size.height,
    version: dealer.version,
  };
  if (choiceCache.size >= MAX_CACHE_ENTRIES) choiceCache.delete(choiceCache.keys().next().value!);
  choiceCache.set(key, resolved);
  return resolved;
}

/** Steps b-d of the choice order (no uploaded asset matched). */
function otherSource(dealer: DealerDelivery, model: string, q: { type: SlotType; variant: Variant; trim?: string }): Pick<ResolvedBanner, 'source' | 'url'> {
  const cdn = cdnAssetUrl(dealer.storage, {
    year: new Date().getFullYear(),
    manufacturer: dealer.manufacturerName,
    model,
    trim: q.trim,
    size: slotSize(q.type, q.variant, dealer.sizes),
    dealerId: dealer.id,
  });
  if (cdn && cdnServes(cdn)) return { source: 'cdn', url: cdn };
  const fallback = dealer.storage.fallbackEnabled ? pickFallback(dealer.fallbackAssets[slotSizeKey(q.type, q.variant)] ?? []) : null;
  if (fallback) return { source: 'fallback', url: fallback.url };
  return { source: 'placeholder', url: null };
}

/**
 * Choices already made, keyed by dealer version, model key, slot and variant; an entry is used
 * only while the cached dealer object it was made for is current, so a hot banner costs no query.
 */
const choiceCache = new Map<string, ResolvedBanner & { dealer: DealerDelivery }>();

export interface BannerBytes {
  contentType: string;
  body: Buffer;
  etag: string;
}

const cache = new Map<string, BannerBytes>();

/**
 * The bytes of a resolved banner: the asset resized to fit the slot size (never enlarged),
 * as WebP when the client accepts it, else in its own format; or the placeholder SVG.
 * Results are cached in-process by dealer version, so a hot banner is encoded once.
 */
export async function bannerBytes(db: Db, r: ResolvedBanner & { dealer: DealerDelivery }, q: { type: SlotType; acceptsWebp: boolean }): Promise<BannerBytes> {
  const format = r.source === 'placeholder' ? 'svg' : q.acceptsWebp ? 'webp' : 'orig';
  const key = `${r.dealer.id}|${r.version}|${r.assetId ?? r.model}|${q.type}|${r.width}x${r.height}|${format}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let result: Omit<BannerBytes, 'etag'>;
  if (r.source === 'placeholder' || !r.assetId) {
    const svg = placeholderSvg({
      manufacturer: r.dealer.manufacturerName,
      model: r.dealer.displayNames.get(modelKey(r.model)) ?? r.model,
      slot: q.type,
      width: r.width,
      height: r.height,
      color: r.dealer.color,
    });
    result = { contentType: 'image/svg+xml', body: Buffer.from(svg) };
  } else {
    const [row] = await db
      .select({ data: assetBlobs.data, mimeType: assets.mimeType })
      .from(assetBlobs)
      .innerJoin(assets, eq(assets.id, assetBlobs.assetId))
      .where(eq(assetBlobs.assetId, r.assetId));
    if (!row) throw new NotFound('Asset not found');
    const resized = sharp(row.data).resize({ width: r.width, height: r.height, fit: 'inside', withoutEnlargement: true });
    if (format === 'webp') {
      result = { contentType: 'image/webp', body: await resized.webp({ quality: 82 }).toBuffer() };
    } else if (row.mimeType === 'image/png') {
      result = { contentType: 'image/png', body: await resized.png({ compressionLevel: 9 }).toBuffer() };
    } else if (row.mimeType === 'image/webp') {
      result = { contentType: 'image/webp', body: await resized.webp({ quality: 82 }).toBuffer() };
    } else {
      result = { contentType: 'image/jpeg', body: await resized.jpeg({ quality: 82, mozjpeg: true }).toBuffer() };
    }
  }
  const etag = `"${createHash('sha256').update(result.body).digest('base64url').slice(0, 27)}"`;
  const bytes = { ...result, etag };
  if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, bytes);
  return bytes;
}
