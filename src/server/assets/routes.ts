/**
 * Asset routes of the dealer area (spec 02 §2 Asset Manager and upload panel, DECISIONS 10-13;
 * promotion windows and bulk actions). Times come from app.now (the app's one clock).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_ASSET_BYTES, MAX_FILENAME_LENGTH, MAX_UPLOAD_FILES, TEXT, UPLOAD_TEXT } from '../../domain/constants';
import { dealerParams } from '../../domain/contracts/common';
import {
  assetAnswerSchema,
  assetImageQuery,
  assetListSchema,
  assetParams,
  assetPatchSchema,
  bulkBodySchema,
  bulkResultSchema,
  cleanupBodySchema,
  cleanupPlanSchema,
  freeUpSpaceResultSchema,
  uploadAnswerSchema,
  type UploadResult,
} from '../../domain/contracts/assets';
import { Invalid, PayloadTooLarge } from '../errors';
import { getDealer } from '../dealers/service';
import { deadBannerWarnings, NEVER_SHOWS } from './upload-checks';
import { uploadCampaign } from '../campaigns/service';
import {
  assetBytes,
  assetThumbnail,
  bulkAssets,
  cleanupPlan,
  deleteAsset,
  freeUpSpace,
  listAssets,
  replaceAssetFile,
  resolveWindow,
  storageUsage,
  updateAsset,
  checkUpload,
  type CheckedUpload,
  storeUpload,
  windowTimeZone,
} from './service';

const tags = ['assets'];

/** One file part of an upload, read whole: its name and bytes, or the reason it is refused. */
type ReadPart = { filename: string; bytes: Buffer } | { refused: Extract<UploadResult, { ok: false }> };

/** The text fields an upload may carry: the promotion window of every file in it, or the campaign they go into. */
const UPLOAD_FIELDS = new Set(['startsAt', 'endsAt', 'campaignId']);
type UploadFields = { startsAt?: string; endsAt?: string; campaignId?: string };

/**
 * Reads every part of an asset upload before anything is stored, so a request over
 * a limit stores nothing. Oversized files and over-long names become refused results (the
 * others still upload, as before); a request over a count limit is refused whole. The optional
 * `startsAt` / `endsAt` / `campaignId` text fields come back in `fields`; other fields are ignored.
 * @throws PayloadTooLarge naming the limit: more than MAX_UPLOAD_FILES files, too many parts or
 *   fields, or the total request cap (security/limits.ts)
 */
