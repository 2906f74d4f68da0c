/**
 * A dealer's security settings applied to the public endpoints its website calls (spec 01 §3
 * Dealer.security, §9; DECISIONS 17): allowed domains by Origin/Referer with CORS for them, and
 * HTTPS when required, on tracking beacons (dealerPolicy); HTTPS only on banner images (imagePolicy).
 * `maxRequestsPerMinute` applies to tracking only (tracking/intake.ts): banner images and the
 * script are cacheable and never limited per client IP, since shoppers behind one NAT share it.
 *
 * Banner images are public by design: they are the dealer's public marketing creatives, which any
 * visitor of the dealer's site downloads and can pass on. What the allowed domains protect is the
 * dealer's numbers (a forged beacon counts), so the beacon intake checks the origin and the image
 * endpoint does not. An image answer therefore depends on nothing but its URL (scheme included),
 * Accept and Accept-Encoding, which is what lets a shared cache (a CDN) keep it: an answer that
 * depended on Origin or Referer would be served by a CDN to every other site, or a cached 403 to
 * the dealer's own (docs/OPERATIONS.md "Putting a CDN in front").
 *
 * What is worked out once rather than per request (whether PUBLIC_ORIGIN is a loopback host, the
 * answers per Origin header) is kept by the app's `PublicPolicy` (`app.publicPolicy`,
 * publicPolicyPlugin), never in this module: two apps in one process keep their own.
 */
import type { IncomingHttpHeaders } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Security } from '../../domain/schemas';
import { Forbidden } from '../errors';

/**
 * A refusal of the dealer's security settings, with which one refused: `https` (requireHttps) or
 * `domain` (allowed domains, opaque or missing origin), for the tag health counters.
 */
export class PolicyRefusal extends Forbidden {
  constructor(
    readonly reason: 'https' | 'domain',
    message: string,
  ) {
    super(message);
  }
}

/** Hosts that are always this machine: a server whose PUBLIC_ORIGIN is one of them (local development, tests) serves plain HTTP. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * True when a server with this PUBLIC_ORIGIN runs for this machine only (a loopback host). Read
 * from the configuration, never from the request's Host header, which any client can write.
 */
export function servesLoopbackOnly(publicOrigin: string): boolean {
  return LOOPBACK.has(new URL(publicOrigin).hostname);
}

/** The calling page's Origin header, else its Referer; undefined when neither is sent or the Origin is 'null'. */
const callerOf = (headers: IncomingHttpHeaders): string | undefined => {
  const raw = headers.origin ?? headers.referer;
  return raw && raw !== 'null' ? raw : undefined;
};

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

/** An Origin header's answer: CORS for `origin` (null: no CORS headers), or the refusal's reason. */
type OriginAnswer = { origin: string | null; refused?: string };
/** Answers kept per Origin header value, per dealer settings object. */
const MAX_ORIGINS_KEPT = 64;

/**
 * The public endpoints' policy of one app (`app.publicPolicy`): what it works out once for its
 * PUBLIC_ORIGIN, and the answers it keeps per Origin header (see the module doc).
 */
export class PublicPolicy {
  /** servesLoopbackOnly(PUBLIC_ORIGIN): dealers' requireHttps does not apply. */
  readonly loopbackOnly: boolean;
  /**
   * dealerPolicy's answers per Origin header value, per dealer settings object (a settings change
   * is a new object, so a change is never answered from an old entry); at most MAX_ORIGINS_KEPT
   * each. A dealer's pages send few distinct Origin values: no URL parsing per request.
   */
  private readonly originAnswers = new WeakMap<Security, Map<string, OriginAnswer>>();

  /** @param publicOrigin PUBLIC_ORIGIN (config.publicOrigin), an absolute URL. */
  constructor(publicOrigin: string) {
    this.loopbackOnly = servesLoopbackOnly(publicOrigin);
  }

