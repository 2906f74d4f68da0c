/**
 * Dealer banner assets: upload (filename rules, real image inspection, quota), listing, bytes,
 * delete (spec 01 §5, spec 02 §2-§5, DECISIONS 10-13, 24); promotion windows and bulk
 * deactivate/delete. Functions that say what shows take the request time `now`
 * (app.now), never the clock.
 */
import { createHash, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { LRUCache } from 'lru-cache';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { assetBlobs, assets, campaigns, dealers, manufacturers } from '../db/schema';
import { campaignState } from '../../domain/campaigns';
import type { Asset, AssetReplacement, AssetType, BannerSizes, ParsedFilename, VehicleModel } from '../../domain/schemas';
import {
  ACCEPTED_IMAGE_EXTENSIONS,
  MAX_ASSET_BYTES,
  MAX_IMAGE_PIXELS,
  STORAGE_REFUSE_RATIO,
  TEXT,
} from '../../domain/constants';
import { validateAssetFilename, fileExtension } from '../../domain/filename';
import { bannerTypeFromDimensions } from '../../domain/banner-type';
import { UPLOAD_TYPES } from '../../domain/slots';
import { modelKey } from '../../domain/model-keys';
import { trimKey } from '../../domain/asset-choice';
import { instantMs, isLive, parseWindowInput, scheduleStatus, WINDOW_FORMAT_MESSAGE, WINDOW_ORDER_MESSAGE } from '../../domain/schedule';
import { Invalid, NotFound, QuotaExceeded } from '../errors';
import { dealerTimeZone, dealerWithManufacturer } from '../dealers/service';
import { inspectImage } from './image';
import { runImageJob } from './image-queue';
import { deadBannerWarnings, type UploadCheckDealer } from './upload-checks';
import type { AssetPatch, BulkAction, BulkResult, CleanupAsset, CleanupGroup, CleanupPlan, FreeUpSpaceResult, UploadResult } from '../../domain/contracts/assets';

type AssetRow = typeof assets.$inferSelect;

/** A UUID's text form (asset ids). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Answer shapes: src/domain/contracts/assets.ts.
export type { CleanupAsset, CleanupGroup, CleanupPlan, FreeUpSpaceResult, UploadResult } from '../../domain/contracts/assets';

/** API shape of an asset row; `schedule` is its window's status at `now`. */
export function toAsset(row: AssetRow, now: Date): Asset {
  return {
    id: row.id,
    dealerId: row.dealerId,
    name: row.name,
    type: row.type as AssetType,
    model: row.model,
    trim: row.trim,
    year: row.year,
    manufacturer: row.manufacturer,
    mimeType: row.mimeType,
    sizeBytes: row.sizeBytes,
    dimensions: { width: row.width, height: row.height },
    isActive: row.isActive,
    parsedMetadata: row.parsedMetadata,
    createdAt: row.createdAt.toISOString(),
    // The content hash in the URL: a replaced file is a new URL for the browser's cache.
    url: `/api/dealers/${encodeURIComponent(row.dealerId)}/assets/${row.id}/image?h=${(row.contentHash ?? '').slice(0, 12)}`,
    startsAt: row.startsAt?.toISOString() ?? null,
    endsAt: row.endsAt?.toISOString() ?? null,
    schedule: scheduleStatus(row, now),
    replacements: row.replacements,
    neverShows: null,
    campaignId: row.campaignId ?? null,
  };
}

/**
 * All assets of a dealer, newest first, with their schedule status at `now`. A campaign's creative
 * shows its campaign's window, and its status follows the campaign (domain/campaigns.ts
 * campaignState): 'live' while it is live, 'expired' once ended, else 'scheduled' (a draft,
 * paused, or before its start).
 */
export async function listAssets(db: Db, dealerId: string, now: Date): Promise<Asset[]> {
  const rows = await db
    .select({ asset: assets, campaign: { startsAt: campaigns.startsAt, endsAt: campaigns.endsAt, status: campaigns.status } })
    .from(assets)
    .leftJoin(campaigns, eq(campaigns.id, assets.campaignId))
    .where(eq(assets.dealerId, dealerId))
    .orderBy(desc(assets.createdAt));
  return rows.map(({ asset, campaign }) => {
    const a = toAsset(asset, now);
    if (!asset.campaignId || !campaign) return a;
    const state = campaignState(campaign, now.getTime());
    return { ...a, startsAt: campaign.startsAt.toISOString(), endsAt: campaign.endsAt?.toISOString() ?? null, schedule: state === 'live' ? 'live' : state === 'ended' ? 'expired' : 'scheduled' };
  });
}

/** A promotion window as stored: UTC instants, null = open. */
export interface AssetWindow {
  startsAt: Date | null;
  endsAt: Date | null;
}

/**
 * The window an asset gets from request fields: each field a date-time text
 * (domain/schedule.ts parseWindowInput: with an offset, or local in `timeZone`), null to clear it,
 * absent to keep `current`. @throws Invalid naming the field: 'startsAt: must be a date-time ...',
 * or 'endsAt: must be after startsAt' when the resulting end is not after the start.
 */
export function resolveWindow(input: { startsAt?: string | null; endsAt?: string | null }, current: AssetWindow, timeZone: string): AssetWindow {
  const read = (field: 'startsAt' | 'endsAt'): Date | null => {
    const v = input[field];
    if (v === undefined) return current[field];
    if (v === null || v.trim() === '') return null;
    const at = parseWindowInput(v, timeZone);
    if (!at) throw Invalid.field(field, WINDOW_FORMAT_MESSAGE, 'invalid_format');
    return at;
  };
  const window = { startsAt: read('startsAt'), endsAt: read('endsAt') };
  if (window.startsAt && window.endsAt && window.endsAt.getTime() <= window.startsAt.getTime()) {
    throw Invalid.field('endsAt', WINDOW_ORDER_MESSAGE, 'window_order');
  }
  return window;
}

/** The time zone a dealer's windows are entered in. @throws NotFound for an unknown dealer. */
export async function windowTimeZone(db: Db | Tx, dealerId: string): Promise<string> {
  const [row] = await db.select({ timeZone: dealers.timeZone }).from(dealers).where(eq(dealers.id, dealerId));
  if (!row) throw new NotFound(TEXT.dealerNotFound);
  return dealerTimeZone(row);
}

/** Bytes used by a dealer's stored originals. */
export async function storageUsed(db: Db | Tx, dealerId: string): Promise<number> {
  const [row] = await db
    .select({ used: sql<number>`coalesce(sum(${assets.sizeBytes}), 0)`.mapWith(Number) })
    .from(assets)
    .where(eq(assets.dealerId, dealerId));
  return row?.used ?? 0;
}

/** Storage use of a dealer against its quota (DECISIONS 12). */
export async function storageUsage(db: Db, dealerId: string): Promise<{ usedBytes: number; quotaBytes: number }> {
  const [dealer] = await db.select({ storage: dealers.assetStorage }).from(dealers).where(eq(dealers.id, dealerId));
  if (!dealer) throw new NotFound(TEXT.dealerNotFound);
  return { usedBytes: await storageUsed(db, dealerId), quotaBytes: dealer.storage.storageQuotaBytes };
}

/** The same bytes are already stored for the dealer: the upload is answered as already uploaded, nothing stored. */
class AlreadyUploaded extends Error {}

/** An uploaded file that passed the checks needing no database (checkUpload), ready to store. */
export interface CheckedUpload {
  filename: string;
  bytes: Buffer;
  parsed: ParsedFilename;
  info: Awaited<ReturnType<typeof inspectImage>>;
  warnings: string[];
  contentHash: string;
}

/**
 * The checks of one uploaded file that need no database: its name, type, size and image (issue
 * 15's page-plan warnings with `opts.dealer`). Bad input never throws: it comes back as
 * `{ filename, ok: false, error, hint? }`, so the other files of the same upload still go through.
 */
export async function checkUpload(filename: string, bytes: Buffer, opts: { dealer?: UploadCheckDealer }): Promise<CheckedUpload | Extract<UploadResult, { ok: false }>> {
  const named = validateAssetFilename(filename);
  if (!named.ok) return { filename, ok: false, error: named.error, hint: named.suggestion };
  const ext = fileExtension(filename);
  if (!(ACCEPTED_IMAGE_EXTENSIONS as readonly string[]).includes(ext)) {
    return { filename, ok: false, error: `${TEXT.invalidFileTypeOrSize}: file type must be ${ACCEPTED_IMAGE_EXTENSIONS.join(', ')}` };
  }
  if (bytes.length > MAX_ASSET_BYTES) {
    return { filename, ok: false, error: `${TEXT.invalidFileTypeOrSize}: file is larger than ${MAX_ASSET_BYTES} bytes` };
  }
  let info;
  try {
    info = await inspectImage(bytes);
  } catch (err) {
    if (err instanceof Invalid) return { filename, ok: false, error: err.message };
    throw err;
  }
  const parsed = named.parsed;
  const warnings: string[] = [];
  if (parsed.dimensions.width !== info.width || parsed.dimensions.height !== info.height) {
    warnings.push(
      `The file name says ${parsed.dimensions.width}x${parsed.dimensions.height} but the image is ${info.width}x${info.height}; the real size is used.`,
    );
  }
  if (opts.dealer) warnings.push(...deadBannerWarnings(parsed, opts.dealer));
  const contentHash = createHash('sha256').update(bytes).digest('hex');
  return { filename, bytes, parsed, info, warnings, contentHash };
}

/**
 * Stores one checked upload for a dealer, with the upload's promotion window (`window`, already
 * checked by resolveWindow). A file whose bytes the dealer already stored for the same
 * model and trim comes back as `{ ok: false }` ('Already uploaded: the same file is stored as
 * {name}', by content hash; for another model it is stored with a note), as does one over the
 * quota. Quota checks and the insert run in one transaction (a savepoint when `db` is a
 * transaction: the route stores a whole upload in one) holding the dealer row lock.
 * @throws NotFound for an unknown dealer; database errors (a full disk among them) as they come.
 */
export async function storeUpload(db: Db | Tx, dealerId: string, upload: CheckedUpload, opts: { window?: AssetWindow; now: Date; campaignId?: string | null }): Promise<UploadResult> {
  const { filename, bytes, parsed, info, contentHash } = upload;
  const warnings = [...upload.warnings];
  try {
    const asset = await db.transaction(async (tx) => {
      const [dealer] = await tx
        .select({ storage: dealers.assetStorage })
        .from(dealers)
        .where(eq(dealers.id, dealerId))
        .for('update');
      if (!dealer) throw new NotFound(TEXT.dealerNotFound);
      // The same bytes for the same model and trim: the file is already there. For another model
      // (one creative used for two models) it is stored, with a note.
      const same = await tx
        .select({ name: assets.name, modelKey: assets.modelKey, trim: assets.trim })
        .from(assets)
        .where(and(eq(assets.dealerId, dealerId), eq(assets.contentHash, contentHash)));
      const twin = same.find((a) => a.modelKey === modelKey(parsed.model) && trimKey(a.trim) === trimKey(parsed.trim));
      if (twin) throw new AlreadyUploaded(`Already uploaded: the same file is stored as ${twin.name}`);
      if (same[0]) warnings.push(`The same image is also stored as ${same[0].name}.`);
      const quota = dealer.storage.storageQuotaBytes;
      const used = await storageUsed(tx, dealerId);
      if (used > quota * STORAGE_REFUSE_RATIO) throw new QuotaExceeded(TEXT.storageNearlyFull);
      if (used + bytes.length > quota) throw new QuotaExceeded(TEXT.storageQuotaExceeded);
      const type = bannerTypeFromDimensions(info.width, info.height, dealer.storage.bannerSizes);
      const id = randomUUID();
      const [row] = await tx
        .insert(assets)
        .values({
          id,
          dealerId,
          name: filename,
          type,
          model: parsed.model,
          modelKey: modelKey(parsed.model),
          trim: parsed.trim,
          year: parsed.year,
          manufacturer: parsed.manufacturer,
          mimeType: info.mimeType,
          sizeBytes: bytes.length,
          width: info.width,
          height: info.height,
          parsedMetadata: { ...parsed, dimensions: { width: info.width, height: info.height } },
          contentHash,
          startsAt: opts.window?.startsAt ?? null,
          endsAt: opts.window?.endsAt ?? null,
          campaignId: opts.campaignId ?? null,
          origin: opts.campaignId ? 'campaign' : 'library',
        })
        .returning();
      await tx.insert(assetBlobs).values({ assetId: id, data: bytes });
      return toAsset(row!, opts.now);
    });
    return { filename, ok: true, asset, warnings };
  } catch (err) {
    if (err instanceof QuotaExceeded || err instanceof AlreadyUploaded) return { filename, ok: false, error: err.message };
    throw err;
  }
}

/**
 * Replaces the file of one asset of a dealer in place: the asset keeps its id, and with
 * it its statistics (events and rollups name the id), name, model, trim, window and on/off state;
 * its bytes, type, size and content hash change, and the replacement is appended to
 * `replacements`. The new file must be an accepted image of the same pixel size (the creative's
 * slot stays the same). Quota counts the new bytes instead of the old; the dealer row is locked as
 * for an upload. The database bumps dealers.version (migration 0007), so delivery shows the new
 * file at once. @throws NotFound('Asset not found'); Invalid naming what is wrong with the file;
 * QuotaExceeded (413) when the larger file does not fit.
 */
export async function replaceAssetFile(db: Db, dealerId: string, assetId: string, filename: string, bytes: Buffer, now: Date): Promise<Asset> {
  if (!(ACCEPTED_IMAGE_EXTENSIONS as readonly string[]).includes(fileExtension(filename))) {
    throw new Invalid(`${TEXT.invalidFileTypeOrSize}: file type must be ${ACCEPTED_IMAGE_EXTENSIONS.join(', ')}`);
  }
  if (bytes.length > MAX_ASSET_BYTES) throw new Invalid(`${TEXT.invalidFileTypeOrSize}: file is larger than ${MAX_ASSET_BYTES} bytes`);
  const info = await inspectImage(bytes);
  const contentHash = createHash('sha256').update(bytes).digest('hex');
  return db.transaction(async (tx) => {
    const [dealer] = await tx.select({ storage: dealers.assetStorage }).from(dealers).where(eq(dealers.id, dealerId)).for('update');
    if (!dealer) throw new NotFound(TEXT.dealerNotFound);
    const [cur] = await tx
      .select()
      .from(assets)
      .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)))
      .for('update');
    if (!cur) throw new NotFound('Asset not found');
    if (info.width !== cur.width || info.height !== cur.height) {
      throw new Invalid(`The replacement must be ${cur.width}x${cur.height} like the banner it replaces; this image is ${info.width}x${info.height}`);
    }
    if (cur.contentHash === contentHash) throw new Invalid(`This is the file ${cur.name} already shows`);
    const used = await storageUsed(tx, dealerId);
    if (used - cur.sizeBytes + bytes.length > dealer.storage.storageQuotaBytes) throw new QuotaExceeded(TEXT.storageQuotaExceeded);
    const replacement: AssetReplacement = { at: now.toISOString(), filename, replacedSizeBytes: cur.sizeBytes };
    const [row] = await tx
      .update(assets)
      .set({ mimeType: info.mimeType, sizeBytes: bytes.length, contentHash, replacements: [...cur.replacements, replacement] })
      .where(eq(assets.id, assetId))
      .returning();
    await tx.update(assetBlobs).set({ data: bytes }).where(eq(assetBlobs.assetId, assetId));
    return toAsset(row!, now);
  });
}

