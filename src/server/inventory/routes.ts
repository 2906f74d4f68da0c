/**
 * Inventory routes of the dealer area (spec 02 §2 Inventory, §5 Inventory upload and Feed; DECISIONS
 * 20-21): preview and apply an uploaded JSON/CSV file, read the stored inventory, and the automatic
 * feed (read, save, pause/resume, test).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_INVENTORY_BYTES } from '../../domain/constants';
import { Invalid } from '../errors';
import { parseInput } from '../validation';
import { getInventory, previewInventory, uploadInventory } from './service';
import { feedSaveSchema, feedTestSchema, getFeed, saveFeed, setFeedActive, testFeed } from './feeds';

type P = { Params: { dealerId: string } };
const activeBody = z.object({ isActive: z.boolean() }).strict();

/** The single uploaded file of a multipart request, refused above 20 MB. @throws Invalid. */
async function uploadedFile(request: FastifyRequest): Promise<{ filename: string; bytes: Buffer }> {
  if (!request.isMultipart()) throw new Invalid('Upload must be multipart/form-data with one "file" field');
  const part = await request.file({ limits: { fileSize: MAX_INVENTORY_BYTES, files: 1 }, throwFileSizeLimit: false });
  if (!part) throw new Invalid('No file in the upload: send one "file" field');
  const bytes = await part.toBuffer();
  if (part.file.truncated) throw new Invalid(`Inventory file is larger than 20 MB (${MAX_INVENTORY_BYTES} bytes)`);
  return { filename: part.filename, bytes };
}

export async function inventoryRoutes(app: FastifyInstance) {
  const fetchOpts = () => ({ allowPrivateHosts: app.config.feedAllowPrivateHosts });

  app.get<P>('/api/dealers/:dealerId/inventory', { config: { access: 'dealer-read' } }, async (request) => ({
    inventory: await getInventory(app.db, request.params.dealerId),
  }));

  app.post<P>('/api/dealers/:dealerId/inventory/preview', { config: { access: 'dealer-write' } }, async (request) => {
    const { filename, bytes } = await uploadedFile(request);
    return previewInventory(app.db, request.params.dealerId, filename, bytes);
  });

  app.post<P>('/api/dealers/:dealerId/inventory', { config: { access: 'dealer-write' } }, async (request) => {
    const { filename, bytes } = await uploadedFile(request);
    return { inventory: await uploadInventory(app.db, request.params.dealerId, filename, bytes) };
  });

  app.get<P>('/api/dealers/:dealerId/inventory/feed', { config: { access: 'dealer-read' } }, async (request) =>
    getFeed(app.db, request.params.dealerId),
  );

  app.put<P>('/api/dealers/:dealerId/inventory/feed', { config: { access: 'dealer-write' } }, async (request) => {
    const feed = await saveFeed(app.db, request.params.dealerId, parseInput(feedSaveSchema, request.body));
    app.feeds.kick(); // the new feed is due now: run it without waiting for the next pass
    return { feed };
  });

  app.patch<P>('/api/dealers/:dealerId/inventory/feed', { config: { access: 'dealer-write' } }, async (request) => {
    const { isActive } = parseInput(activeBody, request.body);
    return { feed: await setFeedActive(app.db, request.params.dealerId, isActive) };
  });

  app.post<P>('/api/dealers/:dealerId/inventory/feed/test', { config: { access: 'dealer-write' } }, async (request) =>
    testFeed(app.db, request.params.dealerId, parseInput(feedTestSchema, request.body), fetchOpts()),
  );
}
