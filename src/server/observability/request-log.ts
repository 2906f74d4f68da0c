/**
 * Request logging and request ids:
 * - one line per request ('request completed': method, URL, client address, status, time, reqId),
 *   written when the response is sent (RequestLogController: Fastify's 'incoming request' line is off);
 * - the public delivery routes (tracking beacons, banner images, embed scripts: thousands a second)
 *   are sampled at LOG_PUBLIC_SAMPLE_RATE (0 = none, the default), their 5xx answers always logged;
 *   health probes and metrics scrapes are not logged;
 * - request ids are UUIDs, or the caller's `X-Request-Id` when it is a plain token (a proxy's or
 *   load balancer's id, up to 128 characters of letters, digits and `._:-`), and every response
 *   carries its id back in `X-Request-Id`;
 * - cookies, authorization headers and Set-Cookie values are redacted from every log line that
 *   would carry them.
 * The same onResponse hook records each request's duration in the metrics (AppMetrics.requestSeconds).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { UNMATCHED_ROUTE } from './metrics';

/** Route templates of the public delivery endpoints whose requests are sampled (see module doc). */
export const PUBLIC_DELIVERY_ROUTES = new Set(['/api/analytics/track', '/api/scripts/:dealerId/asset', '/scripts/:file']);

/** A request id a caller may choose (see module doc); anything else gets a new UUID. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The request's id: its `X-Request-Id` when that is a plain token, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CALLER_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Log paths whose values are replaced by '[redacted]': cookies, authorization and session headers wherever a line carries headers. */
export const REDACTED_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  'headers["set-cookie"]',
  '*.headers.cookie',
  '*.headers.authorization',
  '*.headers["set-cookie"]',
];

/** Where log lines go instead of stdout (tests). */
export interface LogStream {
  write(line: string): void;
}

/**
 * Fastify's logger option for the app: pino at `level` with the redactions above, or false.
 * @param logger false = silent; otherwise the level and an optional destination stream.
 */
export function loggerOptions(logger: false | { level: string; stream?: LogStream }): FastifyServerOptions['logger'] {
  if (!logger) return false;
  return { level: logger.level, ...(logger.stream ? { stream: logger.stream } : {}), redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
}

/** True when this response gets a log line (see module doc). */
export function requestLogged(route: string | undefined, statusCode: number, publicSampleRate: number): boolean {
  if (route === undefined || !PUBLIC_DELIVERY_ROUTES.has(route)) return true;
  return statusCode >= 500 || (publicSampleRate > 0 && Math.random() < publicSampleRate);
}

/**
 * Fastify's request log lines (the `logController` option): no 'incoming request' or 'route not
 * found' line, and one 'request completed' line per response, sampled for the public delivery
 * routes (see module doc). Health probes and metrics scrapes run at route log level 'warn' or
 * above, so their info line is not written.
 */
export class RequestLogController extends LogController {
  /** @param publicSampleRate LOG_PUBLIC_SAMPLE_RATE, 0..1. */
  constructor(private readonly publicSampleRate: number) {
    super();
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const responseTime = Math.round(reply.elapsedTime * 10) / 10;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime }, 'request errored');
    else if (requestLogged(request.routeOptions.url, reply.statusCode, this.publicSampleRate)) {
      reply.log.info({ req: request, res: reply, responseTime }, 'request completed');
    }
  }
}

/** Fastify plugin: X-Request-Id on every response and each request's duration in the metrics (see module doc). */
export const requestIdPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    app.metrics.requestSeconds.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
});
