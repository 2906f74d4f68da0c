/**
 * Health, readiness, load shedding and the metrics endpoint:
 * - `GET /healthz`: the process is alive and its event loop turns (200, with its pid and cluster
 *   worker id); never shed, never checks the database: a liveness probe must not restart a process
 *   for an outage elsewhere.
 * - `GET /readyz` (@fastify/under-pressure's status route): 200 when the database answers, every
 *   migration is applied and the event buffer is below its high-water mark; 503 naming the failed
 *   checks otherwise, and 503 while the event loop lags (below). For load balancers: take the
 *   process out of rotation, do not restart it.
 * - Load shedding (@fastify/under-pressure): while the mean event-loop delay is above
 *   MAX_EVENT_LOOP_DELAY_MS every request but /healthz, /metrics and the web app's own files
 *   (webAppFile) answers 503 `OVERLOADED` with Retry-After. The web app's files are never shed: they
 *   are read from disk without touching the database, and a shed JavaScript chunk breaks the
 *   screen a signed-in user is on, while the API calls it makes are shed and retried.
 * - `GET /metrics`: Prometheus text (metrics.ts) on the main port for `Authorization: Bearer
 *   METRICS_TOKEN` when the token is set (404 when it is not); METRICS_PORT serves it on an
 *   internal port instead (main.ts / cluster.ts, metricsListener).
 */
import cluster from 'node:cluster';
import http from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import underPressure from '@fastify/under-pressure';
import { sql } from 'drizzle-orm';
import { databaseUnavailability } from '../db/availability';
import { AppError, NotFound, Unauthorized } from '../errors';

/** Seconds a shed or not-ready client is asked to wait. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 5;
/** At most one 'shedding' warning per this many milliseconds. */
const SHED_LOG_INTERVAL_MS = 10_000;
/** How long /readyz waits for the database before it counts as not answering. */
export const READINESS_DB_TIMEOUT_MS = 2000;

/** 503 while the event loop lags (load shedding). */
export class Overloaded extends AppError {
  constructor() {
    super('UNAVAILABLE', 'Server overloaded, please retry shortly');
  }
}

/** The checks behind GET /readyz: 'ok' or what failed. */
export interface ReadinessChecks {
  database: string;
  migrations: string;
  eventBuffer: string;
}

/** Options of healthPlugin. */
export interface HealthOptions {
  /** MAX_EVENT_LOOP_DELAY_MS; 0 = no load shedding. */
  maxEventLoopDelayMs: number;
  /** METRICS_TOKEN: /metrics on the main port for this bearer token; undefined = not served there. */
  metricsToken: string | undefined;
  /** Pending migrations (Database.pendingMigrations); absent = not checked. */
  pendingMigrations?: () => Promise<number>;
}

