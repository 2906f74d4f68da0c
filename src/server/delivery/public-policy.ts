/**
 * A dealer's security settings applied to the public endpoints its website calls (banner images,
 * tracking, the embed script): allowed domains by Origin/Referer with CORS for them, HTTPS when
 * required (spec 01 §3 Dealer.security, §9; DECISIONS 17), and `maxRequestsPerMinute` on tracking
 * only, per page view, with a NAT-friendly per-IP budget beside it (issue 12): banner images and
 * the script are cacheable and never limited per client IP, since shoppers behind one NAT share it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { normalizeIP, type RateLimitOptions } from '@fastify/rate-limit';
import type { Security } from '../../domain/schemas';
import { RATE_LIMIT_NAT_FACTOR, RATE_LIMIT_PAGE_VIEWS_KEPT } from '../../domain/constants';
import { Forbidden } from '../errors';
import type { DealerDelivery } from './service';

/** Hosts that are always this machine: a server whose PUBLIC_ORIGIN is one of them (local development, tests) serves plain HTTP. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * True when a server with this PUBLIC_ORIGIN runs for this machine only (a loopback host). Read
 * from the configuration, never from the request's Host header, which any client can write.
 */
export function servesLoopbackOnly(publicOrigin: string): boolean {
  let answer = loopbackOrigins.get(publicOrigin);
  if (answer === undefined) loopbackOrigins.set(publicOrigin, (answer = LOOPBACK.has(new URL(publicOrigin).hostname)));
  return answer;
}
/** servesLoopbackOnly's answers (one per configured PUBLIC_ORIGIN: the URL is not parsed per request). */
const loopbackOrigins = new Map<string, boolean>();

/** The calling page's origin: the Origin header, else the origin of the Referer; null when neither is usable. */
export function requestOrigin(request: Pick<FastifyRequest, 'headers'>): string | null {
  const raw = request.headers.origin ?? request.headers.referer;
  if (!raw || raw === 'null') return null;
  try {
    return new URL(raw).origin;
  } catch {
    return null;
  }
}

/** True when `host` is one of the allowed domains or a subdomain of one (entries may be bare hosts or URLs). */
export function hostAllowed(host: string, allowedDomains: string[]): boolean {
  const h = host.toLowerCase();
  return allowedDomains.some((entry) => {
    let d = entry.trim().toLowerCase();
    try {
      if (d.includes('://')) d = new URL(d).hostname;
    } catch {
      return false;
    }
    d = d.replace(/^\*\./, '').replace(/\/.*$/, '');
    return d !== '' && (h === d || h.endsWith(`.${d}`));
  });
}

/** True when the dealer accepts requests only from listed domains. */
const restrictsDomains = (security: Security) => security.enableCors && security.allowedDomains.length > 0;

/** What dealerPolicy reads of a request. */
export interface PolicyRequest {
  headers: IncomingHttpHeaders;
  /** 'https' or 'http', as Fastify's request.protocol (TRUST_PROXY decides whether X-Forwarded-Proto counts). */
  protocol: string;
  /** servesLoopbackOnly(PUBLIC_ORIGIN). */
  loopbackOnly: boolean;
}

/**
 * The dealer's settings applied to a public request: refuses it when they forbid it, and returns
 * the origin to answer CORS for (null: no CORS headers). Images (`beacon` false) without Origin and
 * Referer (privacy settings may strip both) are not refused for their origin: there is nothing to
 * check. Beacons (`beacon` true, issue 11) are stricter, because a forged beacon changes the
 * dealer's numbers: `Origin: null` (sandboxed iframes, data: pages) is always refused, and a beacon
 * with neither Origin nor Referer is refused when the dealer restricts domains. Origin headers stop
 * browsers, not scripts: any non-browser client can write them.
 * @throws Forbidden naming the reason (HTTPS required, origin not allowed, opaque or missing origin).
 */
export function dealerPolicy(request: PolicyRequest, security: Security, opts: { beacon?: boolean } = {}): string | null {
  if (security.requireHttps && request.protocol !== 'https' && !request.loopbackOnly) {
    throw new Forbidden('HTTPS is required for this dealer');
  }
  if (opts.beacon && request.headers.origin === 'null') throw new Forbidden('Beacons from an opaque origin (Origin: null) are refused');
  if (!security.enableCors) return null;
  const origin = requestOrigin(request);
  if (!origin) {
    if (opts.beacon && restrictsDomains(security)) throw new Forbidden('Beacons must come from an allowed domain of this dealer (no Origin or Referer)');
    return null;
  }
  if (!hostAllowed(new URL(origin).hostname, security.allowedDomains)) {
    throw new Forbidden(`Origin ${origin} is not an allowed domain for this dealer`);
  }
  return origin;
}

