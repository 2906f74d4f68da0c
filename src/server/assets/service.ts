/**
 * Dealer banner assets: upload (filename rules, real image inspection, quota), listing, bytes,
 * delete (spec 01 §5, spec 02 §2-§5, DECISIONS 10-13, 24).
 */
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { assetBlobs, assets, dealers } from '../db/schema';
import type { Asset, AssetType } from '../../domain/schemas';
import {
  ACCEPTED_IMAGE_EXTENSIONS,
  MAX_ASSET_BYTES,
  STORAGE_REFUSE_RATIO,
  TEXT,
} from '../../domain/constants';
import { validateAssetFilename, fileExtension } from '../../domain/filename';
import { bannerTypeFromDimensions } from '../../domain/banner-type';
import { modelKey } from '../../domain/model-keys';
import { Invalid, NotFound, QuotaExceeded } from '../errors';
import { inspectImage } from './image';
import { forgetDealer } from '../delivery/service';

type AssetRow = typeof assets.$inferSelect;

export type UploadResult =
  | { filename: string; ok: true; asset: Asset; warnings: string[] }
  | { filename: string; ok: false; error: string; hint?: string };

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
      await bumpDealerVersion(tx, dealerId);
      return toAsset(row!);
    });
    return { filename, ok: true, asset, warnings };
  } catch (err) {
    if (err instanceof QuotaExceeded) return { filename, ok: false, error: err.message };
    throw err;
  }
}

/** Marks a change that affects banner delivery, so delivery caches keyed by version expire. */
export async function bumpDealerVersion(tx: Db | Tx, dealerId: string): Promise<void> {
  forgetDealer(dealerId);
  await tx
    .update(dealers)
    .set({ version: sql`${dealers.version} + 1`, updatedAt: new Date() })
    .where(eq(dealers.id, dealerId));
}

/** Deletes one asset of a dealer. @throws NotFound when the dealer has no such asset. */
export async function deleteAsset(db: Db, dealerId: string, assetId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(assets)
      .where(and(eq(assets.dealerId, dealerId), eq(assets.id, assetId)))
      .returning({ id: assets.id });
    if (deleted.length === 0) throw new NotFound('Asset not found');
    await bumpDealerVersion(tx, dealerId);
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
 * inactive assets are never chosen, spec 02 §4 step 2). Bumps dealers.version.
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
    await bumpDealerVersion(tx, dealerId);
    return toAsset(row);
  });
}

/** One model's older assets that 'Free up space' would remove (DECISIONS 12). */
export interface CleanupGroup {
  model: string;
  /** The newest asset of each slot type and size, kept. */
  kept: Asset[];
  /** Older assets of the same model, type and size, removed on confirmation. */
  remove: Asset[];
}

/**
 * The 'Free up space' plan (DECISIONS 12, replacing the spec's silent cleanup): for each model
 * (by modelKey) and each type and pixel size, the newest asset is kept and every older one with the
 * same model, type and size is listed for removal. Nothing is deleted here. Groups without anything
 * to remove are left out; `freedBytes` is the sum of the listed assets' sizes.
 */
export async function cleanupPlan(db: Db, dealerId: string): Promise<{ groups: CleanupGroup[]; freedBytes: number }> {
  const rows = await db
    .select()
    .from(assets)
    .where(eq(assets.dealerId, dealerId))
    .orderBy(desc(assets.createdAt), desc(assets.id));
  const byModel = new Map<string, CleanupGroup>();
  const seen = new Set<string>();
  for (const row of rows) {
    const group = byModel.get(row.modelKey) ?? { model: row.model, kept: [], remove: [] };
    byModel.set(row.modelKey, group);
    const slotKey = `${row.modelKey}|${row.type}|${row.width}x${row.height}`;
    if (seen.has(slotKey)) group.remove.push(toAsset(row));
    else {
      seen.add(slotKey);
      group.kept.push(toAsset(row));
    }
  }
  const groups = [...byModel.values()].filter((g) => g.remove.length > 0);
  return { groups, freedBytes: groups.reduce((n, g) => n + g.remove.reduce((m, a) => m + a.sizeBytes, 0), 0) };
}

/**
 * Deletes the confirmed assets of the 'Free up space' plan (DECISIONS 12) in one transaction. Only ids
 * that are still in the current plan are deleted (an asset that became the newest of its kind, or
 * belongs to another dealer, is kept). Bumps dealers.version when anything was deleted.
 * @returns how many assets and bytes were removed.
 */
export async function freeUpSpace(db: Db, dealerId: string, assetIds: string[]): Promise<{ deleted: number; freedBytes: number }> {
  const plan = await cleanupPlan(db, dealerId);
  const wanted = new Set(assetIds);
  const victims = plan.groups.flatMap((g) => g.remove).filter((a) => wanted.has(a.id));
  if (victims.length === 0) return { deleted: 0, freedBytes: 0 };
  await db.transaction(async (tx) => {
    await tx.delete(assets).where(and(eq(assets.dealerId, dealerId), inArray(assets.id, victims.map((v) => v.id))));
    await bumpDealerVersion(tx, dealerId);
  });
  return { deleted: victims.length, freedBytes: victims.reduce((n, a) => n + a.sizeBytes, 0) };
}
