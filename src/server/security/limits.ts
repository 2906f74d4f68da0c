/**
 * Connection timeouts and request-size limits of the HTTP server: one connection
 * dripping headers or a body must not hold a socket forever, and an upload request has a total
 * size cap checked before anything is read or stored.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { MAX_ASSET_BYTES, MAX_UPLOAD_FILES } from '../../domain/constants';
import { PayloadTooLarge } from '../errors';

/** The Node server's timeouts, milliseconds (Fastify leaves requestTimeout and connectionTimeout off by default). */
export interface ServerTimeouts {
  /**
   * Longest time to receive one whole request, headers and body (Node's `server.requestTimeout`).
   * 120 s: the web app uploads one banner (≤ 2 MB) per request, which takes 32 s even at
   * 0.5 Mbit/s, and an inventory file (≤ 20 MB) needs 1.4 Mbit/s; an API client sending the full
   * 20 × 2 MB batch in one request needs 2.8 Mbit/s and should send fewer files per request on a
   * slower link. A dripping body is cut after 120 s with 408.
   */
  requestTimeoutMs: number;
  /** Longest time to receive the request headers (Node's `server.headersTimeout`): 20 s, real clients need milliseconds. */
  headersTimeoutMs: number;
  /**
   * Socket inactivity limit (Fastify's `connectionTimeout`, Node's `server.setTimeout`): 120 s
   * without a byte in either direction closes the socket, so a stalled reader of a long response
   * is released too. Longer than any handler's silent work (image processing, inventory apply).
   */
  connectionTimeoutMs: number;
  /** How often Node checks requestTimeout and headersTimeout (its default 30 s would let both overrun by that much). */
  checkIntervalMs: number;
}

export const SERVER_TIMEOUTS: ServerTimeouts = {
  requestTimeoutMs: 120_000,
  headersTimeoutMs: 20_000,
  connectionTimeoutMs: 120_000,
  checkIntervalMs: 5_000,
};

/**
 * Fastify constructor options for the timeouts (`requestTimeout`, `connectionTimeout`, and the
 * `http` server options `headersTimeout` and `connectionsCheckingInterval`).
 * @param t the timeouts; SERVER_TIMEOUTS unless a test shortens them
 */
export function fastifyTimeoutOptions(t: ServerTimeouts = SERVER_TIMEOUTS) {
  return {
    requestTimeout: t.requestTimeoutMs,
    connectionTimeout: t.connectionTimeoutMs,
    http: { headersTimeout: t.headersTimeoutMs, requestTimeout: t.requestTimeoutMs, connectionsCheckingInterval: t.checkIntervalMs },
  };
}

/** Limits of one multipart part: a text field's value, and the count of fields and header pairs. */
export const MULTIPART_FIELD_BYTES = 64 * 1024;
export const MULTIPART_MAX_FIELDS = 10;

/**
 * Total size cap of one multipart request: MAX_UPLOAD_FILES files of
 * MAX_ASSET_BYTES, plus 1 MiB for the fields and the multipart framing. The inventory upload
 * (one file of at most 20 MB) fits under it too.
 */
export const MAX_MULTIPART_REQUEST_BYTES = MAX_UPLOAD_FILES * MAX_ASSET_BYTES + 1024 * 1024;

/** The refusal naming the total cap. */
export const UPLOAD_TOO_LARGE = `Upload too large: at most ${Math.round(MAX_MULTIPART_REQUEST_BYTES / (1024 * 1024))} MB per request (${MAX_UPLOAD_FILES} files of ${MAX_ASSET_BYTES / (1024 * 1024)} MB)`;

/** @fastify/multipart `limits` (the per-route fileSize and files are set by each route). */
export const multipartLimits = {
  fileSize: MAX_ASSET_BYTES,
  files: MAX_UPLOAD_FILES,
  fields: MULTIPART_MAX_FIELDS,
  fieldSize: MULTIPART_FIELD_BYTES,
  parts: MAX_UPLOAD_FILES + MULTIPART_MAX_FIELDS,
  headerPairs: 100,
};

function isMultipart(request: FastifyRequest): boolean {
  return String(request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/');
}

/**
 * Fastify plugin: a multipart request over MAX_MULTIPART_REQUEST_BYTES is refused with
 * 413 PAYLOAD_TOO_LARGE naming the cap. With a Content-Length (every browser sends one) the
 * refusal comes before a byte of the body is read; a chunked body is counted while it streams and
 * the multipart parser is stopped with the same error once it passes the cap (the route then
 * stores nothing, as it stores only after every part was read).
 * @param opts.maxBytes the cap; MAX_MULTIPART_REQUEST_BYTES unless a test lowers it
 */
export const uploadCapPlugin = fp(async (app: FastifyInstance, opts: { maxBytes?: number }) => {
  const maxBytes = opts.maxBytes ?? MAX_MULTIPART_REQUEST_BYTES;
  const message = maxBytes === MAX_MULTIPART_REQUEST_BYTES ? UPLOAD_TOO_LARGE : `Upload too large: at most ${maxBytes} bytes per request`;
  app.addHook('onRequest', (request, _reply, done) => {
    if (!isMultipart(request)) return done();
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) return done(new PayloadTooLarge(message));
    if (request.headers['content-length'] !== undefined) return done();
    // Chunked: count as the body streams. pause() keeps the stream from flowing before the
    // multipart parser pipes it (pipe resumes it), so this listener loses nothing for the parser.
    const raw = request.raw;
    let seen = 0;
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= maxBytes) return;
      raw.off('data', count);
      raw.unpipe();
      if (raw.listenerCount('error') > 0) raw.emit('error', new PayloadTooLarge(message));
      else raw.destroy();
    };
    raw.on('data', count);
    raw.pause();
    done();
  });
});
