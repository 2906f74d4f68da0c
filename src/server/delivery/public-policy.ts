/**
 * A dealer's security settings applied to the public endpoints its website calls (banner images,
 * tracking, the embed script): allowed domains by Origin/Referer with CORS for them, HTTPS when
 * required, and `maxRequestsPerMinute` per client IP per dealer (spec 01 §3 Dealer.security, §9;
 * DECISIONS 17).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Security } from '../../domain/schemas';
import { Forbidden } from '../errors';
import { findDeliveryDealer } from './service';

/** Hosts that are always this machine: a server whose PUBLIC_ORIGIN is one of them (local development, tests) serves plain HTTP. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * True when this server runs for this machine only (PUBLIC_ORIGIN on a loopback host). Read from
 * the configuration, never from the request's Host header, which any client can write.
 */
const servesLoopbackOnly = (request: FastifyRequest) => LOOPBACK.has(new URL(request.server.config.publicOrigin).hostname);

/** The calling page's origin: the Origin header, else the origin of the Referer; null when neither is usable. */
export function requestOrigin(request: FastifyRequest): string | null {
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

/**
 * Refuses the request when the dealer's settings forbid it, and adds the CORS headers for an
 * allowed origin. Images (`beacon` false) without Origin and Referer (privacy settings may strip
 * both) are not refused for their origin: there is nothing to check. Beacons (`beacon` true,
 * issue 11) are stricter, because a forged beacon changes the dealer's numbers: `Origin: null`
 * (sandboxed iframes, data: pages) is always refused, and a beacon with neither Origin nor Referer
 * is refused when the dealer restricts domains. Origin headers stop browsers, not scripts: any
 * non-browser client can write them.
 * @throws Forbidden naming the reason (HTTPS required, origin not allowed, opaque or missing origin).
 */
export function applyDealerPolicy(request: FastifyRequest, reply: FastifyReply, security: Security, opts: { beacon?: boolean } = {}): void {
  if (security.requireHttps && request.protocol !== 'https' && !servesLoopbackOnly(request)) {
    throw new Forbidden('HTTPS is required for this dealer');
  }
  if (opts.beacon && request.headers.origin === 'null') throw new Forbidden('Beacons from an opaque origin (Origin: null) are refused');
  if (!security.enableCors) return;
  const origin = requestOrigin(request);
  if (!origin) {
    if (opts.beacon && restrictsDomains(security)) throw new Forbidden('Beacons must come from an allowed domain of this dealer (no Origin or Referer)');
    return;
  }
  if (!hostAllowed(new URL(origin).hostname, security.allowedDomains)) {
    throw new Forbidden(`Origin ${origin} is not an allowed domain for this dealer`);
  }
  reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
}

/** Effectively unlimited, for dealers that switched rate limiting off. */
const NO_LIMIT = 1_000_000_000;

/**
 * Route config for @fastify/rate-limit: `maxRequestsPerMinute` of the dealer the request is for,
 * counted per client IP and dealer. `dealerIdOf` says where the dealer id is (params or body).
 */
export function dealerRateLimit(dealerIdOf: (request: FastifyRequest) => string) {
  return {
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => `${request.ip}|${dealerIdOf(request)}`,
    max: async (request: FastifyRequest) => {
      const dealer = await findDeliveryDealer(request.server.db, dealerIdOf(request));
      if (!dealer) return NO_LIMIT; // unknown dealers get their 404 from the route
      return dealer.security.rateLimitEnabled ? dealer.security.maxRequestsPerMinute : NO_LIMIT;
    },
  };
}