/** Deletes one asset of a dealer. @throws NotFound when the dealer has no such asset. */
export async function deleteAsset(db: Db, dealerId: string, assetId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(assets)
      .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)))
      .returning({ id: assets.id });
    if (deleted.length === 0) throw new NotFound('Asset not found');
  });
}

/** The stored bytes and type of one asset of a dealer. @throws NotFound. */
export async function assetBytes(db: Db, dealerId: string, assetId: string): Promise<{ mimeType: string; data: Buffer }> {
  const [row] = await db
    .select({ mimeType: assets.mimeType, data: assetBlobs.data })
    .from(assets)
    .innerJoin(assetBlobs, eq(assetBlobs.assetId, assets.id))
    .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)));
  if (!row) throw new NotFound('Asset not found');
  return row;
}

/** A thumbnail as cached: its type and bytes (`etag` unused, '': the route answers no validator). */
export interface Thumbnail {
  contentType: string;
  body: Buffer;
  etag: string;
}

/** Where thumbnails are kept: the app's byte-sized LRU of banner bytes (delivery/caches.ts bannerBytes), or any such map. */
export type ThumbnailCache = Pick<LRUCache<string, Thumbnail>, 'get' | 'set'>;

/** The box a thumbnail fits in, pixels: twice the Asset Manager card's image area, for sharp screens. */
export const THUMBNAIL_BOX = { width: 600, height: 240 };

