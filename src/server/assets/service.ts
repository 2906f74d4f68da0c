/**
 * Dealer banner assets: upload (filename rules, real image inspection, quota), listing, bytes,
 * delete (spec 01 §5, spec 02 §2-§5, DECISIONS 10-13, 24).
 */
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { assetBlobs, assets, dealers, manufacturers } from '../db/schema';
import type { Asset, AssetType, BannerSizes, VehicleModel } from '../../domain/schemas';
import {
  ACCEPTED_IMAGE_EXTENSIONS,
  MAX_ASSET_BYTES,
  STORAGE_REFUSE_RATIO,
  TEXT,
} from '../../domain/constants';
import { validateAssetFilename, fileExtension } from '../../domain/filename';
import { bannerTypeFromDimensions } from '../../domain/banner-type';
import { modelKey } from '../../domain/model-keys';
import { trimKey } from '../../domain/asset-choice';
import { Invalid, NotFound, QuotaExceeded } from '../errors';
import { inspectImage } from './image';
import type { CleanupAsset, CleanupGroup, CleanupPlan, FreeUpSpaceResult, UploadResult } from '../../domain/contracts/assets';

type AssetRow = typeof assets.$inferSelect;

// Answer shapes: src/domain/contracts/assets.ts (issue 14).
export type { CleanupAsset, CleanupGroup, CleanupPlan, FreeUpSpaceResult, UploadResult } from '../../domain/contracts/assets';

/** API shape of an asset row. */
export function toAsset(row: AssetRow): Asset {
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
    url: `/api/dealers/${encodeURIComponent(row.dealerId)}/assets/${row.id}/image`,
  };
}

/** All assets of a dealer, newest first. */
export async function listAssets(db: Db, dealerId: string): Promise<Asset[]> {
  const rows = await db.select().from(assets).where(eq(assets.dealerId, dealerId)).orderBy(desc(assets.createdAt));
  return rows.map(toAsset);
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

/**
 * Validates and stores one uploaded file for a dealer. Bad input never throws: it comes back as
 * `{ ok: false, error, hint? }` so the other files of the same upload still go through.
 * Quota checks and the insert run in one transaction holding the dealer row lock.
 */
export async function uploadAsset(db: Db, dealerId: string, filename: string, bytes: Buffer): Promise<UploadResult> {
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
  try {
    const asset = await db.transaction(async (tx) => {
      const [dealer] = await tx
        .select({ storage: dealers.assetStorage })
        .from(dealers)
        .where(eq(dealers.id, dealerId))
        .for('update');
      if (!dealer) throw new NotFound(TEXT.dealerNotFound);
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
        })
        .returning();
      await tx.insert(assetBlobs).values({ assetId: id, data: bytes });
      return toAsset(row!);
    });
    return { filename, ok: true, asset, warnings };
  } catch (err) {
    if (err instanceof QuotaExceeded) return { filename, ok: false, error: err.message };
    throw err;
  }
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

/**
 * Turns one asset of a dealer on or off for delivery and preview (spec 02 §3 Asset.isActive;
 * inactive assets are never chosen, spec 02 §4 step 2). The database bumps dealers.version (migration 0007).
 * @throws NotFound('Asset not found').
 */
export async function setAssetActive(db: Db, dealerId: string, assetId: string, isActive: boolean): Promise<Asset> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(assets)
      .set({ isActive })
      .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)))
      .returning();
    if (!row) throw new NotFound('Asset not found');
    return toAsset(row);
  });
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
});

async function planContext(db: Db | Tx, dealerId: string): Promise<PlanContext> {
  const [row] = await db
    .select({ storage: dealers.assetStorage, models: manufacturers.models })
    .from(dealers)
    .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
    .where(eq(dealers.id, dealerId));
  if (!row) throw new NotFound(TEXT.dealerNotFound);
  return { sizes: row.storage.bannerSizes, models: row.models };
}

/**
 * The plan for `rows` (newest first: createdAt desc, id desc, the order delivery scans). Groups by
 * modelKey, trim (as chooseAsset compares it), slot and exact size; keeps the first active asset
 * with valid metadata (the one delivery would choose), else the first; lists the rest for removal.
 * Groups are sorted by model, trim, slot (header first) and size.
 */
function buildPlan(rows: AssetRow[], ctx: PlanContext): CleanupPlan {
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
    const keep = members.find((r) => r.isActive && r.parsedMetadata.isValid) ?? members[0]!;
    out.push({ ...group, keep: toCleanupAsset(keep), remove: members.filter((r) => r !== keep).map(toCleanupAsset) });
  }
  const pixels = (size: string) => size.split('x').map(Number) as [number, number];
  out.sort(
    (a, b) =>
      a.model.localeCompare(b.model) ||
      a.trim.localeCompare(b.trim) ||
      (a.slot === b.slot ? 0 : a.slot === 'header' ? -1 : 1) ||
      pixels(b.size)[0] - pixels(a.size)[0] ||
      pixels(b.size)[1] - pixels(a.size)[1],
  );
  return { groups: out, freedBytes: out.reduce((n, g) => n + g.remove.reduce((m, a) => m + a.sizeBytes, 0), 0) };
}

/**
 * The 'Free up space' plan (DECISIONS 12, issue 12). Assets of the same model, trim, slot and exact
 * size are interchangeable for delivery, which shows the newest active one; that one is kept (the
 * newest one when none is active) and the others are listed for removal, so removing them never
 * changes what the site shows. Nothing is deleted here; groups without anything to remove are left
 * out. @throws NotFound when the dealer does not exist.
 */
export async function cleanupPlan(db: Db, dealerId: string): Promise<CleanupPlan> {
  const ctx = await planContext(db, dealerId);
  const rows = await db
    .select()
    .from(assets)
    .where(eq(assets.dealerId, dealerId))
    .orderBy(desc(assets.createdAt), desc(assets.id));
  return buildPlan(rows, ctx);
}

/**
 * Deletes the assets the dealer confirmed in the 'Free up space' dialog, in one transaction: only ids
 * that are in the remove lists of the plan as it stands now (the dealer's asset rows are locked
 * while it is worked out), never a kept asset nor another dealer's; the rest come back in `skipped`.
 * The database bumps dealers.version when anything was deleted (migration 0007). @throws NotFound when the dealer does not exist.
 */
export async function freeUpSpace(db: Db, dealerId: string, assetIds: string[]): Promise<FreeUpSpaceResult> {
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
    const removable = new Map(buildPlan(rows, ctx).groups.flatMap((g) => g.remove.map((a) => [a.id, a] as const)));
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
