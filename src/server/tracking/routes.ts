/**
 * POST /api/analytics/track: the dealer-site script reports impressions, clicks and
 * conversions here (spec 01 §7, DECISIONS 15-17). Answers 204 once the event is buffered; bots
 * are acknowledged but not counted; unknown dealers, bad bodies, refused origins and clients
 * over the dealer's rate limit get a clear 4xx; a full buffer answers 503.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isbot } from 'isbot';
import { trackBodySchema } from '../../domain/schemas';
import { parseInput } from '../validation';
import { AppError, Invalid, NotFound } from '../errors';
import { findDeliveryDealer } from '../delivery/service';
import { applyDealerPolicy, dealerRateLimit } from '../delivery/public-policy';

export const TRACK_BODY_LIMIT = 4096;

/** The body as an object: beacons arrive as text/plain JSON. @throws Invalid for text that is not JSON. */
function bodyObject(request: FastifyRequest): unknown {
  const body = request.body;
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    throw new Invalid('Body must be JSON');
  }
}

function dealerIdOf(request: FastifyRequest): string {
  try {
    const id = (bodyObject(request) as { dealerId?: unknown } | null)?.dealerId;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

/**
 * isbot's answer per user agent, remembered: visitors share few distinct user agents, and the
 * pattern is one of the costlier steps of a beacon. Bounded: cleared at 5,000 entries.
 */
const botAnswers = new Map<string, boolean>();
function isBotCached(ua: string): boolean {
  let answer = botAnswers.get(ua);
  if (answer === undefined) {
    answer = isbot(ua);
    if (botAnswers.size >= 5000) botAnswers.clear();
    botAnswers.set(ua, answer);
  }
  return answer;
}

export async function trackingRoutes(app: FastifyInstance) {
  app.post(
    '/api/analytics/track',
    {
      bodyLimit: TRACK_BODY_LIMIT,
      helmet: false, // a 204 beacon: helmet's page headers do not apply
      // Dealer sites post beacons from their own pages: exempt from the same-origin check (issue 11 §4).
      config: { access: 'public', allowCrossSite: true, rateLimit: dealerRateLimit(dealerIdOf) },
    },
    async (request, reply) => {
      reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
      const input = parseInput(trackBodySchema, bodyObject(request));
      const dealer = await findDeliveryDealer(app.db, input.dealerId);
      if (!dealer) throw new NotFound('Unknown dealer');
      applyDealerPolicy(request, reply, dealer.security, { beacon: true });
      if (isBotCached(request.headers['user-agent'] ?? '')) return reply.status(204).send();
      const accepted = app.events.enqueue({
        dealerId: input.dealerId,
        event: input.event,
        slotType: input.type ?? null,
        model: input.model, // the comparison key (trackBodySchema)
        url: input.url,
        clientTimestamp: input.timestamp === undefined ? null : String(input.timestamp),
        occurredAt: new Date(),
        pageView: input.pv ?? null,
      });
      if (!accepted) throw new AppError('UNAVAILABLE', 'Event buffer full, retry later');
      return reply.status(204).send();
    },
  );

  // CORS preflight for clients that post application/json (the embed script sends text/plain beacons, which need none).
  app.options('/api/analytics/track', { helmet: false, config: { access: 'public' } }, async (request, reply) => {
    const origin = request.headers.origin;
    if (origin) reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
    return reply
      .header('Access-Control-Allow-Methods', 'POST')
      .header('Access-Control-Allow-Headers', 'Content-Type')
      .header('Access-Control-Max-Age', '86400')
      .status(204)
      .send();
  });
}
