/**
 * POST /api/analytics/track: the dealer-site script reports impressions, clicks and
 * conversions here (spec 01 §7, DECISIONS 15-17). Answers 204; bots are acknowledged but not
 * counted; unknown dealers and bad bodies get a clear 4xx.
 */
import type { FastifyInstance } from 'fastify';
import { isbot } from 'isbot';
import { trackBodySchema } from '../../domain/schemas';
import { parseInput } from '../validation';
import { Invalid, NotFound, AppError } from '../errors';
import { dealerExists } from '../delivery/service';

export const TRACK_BODY_LIMIT = 4096;

export async function trackingRoutes(app: FastifyInstance) {
  app.post(
    '/api/analytics/track',
    {
      bodyLimit: TRACK_BODY_LIMIT,
      config: { access: 'public', rateLimit: { max: 600, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      reply.header('Access-Control-Allow-Origin', '*').header('Cross-Origin-Resource-Policy', 'cross-origin');
      let body: unknown = request.body;
      if (typeof body === 'string') {
        try {
          body = JSON.parse(body);
        } catch {
          throw new Invalid('Body must be JSON');
        }
      }
      const input = parseInput(trackBodySchema, body);
      if (!(await dealerExists(app.db, input.dealerId))) throw new NotFound('Unknown dealer');
      if (isbot(request.headers['user-agent'] ?? '')) return reply.status(204).send();
      const accepted = app.events.enqueue({
        dealerId: input.dealerId,
        event: input.event,
        slotType: input.type ?? null,
        model: input.model,
        url: input.url,
        clientTimestamp: input.timestamp === undefined ? null : String(input.timestamp),
        occurredAt: new Date(),
      });
      if (!accepted) throw new AppError('UNAVAILABLE', 'Event buffer full, retry later');
      return reply.status(204).send();
    },
  );
}
