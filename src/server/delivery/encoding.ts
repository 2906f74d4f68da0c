/**
 * Content coding and revalidation of the public delivery responses, the embed script and the
 * placeholder SVGs: a body is compressed once, when its cached
 * entry is made (brotli at maximum quality and gzip, node:zlib); each request picks a coding from
 * Accept-Encoding (@fastify/accept-negotiator), each coding has its own strong ETag, and
 * If-None-Match is compared with the weak comparison of RFC 9110 §13.1.2 (the `fresh` package),
 * so `W/"…"`, lists and `*` revalidate to 304.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import fresh from 'fresh';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The content codings the delivery endpoints offer, in the server's order of preference. */
export type ContentCoding = 'br' | 'gzip';

/** Compressed copies of a body; a coding is absent when it would not make the body smaller. */
export type Encoded = Partial<Record<ContentCoding, Buffer>>;

/** A cacheable response body: identity bytes, their strong ETag and compressed copies (text bodies only). */
export interface Entity {
  body: Buffer;
  etag: string;
  encoded?: Encoded;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Brotli (quality 11, text mode) and gzip (level 9) copies of `body`, for bodies served many times
 * from a cache: the cost is paid once per cached entry. Raster images (WebP, JPEG, PNG) are
 * already compressed and must not be passed here.
 * @returns the codings that are smaller than `body` (none for an empty or incompressible body).
 */
export async function compressVariants(body: Buffer): Promise<Encoded> {
  const [br, gz] = await Promise.all([
    brotli(body, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    gzipAsync(body, { level: zlib.Z_BEST_COMPRESSION }),
  ]);
  const encoded: Encoded = {};
  if (br.length < body.length) encoded.br = br;
  if (gz.length < body.length) encoded.gzip = gz;
  return encoded;
}

/** Bytes held by the compressed copies (for caches bounded by size). */
export const encodedBytes = (encoded: Encoded | undefined): number => (encoded?.br?.length ?? 0) + (encoded?.gzip?.length ?? 0);

/**
 * The coding to send for `acceptEncoding` among those `encoded` holds: the client's preference by
 * q-value, then br before gzip; null for identity (no header, `identity`, or nothing acceptable).
 */
export function chooseCoding(acceptEncoding: string | undefined, encoded: Encoded | undefined): ContentCoding | null {
  if (!acceptEncoding || !encoded) return null;
  const offered: Array<ContentCoding | 'identity'> = [];
  if (encoded.br) offered.push('br');
  if (encoded.gzip) offered.push('gzip');
  if (offered.length === 0) return null;
  offered.push('identity');
  const chosen = negotiate(acceptEncoding, offered);
  return chosen === 'identity' ? null : chosen;
}

/** The strong ETag of the `coding` representation: the identity tag with a suffix, so each coding validates only itself. */
export const codedEtag = (etag: string, coding: ContentCoding | null): string => (coding ? `${etag.slice(0, -1)}-${coding}"` : etag);

/** Adds `field` to the reply's Vary header unless it is already named there. */
function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const list = typeof current === 'string' ? current : Array.isArray(current) ? current.join(', ') : '';
  if (list.split(',').some((f) => f.trim().toLowerCase() === field.toLowerCase() || f.trim() === '*')) return;
  reply.header('Vary', list ? `${list}, ${field}` : field);
}

/** How a cached entity answers one request (entityAnswer). */
export interface EntityAnswer {
  /** 304 when If-None-Match matched (no body is sent), else 200. */
  status: 200 | 304;
  /** The ETag of the chosen coding. */
  etag: string;
  /** Content-Encoding, null for identity. */
  coding: ContentCoding | null;
  /** True when the entity has compressed copies: the answer varies on Accept-Encoding. */
  varyEncoding: boolean;
  /** The bytes to send (the coded copy or the identity body). */
  body: Buffer;
}

/**
 * The answer an entity gives a request with these headers: the coding Accept-Encoding picks, its
 * strong ETag, and 304 when If-None-Match matches by the weak comparison (`W/"x"`, lists, `*`).
 */
export function entityAnswer(headers: IncomingHttpHeaders, entity: Entity): EntityAnswer {
  const coding = chooseCoding(headers['accept-encoding'], entity.encoded);
  const etag = codedEtag(entity.etag, coding);
  const coded = coding ? entity.encoded?.[coding] : undefined;
  return {
    status: fresh(headers, { etag }) ? 304 : 200,
    etag,
    coding: coded ? coding : null,
    varyEncoding: encodedBytes(entity.encoded) > 0,
    body: coded ?? entity.body,
  };
}

/**
 * Sends a cached entity in the coding the request accepts (entityAnswer): sets ETag (per coding),
 * Vary: Accept-Encoding when the entity has compressed copies, and Content-Encoding; answers 304
 * with no body when If-None-Match matches. Content type, Cache-Control and other headers are the
 * caller's, set before.
 */
export function sendEntity(request: FastifyRequest, reply: FastifyReply, entity: Entity): FastifyReply {
  const answer = entityAnswer(request.headers, entity);
  if (answer.varyEncoding) addVary(reply, 'Accept-Encoding');
  reply.header('ETag', answer.etag);
  if (answer.status === 304) return reply.status(304).send();
  if (answer.coding) reply.header('Content-Encoding', answer.coding);
  return reply.send(answer.body);
}