/** dealerPolicy for a Fastify request: adds `Access-Control-Allow-Origin` and `Vary: Origin` for an allowed origin. @throws Forbidden as dealerPolicy. */
export function applyDealerPolicy(request: FastifyRequest, reply: FastifyReply, security: Security, opts: { beacon?: boolean } = {}): void {
  const loopbackOnly = servesLoopbackOnly(request.server.config.publicOrigin);
  const origin = dealerPolicy({ headers: request.headers, protocol: request.protocol, loopbackOnly }, security, opts);
  if (origin) reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
}

/** The window of the tracking limits (the dealer's setting is per minute). */
const RATE_WINDOW_MS = 60_000;

/** Where a beacon's limits are counted: its dealer and page view (null when a body carries none: it is refused by validation). */
export interface BeaconKey {
  dealerId: string;
  pageView: string | null;
}

/** The dealer's `maxRequestsPerMinute`, or null when nothing is limited (limiting off, or an unknown dealer: the route answers 404). */
const limitOf = (dealer: DealerDelivery | null): number | null => (dealer?.security.rateLimitEnabled ? dealer.security.maxRequestsPerMinute : null);

/** Reads the beacon's dealer (its delivery settings) that the route looked up once, before the limits run; null for an unknown dealer. */
export type BeaconDealerOf = (request: FastifyRequest) => DealerDelivery | null;

/**
 * Route config for @fastify/rate-limit on the tracking endpoint (issue 12): the dealer's
 * `maxRequestsPerMinute` per page view (dealer and `pv`), so each shopper gets the dealer's budget
 * whatever IP they share (a conversion carries its click's page view and counts there). Bodies
 * without a page view (refused by validation) and dealers without limiting are not counted here;
 * clientIpBudget bounds every beacon. Over the limit: 429 with Retry-After.
 * @param beaconOf reads the dealer and page view from the parsed body.
 * @param dealerOf the beacon's dealer, already looked up (no lookup per limit, issue 18).
 */
export function pageViewRateLimit(beaconOf: (request: FastifyRequest) => BeaconKey, dealerOf: BeaconDealerOf): RateLimitOptions {
  return {
    timeWindow: RATE_WINDOW_MS,
    cache: RATE_LIMIT_PAGE_VIEWS_KEPT,
    keyGenerator: (request) => {
      const beacon = beaconOf(request);
      return beacon.pageView === null ? '' : `${beacon.dealerId}|${beacon.pageView}`;
    },
    allowList: (request, key) => key === '' || limitOf(dealerOf(request)) === null,
    max: (request) => limitOf(dealerOf(request)) ?? 0,
  };
}

/** The error @fastify/rate-limit throws over a limit: status 429, answered as RATE_LIMITED by the app's error handler. */
function rateLimitExceeded(retryAfterSeconds: number): Error & { statusCode: number } {
  return Object.assign(new Error(`Rate limit exceeded, retry in ${retryAfterSeconds} seconds`), { statusCode: 429 });
}

/**
 * A preHandler for the tracking endpoint (issue 12): per client IP (IPv6 by /64, as the plugin
 * keys) and dealer, `maxRequestsPerMinute` × RATE_LIMIT_NAT_FACTOR requests a minute, counted in
 * the rate-limit plugin's store (`app.createRateLimit`); the second limit beside the route's
 * pageViewRateLimit, which the plugin allows once per route. Dealers without limiting and unknown
 * dealers are not counted.
 * @param dealerOf the beacon's dealer, already looked up (see pageViewRateLimit).
 * @throws a 429 error (with Retry-After and the X-RateLimit-* headers set) over the budget.
 */
export function clientIpBudget(app: FastifyInstance, dealerOf: BeaconDealerOf): preHandlerAsyncHookHandler {
  const check = app.createRateLimit({
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: (request) => `${normalizeIP(request.ip)}|${dealerOf(request)?.id ?? ''}`,
    allowList: (request) => limitOf(dealerOf(request)) === null,
    max: (request) => (limitOf(dealerOf(request)) ?? 0) * RATE_LIMIT_NAT_FACTOR,
  });
  return async (request, reply) => {
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return;
    reply
      .header('x-ratelimit-limit', result.max)
      .header('x-ratelimit-remaining', 0)
      .header('x-ratelimit-reset', result.ttlInSeconds)
      .header('retry-after', result.ttlInSeconds);
    throw rateLimitExceeded(result.ttlInSeconds);
  };
}
