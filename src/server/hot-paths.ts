/**
 * What a hot path needs to answer a request in the HTTP server's request listener, before Fastify
 * builds a request, runs its hooks or awaits anything: when to leave every request to Fastify (the
 * server sheds load or is closing), the request log's sampled line, the request's protocol and
 * client address as Fastify works them out under TRUST_PROXY, and the request-duration metric
 * under the route's template. One hot path remains, the tracking beacon (tracking/hot-path.ts):
 * the bench measured it at about half the server CPU per beacon of its route, and no CDN can
 * answer a beacon. Banner images have none: a CDN fronts them (docs/OPERATIONS.md "Putting a CDN
 * in front"), so the origin sees a cache's misses, where the saving is nil (docs/PERFORMANCE.md
 * "Hot paths").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config';
import { requestLogged } from './observability/request-log';

/** One hot path: answers a request it owns and returns true, or returns false having touched nothing. */
export interface HotPath {
  answer(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Fastify's trust function for a trustProxy setting (fastify/lib/request.js getTrustProxyFn), null when no proxy is trusted. */
function trustFunction(trustProxy: Config['trustProxy']): ((address: string, hop: number) => boolean) | null {
  if (trustProxy === false) return null;
  if (typeof trustProxy === 'number') return (_address, hop) => hop < trustProxy;
  return proxyAddr.compile(trustProxy);
}

/** What the hot paths of one app share (see the module doc). */
export class HotPathContext {
  private closing = false;
  private trust: ((address: string, hop: number) => boolean) | null;
  /** The app's public policy's answer (PUBLIC_ORIGIN serves loopback only): dealers' requireHttps does not apply. */
  readonly loopbackOnly: boolean;
  /** The request-duration histogram's children per route and status code (labels hashed once). */
  private readonly durations = new Map<string, { observe(seconds: number): void }>();

  /** For `app` with every plugin registered (the server listens only once it is ready); stops answering when it begins to close. */
  constructor(readonly app: FastifyInstance) {
    this.trust = trustFunction(app.config.trustProxy);
    this.loopbackOnly = app.publicPolicy.loopbackOnly;
    app.addHook('preClose', (done) => {
      this.closing = true;
      done();
    });
  }

  /**
   * True when every request must go to Fastify: the server is closing, or it sheds load (the
   * event-loop delay over MAX_EVENT_LOOP_DELAY_MS, as @fastify/under-pressure's onRequest hook
   * judges it; a failed /readyz sheds nothing, there or here).
   */
  declines(): boolean {
    const maxDelay = this.app.config.maxEventLoopDelayMs;
    return this.closing || (maxDelay > 0 && this.app.memoryUsage().eventLoopDelay > maxDelay);
  }

  /**
   * After a hot answer, what Fastify records of every request: its duration in
   * http_request_duration_seconds under the route's template, and the request log's line when the
   * route's would be written (requestLogged: 5xx always, else at LOG_PUBLIC_SAMPLE_RATE; a request
   * is sampled once, here or in the route).
   * @param started performance.now() when the request arrived
   */
  answered(req: IncomingMessage, route: string, status: number, started: number, reqId: string): void {
    this.observe(req.method!, route, status, started);
    if (!requestLogged(route, status, this.app.config.logPublicSampleRate)) return;
    const responseTime = Math.round((performance.now() - started) * 10) / 10;
    const request = { method: req.method, url: req.url, headers: req.headers, host: req.headers.host, ip: this.ipOf(req), socket: req.socket };
    this.app.log.child({ reqId }).info({ req: request, res: { statusCode: status }, responseTime }, 'request completed');
  }

  /** Fastify's request.protocol: X-Forwarded-Proto (its last entry) from a trusted proxy, else the socket's. */
  protocolOf(req: IncomingMessage): string {
    const socket = req.socket as IncomingMessage['socket'] & { encrypted?: boolean };
    const forwarded = req.headers['x-forwarded-proto'];
    if (this.trust && typeof forwarded === 'string' && forwarded && socket.remoteAddress !== undefined && this.trust(socket.remoteAddress, 0)) {
      const last = forwarded.lastIndexOf(',');
      return last === -1 ? forwarded.trim() : forwarded.slice(last + 1).trim();
    }
    return socket.encrypted ? 'https' : 'http';
  }

  /** Fastify's request.ip: with TRUST_PROXY, the nearest address of X-Forwarded-For not a trusted proxy; else the socket's. */
  ipOf(req: IncomingMessage): string {
    if (!this.trust) return req.socket.remoteAddress ?? '';
    const all = proxyAddr.all(req, this.trust);
    return all[all.length - 1] ?? '';
  }

  private observe(method: string, route: string, status: number, started: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.durations.get(key);
    if (!child) {
      child = this.app.metrics.requestSeconds.labels({ method, route, status_code: String(status) });
      this.durations.set(key, child);
    }
    child.observe((performance.now() - started) / 1000);
  }
}
