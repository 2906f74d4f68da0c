/**
 * Asset routes of the dealer area (spec 02 §2 Asset Manager and upload panel, DECISIONS 10-13).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_ASSET_BYTES, MAX_FILENAME_LENGTH, MAX_UPLOAD_FILES, TEXT, UPLOAD_TEXT } from '../../domain/constants';
import { activeBodySchema, dealerParams } from '../../domain/contracts/common';
import {
  assetAnswerSchema,
  assetListSchema,
  assetParams,
  cleanupBodySchema,
  cleanupPlanSchema,
  freeUpSpaceResultSchema,
  uploadAnswerSchema,
  type UploadResult,
} from '../../domain/contracts/assets';
import { Invalid, PayloadTooLarge } from '../errors';
import { getDealer } from '../dealers/service';
import { assetBytes, cleanupPlan, deleteAsset, freeUpSpace, listAssets, setAssetActive, storageUsage, uploadAsset } from './service';

const tags = ['assets'];

/** One file part of an upload, read whole: its name and bytes, or the reason it is refused. */
type ReadPart = { filename: string; bytes: Buffer } | { refused: UploadResult };

/**
 * Reads every part of an asset upload before anything is stored (issue 11 §11), so a request over
 * a limit stores nothing. Oversized files and over-long names become refused results (the
 * others still upload, as before); a request over a count limit is refused whole.
 * @throws PayloadTooLarge naming the limit: more than MAX_UPLOAD_FILES files, too many parts or
 *   fields, or the total request cap (security/limits.ts)
 */
async function readUploadParts(request: FastifyRequest): Promise<ReadPart[]> {
  const read: ReadPart[] = [];
  try {
    for await (const part of request.files({ limits: { fileSize: MAX_ASSET_BYTES, files: MAX_UPLOAD_FILES }, throwFileSizeLimit: false })) {
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
  return read;
}

export async function assetRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/dealers/:dealerId/assets',
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Assets, newest first, and storage use', params: dealerParams, response: { 200: assetListSchema } } },
    async (request) => {
      const { dealerId } = request.params;
      const usage = await storageUsage(app.db, dealerId);
      return { assets: await listAssets(app.db, dealerId), usage };
    },
  );

  app.post(
    '/api/dealers/:dealerId/assets',
    {
      config: { access: 'dealer-write' },
      // multipart/form-data with one or more "file" fields, read by the handler (no body schema).
      schema: { tags, summary: 'Upload assets (multipart "file" fields)', consumes: ['multipart/form-data'], params: dealerParams, response: { 200: uploadAnswerSchema } },
    },
    async (request) => {
      const { dealerId } = request.params;
      await getDealer(app.db, dealerId);
      if (!request.isMultipart()) throw new Invalid('Upload must be multipart/form-data with one or more "file" fields');
      const parts = await readUploadParts(request); // every part read before any is stored (issue 11 §11)
      const results: UploadResult[] = [];
      for (const part of parts) {
        results.push('refused' in part ? part.refused : await uploadAsset(app.db, dealerId, part.filename, part.bytes));
      }
      if (results.length === 0) throw new Invalid('No file in the upload: send one or more "file" fields');
      return { results };
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

  // Asset active/inactive toggle (spec 02 §3 Asset.isActive).
  app.patch(
    '/api/dealers/:dealerId/assets/:assetId',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Make an asset active or inactive', params: assetParams, body: activeBodySchema, response: { 200: assetAnswerSchema } } },
    async (request) => {
      const { dealerId, assetId } = request.params;
      return { asset: await setAssetActive(app.db, dealerId, assetId, request.body.isActive) };
    },
  );

  // 'Free up space' (DECISIONS 12, issue 12): the plan per model, trim, slot and size, then deletion
  // of the confirmed ids that are still in the plan's remove lists only.
  app.get(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-read' }, schema: { tags, summary: "The 'Free up space' plan", params: dealerParams, response: { 200: cleanupPlanSchema } } },
    async (request) => cleanupPlan(app.db, request.params.dealerId),
  );

  app.post(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Delete confirmed assets of the plan', params: dealerParams, body: cleanupBodySchema, response: { 200: freeUpSpaceResultSchema } } },
    async (request) => {
      return freeUpSpace(app.db, request.params.dealerId, request.body.assetIds);
    },
  );

  app.get(
    '/api/dealers/:dealerId/assets/:assetId/image',
    // Image bytes (the asset's own type): no JSON answer to describe.
    { config: { access: 'dealer-read' }, schema: { tags, summary: "An asset's image bytes", params: assetParams } },
    async (request, reply) => {
      const { dealerId, assetId } = request.params;
      const { mimeType, data } = await assetBytes(app.db, dealerId, assetId);
      return reply.type(mimeType).header('Cache-Control', 'private, max-age=3600').send(data);
    },
  );
}
