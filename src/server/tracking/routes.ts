/**
 * POST /api/analytics/track: the dealer-site script reports impressions, clicks and
 * conversions here (spec 01 §7, DECISIONS 15-17). Answers 204 once the event is buffered; bots,
 * and visitors sending Do-Not-Track or Global Privacy Control to a dealer that respects them
 * (issue 13), are acknowledged but not counted; the page URL is stored in its privacy-safe form
 * (origin, path, the providers' model filters) and a lead id only as a hash (issue 13); unknown dealers, bad bodies and refused origins get a clear
 * 4xx; a page view over the dealer's `maxRequestsPerMinute`, or a client IP over that times
 * RATE_LIMIT_NAT_FACTOR, gets 429 (issue 12); a full buffer answers 503.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isbot } from 'isbot';
import type { LRUCache } from 'lru-cache';
import { PAGE_VIEW_ID } from '../../domain/schemas';
import { trackBodySchema } from '../../domain/contracts/public';
import type { TrackBody } from '../../domain/schemas';
import { AppError, Invalid, NotFound } from '../errors';
import { creativeOf, findDeliveryDealer, slotChoice, type DealerDelivery } from '../delivery/service';
import { applyDealerPolicy, clientIpBudget, pageViewRateLimit, type BeaconKey } from '../delivery/public-policy';
import { ALL_KEPT_PARAMS, privacySafeUrl } from '../../domain/provider-urls';
import { leadIdHash } from './service';

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

/** The string field `name` of the (already parsed) body, else ''. */
function field(request: FastifyRequest, name: 'dealerId' | 'pv'): string {
  const body = request.body;
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

const dealerIdOf = (request: FastifyRequest): string => field(request, 'dealerId');

declare module 'fastify' {
  interface FastifyRequest {
    /** Tracking beacons: the delivery settings of the body's dealer, looked up once before the limits run (null: unknown dealer). */
    beaconDealer: DealerDelivery | null;
  }
}
const beaconDealerOf = (request: FastifyRequest) => request.beaconDealer;

/** The beacon's dealer and page view for the limits (a conversion's is its click's); a missing or malformed `pv` is none (the body is then refused). */
function beaconOf(request: FastifyRequest): BeaconKey {
  const pv = field(request, 'pv');
  return { dealerId: dealerIdOf(request), pageView: PAGE_VIEW_ID.test(pv) ? pv : null };
}

/**
 * isbot's answer per user agent, remembered in the app's LRU cache (app.caches.botAnswers):
 * visitors share few distinct user agents, and the pattern is one of the costlier steps of a beacon.
 */
function isBotCached(answers: LRUCache<string, boolean>, ua: string): boolean {
  let answer = answers.get(ua);
  if (answer === undefined) {
    answer = isbot(ua);
    answers.set(ua, answer);
  }
  return answer;
}

/**
 * True when the visitor asks not to be tracked (issue 13): `DNT: 1` or `Sec-GPC: 1`, the headers
 * browsers send with Do-Not-Track or Global Privacy Control on. The embed script already sends no
 * beacon then; this covers older scripts and other clients.
 */
export function optedOut(request: FastifyRequest): boolean {
  return request.headers.dnt === '1' || request.headers['sec-gpc'] === '1';
}

/**
 * The creative an impression or click beacon reports (issue 15): what the banner request it names
 * (`asset`) shows now, by the same choice as the image answer (rotation bucket included, from the
 * delivery caches); null when it names none, the slot's model is not the beacon's, the dealer no
 * longer has the model, or the choice cannot be made now (the database is away: the event is
 * still buffered and counted, its creative unknown).
 */
async function beaconCreative(app: FastifyInstance, request: FastifyRequest, input: TrackBody): Promise<string | null> {
  if (!input.asset || input.event === 'conversion') return null;
  try {
    const choice = await slotChoice(app, input.dealerId, { ...input.asset, type: input.type ?? input.asset.type }, app.cdnProbes);
    return choice.modelKey === input.model ? creativeOf(choice) : null;
  } catch (err) {
    if (!(err instanceof NotFound)) request.log.warn({ err }, 'creative of a beacon not resolved; counted without it');
    return null;
  }
}

export async function trackingRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.decorateRequest('beaconDealer', null);
  app.post(
    '/api/analytics/track',
    {
      bodyLimit: TRACK_BODY_LIMIT,
      helmet: false, // a 204 beacon: helmet's page headers do not apply
      // text/plain beacons arrive as JSON text: parsed once here, before the body schema and the
      // limits read it, and the dealer's settings looked up once for the limits and the handler;
      // every answer, a refusal included, is readable by the dealer's page.
      preValidation: async (request, reply) => {
        reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
        request.body = bodyObject(request) as typeof request.body; // the body schema checks it next
        request.beaconDealer = await findDeliveryDealer(app, dealerIdOf(request));
      },
      // Per client IP and dealer: the NAT-friendly budget (issue 12); runs before the page-view limit below.
      preHandler: clientIpBudget(app, beaconDealerOf),
      // Dealer sites post beacons from their own pages: exempt from the same-origin check (issue 11 §4).
      config: { access: 'public', allowCrossSite: true, rateLimit: pageViewRateLimit(beaconOf, beaconDealerOf) },
      // JSON or text/plain JSON; answers 204 (no body).
      schema: { tags: ['public'], summary: 'Record an impression, click or conversion', body: trackBodySchema, response: { 204: z.void().describe('Accepted (or not counted: bot, opted out)') } },
    },
    async (request, reply) => {
      const input = request.body;
      const dealer = request.beaconDealer;
      if (!dealer) throw new NotFound('Unknown dealer');
      applyDealerPolicy(request, reply, dealer.security, { beacon: true });
      if (isBotCached(app.caches.botAnswers, request.headers['user-agent'] ?? '')) return reply.status(204).send();
      if (dealer.security.respectDoNotTrack !== false && optedOut(request)) return reply.status(204).send();
      const accepted = app.events.enqueue({
        creative: await beaconCreative(app, request, input),
        dealerId: input.dealerId,
        event: input.event,
        slotType: input.type ?? null,
        model: input.model, // the comparison key (trackBodySchema)
        url: privacySafeUrl(input.url, ALL_KEPT_PARAMS) ?? '', // defence in depth: the script already reduces it
        clientTimestamp: input.timestamp === undefined ? null : String(input.timestamp),
        occurredAt: new Date(),
        pageView: input.pv ?? null,
        leadId: input.leadId === undefined ? null : leadIdHash(input.dealerId, input.leadId),
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
