/**
 * Builds the Fastify application: plugins, the access policy hook, the error handler, every
 * feature's routes and the web app. No listen() here, so tests use `app.inject`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyError } from 'fastify';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import type { Config } from './config';
import type { Db } from './db/client';
import { AppError } from './errors';
import { MAX_ASSET_BYTES } from '../domain/constants';
import { accessPlugin } from './auth/access';
import { authRoutes } from './auth/routes';
import { dealerRoutes } from './dealers/routes';
import { assetRoutes } from './assets/routes';
import { deliveryRoutes } from './delivery/routes';
import { trackingRoutes } from './tracking/routes';
import { scriptRoutes } from './scripts/routes';
import { analyticsRoutes } from './analytics/routes';
import { configRoutes } from './configs/routes';
import { EventIngestor } from './tracking/service';
import { inventoryRoutes } from './inventory/routes';
import { adminRoutes } from './admin/routes';
import { FeedScheduler } from './inventory/feeds';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    config: Config;
    events: EventIngestor;
    feeds: FeedScheduler;
  }
}

export interface BuildOptions {
  config: Config;
  db: Db;
  /** pino logger options; false silences logging (tests). */
  logger?: boolean | { level: string };
}

/** Creates the app with all routes registered and ready (`await app.ready()` is done). */
export async function buildApp({ config, db, logger }: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? { level: config.logLevel },
    trustProxy: true,
    bodyLimit: 1024 * 1024,
  });
  app.decorate('db', db);
  app.decorate('config', config);
  app.decorate('events', new EventIngestor(db, app.log));
  app.decorate('feeds', new FeedScheduler(db, { allowPrivateHosts: config.feedAllowPrivateHosts }, app.log));
  app.feeds.start(config.feedSchedulerIntervalMs);
  app.addHook('onClose', async () => {
    await app.feeds.stop();
    await app.events.close();
  });

  await app.register(cookie, { secret: config.sessionSecret });
  await app.register(helmet, {
    // The SPA uses Mantine's inline styles; images and the embed script are loaded by dealer sites.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
        scriptSrc: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
  // preHandler, so per-dealer limits can read the dealer id from a parsed tracking body.
  await app.register(rateLimit, { global: false, hook: 'preHandler' });
  await app.register(multipart, { limits: { fileSize: MAX_ASSET_BYTES, files: 20, fields: 10 } });
  // Dealer sites post tracking beacons as text/plain (no CORS preflight); parse them as JSON text.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => {
    done(null, body);
  });
  await app.register(accessPlugin);

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      return reply.status(error.statusCode).send({ error: { code: error.code, message: error.message } });
    }
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.status(429).send({ error: { code: 'RATE_LIMITED', message: 'Too many requests, please try again later' } });
    }
    if (status >= 400 && status < 500) {
      const code = status === 413 ? 'QUOTA_EXCEEDED' : status === 404 ? 'NOT_FOUND' : 'INVALID';
      return reply.status(status).send({ error: { code, message: error.message } });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'INTERNAL', message: 'Internal server error' } });
  });

  await app.register(authRoutes);
  await app.register(dealerRoutes);
  await app.register(assetRoutes);
  await app.register(deliveryRoutes);
  await app.register(trackingRoutes);
  await app.register(scriptRoutes);
  await app.register(analyticsRoutes);
  await app.register(configRoutes);
  await app.register(inventoryRoutes);
  await app.register(adminRoutes);

  const webIndex = path.join(config.webDistDir, 'index.html');
  if (existsSync(webIndex)) {
    await app.register(fastifyStatic, { root: config.webDistDir, wildcard: false, index: false });
  }
  // Client-side routes of the SPA get index.html; unknown API paths get a JSON 404.
  app.setNotFoundHandler((request, reply) => {
    const url = request.url;
    if (request.method === 'GET' && !url.startsWith('/api/') && existsSync(webIndex)) {
      return reply.type('text/html').header('Cache-Control', 'no-cache').sendFile('index.html');
    }
    return reply.status(404).send({ error: { code: 'NOT_FOUND', message: `No route for ${request.method} ${url.split('?')[0]}` } });
  });

  await app.ready();
  return app;
}
