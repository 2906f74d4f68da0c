/**
 * Contract of the Asset Manager routes (spec 02 §2 Asset Manager and upload panel, DECISIONS
 * 10-13): params, bodies and answers, shared by the server
 * (src/server/assets) and the screens (src/web/dealer/assets, types only).
 */
import { z } from 'zod';
import { assetSchema } from '../schemas';
import { isWindowText, WINDOW_FORMAT_MESSAGE } from '../schedule';
import { UPLOAD_TYPES } from '../slots';

/** `:dealerId/assets/:assetId`: a malformed asset id is simply not found (404). */
export const assetParams = z.object({ dealerId: z.string(), assetId: z.uuid({ error: 'Asset not found' }) });
/**
 * Query of GET /assets/:assetId/image: `size=thumb` answers a small variant (WebP when accepted,
 * at most THUMBNAIL_BOX pixels, never enlarged) for cards and tables instead of the original
 * bytes; `h` is the content hash the asset's URL carries for browser caching (ignored).
 */
export const assetImageQuery = z.object({ size: z.enum(['thumb']).optional(), h: z.string().max(64).optional() });
/** One window field of a request: a date-time text (domain/schedule.ts parseWindowInput), or null to clear it. */
export const windowFieldSchema = z.string().trim().max(40).refine(isWindowText, WINDOW_FORMAT_MESSAGE).nullable();

/**
 * Body of PATCH /assets/:assetId: any of `isActive` and the promotion window. Each
 * window field is a date-time (local ones, without an offset, in the dealer's time zone; ISO 8601
 * with `Z` or an offset as given) or null to clear it; an absent field is kept. The end must be
 * after the start: 400 'endsAt: must be after startsAt'.
 */
export const assetPatchSchema = z
  .object({ isActive: z.boolean().optional(), startsAt: windowFieldSchema.optional(), endsAt: windowFieldSchema.optional() })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change: send isActive, startsAt or endsAt');
export type AssetPatch = z.infer<typeof assetPatchSchema>;

/** The Asset Manager's bulk actions. */
export const BULK_ACTIONS = ['deactivate', 'activate', 'delete'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
/** Body of POST /assets/bulk: one action for the selected assets (1-500 ids). */
export const bulkBodySchema = z
  .object({
    action: z.enum(BULK_ACTIONS),
    assetIds: z.array(z.string().max(100)).min(1, 'Choose at least one asset').max(500),
  })
  .strict();
/** POST /assets/bulk: the action done, how many assets it changed or deleted, and the ids that are not this dealer's assets. */
export const bulkResultSchema = z.object({ action: z.enum(BULK_ACTIONS), changed: z.number(), skipped: z.array(z.string()) });
export type BulkResult = z.infer<typeof bulkResultSchema>;

/** Body of POST /assets/cleanup: the confirmed ids (only those still in the plan's remove lists go). */
export const cleanupBodySchema = z.object({ assetIds: z.array(z.string().max(100)).min(1, 'Choose at least one asset').max(1000) }).strict();

export const storageUsageSchema = z.object({ usedBytes: z.number(), quotaBytes: z.number() });
export type StorageUsage = z.infer<typeof storageUsageSchema>;
/** GET /api/dealers/:dealerId/assets: newest first, plus storage use against the quota. */
export const assetListSchema = z.object({ assets: z.array(assetSchema), usage: storageUsageSchema });
export type AssetList = z.infer<typeof assetListSchema>;
export const assetAnswerSchema = z.object({ asset: assetSchema });

/** One file's outcome of an upload: stored (with warnings), or refused with the reason. */
export const uploadResultSchema = z.discriminatedUnion('ok', [
  z.object({ filename: z.string(), ok: z.literal(true), asset: assetSchema, warnings: z.array(z.string()) }),
  z.object({ filename: z.string(), ok: z.literal(false), error: z.string(), hint: z.string().optional() }),
]);
export type UploadResult = z.infer<typeof uploadResultSchema>;
/** POST /api/dealers/:dealerId/assets: one result per file, in upload order. */
export const uploadAnswerSchema = z.object({ results: z.array(uploadResultSchema) });

/** An asset as the 'Free up space' dialog lists it. */
export const cleanupAssetSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  sizeBytes: z.number(),
  isActive: z.boolean(),
  /** End of its promotion window, ISO UTC (an ended one is listed as expired), or null. */
  endsAt: z.string().nullable(),
});
export type CleanupAsset = z.infer<typeof cleanupAssetSchema>;

/**
 * One group of interchangeable assets: same model (modelKey), trim, slot and exact pixel
 * size. `keep` is what delivery shows (the newest live asset); `remove` the others that
 * can never show again (inactive, expired or hidden by a newer one), newest first. `model`/`trim` as the catalogue displays them; `size` 'WIDTHxHEIGHT'.
 */
export const cleanupGroupSchema = z.object({
  model: z.string(),
  modelKey: z.string(),
  trim: z.string(),
  slot: z.enum(UPLOAD_TYPES),
  size: z.string(),
  keep: cleanupAssetSchema,
  remove: z.array(cleanupAssetSchema),
});
export type CleanupGroup = z.infer<typeof cleanupGroupSchema>;

/** GET /assets/cleanup: groups with something to remove, and the bytes removing all of it frees. */
export const cleanupPlanSchema = z.object({ groups: z.array(cleanupGroupSchema), freedBytes: z.number() });
export type CleanupPlan = z.infer<typeof cleanupPlanSchema>;

/** POST /assets/cleanup: assets deleted, bytes freed, and requested ids not deleted (kept, unknown, another dealer's). */
export const freeUpSpaceResultSchema = z.object({ deleted: z.number(), freedBytes: z.number(), skipped: z.array(z.string()) });
export type FreeUpSpaceResult = z.infer<typeof freeUpSpaceResultSchema>;
