/**
 * GET /api/scripts/:dealerId/asset: the banner image a dealer-site slot shows (spec 01 §7,
 * DECISIONS 14). Public by design, whatever site asks (public-policy.ts: Origin and Referer are not
 * read; the dealer's requireHttps applies), and not limited per client IP: shoppers behind one NAT
 * share an address, so caching and the negative cache protect it instead. Answers image bytes with
 * a strong ETag and CDN-cacheable headers (`Vary: Accept`, plus Accept-Encoding for an SVG
 * placeholder brotli- or gzip-encoded when accepted, with its own ETag;
 * `Access-Control-Allow-Origin: *`) and 304 to
 * an If-None-Match that matches by weak comparison (`W/"…"`, lists, `*`), or a 302 redirect to the
 * dealer's CDN image or fallback asset. `X-Banner-Source` says where the image comes from and
 * `X-Banner-Model` the model key the slot shows (the upsell target for `type=upsell`): the same
 * model the embed script's link and beacons name; `X-Banner-Creative` the creative (the
 * asset id, or the source), which rotation bucket `r` picks among the slot's rotation, also sent
 * as `Server-Timing: creative;desc="…"` with `Timing-Allow-Origin: *` so the embed script can
 * read it from the image's resource timing entry (bytes and 304 answers, not redirects).
 * A model the dealer does not have is 404.
 * `placeholder=1` answers the slot's placeholder whatever was chosen (the script's swap after a
 * failed image load). Browser and CDN caching never outlasts the next promotion-window boundary:
 * a promotion starts and ends on time on pages too. A URL naming the dealer's version `v` is
 * cacheable for minutes (a settings change makes new URLs); one without (the header's, which a
 * tag pasted long ago still requests) is `public, no-cache`: stored, but revalidated with its
 * ETag on every use, so it never shows an old choice. Refusals (403, 404, 5xx) are
 * `Cache-Control: no-store` (refusals.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { assetQuerySchema, deliveryParams } from '../../domain/contracts/public';
import { bannerBytes, creativeOf, slotChoice, type BannerBytes, type DeliveryChoice } from './service';
import { applyImagePolicy } from './public-policy';
import { sendEntity } from './encoding';
import { NotFound } from '../errors';

/**
 * The Cache-Control of a banner answer: `maxAge` seconds fresh, then `swr` seconds
 * stale-while-revalidate, both cut so that no cached copy is used past `expiresAt` (ms since the
 * epoch: the next promotion-window boundary; null = none ahead) at `now` (ms). A request whose
 * URL names no dealer version (`versioned` false) gets `public, no-cache` instead.
 */
export function bannerCacheControl(maxAge: number, swr: number, expiresAt: number | null, now: number, versioned = true): string {
  if (!versioned) return 'public, no-cache';
  const left = expiresAt === null ? Infinity : Math.max(0, Math.floor((expiresAt - now) / 1000));
  const fresh = Math.min(maxAge, left);
  const stale = Math.min(swr, left - fresh);
  return `public, max-age=${fresh}${stale > 0 ? `, stale-while-revalidate=${stale}` : ''}`;
}

/** True when the image request's Accept names WebP (the banner is then sent as WebP). */
export const acceptsWebp = (headers: IncomingHttpHeaders): boolean => /image\/webp/.test(headers.accept ?? '');

/**
 * The headers of a banner image answer (bytes or 304) besides ETag and Content-Encoding:
 * where it comes from, its model and creative, CORS for any site and cross-origin embedding, caching until the next
 * promotion-window boundary (revalidated on every use when the URL names no version: `versioned`
 * false), Vary (Accept only: the answer depends on no Origin or Referer) and the content type.
 * @param now ms since the epoch (app.now)
 */
export function bannerHeaders(resolved: DeliveryChoice, bytes: BannerBytes, now: number, versioned = true): Record<string, string> {
  return {
    'x-banner-source': resolved.source,
    'x-banner-model': resolved.modelKey,
    'x-banner-creative': creativeOf(resolved),
    // The same creative where the embed script can read it (PerformanceResourceTiming.serverTiming:
    // an <img> gives no access to its response headers): its dataLayer events name it.
    'server-timing': `creative;desc="${creativeOf(resolved)}"`,
    'timing-allow-origin': '*',
    'access-control-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
    'x-content-type-options': 'nosniff',
    'cache-control': bannerCacheControl(300, 86400, resolved.expiresAt, now, versioned),
    vary: 'Accept',
    'content-type': bytes.contentType,
  };
}

export async function deliveryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/scripts/:dealerId/asset',
    // Image bytes and redirects: helmet's page headers do not apply (nosniff is set below). No
    // response schema: the answer is an image, a 304 or a redirect.
    {
      helmet: false,
      config: { access: 'public' },
      schema: { tags: ['public'], summary: "A slot's banner image (bytes, 304 or 302 redirect)", params: deliveryParams, querystring: assetQuerySchema },
    },
    async (request, reply) => {
      const q = request.query;
      // One lookup of the dealer per request (and one count in the cache metrics): the choice is made from it.
      const dealer = await app.dealerSites.find(request.params.dealerId);
      if (!dealer) throw new NotFound('Unknown dealer');
      applyImagePolicy(request, dealer.security);
      const resolved = await slotChoice(app, dealer, q, app.cdnProbes);
      if (resolved.url) {
        reply.header('X-Banner-Source', resolved.source).header('X-Banner-Model', resolved.modelKey).header('X-Banner-Creative', creativeOf(resolved));
        // CDN auto-discovery or fallback asset (DECISIONS 14 b, c): the image lives elsewhere, the
        // same for every Accept (no Vary).
        return reply
          .header('Access-Control-Allow-Origin', '*')
          .header('Cross-Origin-Resource-Policy', 'cross-origin')
          .header('Cache-Control', bannerCacheControl(300, 0, resolved.expiresAt, app.now().getTime(), q.v !== undefined))
          .redirect(resolved.url, 302);
      }
      const bytes = await bannerBytes(app, resolved, { type: q.type, acceptsWebp: acceptsWebp(request.headers), scale: q.scale });
      reply.headers(bannerHeaders(resolved, bytes, app.now().getTime(), q.v !== undefined));
      return sendEntity(request, reply, bytes);
    },
  );
}
