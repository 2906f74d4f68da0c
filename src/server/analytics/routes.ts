/**
 * Dealer analytics routes: the Analytics Dashboard data and its CSV export (spec 02 §2 Analytics,
 * DECISIONS 18).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dealerParams } from '../../domain/contracts/common';
import { dealerAnalyticsQuery, dealerAnalyticsSchema } from '../../domain/contracts/analytics';
import { getDealer } from '../dealers/service';
import { analyticsCsv, dealerAnalytics } from './service';

const tags = ['analytics'];

export async function analyticsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/dealers/:dealerId/analytics',
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Analytics of a period', params: dealerParams, querystring: dealerAnalyticsQuery, response: { 200: dealerAnalyticsSchema } } },
    async (request) => {
      const { period } = request.query;
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      return dealerAnalytics(app.db, dealer.id, period, dealer.configs.modelMap, app.now());
    },
  );

  app.get(
    '/api/dealers/:dealerId/analytics/export.csv',
    // text/csv attachment: no JSON answer to describe.
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Analytics of a period as CSV', params: dealerParams, querystring: dealerAnalyticsQuery } },
    async (request, reply) => {
      const { period } = request.query;
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      const csv = await analyticsCsv(app.db, dealer.id, period, dealer.configs.modelMap, app.now());
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="dc-banners-${dealer.id}-${period}.csv"`)
        .send(csv);
    },
  );
}
