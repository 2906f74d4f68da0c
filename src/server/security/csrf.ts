/**
 * Cross-site request forgery defence: every state-changing request (POST, PUT,
 * PATCH, DELETE), whatever its path, must come from the app's own origin.
 *
 * The rule is not tied to how the path is spelt: the router decodes and normalises paths
 * (`/%61pi/admin/users` routes to `/api/admin/users`), so a test on the raw path could be walked
 * around. Every state-changing method is checked, on routed and unrouted paths alike, and the only
 * exemption is a route's own declaration (its identity), never a path prefix.
 *
 * The browser says where a request comes from, and a page cannot change what it says:
 * 1. `Sec-Fetch-Site` (every current browser): `same-origin` and `none` (typed by the user) pass;
 *    `same-site` (another port or subdomain of our site: SameSite=Lax cookies go with it) and
 *    `cross-site` are refused.
 * 2. Without it, `Origin`: must be PUBLIC_ORIGIN or the request's own origin (scheme://Host);
 *    `Origin: null` (sandboxed frames, `no-referrer` forms) is refused.
 * 3. Without both, `Referer`, when present, must name one of those origins.
 * 4. A request with none of them passes, with or without a session cookie: every browser in use
 *    sends `Origin` on cross-origin POST/PUT/PATCH/DELETE (and `fetch` cannot drop it), so such a
 *    request comes from a non-browser client (curl, scripts, tests), which can forge any header
 *    anyway and holds a session cookie only if its owner handed it over. Origin checks stop
 *    browsers, not scripts.
 *
 * Routes dealer sites call from their own pages (tracking beacons) declare
 * `config: { allowCrossSite: true }`. The check runs in onRequest, before any body is read, so a
 * refused multipart upload costs nothing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Forbidden } from '../errors';
import { SESSION_COOKIE } from '../auth/access';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is called by dealer websites (another origin) on purpose: no CSRF check. */
    allowCrossSite?: boolean;
  }
}

/** Methods that change state and so must come from our own origin. */
export const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The refusal's text. */
export const CROSS_SITE_REFUSED = 'Cross-site request refused: changes must come from the dc-banners app itself';

/** `scheme://host[:port]` of a URL, lower-cased with default ports dropped; null when it does not parse. */
function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * Decides whether a request may change state, from its headers.
 * @param headers the request's `sec-fetch-site`, `origin` and `referer` headers
 * @param trustedOrigins origins that count as ours (PUBLIC_ORIGIN and the request's own origin)
 * @returns null when the request may proceed, else the reason it is refused (for the log)
 */
export function crossSiteRefusal(
  headers: { 'sec-fetch-site'?: string | string[]; origin?: string | string[]; referer?: string | string[] },
  trustedOrigins: readonly string[],
): string | null {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const trusted = new Set(trustedOrigins.map((o) => originOf(o)).filter((o): o is string => o !== null));
  const site = one(headers['sec-fetch-site'])?.trim().toLowerCase();
  if (site) return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site: ${site}`;
  const origin = one(headers.origin)?.trim();
  if (origin !== undefined && origin !== '') {
    const o = origin === 'null' ? null : originOf(origin);
    return o && trusted.has(o) ? null : `Origin: ${origin.slice(0, 200)}`;
  }
  const referer = one(headers.referer)?.trim();
  if (referer) {
    const r = originOf(referer);
    return r && trusted.has(r) ? null : `Referer: ${referer.slice(0, 200)}`;
  }
  return null;
}

/** The origin the request was addressed to (scheme and Host header), e.g. http://localhost:3000. */
export function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * Fastify plugin: refuses cross-site state-changing requests with
 * 403 `{ error: { code: 'FORBIDDEN', message: CROSS_SITE_REFUSED } }`.
 * @param opts.publicOrigin PUBLIC_ORIGIN, accepted besides the request's own origin
 */
export const csrfPlugin = fp(async (app: FastifyInstance, opts: { publicOrigin: string }) => {
  // A callback hook, not async: it runs on every request, and a promise per request costs.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!STATE_CHANGING_METHODS.has(request.method) || request.routeOptions.config?.allowCrossSite) return done();
    const refusal = crossSiteRefusal(request.headers, [opts.publicOrigin, ownOrigin(request)]);
    if (!refusal) return done();
    const withSessionCookie = Boolean(request.cookies?.[SESSION_COOKIE]);
    request.log.warn({ refusal, route: request.routeOptions.url ?? null, url: request.url.split('?')[0]!.slice(0, 200), withSessionCookie }, 'cross-site request refused');
    done(new Forbidden(CROSS_SITE_REFUSED));
  });
});
