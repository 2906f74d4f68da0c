/**
 * Builds the Fastify application: plugins, the access policy hook, the error handler, every
 * feature's routes and the web app. No listen() here, so tests use `app.inject`.
 *
 * Every piece of long-lived state (metrics, the event writer, the schedulers, the CDN prober, the
 * caches, the dealer change listener, the rate-limit store, the beacon intake) is a named plugin
 * in its concept's folder that decorates the app, starts at registration or in onReady and stops
 * in onClose; `buildApp` only registers them. Fastify runs onClose hooks in reverse registration
 * order, so the schedulers stop before the event writer flushes its buffer, and the database,
 * which the caller opened, is closed by the caller after `app.close()` (main.ts, test-app.ts).
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyError } from 'fastify';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { fastifyTrustProxy, type Config } from './config';
import type { Database, Db } from './db/client';
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailability, databaseUnavailableMessage } from './db/availability';
import { AppError, errorBody, Invalid, RateLimited, TOO_MANY_REQUESTS } from './errors';
import { JSON_TOO_DEEP, TEXT } from '../domain/constants';
import { jsonTooDeep, zodSerializerCompiler, zodValidatorCompiler } from './validation';
import { openApiPlugin } from './openapi';
import { accessPlugin } from './auth/access';
import { authRoutes } from './auth/routes';
import { dealerRoutes } from './dealers/routes';
import { assetRoutes } from './assets/routes';
import { campaignRoutes } from './campaigns/routes';
import { deliveryRoutes } from './delivery/routes';
import { trackingRoutes } from './tracking/routes';
import { scriptRoutes } from './scripts/routes';
import { tagHealthRoutes } from './tracking/tag-health-routes';
import { analyticsRoutes } from './analytics/routes';
import { configRoutes } from './configs/routes';
import { beaconIntakePlugin, eventsPlugin, tagHealthPlugin } from './tracking/plugin';
import { inventoryRoutes } from './inventory/routes';
import { adminRoutes } from './admin/routes';
import { feedsPlugin } from './inventory/plugin';
import { maintenancePlugin } from './maintenance/plugin';
import { notificationsPlugin } from './notifications/plugin';
import { notificationRoutes } from './notifications/routes';
import { storageFailure, storagePlugin, type StorageGuard } from './db/disk-guard';
import { cdnProbesPlugin } from './delivery/cdn-probe';
import { cachesPlugin } from './delivery/caches';
import { publicPolicyPlugin } from './delivery/public-policy';
import { dealerSitesPlugin } from './dealer-sites';
import { warmUpPlugin } from './delivery/warm-up';
import { BeaconHotPath } from './tracking/hot-path';
import { HotPathContext, type HotPath } from './hot-paths';
import { controlCharacterPlugin } from './security/control-chars';
import { csrfPlugin } from './security/csrf';
import { htmlSecurityHeadersPlugin } from './security/html-headers';
import { fastifyTimeoutOptions, multipartLimits, uploadCapPlugin, type ServerTimeouts } from './security/limits';
import { rateLimitsPlugin } from './security/shared-limits';
import { metricsPlugin } from './observability/metrics';
import { loggerOptions, requestId, requestIdPlugin, RequestLogController, type LogStream } from './observability/request-log';
import { refusalCachingPlugin } from './delivery/refusals';
import { healthPlugin } from './observability/health';
import { warnOfBlockedPublicOrigin } from './scripts/blocklist-warning';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    config: Config;
    /** The beacon hot path (tracking/hot-path.ts). */
    beaconHotPath: BeaconHotPath;
    /** The current time for reporting windows (domain/periods.ts); tests pin it through BuildOptions.now. */
    now: () => Date;
  }
}

export interface BuildOptions {
  config: Config;
  db: Db;
  /** The logger: its level and optionally where lines go (tests); false silences logging; default LOG_LEVEL to stdout. */
  logger?: false | { level: string; stream?: LogStream };
  /** The PGlite data directory's disk guard (Database.storage); absent = always writable. */
  storage?: StorageGuard;
  /** The Node server's timeouts; SERVER_TIMEOUTS unless a test shortens them. */
  timeouts?: ServerTimeouts;
  /** Database.pendingMigrations, for GET /readyz; absent = migrations not checked there. */
  pendingMigrations?: () => Promise<number>;
  /** The clock routes read the request time from (app.now); default the real clock. Tests pin it. */
  now?: () => Date;
  /**
   * Database.listen: the app listens for dealer changes (dealer-sites/listener.ts) and trusts
   * cached dealer settings for minutes while it does; absent = no listener, a 1-s lifetime.
   */
  listen?: Database['listen'];
  /** False: every request goes through Fastify, beacons too (the bench's figure without the hot path); default true. */
  hotPaths?: boolean;
}

