/**
 * Asset routes of the dealer area (spec 02 §2 Asset Manager and upload panel, DECISIONS 10-13).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_ASSET_BYTES, MAX_FILENAME_LENGTH, MAX_UPLOAD_FILES, TEXT, UPLOAD_TEXT } from '../../domain/constants';
import { Invalid, NotFound, PayloadTooLarge } from '../errors';
import { parseInput } from '../validation';
import { getDealer } from '../dealers/service';
import { assetBytes, cleanupPlan, deleteAsset, freeUpSpace, listAssets, setAssetActive, storageUsage, uploadAsset, type UploadResult } from './service';

const assetParams = z.object({ dealerId: z.string(), assetId: z.uuid() });
const activeBody = z.object({ isActive: z.boolean() }).strict();
const cleanupBody = z.object({ assetIds: z.array(z.string().max(100)).min(1, 'Choose at least one asset').max(1000) }).strict();

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

function parseAssetParams(params: unknown) {
  const parsed = assetParams.safeParse(params);
  if (!parsed.success) throw new NotFound('Asset not found');
  return parsed.data;
}

export async function assetRoutes(app: FastifyInstance) {
  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/assets',
    { config: { access: 'dealer-read' } },
    async (request) => {
      const { dealerId } = request.params;
      const usage = await storageUsage(app.db, dealerId);
      return { assets: await listAssets(app.db, dealerId), usage };
    },
  );

  app.post<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/assets',
    { config: { access: 'dealer-write' } },
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

  app.delete<{ Params: { dealerId: string; assetId: string } }>(
    '/api/dealers/:dealerId/assets/:assetId',
    { config: { access: 'dealer-write' } },
    async (request, reply) => {
      const { dealerId, assetId } = parseAssetParams(request.params);
      await deleteAsset(app.db, dealerId, assetId);
      return reply.status(204).send();
    },
  );

  // Asset active/inactive toggle (spec 02 §3 Asset.isActive).
  app.patch<{ Params: { dealerId: string; assetId: string } }>(
    '/api/dealers/:dealerId/assets/:assetId',
    { config: { access: 'dealer-write' } },
    async (request) => {
      const { dealerId, assetId } = parseAssetParams(request.params);
      const { isActive } = parseInput(activeBody, request.body);
      return { asset: await setAssetActive(app.db, dealerId, assetId, isActive) };
    },
  );

  // 'Free up space' (DECISIONS 12, issue 12): the plan per model, trim, slot and size, then deletion
  // of the confirmed ids that are still in the plan's remove lists only.
  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-read' } },
    async (request) => cleanupPlan(app.db, request.params.dealerId),
  );

  app.post<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-write' } },
    async (request) => {
      const { assetIds } = parseInput(cleanupBody, request.body);
      return freeUpSpace(app.db, request.params.dealerId, assetIds);
    },
  );

  app.get<{ Params: { dealerId: string; assetId: string } }>(
    '/api/dealers/:dealerId/assets/:assetId/image',
    { config: { access: 'dealer-read' } },
    async (request, reply) => {
      const { dealerId, assetId } = parseAssetParams(request.params);
      const { mimeType, data } = await assetBytes(app.db, dealerId, assetId);
      return reply.type(mimeType).header('Cache-Control', 'private, max-age=3600').send(data);
    },
  );
}