  /**
   * The dealer's settings applied to a request judged by its calling page (the beacon intake passes
   * `beacon: true`; banner images are not judged by origin, see imagePolicy): refuses it when they
   * forbid it, and returns the origin to answer CORS for (null: no CORS headers). While the dealer
   * restricts domains (enableCors with allowedDomains), `Origin: null` (sandboxed iframes, data:
   * pages) is refused, and a request (`beacon` false) with neither Origin nor Referer is let through:
   * a page under `Referrer-Policy: no-referrer` (or a browser's privacy setting) sends no Referer.
   * Beacons (`beacon` true) are stricter, because a forged beacon changes the dealer's numbers:
   * `Origin: null` is always refused, and a beacon with neither Origin nor Referer is refused when
   * the dealer restricts domains. Origin headers stop browsers, not scripts: any non-browser client
   * can write them.
   * @throws Forbidden naming the reason (HTTPS required, origin not allowed, opaque or missing origin).
   */
  dealerPolicy(request: PolicyRequest, security: Security, opts: { beacon?: boolean } = {}): string | null {
    imagePolicy(request, security); // requireHttps, as for images
    if (opts.beacon && request.headers.origin === 'null') throw new PolicyRefusal('domain', 'Beacons from an opaque origin (Origin: null) are refused');
    if (!security.enableCors) return null;
    // An opaque origin (sandboxed iframe, data: page) could be any site: it is on no allowed domain.
    if (request.headers.origin === 'null' && restrictsDomains(security)) throw new PolicyRefusal('domain', 'Requests from an opaque origin (Origin: null) are refused for this dealer');
    const header = request.headers.origin;
    // A dealer's pages send few distinct Origin values: their answer is kept with the settings (no URL parsing per request).
    let kept = header === undefined ? undefined : this.originAnswers.get(security);
    const answer = kept?.get(header!) ?? originAnswer(callerOf(request.headers), security);
    if (header !== undefined && !kept?.has(header)) {
      if (!kept) this.originAnswers.set(security, (kept = new Map()));
      if (kept.size < MAX_ORIGINS_KEPT) kept.set(header, answer);
    }
    if (answer.refused) throw new PolicyRefusal('domain', answer.refused);
    if (!answer.origin && opts.beacon && restrictsDomains(security)) throw new PolicyRefusal('domain', 'Beacons must come from an allowed domain of this dealer (no Origin or Referer)');
    return answer.origin;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The public endpoints' policy of this app (delivery/public-policy.ts). */
    publicPolicy: PublicPolicy;
  }
}

/** Plugin `public-policy`: decorates `app.publicPolicy` for the app's PUBLIC_ORIGIN. */
export const publicPolicyPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('publicPolicy', new PublicPolicy(app.config.publicOrigin));
  },
  { name: 'public-policy' },
);

/**
 * What the allowed domains say of the calling page (its Origin or Referer; undefined or unparsable:
 * none usable): CORS for its origin, or the refusal. A page that is not on the web (a browser
 * extension, file:, data:, an app's android-app: referrer) is never on an allowed domain.
 */
function originAnswer(caller: string | undefined, security: Security): OriginAnswer {
  let url: URL;
  try {
    if (caller === undefined) return { origin: null };
    url = new URL(caller);
  } catch {
    return { origin: null };
  }
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  const origin = web ? url.origin : `${url.protocol}//${url.host}`;
  if (!web || !hostAllowed(url.hostname, security.allowedDomains)) return { origin: null, refused: `Origin ${origin} is not an allowed domain for this dealer` };
  return { origin };
}

/**
 * The dealer's settings applied to a banner image request (the asset route): only
 * `requireHttps`, which depends on the request's scheme, part of every cache key. Origin and Referer
 * are not read (images are public, see the module doc), so the answer carries
 * `Access-Control-Allow-Origin: *` instead of a per-origin one.
 * @throws PolicyRefusal('https', 'HTTPS is required for this dealer') for plain HTTP to a dealer that requires
 *   HTTPS (unless this server serves its loopback host only).
 */
export function imagePolicy(request: Omit<PolicyRequest, 'headers'>, security: Security): void {
  if (security.requireHttps && request.protocol !== 'https' && !request.loopbackOnly) {
    throw new PolicyRefusal('https', 'HTTPS is required for this dealer');
  }
}

/** imagePolicy for a Fastify request (its app's PUBLIC_ORIGIN). @throws Forbidden as imagePolicy. */
export function applyImagePolicy(request: FastifyRequest, security: Security): void {
  imagePolicy({ protocol: request.protocol, loopbackOnly: request.server.publicPolicy.loopbackOnly }, security);
}