/** Creates the app with all routes registered and ready (`await app.ready()` is done). */
export async function buildApp({ config, db, logger, storage, timeouts, pendingMigrations, now, listen, hotPaths: useHotPaths = true }: BuildOptions): Promise<FastifyInstance> {
  // Beacons are answered before Fastify sees them (tracking/hot-path.ts), once the app is built.
  let hotPaths: HotPath[] = [];
  let hotPathHandler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const app = Fastify({
    serverFactory: (handler, options) => {
      // Fastify's options with its defaults filled in; what it does with its own server (fastify/lib/server.js).
      const o = options as unknown as { http?: http.ServerOptions; keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
      const server = http.createServer(o.http ?? {}, (req, res) => {
        for (const hot of hotPaths) if (hot.answer(req, res)) return;
        handler(req, res);
      });
      server.keepAliveTimeout = o.keepAliveTimeout;
      server.requestTimeout = o.requestTimeout;
      server.setTimeout(o.connectionTimeout);
      hotPathHandler = handler;
      return server;
    },
    logger: loggerOptions(logger ?? { level: config.logLevel }), // cookies and authorization redacted
    // One line per request, sampled for the public delivery routes; ids from X-Request-Id or new UUIDs.
    logController: new RequestLogController(config.logPublicSampleRate),
    requestIdHeader: false,
    genReqId: requestId,
    // TRUST_PROXY: off by default, so X-Forwarded-* from clients never set request.ip/protocol.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 1024 * 1024,
    ...fastifyTimeoutOptions(timeouts), // requestTimeout, connectionTimeout, headersTimeout
  });
  app.decorate('db', db);
  app.decorate('config', config);
  app.decorate('now', now ?? (() => new Date()));
  warnOfBlockedPublicOrigin(config.publicOrigin, (obj, msg) => app.log.warn(obj, msg)); // a host or path ad blockers block
  // Route schemas are zod schemas from src/domain/contracts: the validator turns a
  // failure into the usual 400 INVALID naming each field (404 for a malformed path param); the
  // serializer encodes JSON answers with the route's response schema, so no other field leaves.
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(zodSerializerCompiler);
  // The app's long-lived state, each a plugin that stops in onClose (reverse order of registration).
  await app.register(metricsPlugin); // app.metrics: first, every other plugin records into it
  await app.register(eventsPlugin); // app.events: flushes last of these, after the schedulers below stopped
  await app.register(feedsPlugin); // app.feeds
  await app.register(maintenancePlugin); // app.maintenance
  await app.register(notificationsPlugin); // app.notifications
  await app.register(cdnProbesPlugin); // app.cdnProbes
  await app.register(publicPolicyPlugin); // app.publicPolicy: what the public endpoints work out once
  await app.register(cachesPlugin); // app.caches: delivery caches keyed by dealers.version, cleared on close
  await app.register(dealerSitesPlugin, { listen }); // app.dealerSites: the dealer read model, its cache and invalidation
  await app.register(warmUpPlugin, { banners: config.bannerWarmUp, waitMs: config.bannerWarmUpWaitMs }); // hot banners encoded at start-up

  // Set before any route is registered: a route keeps the error handler in force when it was added.
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    // @fastify/under-pressure's answer to a failed /readyz check: 503 naming the failed checks.
    if (error.code === 'FST_UNDER_PRESSURE') return reply.status(503).send({ error: app.readinessFailure() });
    if (error instanceof AppError) {
      if (error instanceof RateLimited) reply.header('Retry-After', String(error.retryAfterSeconds));
      return reply.status(error.statusCode).send({ error: errorBody(error) });
    }
    // PostgreSQL unreachable or our schema missing: a retryable 503 and one warn line, not a 500 stack.
    const unavailable = databaseUnavailability(error);
    if (unavailable) {
      request.log.warn({ db: unavailable }, 'database unavailable; answered 503');
      return reply
        .status(503)
        .header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
        .send({ error: { code: 'UNAVAILABLE', message: databaseUnavailableMessage(unavailable, config.databaseSchema) } });
    }
    const storageError = storageFailure(error); // PGlite out of disk: 507, or 503 once it stopped
    if (storageError) return reply.status(storageError.statusCode).send({ error: { code: storageError.code, message: storageError.message } });
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.status(429).send({ error: { code: 'RATE_LIMITED', message: TOO_MANY_REQUESTS } });
    }
    if (status >= 400 && status < 500) {
      const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 404 ? 'NOT_FOUND' : 'INVALID';
      // A body over the route's limit is a write over a limit: the spec's text (DECISIONS 1), still a 413.
      const message = status === 413 && error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? TEXT.storageQuotaExceeded : error.message;
      // A 400 of Fastify's own (malformed JSON, a wrong content type) names no field: `fields` is empty.
      return reply.status(status).send({ error: status === 400 ? { code, message, fields: [] } : { code, message } });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'INTERNAL', message: 'Internal server error' } });
  });

  await app.register(requestIdPlugin); // X-Request-Id on every response, request durations in the metrics
  await app.register(refusalCachingPlugin); // Cache-Control: no-store on every answer of status >= 400 (delivery/refusals.ts)
  // Control characters in the URL: 400 naming the part, before any hook or route reads it (a NUL reaching a query was a 500).
  await app.register(controlCharacterPlugin);
  // /healthz, /readyz, /metrics; 503 while the event loop lags
  await app.register(healthPlugin, { maxEventLoopDelayMs: config.maxEventLoopDelayMs, metricsToken: config.metricsToken, pendingMigrations });
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
  await app.register(htmlSecurityHeadersPlugin); // helmet's headers on every HTML body, the SPA under /scripts/* included
  await app.register(csrfPlugin, { publicOrigin: config.publicOrigin }); // state changes only from our own origin
  // preHandler, so per-dealer limits can read the dealer id from a parsed tracking body. With
  // REDIS_URL every limit (route configs and app.createRateLimit) counts in Redis, across processes.
  await app.register(rateLimitsPlugin, { redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, commandTimeoutMs: config.redisCommandTimeoutMs });
  await app.register(uploadCapPlugin); // total multipart request cap, before any byte is read
  await app.register(multipart, { limits: multipartLimits });
  // JSON nested deeper than MAX_JSON_DEPTH is refused with a 400 before it is parsed.
  const defaultJsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (jsonTooDeep(text)) done(new Invalid(JSON_TOO_DEEP), undefined);
    else defaultJsonParser(req, text, done);
  });
  // Dealer sites post tracking beacons as text/plain (no CORS preflight); parse them as JSON text.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => {
    if (jsonTooDeep(body as string)) done(new Invalid(JSON_TOO_DEEP), undefined);
    else done(null, body);
  });
  await app.register(accessPlugin);
  await app.register(storagePlugin, { guard: storage }); // app.storage; 507 for changes while the disk is low
  await app.register(openApiPlugin); // the OpenAPI 3 document of every route's schema, GET /api/openapi.json

  await app.register(authRoutes);
  await app.register(dealerRoutes);
  await app.register(assetRoutes);
  await app.register(campaignRoutes);
  await app.register(deliveryRoutes);
  await app.register(tagHealthPlugin); // app.tagHealth: what became of beacons, written in batches
  await app.register(beaconIntakePlugin); // app.beaconIntake: its limits count in the rate-limit plugin's store
  await app.register(trackingRoutes);
  await app.register(scriptRoutes);
  await app.register(tagHealthRoutes);
  await app.register(analyticsRoutes);
  await app.register(configRoutes);
  await app.register(inventoryRoutes);
  await app.register(adminRoutes);
  await app.register(notificationRoutes);

  const webIndex = path.join(config.webDistDir, 'index.html');
  if (existsSync(webIndex)) {
    await app.register(fastifyStatic, { root: config.webDistDir, wildcard: false, index: false });
  }
  // Client-side routes of the SPA get index.html; unknown API paths and built files get a JSON 404
  // (a chunk a newer build removed must fail to load, not arrive as HTML).
  app.setNotFoundHandler((request, reply) => {
    const url = request.url;
    if (request.method === 'GET' && !url.startsWith('/api/') && !url.startsWith('/assets/') && existsSync(webIndex)) {
      return reply.type('text/html').header('Cache-Control', 'no-cache').sendFile('index.html');
    }
    return reply.status(404).send({ error: { code: 'NOT_FOUND', message: `No route for ${request.method} ${url.split('?')[0]}` } });
  });

  const hot = new HotPathContext(app);
  app.decorate('beaconHotPath', new BeaconHotPath(hot, (req, res) => hotPathHandler!(req, res)));
  if (useHotPaths) hotPaths = [app.beaconHotPath];
  await app.ready();
  return app;
}
