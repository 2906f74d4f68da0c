/**
 * Inventory routes of the dealer area (spec 02 §2 Inventory, §5 Inventory upload and Feed; DECISIONS
 * 20-21): preview and apply an uploaded JSON/CSV file, read the stored inventory, and the automatic
 * feed (read, save, pause/resume, test).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { INVENTORY_LIMIT_TEXT, MAX_INVENTORY_BYTES } from '../../domain/constants';
import { activeBodySchema, dealerParams } from '../../domain/contracts/common';
import {
  feedAnswerSchema,
  feedSaveSchema,
  feedStateSchema,
  feedTestResultSchema,
  feedTestSchema,
  inventoryApplyQuery,
  inventoryPreviewSchema,
  storedInventoryAnswerSchema,
  uploadedInventoryAnswerSchema,
} from '../../domain/contracts/inventory';
import { Invalid, PayloadTooLarge } from '../errors';
import { getInventory, previewInventory, uploadInventory } from './service';
import { getFeed, saveFeed, setFeedActive, testFeed } from './feeds';

const tags = ['inventory'];
const read = { access: 'dealer-read' as const };
const write = { access: 'dealer-write' as const };
const multipart = ['multipart/form-data'];

/**
 * Parses the single uploaded file of a multipart request with `parse`, handing it the file's
 * stream as it arrives (nothing is buffered first); a file past MAX_INVENTORY_BYTES is refused with
 * 413 naming the limit. @throws Invalid when the request is not multipart or has no file; what
 * `parse` throws.
 */
async function withUploadedFile<T>(request: FastifyRequest, parse: (filename: string, file: AsyncIterable<Buffer>) => Promise<T>): Promise<T> {
  if (!request.isMultipart()) throw new Invalid('Upload must be multipart/form-data with one "file" field');
  // One byte over the limit reaches the parser, which refuses it by its own count.
  const part = await request.file({ limits: { fileSize: MAX_INVENTORY_BYTES + 1, files: 1 }, throwFileSizeLimit: false });
  if (!part) throw new Invalid('No file in the upload: send one "file" field');
  const file = part.file;
  try {
    return await parse(
      part.filename,
      (async function* () {
        yield* file.iterator({ destroyOnReturn: false });
        if (file.truncated) throw new PayloadTooLarge(INVENTORY_LIMIT_TEXT.bytes('file'));
      })(),
    );
  } finally {
    // A refused file is left unread: its rest flows on, discarded (at most the multipart caps), so
    // a client still sending it reads the answer instead of a reset connection.
    file.resume();
  }
}

export async function inventoryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const fetchOpts = () => ({ allowPrivateHosts: app.config.feedAllowPrivateHosts, timeoutMs: app.config.feedTimeoutMs });

  app.get(
    '/api/dealers/:dealerId/inventory',
    { config: read, schema: { tags, summary: 'The stored inventory (null before any)', params: dealerParams, response: { 200: storedInventoryAnswerSchema } } },
    async (request) => ({ inventory: await getInventory(app.db, request.params.dealerId) }),
  );

  app.post(
    '/api/dealers/:dealerId/inventory/preview',
    { config: write, schema: { tags, summary: 'Parse an inventory file (multipart "file") without storing it', consumes: multipart, params: dealerParams, response: { 200: inventoryPreviewSchema } } },
    async (request) => {
      return withUploadedFile(request, (filename, file) => previewInventory(app.db, request.params.dealerId, filename, file));
    },
  );

  app.post(
    '/api/dealers/:dealerId/inventory',
    {
      config: write,
      schema: {
        tags,
        summary: 'Apply an inventory file (multipart "file"); ?pauseFeed=true pauses an active feed in the same transaction',
        consumes: multipart,
        params: dealerParams,
        querystring: inventoryApplyQuery,
        response: { 200: uploadedInventoryAnswerSchema },
      },
    },
    async (request) => {
      const pauseFeed = request.query.pauseFeed === 'true';
      return withUploadedFile(request, (filename, file) => uploadInventory(app.db, request.params.dealerId, filename, file, { pauseFeed }));
    },
  );

  app.get(
    '/api/dealers/:dealerId/inventory/feed',
    { config: read, schema: { tags, summary: 'The automatic feed and its latest runs', params: dealerParams, response: { 200: feedStateSchema } } },
    async (request) => getFeed(app.db, request.params.dealerId),
  );

  app.put(
    '/api/dealers/:dealerId/inventory/feed',
    { config: write, schema: { tags, summary: 'Save the feed (active, due at once)', params: dealerParams, body: feedSaveSchema, response: { 200: feedAnswerSchema } } },
    async (request) => {
      const feed = await saveFeed(app.db, request.params.dealerId, request.body);
      app.feeds.kick(); // the new feed is due now: run it without waiting for the next pass
      return { feed };
    },
  );

  app.patch(
    '/api/dealers/:dealerId/inventory/feed',
    { config: write, schema: { tags, summary: 'Pause or resume the feed', params: dealerParams, body: activeBodySchema, response: { 200: feedAnswerSchema } } },
    async (request) => ({ feed: await setFeedActive(app.db, request.params.dealerId, request.body.isActive) }),
  );

  app.post(
    '/api/dealers/:dealerId/inventory/feed/test',
    { config: write, schema: { tags, summary: 'Fetch and parse a feed without storing anything', params: dealerParams, body: feedTestSchema, response: { 200: feedTestResultSchema } } },
    async (request) => testFeed(app.db, request.params.dealerId, request.body, fetchOpts()),
  );
}