/** Rejects after `ms` with a timeout error, unless `work` settles first. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The error's own words for a readiness check, e.g. 'connection: connect ECONNREFUSED 127.0.0.1:5432'. */
function failure(err: unknown): string {
  const unavailable = databaseUnavailability(err);
  if (unavailable) return `${unavailable.kind}: ${unavailable.reason}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs the readiness checks (see module doc) against `app`.
 * @returns each check's 'ok' or failure; never throws.
 */
export async function readinessChecks(app: FastifyInstance, pendingMigrations?: () => Promise<number>): Promise<ReadinessChecks> {
  const checks: ReadinessChecks = { database: 'ok', migrations: pendingMigrations ? 'ok' : 'not checked', eventBuffer: 'ok' };
  try {
    await within(app.db.execute(sql`select 1`), READINESS_DB_TIMEOUT_MS, 'the database');
    if (pendingMigrations) {
      const pending = await within(pendingMigrations(), READINESS_DB_TIMEOUT_MS, 'the database');
      if (pending > 0) checks.migrations = `${pending} migration(s) not applied`;
    }
  } catch (err) {
    checks.database = failure(err);
    if (pendingMigrations) checks.migrations = 'unknown (database not answering)';
  }
  const { pending } = app.events.stats();
  if (pending >= app.events.highWater) checks.eventBuffer = `${pending} events buffered (high-water mark ${app.events.highWater})`;
  return checks;
}

const isReady = (c: ReadinessChecks) => c.database === 'ok' && (c.migrations === 'ok' || c.migrations === 'not checked') && c.eventBuffer === 'ok';

/** True when the Authorization header carries `Bearer <token>` (compared in constant time). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return false;
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

/**
 * True for a request of the web app's own files: a GET or HEAD outside /api/ and /scripts/ (the
 * built assets under /assets/, index.html and the SPA's client-side routes, which answer
 * index.html). /readyz is not one of them: a load balancer must see the lag. The dealer-site
 * embed script under /scripts/ is shed like the API: it may read the dealer from the database, and
 * a dealer's page without it keeps its own content.
 */
export function webAppFile(method: string, url: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return !(url.startsWith('/api/') || url === '/api' || url.startsWith('/scripts/') || url.startsWith('/readyz'));
}

/** Route config that lets a request through while the event loop lags (liveness and metrics). */
const neverShed = { access: 'public' as const, pressureHandler: () => undefined };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** @fastify/under-pressure's per-route handler (neverShed lets the request through). */
    pressureHandler?: (request: FastifyRequest, reply: unknown, type: string, value: number | undefined) => unknown;
  }
}

/** The readiness answer's schema (under-pressure's status route serializes with it). */
const readyzSchema = {
  response: {
    200: {
      type: 'object',
      properties: {
        status: { type: 'string' },
        pid: { type: 'integer' },
        worker: { type: ['integer', 'null'] },
        checks: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    503: {
      type: 'object',
      properties: {
        error: {
          type: 'object',
          properties: { code: { type: 'string' }, message: { type: 'string' }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
        },
      },
    },
  },
};

/** Fastify plugin: /healthz, /readyz, load shedding and /metrics (see module doc). Needs app.db, app.events and app.metrics. */
export const healthPlugin = fp(async (app: FastifyInstance, opts: HealthOptions) => {
  const worker = cluster.isWorker ? cluster.worker!.id : null;
  let registered = false;
  let last: ReadinessChecks | null = null;
  let wasReady = true;
  let lastShedLog = 0;

  await app.register(underPressure, {
    maxEventLoopDelay: opts.maxEventLoopDelayMs,
    retryAfter: OVERLOADED_RETRY_AFTER_SECONDS,
    // Only /readyz runs the checks (no interval): under-pressure also runs it once while registering,
    // before the app serves anything, which answers true without touching the database.
    healthCheck: async () => {
      if (!registered) return true;
      const checks = await readinessChecks(app, opts.pendingMigrations);
      last = checks;
      const ready = isReady(checks);
      if (ready !== wasReady) {
        if (ready) app.log.info({ checks }, 'ready again');
        else app.log.warn({ checks }, 'not ready');
        wasReady = ready;
      }
      return ready ? { pid: process.pid, worker, checks } : false;
    },
    // Readiness failures answer on /readyz only; the event-loop bound sheds every request but the web app's files.
    pressureHandler: async (request, reply, type, value) => {
      if (type === underPressure.TYPE_HEALTH_CHECK || webAppFile(request.method, request.url)) return;
      if (Date.now() - lastShedLog >= SHED_LOG_INTERVAL_MS) {
        lastShedLog = Date.now();
        app.log.warn({ eventLoopDelayMs: Math.round(value ?? 0), maxEventLoopDelayMs: opts.maxEventLoopDelayMs }, 'event loop lagging: shedding requests with 503');
      }
      reply.header('Retry-After', String(OVERLOADED_RETRY_AFTER_SECONDS));
      throw new Overloaded();
    },
    exposeStatusRoute: {
      url: '/readyz',
      // 'fatal': under-pressure logs every failed probe as an error; the transitions are logged above instead.
      routeOpts: { logLevel: 'fatal', config: { access: 'public' } },
      routeSchemaOpts: readyzSchema,
    },
  });
  registered = true;

  // under-pressure's own 503 for a failed readiness check, in the app's error shape with the checks.
  app.decorate('readinessFailure', () => ({
    code: 'UNAVAILABLE',
    message: `Not ready: ${Object.entries(last ?? {})
      .filter(([, v]) => v !== 'ok' && v !== 'not checked')
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ') || 'overloaded'}`,
    checks: last ?? {},
  }));

  app.get('/healthz', { logLevel: 'warn', config: neverShed }, async () => ({ status: 'ok', pid: process.pid, worker }));

  app.get('/metrics', { logLevel: 'warn', config: neverShed }, async (request, reply) => {
    if (!opts.metricsToken) throw new NotFound(`No route for GET /metrics`);
    if (!bearerMatches(request.headers.authorization, opts.metricsToken)) {
      reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new Unauthorized('Metrics need Authorization: Bearer METRICS_TOKEN');
    }
    return reply.type(app.metrics.contentType).send(await app.metrics.text());
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    /** The body of /readyz's 503 (the failed checks of the last probe). */
    readinessFailure(): { code: string; message: string; checks: Partial<ReadinessChecks> };
  }
}

/**
 * Serves GET /metrics on its own port (METRICS_PORT): for an internal network or a
 * sidecar scraper. Answers `text()`; with a token, only to `Authorization: Bearer <token>`.
 * @returns the listening server (close it on shutdown).
 */
export async function metricsListener(opts: { host: string; port: number; token?: string; text: () => Promise<string>; contentType: string }): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    if (opts.token && !bearerMatches(req.headers.authorization, opts.token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('Unauthorized\n');
      return;
    }
    opts.text().then(
      (text) => res.writeHead(200, { 'content-type': opts.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  server.unref();
  return server;
}
