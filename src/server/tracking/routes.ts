/**
 * POST /api/analytics/track: the dealer-site script reports impressions, clicks and
 * conversions here (spec 01 §7, DECISIONS 15-17). Answers 204 once the event is buffered, or
 * knowingly not counted; the body is read, parsed and checked here (a bad body is 400 naming the
 * field, one over TRACK_BODY_LIMIT 413), and everything after that is the beacon intake's
 * (intake.ts: the limits' 429, an unknown dealer's 404, the dealer's 403, a full buffer's 503).
 * A 400 for a body that names a known dealer is counted as `invalid` in its tag health.
 * Most beacons never reach this route: the beacon hot path (hot-path.ts) answers them with the same
 * function (intake.ts answerBeacon).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { trackBodySchema } from '../../domain/contracts/public';
import type { DealerDelivery } from '../dealer-sites';
import { answerBeacon, beaconBody, bodyDealerId, TRACK_BODY_LIMIT } from './intake';
import { beaconOrigin } from '../../domain/tag-health';

declare module 'fastify' {
  interface FastifyRequest {
    /** Tracking beacons: the delivery settings of the body's dealer, looked up once before validation (null: unknown dealer). */
    beaconDealer: DealerDelivery | null;
  }
}

export async function trackingRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.decorateRequest('beaconDealer', null);
  const loopbackOnly = app.publicPolicy.loopbackOnly;
  app.post(
    '/api/analytics/track',
    {
      bodyLimit: TRACK_BODY_LIMIT,
      helmet: false, // a 204 beacon: helmet's page headers do not apply
      // A beacon the hot path read and handed over (tracking/hot-path.ts): its body again, as read.
      preParsing: (request, _reply, payload, done) => {
        const body = request.server.beaconHotPath.replayedBody(request.raw);
        done(null, body ? Readable.from([body]) : payload);
      },
      // text/plain beacons arrive as JSON text: parsed once here, before the body schema reads it,
      // and the dealer's settings looked up once; every answer, a refusal included, is readable
      // by the dealer's page.
      preValidation: async (request, reply) => {
        reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
        request.body = beaconBody(request.body) as typeof request.body; // the body schema checks it next
        request.beaconDealer = await app.dealerSites.find(bodyDealerId(request.body));
      },
      // A body that names a known dealer but is not a valid beacon (400): counted as 'invalid' in the dealer's tag health.
      onResponse: (request, reply, done) => {
        if (reply.statusCode === 400 && request.beaconDealer) {
          app.tagHealth.record(request.beaconDealer.id, beaconOrigin(request.headers.origin, request.headers.referer), '', 'invalid');
        }
        done();
      },
      // Dealer sites post beacons from their own pages: exempt from the same-origin check.
      config: { access: 'public', allowCrossSite: true },
      // JSON or text/plain JSON; answers 204 (no body).
      schema: { tags: ['public'], summary: 'Record an impression, click or conversion', body: trackBodySchema, response: { 204: z.void().describe('Accepted (or not counted: bot, opted out)') } },
    },
    async (request, reply) => {
      // The same answer as the beacon hot path's, from the same function.
      const answer = await answerBeacon(app.beaconIntake, {
        headers: request.headers,
        ip: request.ip,
        protocol: request.protocol,
        loopbackOnly,
        input: request.body,
        dealer: request.beaconDealer,
        log: request.log,
      });
      // A refusal's body is JSON text already; the response schema describes the 204 only.
      const raw = reply as unknown as FastifyReply;
      raw.status(answer.status).headers(answer.headers);
      return answer.body === null ? raw.send() : raw.send(answer.body);
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
