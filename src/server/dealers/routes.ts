/**
 * Dealer routes for the dealer area: the dealer record, its catalogue's model display names (issue
 * 15) and its headline stats (spec 02 §2 Dashboard).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dealerParams } from '../../domain/contracts/common';
import { dealerModelsSchema, dealerRecordSchema, dealerStatsSchema, statsQuery } from '../../domain/contracts/dealers';
import { dealerModelNames, getDealer } from './service';
import { dealerStats } from '../reporting/service';
import { spanWindow } from '../../domain/periods';

const tags = ['dealer'];

export async function dealerRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/dealers/:dealerId',
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'The dealer record', params: dealerParams, response: { 200: dealerRecordSchema } } },
    async (request) => ({ dealer: await getDealer(app.db, request.params.dealerId) }),
  );

  app.get(
    '/api/dealers/:dealerId/models',
    { config: { access: 'dealer-read' }, schema: { tags, summary: "The manufacturer's models with their display names", params: dealerParams, response: { 200: dealerModelsSchema } } },
    async (request) => ({ models: await dealerModelNames(app.db, request.params.dealerId) }),
  );

  app.get(
    '/api/dealers/:dealerId/stats',
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Totals of the last days', params: dealerParams, querystring: statsQuery, response: { 200: dealerStatsSchema } } },
    async (request) => {
      const { days } = request.query;
      await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      const { from, to } = spanWindow({ unit: 'day', count: days }, app.now()); // today (UTC) and the days - 1 before
      return dealerStats(app.db, request.params.dealerId, from, to);
    },
  );
}
