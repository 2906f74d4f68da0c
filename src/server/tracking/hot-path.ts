/**
 * The beacon hot path (hot-paths.ts): a tracking beacon read and answered by the HTTP
 * server's request listener, without Fastify's per-request work, with the answer the route sends,
 * made by the same function (intake.ts answerBeacon); src/server/hot-paths.test.ts compares the
 * two on generated requests. Beacons are the one request every dealer page sends that no CDN can
 * answer, and the bench measured this path at about half the server CPU per beacon of the route
 * (docs/PERFORMANCE.md "Hot paths").
 *
 * It takes, from their headers alone, the beacons the embed script sends: POST
 * /api/analytics/track with a text/plain body of a declared length up to TRACK_BODY_LIMIT, when
 * the server neither sheds load nor closes (a request the log samples is logged as the route would). Having
 * read the body, it answers when the body is JSON the route's schema accepts and names a known
 * dealer (from the cache, or looked up as the route does): answerBeacon's 204 or refusal (429,
 * 403, 503). Any other body (not JSON, too deep, refused by the schema, an
 * unknown dealer, or a lookup that failed) is handed to Fastify with the bytes read
 * (`replayedBody`: the route's preParsing hook parses them again), so the route answers it, its
 * 400, 404 and database 503 included. A hand-over after the server began to close gets Fastify's
 * own 503, as any request arriving then does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { trackBodySchema } from '../../domain/contracts/public';
import { jsonTooDeep } from '../validation';
import { requestId } from '../observability/request-log';
import type { DealerDelivery } from '../dealer-sites';
import type { HotPath, HotPathContext } from '../hot-paths';
import { answerBeacon, bodyDealerId, TRACK_BODY_LIMIT } from './intake';

const ROUTE = '/api/analytics/track';
/** The content types the route parses as beacon text (its text/plain parser). */
const TEXT_PLAIN = /^text\/plain\s*(;|$)/i;
/** The beacon hot path of one app (app.ts puts it in front of Fastify). */
export class BeaconHotPath implements HotPath {
  /** Beacons answered here since start (tests). */
  answered = 0;
  /** Bodies read here and handed to Fastify, by request (gone with the request). */
  private readonly replays = new WeakMap<IncomingMessage, Buffer>();

  /** @param handOver Fastify's request handler, for the beacons this path reads but does not answer */
  constructor(
    private readonly ctx: HotPathContext,
    private readonly handOver: (req: IncomingMessage, res: ServerResponse) => void,
  ) {}

  /** The body this path read from `req` before handing it to Fastify, if it did (the route's preParsing hook). */
  replayedBody(req: IncomingMessage): Buffer | undefined {
    return this.replays.get(req);
  }

  /** Takes the request when it is a beacon this path reads (see the module doc) and returns true; else false, having touched nothing. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST' || req.url !== ROUTE) return false;
    const type = req.headers['content-type'];
    const length = Number(req.headers['content-length']);
    if (!type || !TEXT_PLAIN.test(type) || !(length > 0 && length <= TRACK_BODY_LIMIT) || req.headers['transfer-encoding'] !== undefined) return false;
    if (this.ctx.declines()) return false;
    const started = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => void this.take(req, res, Buffer.concat(chunks), started));
    req.once('error', () => res.destroy()); // the client went away: nothing to answer
    return true;
  }

  /** Answers a read beacon, or hands it to Fastify (see the module doc). */
  private async take(req: IncomingMessage, res: ServerResponse, body: Buffer, started: number): Promise<void> {
    const app = this.ctx.app;
    const text = body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = jsonTooDeep(text) ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const found = parsed === undefined ? undefined : await this.dealer(bodyDealerId(parsed));
    const input = found ? trackBodySchema.safeParse(parsed) : undefined;
    if (!found || !input?.success) {
      this.replays.set(req, body);
      this.handOver(req, res);
      return;
    }
    const answer = await answerBeacon(app.beaconIntake, {
      headers: req.headers,
      ip: this.ctx.ipOf(req),
      protocol: this.ctx.protocolOf(req),
      loopbackOnly: this.ctx.loopbackOnly,
      input: input.data,
      dealer: found.dealer,
      log: app.log,
    });
    const reqId = requestId(req);
    const headers: Record<string, string | number> = { ...answer.headers, 'x-request-id': reqId };
    if (answer.body !== null) headers['content-length'] = Buffer.byteLength(answer.body);
    res.writeHead(answer.status, headers).end(answer.body ?? undefined);
    if (found.hot) app.metrics.lookups.dealer.hit(); // a lookup the route would have counted
    this.ctx.answered(req, ROUTE, answer.status, started, reqId);
    this.answered += 1;
  }

  /**
   * The beacon's dealer: from the cache when current (no await), else looked up as the route does
   * (`app.dealerSites.find`, which counts itself); undefined for an unknown dealer or a failed lookup
   * (the route answers both: 404, or the database's 503).
   */
  private async dealer(dealerId: string): Promise<{ dealer: DealerDelivery; hot: boolean } | undefined> {
    const cached = this.ctx.app.dealerSites.current(dealerId);
    if (cached) return { dealer: cached, hot: true };
    const found = await this.ctx.app.dealerSites.find(dealerId).catch(() => null);
    return found ? { dealer: found, hot: false } : undefined;
  }
}