async function readUploadParts(request: FastifyRequest): Promise<{ parts: ReadPart[]; fields: UploadFields }> {
  const read: ReadPart[] = [];
  const fields: UploadFields = {};
  // parts() honours throwFileSizeLimit as files() does (its type omits it): an oversized file is truncated, not thrown.
  const options = { limits: { fileSize: MAX_ASSET_BYTES, files: MAX_UPLOAD_FILES }, throwFileSizeLimit: false };
  try {
    for await (const part of request.parts(options)) {
      if (part.type === 'field') {
        if (UPLOAD_FIELDS.has(part.fieldname) && typeof part.value === 'string') fields[part.fieldname as keyof UploadFields] = part.value;
        continue;
      }
      const bytes = await part.toBuffer();
      if (part.filename.length > MAX_FILENAME_LENGTH) {
        read.push({ refused: { filename: `${part.filename.slice(0, 40)}…`, ok: false, error: UPLOAD_TEXT.filenameTooLong } });
      } else if (part.file.truncated) {
        read.push({ refused: { filename: part.filename, ok: false, error: `${TEXT.invalidFileTypeOrSize}: file is larger than ${MAX_ASSET_BYTES} bytes` } });
      } else {
        read.push({ filename: part.filename, bytes });
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_FILES_LIMIT') throw new PayloadTooLarge(UPLOAD_TEXT.tooManyFiles);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw new PayloadTooLarge(`Too many parts: at most ${MAX_UPLOAD_FILES} files and a few fields per upload`);
    throw err;
  }
  return { parts: read, fields };
}

export async function assetRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/dealers/:dealerId/assets',
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Assets, newest first, and storage use', params: dealerParams, response: { 200: assetListSchema } } },
    async (request) => {
      const { dealerId } = request.params;
      const usage = await storageUsage(app.db, dealerId);
      const dealer = await app.dealerSites.find(dealerId);
      const list = await listAssets(app.db, dealerId, app.now());
      // A card says when delivery can never choose its asset (the upload's check, made again now).
      const assets = list.map((a) => ({ ...a, neverShows: (dealer && deadBannerWarnings(a.parsedMetadata, dealer).find((w) => w.startsWith(NEVER_SHOWS))) || null }));
      return { assets, usage };
    },
  );

  app.post(
    '/api/dealers/:dealerId/assets',
    {
      config: { access: 'dealer-write' },
      // multipart/form-data with one or more "file" fields and optional "startsAt"/"endsAt" text
      // fields, or a "campaignId" (the files then land in that campaign, as drafts until it is
      // published and inside its window), read by the handler (no body schema).
      schema: {
        tags,
        summary: 'Upload assets (multipart "file" fields; optional "startsAt"/"endsAt" window for all of them, or "campaignId" to upload into a campaign)',
        consumes: ['multipart/form-data'],
        params: dealerParams,
        response: { 200: uploadAnswerSchema },
      },
    },
    async (request) => {
      const { dealerId } = request.params;
      await getDealer(app.db, dealerId);
      if (!request.isMultipart()) throw new Invalid('Upload must be multipart/form-data with one or more "file" fields');
      const { parts, fields } = await readUploadParts(request); // every part read before any is stored
      // A bad window refuses the whole upload (400 naming the field) before any file is stored.
      const window = resolveWindow(fields, { startsAt: null, endsAt: null }, await windowTimeZone(app.db, dealerId));
      // Into a campaign: the campaign owns the window of its creatives (a window given too is refused).
      const campaignId = fields.campaignId ? await uploadCampaign(app.db, dealerId, fields.campaignId) : null;
      if (campaignId && (window.startsAt || window.endsAt)) throw Invalid.field('campaignId', "a campaign's creatives follow the campaign's window: send no startsAt or endsAt with it");
      const now = app.now();
      const dealer = (await app.dealerSites.find(dealerId)) ?? undefined; // for the "will never show" check
      const checked: Array<CheckedUpload | Extract<UploadResult, { ok: false }>> = [];
      for (const part of parts) checked.push('refused' in part ? part.refused : await checkUpload(part.filename, part.bytes, { dealer }));
      if (checked.length === 0) throw new Invalid('No file in the upload: send one or more "file" fields');
      // The files are stored in one transaction (each in a savepoint): a file refused for its
      // content or the quota leaves the others, but a failed write (a full disk) stores none.
      const results = await app.db.transaction(async (tx) => {
        const stored: UploadResult[] = [];
        for (const c of checked) stored.push('ok' in c ? c : await storeUpload(tx, dealerId, c, { window, now, campaignId }));
        return stored;
      });
      return { results };
    },
  );

  app.put(
    '/api/dealers/:dealerId/assets/:assetId/file',
    {
      config: { access: 'dealer-write' },
      // multipart/form-data with one "file" field, read by the handler (no body schema).
      schema: {
        tags,
        summary: "Replace an asset's file in place (multipart, one \"file\" of the same pixel size): its id, statistics and settings stay",
        consumes: ['multipart/form-data'],
        params: assetParams,
        response: { 200: assetAnswerSchema },
      },
    },
    async (request) => {
      const { dealerId, assetId } = request.params;
      if (!request.isMultipart()) throw new Invalid('Replacement must be multipart/form-data with one "file" field');
      const { parts } = await readUploadParts(request);
      if (parts.length !== 1) throw new Invalid(`Send exactly one "file" field to replace an asset (got ${parts.length})`);
      const [part] = parts;
      if ('refused' in part!) throw new Invalid(part.refused.error);
      return { asset: await replaceAssetFile(app.db, dealerId, assetId, part!.filename, part!.bytes, app.now()) };
    },
  );

  app.delete(
    '/api/dealers/:dealerId/assets/:assetId',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Delete an asset', params: assetParams, response: { 204: z.void().describe('No content') } } },
    async (request, reply) => {
      const { dealerId, assetId } = request.params;
      await deleteAsset(app.db, dealerId, assetId);
      return reply.status(204).send();
    },
  );

  // Asset active/inactive toggle (spec 02 §3 Asset.isActive) and promotion window.
  app.patch(
    '/api/dealers/:dealerId/assets/:assetId',
    {
      config: { access: 'dealer-write' },
      schema: { tags, summary: 'Make an asset active or inactive, or set or clear its promotion window', params: assetParams, body: assetPatchSchema, response: { 200: assetAnswerSchema } },
    },
    async (request) => {
      const { dealerId, assetId } = request.params;
      return { asset: await updateAsset(app.db, dealerId, assetId, request.body, app.now()) };
    },
  );

  // Asset Manager bulk actions: deactivate, activate or delete the selected assets.
  app.post(
    '/api/dealers/:dealerId/assets/bulk',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Deactivate, activate or delete several assets', params: dealerParams, body: bulkBodySchema, response: { 200: bulkResultSchema } } },
    async (request) => {
      await getDealer(app.db, request.params.dealerId);
      return bulkAssets(app.db, request.params.dealerId, request.body.action, request.body.assetIds);
    },
  );

  // 'Free up space' (DECISIONS 12): the plan per model, trim, slot and size, then deletion
  // of the confirmed ids that are still in the plan's remove lists only.
  app.get(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-read' }, schema: { tags, summary: "The 'Free up space' plan", params: dealerParams, response: { 200: cleanupPlanSchema } } },
    async (request) => cleanupPlan(app.db, request.params.dealerId, app.now()),
  );

  app.post(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Delete confirmed assets of the plan', params: dealerParams, body: cleanupBodySchema, response: { 200: freeUpSpaceResultSchema } } },
    async (request) => {
      return freeUpSpace(app.db, request.params.dealerId, request.body.assetIds, app.now());
    },
  );

  app.get(
    '/api/dealers/:dealerId/assets/:assetId/image',
    // Image bytes (the asset's own type): no JSON answer to describe.
    { config: { access: 'dealer-read' }, schema: { tags, summary: "An asset's image bytes, or with size=thumb a small variant", params: assetParams, querystring: assetImageQuery } },
    async (request, reply) => {
      const { dealerId, assetId } = request.params;
      reply.header('Cache-Control', 'private, max-age=3600').header('Vary', 'Accept');
      if (request.query.size === 'thumb') {
        const thumb = await assetThumbnail(app.db, app.caches.bannerBytes, dealerId, assetId, /image\/webp/.test(request.headers.accept ?? ''));
        return reply.type(thumb.contentType).send(thumb.body);
      }
      const { mimeType, data } = await assetBytes(app.db, dealerId, assetId);
      return reply.type(mimeType).send(data);
    },
  );
}
