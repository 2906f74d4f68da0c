/**
 * Dealer analytics routes: the Analytics Dashboard data and its CSV export (spec 02 §2 Analytics,
 * DECISIONS 18).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { analyticsPeriodSchema } from '../../domain/schemas';
import { parseInput } from '../validation';
import { getDealer } from '../dealers/service';
import { analyticsCsv, dealerAnalytics } from './service';

const query = z.object({ period: analyticsPeriodSchema.default('7d') });

export async function analyticsRoutes(app: FastifyInstance) {
  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/analytics',
    { config: { access: 'dealer-read' } },
    async (request) => {
      const { period } = parseInput(query, request.query);
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      return dealerAnalytics(app.db, dealer.id, period, dealer.configs.modelMap);
    },
  );

  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/analytics/export.csv',
    { config: { access: 'dealer-read' } },
    async (request, reply) => {
      const { period } = parseInput(query, request.query);
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      const csv = await analyticsCsv(app.db, dealer.id, period, dealer.configs.modelMap);
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="dc-banners-${dealer.id}-${period}.csv"`)
        .send(csv);
    },
  );
}
