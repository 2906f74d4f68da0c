/**
 * Every HTML response carries helmet's page headers: the CSP with
 * `frame-ancestors 'self'`, `X-Frame-Options: SAMEORIGIN`, nosniff and the rest.
 *
 * Routes for other sites (the embed script under `/scripts/:file`, banners, beacons) switch helmet
 * off with `helmet: false`; when such a route hands over to the not-found handler, which serves the
 * SPA's index.html for client routes (`/scripts/:dealerId` is the dealer's script page), helmet's
 * onRequest hook has already been skipped. This onSend hook closes that gap for any HTML body,
 * whatever route produced it, so no page of the app can be framed by another site.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Fastify plugin (register after @fastify/helmet): applies the app's helmet configuration to a
 * `text/html` response that has no Content-Security-Policy yet. No inputs; never throws.
 */
export const htmlSecurityHeadersPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = String(reply.getHeader('content-type') ?? '');
    const needsHeaders = type.toLowerCase().startsWith('text/html') && reply.getHeader('content-security-policy') === undefined && !reply.raw.hasHeader('content-security-policy');
    if (needsHeaders && typeof reply.helmet === 'function') reply.helmet();
    done(null, payload);
  });
});
