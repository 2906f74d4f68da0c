/**
 * Dealer routes for the dealer area: the dealer record and its headline stats (spec 02 §2 Dashboard).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../validation';
import { getDealer } from './service';
import { dealerStats } from '../tracking/service';

const statsQuery = z.object({ days: z.coerce.number().int().min(1).max(3650).default(30) });

export async function dealerRoutes(app: FastifyInstance) {
  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId',
    { config: { access: 'dealer-read' } },
    async (request) => ({ dealer: await getDealer(app.db, request.params.dealerId) }),
  );

  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/stats',
    { config: { access: 'dealer-read' } },
    async (request) => {
      const { days } = parseInput(statsQuery, request.query);
      await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      return dealerStats(app.db, request.params.dealerId, new Date(Date.now() - days * 86_400_000), new Date());
    },
  );
}
