/**
 * Refusals are never cached: every answer with a status of 400 or more (403 of a dealer's
 * settings, 404 of an unknown dealer, model or path, 429, 5xx, validation errors) carries
 * `Cache-Control: no-store` unless its route set a Cache-Control of its own. A shared cache (a CDN
 * in front of the delivery endpoints, docs/OPERATIONS.md "Putting a CDN in front") must not keep
 * one: a 403 or 429 is about one request, a 5xx about one moment, and a 404 of an unknown model
 * or dealer turns into an answer as soon as the dealer's catalogue or the dealer is saved (the
 * server answers those 404s from memory, so caching them would save little).
 *
 * The beacon hot path answers its refusals with the same header (tracking/intake.ts answerBeacon).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/** The Cache-Control of every refusal (status ≥ 400). */
export const REFUSAL_CACHE_CONTROL = 'no-store';

/** Adds `Cache-Control: no-store` to every answer of status ≥ 400 that has no Cache-Control (see module doc). */
export const refusalCachingPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (reply.statusCode >= 400 && !reply.hasHeader('cache-control')) reply.header('Cache-Control', REFUSAL_CACHE_CONTROL);
      done(null, payload);
    });
  },
  { name: 'refusal-caching' },
);
