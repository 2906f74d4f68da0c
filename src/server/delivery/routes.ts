/**
 * GET /api/scripts/:dealerId/asset: the banner image a dealer-site slot shows (spec 01 §7,
 * DECISIONS 14). Public, under the dealer's security settings; answers image bytes with a strong
 * ETag and CDN-cacheable headers and 304 to a matching If-None-Match, or a 302 redirect to the
 * dealer's CDN image or fallback asset. `X-Banner-Source` says where the image comes from and
 * `X-Banner-Model` the model key the slot shows (the upsell target for `type=upsell`): the same
 * model the embed script's link and beacons name (issue 12). A model the dealer does not have is 404.
 */
import type { FastifyInstance } from 'fastify';
import { assetQuerySchema } from '../../domain/schemas';
import { parseInput } from '../validation';
import { bannerBytes, findDeliveryDealer, resolveBanner } from './service';
import { applyDealerPolicy, dealerRateLimit } from './public-policy';
import { NotFound } from '../errors';

export async function deliveryRoutes(app: FastifyInstance) {
  app.get<{ Params: { dealerId: string } }>(
    '/api/scripts/:dealerId/asset',
    // Image bytes and redirects: helmet's page headers do not apply (nosniff is set below).
    { helmet: false, config: { access: 'public', rateLimit: dealerRateLimit((r) => (r.params as { dealerId: string }).dealerId) } },
    async (request, reply) => {
      const q = parseInput(assetQuerySchema, request.query);
      const dealer = await findDeliveryDealer(app.db, request.params.dealerId);
      if (!dealer) throw new NotFound('Unknown dealer');
      applyDealerPolicy(request, reply, dealer.security);
      const resolved = await resolveBanner(app.db, request.params.dealerId, q, app.cdnProbes);
      if (resolved.url) {
        // CDN auto-discovery or fallback asset (DECISIONS 14 b, c): the image lives elsewhere.
        return reply
          .header('Cross-Origin-Resource-Policy', 'cross-origin')
          .header('Cache-Control', 'public, max-age=300')
          .header('Vary', 'Accept, Origin')
          .header('X-Banner-Source', resolved.source)
          .header('X-Banner-Model', resolved.modelKey)
          .redirect(resolved.url, 302);
      }
      const acceptsWebp = /image\/webp/.test(request.headers.accept ?? '');
      const bytes = await bannerBytes(app.db, resolved, { type: q.type, acceptsWebp, scale: q.scale });
      reply
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'public, max-age=300, stale-while-revalidate=86400')
        .header('Vary', 'Accept, Origin')
        .header('ETag', bytes.etag)
        .header('X-Banner-Source', resolved.source)
        .header('X-Banner-Model', resolved.modelKey);
      if (request.headers['if-none-match'] === bytes.etag) return reply.status(304).send();
      return reply.type(bytes.contentType).send(bytes.body);
    },
  );
}
