/**
 * The banner hot path: a hot banner image answered straight from the delivery caches
 * by the HTTP server's request listener, before Fastify builds a request, runs its hooks or awaits
 * anything. Banner images are most of what a dealer's pages ask us for, and on a hot banner every
 * input of the answer is already in memory; Fastify's per-request work (request and reply objects,
 * the child logger, seven hooks, schema validation, three awaits) cost more than the answer.
 *
 * It answers exactly what GET /api/scripts/:dealerId/asset (routes.ts) answers, from the same
 * functions: the query is parsed as Fastify parses it (fast-querystring) and checked with the
 * route's schema (assetQuerySchema); the dealer's settings apply through imagePolicy with the
 * protocol worked out as Fastify's request.protocol does under TRUST_PROXY; the choice and the
 * bytes are the delivery caches' (hotSlotChoice, hotBannerBytes); the headers are bannerHeaders and
 * entityAnswer's; a model the dealer does not have is the route's 404 in the app's error shape (so
 * a flood of unique models costs little); the request id, the request-duration metric and the
 * cache-lookup counters are recorded as for any request. src/server/hot-paths.test.ts compares the
 * two answer for answer.
 *
 * Everything else is handed to Fastify unchanged (the caller's `false`): another method or path, a
 * query the schema refuses or holding a control character (refused with 400 by the route's hook), anything not cached or not current (a dealer whose cached settings are
 * not current, dealer-sites cache.ts `current`; a choice or bytes not made yet: the route makes them, and the next
 * request is hot), a refusal (the route answers the 403), a redirect to a CDN or fallback image,
 * a query over MAX_QUERY_LENGTH, and every request while the server sheds load or is closing
 * (hot-paths.ts). A request the log samples is answered here and logged as the route would.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'fast-querystring';
import { LRUCache } from 'lru-cache';
import { assetQuerySchema, type AssetQuery } from '../../domain/schemas';
import { requestId } from '../observability/request-log';
import { entityAnswer } from './encoding';
import { imagePolicy } from './public-policy';
import { acceptsWebp, bannerHeaders } from './routes';
import { countHotHits, hotBannerBytes, hotSlotChoice, NO_SUCH_MODEL, type HotLookup } from './service';
import { NotFound } from '../errors';
import { hasControlCharacter } from '../security/control-chars';
import type { HotPath, HotPathContext } from '../hot-paths';

/** The route's path with a plain dealer id (letters, digits, hyphens: nothing for the router to decode) and its query. */
const BANNER_PATH = /^\/api\/scripts\/([a-z0-9-]{1,100})\/asset(?:\?(.*))?$/;
/** The route template, as the request-duration metric labels it. */
const ROUTE = '/api/scripts/:dealerId/asset';
/** Distinct query strings whose parsed query is kept (pages ask for a few per model, slot and size). */
const MAX_QUERIES = 2000;
/** Longest query string taken here (the embed script's are under 200 characters): the query cache holds at most MAX_QUERIES of these. */
const MAX_QUERY_LENGTH = 512;

/** The banner hot path of one app (app.ts puts it in front of Fastify). */
export class BannerHotPath implements HotPath {
  /** Requests answered here since start (tests; the request-duration metric counts them with the route's). */
  answered = 0;
  /** Parsed and validated queries by raw query string; `q` null for one the schema refuses. */
  private readonly queries = new LRUCache<string, { q: AssetQuery | null }>({ max: MAX_QUERIES });

  constructor(private readonly ctx: HotPathContext) {}

  /**
   * Answers the request when it is a hot banner (see the module doc) and returns true; returns
   * false, having written nothing, for Fastify to answer it.
   */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET') return false;
    const match = BANNER_PATH.exec(req.url ?? '');
    if (!match) return false;
    const started = performance.now();
    const raw = match[2] ?? '';
    const q = raw.length <= MAX_QUERY_LENGTH ? this.query(raw) : null;
    if (!q || this.ctx.declines()) return false;
    const app = this.ctx.app;
    const dealer = app.dealerSites.current(match[1]!);
    if (!dealer) return false;
    try {
      imagePolicy({ protocol: this.ctx.protocolOf(req), loopbackOnly: this.ctx.loopbackOnly }, dealer.security);
    } catch {
      return false;
    }
    const headers: Record<string, string | number> = { 'x-request-id': requestId(req) };
    const choice = hotSlotChoice(app, dealer, q, app.cdnProbes);
    if (choice === null) {
      // The route's 404 in the app's error shape, no-store (a flood of unknown models costs no more than this).
      this.ctx.sendError(res, new NotFound(NO_SUCH_MODEL), headers);
      this.done(req, 404, started, headers, 'dealer');
      return true;
    }
    if (!choice || choice.url) return false;
    const bytes = hotBannerBytes(app.caches, choice, { type: q.type, acceptsWebp: acceptsWebp(req.headers), scale: q.scale });
    if (!bytes) return false;
    const entity = entityAnswer(req.headers, bytes);
    Object.assign(headers, bannerHeaders(choice, bytes, app.now().getTime()));
    if (entity.varyEncoding) headers.vary = `${headers.vary}, Accept-Encoding`;
    headers.etag = entity.etag;
    if (entity.status === 304) {
      res.writeHead(304, headers).end();
    } else {
      if (entity.coding) headers['content-encoding'] = entity.coding;
      headers['content-length'] = entity.body.length;
      res.writeHead(200, headers).end(entity.body);
    }
    this.done(req, entity.status, started, headers, 'dealer', 'choice', 'bytes');
    return true;
  }

  /** Records an answer (hot-paths.ts `answered`) and the cache hits it was made of (counted only now: a request handed to the route is counted there). */
  private done(req: IncomingMessage, status: number, started: number, headers: Record<string, string | number>, ...hits: HotLookup[]): void {
    countHotHits(hits);
    this.ctx.answered(req, ROUTE, status, started, headers['x-request-id'] as string);
    this.answered += 1;
  }

  /** The query as the route validates it (cached by its raw text); null when the schema refuses it or it holds a control character. */
  private query(raw: string): AssetQuery | null {
    let entry = this.queries.get(raw);
    if (entry === undefined) {
      // A control character is the route's 400 (security/control-chars.ts): handed to Fastify.
      const parsed = hasControlCharacter(raw) ? null : assetQuerySchema.safeParse(raw === '' ? {} : parseQuery(raw));
      entry = { q: parsed?.success ? parsed.data : null };
      this.queries.set(raw, entry);
    }
    return entry.q;
  }
}
