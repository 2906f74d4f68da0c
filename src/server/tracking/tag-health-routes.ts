/**
 * Tag health routes of the Script pages (dealer and admin; domain/tag-health.ts): what became of
 * the beacons a dealer's pages sent, and "Test my page", which tells what a page at an address
 * would hit without loading it. Readable by admins and the dealer's own users (viewers included).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dealerParams } from '../../domain/contracts/common';
import { pageCheckQuerySchema, pageCheckSchema, tagHealthSchema } from '../../domain/contracts/tag-health';
import { TEXT } from '../../domain/constants';
import { NotFound } from '../errors';
import { pageCheck } from './tag-health';

export async function tagHealthRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  /** The dealer's delivery settings. @throws NotFound for an unknown dealer */
  const dealerOf = async (dealerId: string) => {
    const dealer = await app.dealerSites.find(dealerId);
    if (!dealer) throw new NotFound(TEXT.dealerNotFound);
    return dealer;
  };

  app.get(
    '/api/dealers/:dealerId/tag-health',
    {
      config: { access: 'dealer-read' },
      schema: {
        tags: ['script'],
        summary: 'Tag health: last beacon per origin and slot, and the last 24 h of beacons by reason (counted, or why not)',
        params: dealerParams,
        response: { 200: tagHealthSchema },
      },
    },
    async (request) => {
      const dealer = await dealerOf(request.params.dealerId);
      return app.tagHealth.read(dealer.id);
    },
  );

  app.get(
    '/api/dealers/:dealerId/tag-health/page-check',
    {
      config: { access: 'dealer-read' },
      schema: {
        tags: ['script'],
        summary: 'Test my page: what beacons from a page at this address would meet (the page is not loaded)',
        params: dealerParams,
        querystring: pageCheckQuerySchema,
        response: { 200: pageCheckSchema },
      },
    },
    async (request) => {
      const dealer = await dealerOf(request.params.dealerId);
      const health = await app.tagHealth.read(dealer.id);
      return pageCheck(request.query.url, { dealerId: dealer.id, security: dealer.security, publicOrigin: app.config.publicOrigin, loopbackOnly: app.publicPolicy.loopbackOnly, admin: request.user?.role === 'admin' }, health);
    },
  );
}