/**
 * A small variant of one asset of a dealer for cards and tables (not the original
 * bytes): resized to fit THUMBNAIL_BOX (never enlarged, aspect kept), WebP when `webp`, else JPEG;
 * made once per asset, content hash and format in the image queue and kept in `cache` (the app's
 * byte-sized LRU). @throws NotFound.
 */
export async function assetThumbnail(db: Db, cache: ThumbnailCache, dealerId: string, assetId: string, webp: boolean): Promise<{ contentType: string; body: Buffer }> {
  const [row] = await db
    .select({ hash: assets.contentHash })
    .from(assets)
    .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)));
  if (!row) throw new NotFound('Asset not found');
  const key = `thumb|${assetId}|${row.hash ?? ''}|${webp ? 'webp' : 'jpeg'}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const { data } = await assetBytes(db, dealerId, assetId);
  const body = await runImageJob(() => {
    const resized = sharp(data, { limitInputPixels: MAX_IMAGE_PIXELS }).resize({ ...THUMBNAIL_BOX, fit: 'inside', withoutEnlargement: true });
    return (webp ? resized.webp({ quality: 75 }) : resized.flatten({ background: '#ffffff' }).jpeg({ quality: 78, mozjpeg: true })).toBuffer();
  });
  const thumb = { contentType: webp ? 'image/webp' : 'image/jpeg', body, etag: '' };
  cache.set(key, thumb);
  return thumb;
}

/**
 * Changes one asset of a dealer (PATCH): `isActive` turns it on or off for delivery and preview
 * (spec 02 §3 Asset.isActive; inactive assets are never chosen, spec 02 §4 step 2); `startsAt` /
 * `endsAt` set (a date-time, local ones in the dealer's time zone) or clear (null) its promotion
 * window; absent fields are kept. The asset row is locked while the new window is
 * checked against the stored one. The database bumps dealers.version (migration 0007).
 * @throws NotFound('Asset not found'); Invalid naming the window field (see resolveWindow), also
 *   for a campaign's creative, whose window is its campaign's.
 */
export async function updateAsset(db: Db, dealerId: string, assetId: string, patch: AssetPatch, now: Date): Promise<Asset> {
  return db.transaction(async (tx) => {
    const [cur] = await tx
      .select({ startsAt: assets.startsAt, endsAt: assets.endsAt, campaignId: assets.campaignId })
      .from(assets)
      .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)))
      .for('update');
    if (!cur) throw new NotFound('Asset not found');
    const changesWindow = patch.startsAt !== undefined || patch.endsAt !== undefined;
    // A campaign's creative follows its campaign's window: change the campaign instead.
    if (changesWindow && cur.campaignId) throw Invalid.field(patch.startsAt !== undefined ? 'startsAt' : 'endsAt', "belongs to the asset's campaign: change the campaign's window instead", 'campaign_window');
    const window = changesWindow ? resolveWindow(patch, cur, await windowTimeZone(tx, dealerId)) : cur;
    const [row] = await tx
      .update(assets)
      .set({ ...(patch.isActive === undefined ? {} : { isActive: patch.isActive }), startsAt: window.startsAt, endsAt: window.endsAt })
      .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)))
      .returning();
    return toAsset(row!, now);
  });
}

/**
 * Applies one action to several assets of a dealer at once (Asset Manager bulk actions):
 * 'deactivate' / 'activate' set isActive, 'delete' removes them; one statement, so the database
 * bumps the dealer's version once (migration 0007). Ids that are not this dealer's assets (or
 * not asset ids at all) are left alone and come back in `skipped`.
 */
export async function bulkAssets(db: Db, dealerId: string, action: BulkAction, assetIds: string[]): Promise<BulkResult> {
  const wanted = [...new Set(assetIds)];
  // Only well-formed ids reach the uuid column (a malformed one is simply skipped, not a 500).
  const ids = wanted.filter((id) => UUID.test(id));
  if (ids.length === 0) return { action, changed: 0, skipped: wanted };
  const where = and(eq(assets.dealerId, dealerId), inArray(assets.id, ids));
  const done =
    action === 'delete'
      ? await db.delete(assets).where(where).returning({ id: assets.id })
      : await db
          .update(assets)
          .set({ isActive: action === 'activate' })
          .where(where)
          .returning({ id: assets.id });
  const hit = new Set(done.map((r) => r.id));
  return { action, changed: hit.size, skipped: wanted.filter((id) => !hit.has(id)) };
}

/** The dealer's data the plan reads: current banner sizes and the manufacturer's models (display names). */
interface PlanContext {
  sizes: BannerSizes;
  models: VehicleModel[];
}

const toCleanupAsset = (row: AssetRow): CleanupAsset => ({
  id: row.id,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  sizeBytes: row.sizeBytes,
  isActive: row.isActive,
  endsAt: row.endsAt?.toISOString() ?? null,
});

async function planContext(db: Db | Tx, dealerId: string): Promise<PlanContext> {
  const row = await dealerWithManufacturer(db, dealerId, { storage: dealers.assetStorage, models: manufacturers.models });
  return { sizes: row.storage.bannerSizes, models: row.models };
}

/**
 * True when `row` can never be shown again from `now` on: it is inactive or has invalid
 * metadata, or its window has ended. A live asset of the same group as a newer one is not: they
 * rotate (A/B, domain/asset-choice.ts chooseRotation).
 */
function neverShownAgain(row: AssetRow, now: number): boolean {
  if (!row.isActive || !row.parsedMetadata.isValid) return true;
  const end = instantMs(row.endsAt) ?? Infinity;
  return Math.max(now, instantMs(row.startsAt) ?? now) >= end;
}

/**
 * The plan for `rows` (newest first: createdAt desc, id desc, the order delivery scans) at `now`.
 * Groups by modelKey, trim (as chooseAsset compares it), slot and exact size; keeps the first asset
 * live at `now` (the one delivery shows first: active, valid metadata, inside its window),
 * else the first that will still show, else the first; lists for removal only the others that
 * can never show again (neverShownAgain), so neither a scheduled promotion nor a creative in
 * rotation is ever offered. Groups are sorted by model, trim, slot (header first) and size.
 */
function buildPlan(rows: AssetRow[], ctx: PlanContext, now: Date): CleanupPlan {
  const groups = new Map<string, { group: Omit<CleanupGroup, 'keep' | 'remove'>; rows: AssetRow[] }>();
  for (const row of rows) {
    const trim = trimKey(row.parsedMetadata.trim);
    const slot = bannerTypeFromDimensions(row.width, row.height, ctx.sizes);
    const size = `${row.width}x${row.height}`;
    const key = `${row.modelKey}|${trim}|${slot}|${size}`;
    let entry = groups.get(key);
    if (!entry) {
      const model = ctx.models.find((m) => modelKey(m.name) === row.modelKey || modelKey(m.displayName) === row.modelKey);
      const trimName = model?.trims.find((t) => trimKey(t.name) === trim || trimKey(t.displayName) === trim)?.displayName;
      entry = { group: { model: model?.displayName ?? row.model, modelKey: row.modelKey, trim: trimName ?? row.trim, slot, size }, rows: [] };
      groups.set(key, entry);
    }
    entry.rows.push(row);
  }
  const out: CleanupGroup[] = [];
  for (const { group, rows: members } of groups.values()) {
    if (members.length < 2) continue;
    const t = now.getTime();
    const dead = new Set(members.filter((r) => neverShownAgain(r, t)));
    const keep =
      members.find((r) => r.parsedMetadata.isValid && isLive(r, t)) ?? members.find((r) => !dead.has(r)) ?? members[0]!;
    const remove = members.filter((r) => r !== keep && dead.has(r));
    if (remove.length === 0) continue;
    out.push({ ...group, keep: toCleanupAsset(keep), remove: remove.map(toCleanupAsset) });
  }
  const pixels = (size: string) => size.split('x').map(Number) as [number, number];
  out.sort(
    (a, b) =>
      a.model.localeCompare(b.model) ||
      a.trim.localeCompare(b.trim) ||
      UPLOAD_TYPES.indexOf(a.slot) - UPLOAD_TYPES.indexOf(b.slot) ||
      pixels(b.size)[0] - pixels(a.size)[0] ||
      pixels(b.size)[1] - pixels(a.size)[1],
  );
  return { groups: out, freedBytes: out.reduce((n, g) => n + g.remove.reduce((m, a) => m + a.sizeBytes, 0), 0) };
}

/**
 * The 'Free up space' plan at `now` (DECISIONS 12). Assets of the same model,
 * trim, slot and exact size share their slot (delivery rotates the ones live at the time: active and
 * inside their window); the newest live one is kept and only assets that can never show
 * again (inactive, invalid or expired) are listed for removal, so removing
 * them never changes what the site shows now or later. Nothing is deleted here; groups without
 * anything to remove are left out. @throws NotFound when the dealer does not exist.
 */
export async function cleanupPlan(db: Db, dealerId: string, now: Date): Promise<CleanupPlan> {
  const ctx = await planContext(db, dealerId);
  const rows = await db
    .select()
    .from(assets)
    .where(eq(assets.dealerId, dealerId))
    .orderBy(desc(assets.createdAt), desc(assets.id));
  return buildPlan(rows, ctx, now);
}

/**
 * Deletes the assets the dealer confirmed in the 'Free up space' dialog, in one transaction: only ids
 * that are in the remove lists of the plan as it stands now (the dealer's asset rows are locked
 * while it is worked out), never a kept asset nor another dealer's; the rest come back in `skipped`.
 * The database bumps dealers.version when anything was deleted (migration 0007). @throws NotFound when the dealer does not exist.
 */
export async function freeUpSpace(db: Db, dealerId: string, assetIds: string[], now: Date): Promise<FreeUpSpaceResult> {
  const wanted = [...new Set(assetIds)];
  return db.transaction(async (tx) => {
    const ctx = await planContext(tx, dealerId);
    // Row locks first (the order deleteAsset and setAssetActive take them: asset rows, then the dealer
    // row), so a concurrent toggle or delete of one of these assets is seen before the plan is made.
    const rows = await tx
      .select()
      .from(assets)
      .where(eq(assets.dealerId, dealerId))
      .orderBy(desc(assets.createdAt), desc(assets.id))
      .for('update');
    const removable = new Map(buildPlan(rows, ctx, now).groups.flatMap((g) => g.remove.map((a) => [a.id, a] as const)));
    const victims = wanted.filter((id) => removable.has(id));
    const skipped = wanted.filter((id) => !removable.has(id));
    if (victims.length === 0) return { deleted: 0, freedBytes: 0, skipped };
    const deleted = await tx
      .delete(assets)
      .where(and(eq(assets.dealerId, dealerId), inArray(assets.id, victims)))
      .returning({ id: assets.id, sizeBytes: assets.sizeBytes });
    return { deleted: deleted.length, freedBytes: deleted.reduce((n, a) => n + a.sizeBytes, 0), skipped };
  });
}
