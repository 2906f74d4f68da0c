/**
 * Asset routes of the dealer area (spec 02 §2 Asset Manager and upload panel, DECISIONS 10-13).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_ASSET_BYTES, TEXT } from '../../domain/constants';
import { Invalid, NotFound } from '../errors';
import { parseInput } from '../validation';
import { getDealer } from '../dealers/service';
import { assetBytes, cleanupPlan, deleteAsset, freeUpSpace, listAssets, setAssetActive, storageUsage, uploadAsset, type UploadResult } from './service';

const assetParams = z.object({ dealerId: z.string(), assetId: z.uuid() });
const activeBody = z.object({ isActive: z.boolean() }).strict();
const cleanupBody = z.object({ assetIds: z.array(z.string()).min(1, 'Choose at least one asset').max(1000) }).strict();

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
      const results: UploadResult[] = [];
      for await (const part of request.files({ limits: { fileSize: MAX_ASSET_BYTES }, throwFileSizeLimit: false })) {
        const bytes = await part.toBuffer();
        if (part.file.truncated) {
          results.push({
            filename: part.filename,
            ok: false,
            error: `${TEXT.invalidFileTypeOrSize}: file is larger than ${MAX_ASSET_BYTES} bytes`,
          });
          continue;
        }
        results.push(await uploadAsset(app.db, dealerId, part.filename, bytes));
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

  // 'Free up space' (DECISIONS 12): the plan, then deletion of the confirmed ids only.
  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-read' } },
    async (request) => {
      await getDealer(app.db, request.params.dealerId);
      return cleanupPlan(app.db, request.params.dealerId);
    },
  );

  app.post<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/assets/cleanup',
    { config: { access: 'dealer-write' } },
    async (request) => {
      const { assetIds } = parseInput(cleanupBody, request.body);
      await getDealer(app.db, request.params.dealerId);
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
