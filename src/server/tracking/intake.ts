/**
 * What a tracking beacon goes through once its body is read and checked (spec 01 §7, DECISIONS
 * 15-17), in one place for the route (routes.ts) and the beacon hot path (hot-path.ts), both of
 * which send answerBeacon's answer; in this order:
 * 1. the limits: per client IP and dealer, `maxRequestsPerMinute` × RATE_LIMIT_NAT_FACTOR
 *    (no headers under it), then per page view (dealer and `pv`; a conversion carries its click's)
 *    the dealer's `maxRequestsPerMinute` (X-RateLimit-Limit, -Remaining and -Reset under it); over
 *    either, 429 with Retry-After. Dealers without limiting and unknown dealers are not counted.
 *    Both count in the rate-limit plugin's store (`app.createRateLimit`: in memory, or in Redis
 *    with REDIS_URL);
 * 2. an unknown dealer is 404; the dealer's security settings (dealerPolicy: HTTPS, allowed
 *    domains; CORS for an allowed origin) refuse with 403;
 * 3. bots, and visitors sending Do-Not-Track or Global Privacy Control to a dealer that respects
 *    them, are acknowledged and not counted;
 * 4. the event is buffered (503 with Retry-After when the buffer is full or the writer is behind
 *    its crash-loss bound, tracking/service.ts) with its creative, its device (domain/device.ts
 *    deviceOf: Sec-CH-UA-Mobile, else the User-Agent), its page URL in the
 *    privacy-safe form and a lead id only as a hash, under its model's key only when
 *    the dealer's page plan knows the model (the cached dealer's `beaconModels`, no query): any
 *    other model is counted under the one UNKNOWN_MODEL_KEY per slot type, so forged models never
 *    become keys of their own.
 * What became of each beacon of a known dealer (counted, or the reason it was refused or dropped:
 * rate limit, domain, HTTPS, bot, Do-Not-Track/GPC) goes to the tag health counters
 * (`app.tagHealth`, tag-health.ts: an in-memory increment, written in batches); a 503 is not
 * counted there (the script retries it), nor is anything of an unknown dealer.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { normalizeIP, type CreateRateLimitOptions } from '@fastify/rate-limit';
import { isbot } from 'isbot';
import type { TrackBody } from '../../domain/schemas';
import { PAGE_VIEW_ID } from '../../domain/schemas';
import { RATE_LIMIT_NAT_FACTOR, RATE_LIMIT_PAGE_VIEWS_KEPT } from '../../domain/constants';
import { ALL_KEPT_PARAMS, privacySafeUrl } from '../../domain/provider-urls';
import { AppError, errorBody, Invalid, NotFound, RateLimited, TOO_MANY_REQUESTS } from '../errors';
import { creativeOf, slotChoice } from '../delivery/service';
import type { DealerDelivery } from '../dealer-sites';
import { REFUSAL_CACHE_CONTROL } from '../delivery/refusals';
import { PolicyRefusal } from '../delivery/public-policy';
import { beaconOrigin, type TagHealthReason } from '../../domain/tag-health';
import { countedModelKey } from '../../domain/slot-plan';
import { deviceOf } from '../../domain/device';
import { leadIdHash } from './service';

/** Largest beacon body, bytes (the route's bodyLimit; the hot path leaves longer ones to the route's 413). */
export const TRACK_BODY_LIMIT = 4096;

/** Retry-After (seconds) of the 503 when the event writer cannot take a beacon (full, or behind its crash-loss bound). */
export const BUFFER_RETRY_AFTER_SECONDS = 1;

/** The window of the tracking limits (the dealer's setting is per minute). */
const RATE_WINDOW_MS = 60_000;

/** A beacon as the intake sees it, from either path. */
export interface Beacon {
  headers: IncomingHttpHeaders;
  /** The client's address as Fastify's request.ip (TRUST_PROXY applied). */
  ip: string;
  /** 'https' or 'http', as Fastify's request.protocol. */
  protocol: string;
  /** servesLoopbackOnly(PUBLIC_ORIGIN). */
  loopbackOnly: boolean;
  /** The validated body (trackBodySchema). */
  input: TrackBody;
  /** The dealer's read model (app.dealerSites.find), null for an unknown dealer. */
  dealer: DealerDelivery | null;
  log: FastifyBaseLogger;
  /** Sets a response header. */
  setHeader(name: string, value: string | number): void;
}

/** A beacon's answer as both paths send it: status, headers and body (null: none). */
export interface BeaconAnswer {
  status: number;
  headers: Record<string, string | number>;
  body: string | null;
}

/**
 * The answer to a read and validated beacon, the one implementation behind the route (routes.ts)
 * and the beacon hot path (hot-path.ts): 204 once the intake took it (or knowingly did not count
 * it), else the intake's refusal (429, 404, 403, 503) in the app's error shape
 * (`errors.ts` errorBody) with `Cache-Control: no-store` and the headers the intake set
 * (X-RateLimit-*, Retry-After, CORS). Any other error is logged and answered 500 INTERNAL.
 * Every answer carries `Cross-Origin-Resource-Policy: cross-origin`: the dealer's page reads it.
 */
export async function answerBeacon(intake: BeaconIntake, beacon: Omit<Beacon, 'setHeader'>): Promise<BeaconAnswer> {
  const headers: Record<string, string | number> = { 'cross-origin-resource-policy': 'cross-origin' };
  try {
    await intake.accept({ ...beacon, setHeader: (name, value) => void (headers[name] = value) });
    return { status: 204, headers, body: null };
  } catch (err) {
    const known = err instanceof AppError;
    if (!known) beacon.log.error({ err }, 'unhandled error');
    const hint = refusalHint(err, beacon.headers);
    const error = known ? { ...errorBody(err), ...(hint ? { hint } : {}) } : { code: 'INTERNAL', message: 'Internal server error' };
    Object.assign(headers, { 'content-type': 'application/json; charset=utf-8', 'cache-control': REFUSAL_CACHE_CONTROL });
    return { status: known ? err.statusCode : 500, headers, body: JSON.stringify({ error }) };
  }
}

/**
 * What changes a beacon refusal, for the dealer's developer (the embed script prints it in the
 * console after the refusal's message: "page not counted (403: ...); to change: {hint}"): the
 * dealer setting that decides it, or the step that fixes it; undefined for any other error. Kept
 * here rather than in the script, where every byte ships to every dealer page.
 */
export function refusalHint(err: unknown, headers: IncomingHttpHeaders): string | undefined {
  if (err instanceof RateLimited) return "the dealer's Max requests per minute (Security settings)";
  if (err instanceof NotFound) return 'copy the tag again from the Script page';
  if (!(err instanceof PolicyRefusal)) return undefined;
  if (err.reason === 'https') return "serve the page over HTTPS, or turn off the dealer's Require HTTPS (Security settings)";
  let host = '';
  try {
    host = new URL(beaconOrigin(headers.origin, headers.referer)).hostname;
  } catch {
    // no usable Origin or Referer (beaconOrigin's placeholder is no URL)
  }
  return `${host ? `add ${host}` : 'load the tag on a page of a domain you add'} to the dealer's Allowed domains (Security settings, admins only; example.com covers www.example.com, not the reverse)`;
}

/** The body as an object: beacons arrive as text/plain JSON text. @throws Invalid for text that is not JSON. */
export function beaconBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    throw new Invalid('Body must be JSON');
  }
}

/** The string `dealerId` of a parsed body, else '' (read before validation, to look the dealer up once). */
export function bodyDealerId(body: unknown): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).dealerId : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * True when the visitor asks not to be tracked: `DNT: 1` or `Sec-GPC: 1`, the headers
 * browsers send with Do-Not-Track or Global Privacy Control on. The embed script already sends no
 * beacon then; this covers older scripts and other clients.
 */
const optedOut = (headers: IncomingHttpHeaders): boolean => headers.dnt === '1' || headers['sec-gpc'] === '1';

/** A header's value as one string (the first of a repeated header), undefined when absent. */
const headerText = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The dealer's `maxRequestsPerMinute`, or null when nothing is limited (limiting off, or an unknown dealer). */
const limitOf = (dealer: DealerDelivery | null): number | null => (dealer?.security.rateLimitEnabled ? dealer.security.maxRequestsPerMinute : null);

/** What the limiters read of a beacon (`app.createRateLimit` checks take it in place of a request). */
type LimitSubject = Pick<Beacon, 'ip' | 'input' | 'dealer'> & { routeOptions: { config: object } };
type Check = (request: FastifyRequest) => Promise<{ isAllowed: boolean; isExceeded?: boolean; max?: number; remaining?: number; ttlInSeconds?: number }>;

/** The beacon intake of one app (see the module doc). */
export class BeaconIntake {
  private readonly perIp: Check;
  private readonly perPageView: Check;

  constructor(private readonly app: FastifyInstance) {
    const subject = (request: FastifyRequest) => request as unknown as LimitSubject;
    this.perIp = app.createRateLimit({
      timeWindow: RATE_WINDOW_MS,
      // IPv6 by /64, as the plugin keys.
      keyGenerator: (request) => `${normalizeIP(subject(request).ip)}|${subject(request).input.dealerId}`,
      allowList: (request) => limitOf(subject(request).dealer) === null,
      max: (request) => (limitOf(subject(request).dealer) ?? 0) * RATE_LIMIT_NAT_FACTOR,
    }) as unknown as Check;
    // `cache` (how many page views the in-memory store keeps) reaches the store although the
    // plugin's types for createRateLimit leave it out.
    const perPageView: CreateRateLimitOptions & { cache: number } = {
      timeWindow: RATE_WINDOW_MS,
      cache: RATE_LIMIT_PAGE_VIEWS_KEPT,
      keyGenerator: (request) => {
        const { input } = subject(request);
        return input.pv && PAGE_VIEW_ID.test(input.pv) ? `${input.dealerId}|${input.pv}` : '';
      },
      allowList: (request, key) => key === '' || limitOf(subject(request).dealer) === null,
      max: (request) => limitOf(subject(request).dealer) ?? 0,
    };
    this.perPageView = app.createRateLimit(perPageView) as unknown as Check;
  }

  /**
   * Takes one beacon (see the module doc); resolves once it is buffered or knowingly not counted.
   * A refusal (403, 404, 429) is readable by any page (`Access-Control-Allow-Origin: *`: its body
   * is only the reason, and beacons carry no credentials), so the embed script can tell the
   * dealer's developer in the console why the page is not counted (an origin outside the allowed
   * domains, HTTP while HTTPS is required, a rate limit).
   * @throws RateLimited (429), NotFound (unknown dealer), Forbidden (the dealer's settings), AppError UNAVAILABLE (buffer full)
   */
  async accept(b: Beacon): Promise<void> {
    try {
      this.outcome(b, await this.take(b));
    } catch (err) {
      if (err instanceof RateLimited) this.outcome(b, 'rate-limit');
      else if (err instanceof PolicyRefusal) this.outcome(b, err.reason);
      if (err instanceof AppError && [403, 404, 429].includes(err.statusCode)) b.setHeader('access-control-allow-origin', '*');
      throw err;
    }
  }

  /** Counts what became of a beacon of a known dealer in the tag health counters (by its page's origin and slot type). */
  private outcome(b: Beacon, reason: TagHealthReason): void {
    if (!b.dealer) return;
    this.app.tagHealth.record(b.dealer.id, beaconOrigin(b.headers.origin, b.headers.referer), b.input.type ?? '', reason);
  }

  /** Takes one beacon; resolves to 'counted', or to why it was knowingly not counted. @throws as accept */
  private async take(b: Beacon): Promise<TagHealthReason> {
    const subject = { ip: b.ip, input: b.input, dealer: b.dealer, routeOptions: { config: {} } } satisfies LimitSubject;
    await this.limit(this.perIp, subject, b, false);
    await this.limit(this.perPageView, subject, b, true);
    const dealer = b.dealer;
    if (!dealer) throw new NotFound('Unknown dealer');
    const origin = this.app.publicPolicy.dealerPolicy(b, dealer.security, { beacon: true });
    if (origin) {
      b.setHeader('access-control-allow-origin', origin);
      b.setHeader('vary', 'Origin');
    }
    if (this.isBot(b.headers['user-agent'] ?? '')) return 'bot';
    if (dealer.security.respectDoNotTrack !== false && optedOut(b.headers)) return 'opted-out';
    const { input } = b;
    const event = {
      creative: await this.creative(b, dealer),
      dealerId: input.dealerId,
      event: input.event,
      slotType: input.type ?? null,
      model: countedModelKey(dealer.beaconModels, input.model), // a model the dealer's pages know, else UNKNOWN_MODEL_KEY
      url: privacySafeUrl(input.url, ALL_KEPT_PARAMS) ?? '', // defence in depth: the script already reduces it
      occurredAt: new Date(),
      pageView: input.pv ?? null,
      leadId: input.leadId === undefined ? null : leadIdHash(input.dealerId, input.leadId),
      device: deviceOf(headerText(b.headers['sec-ch-ua-mobile']), b.headers['user-agent']),
    };
    // A click whose impression the script has no answer for (trackBodySchema `imp`) brings it: the
    // impression is buffered first, and a batch stores impressions before clicks, so the click
    // finds it. Stored once per page view and slot type, whichever of the two beacons comes first.
    const accepted = (input.imp === undefined || this.app.events.enqueue({ ...event, event: 'impression' })) && this.app.events.enqueue(event);
    if (!accepted) {
      // The embed script retries a 503 once, 1-3 s later.
      b.setHeader('retry-after', BUFFER_RETRY_AFTER_SECONDS);
      throw new AppError('UNAVAILABLE', this.app.events.behind ? 'Events are not being written fast enough, retry later' : 'Event buffer full, retry later');
    }
    return 'counted';
  }

  /** One limit: the X-RateLimit headers under it when `headersUnder`; over it, the headers with Retry-After and RateLimited. */
  private async limit(check: Check, subject: LimitSubject, b: Beacon, headersUnder: boolean): Promise<void> {
    const r = await check(subject as unknown as FastifyRequest);
    if (r.isAllowed || (!r.isExceeded && !headersUnder)) return;
    b.setHeader('x-ratelimit-limit', r.max!);
    b.setHeader('x-ratelimit-remaining', r.isExceeded ? 0 : r.remaining!);
    b.setHeader('x-ratelimit-reset', r.ttlInSeconds!);
    if (!r.isExceeded) return;
    b.setHeader('retry-after', r.ttlInSeconds!);
    throw new RateLimited(TOO_MANY_REQUESTS, r.ttlInSeconds!);
  }

  /**
   * isbot's answer per user agent, remembered in the app's LRU cache (app.caches.botAnswers):
   * visitors share few distinct user agents, and the pattern is one of the costlier steps of a beacon.
   */
  private isBot(ua: string): boolean {
    const answers = this.app.caches.botAnswers;
    let answer = answers.get(ua);
    if (answer === undefined) {
      answer = isbot(ua);
      answers.set(ua, answer);
    }
    return answer;
  }

  /**
   * The creative an impression or click beacon reports: what the banner request it names
   * (`asset`) shows now, by the same choice as the image answer (rotation bucket included, from the
   * delivery caches), made from the dealer the beacon was looked up with; null when it names none, the slot's model is not the beacon's, the dealer no
   * longer has the model, or the choice cannot be made now (the database is away: the event is
   * still buffered and counted, its creative unknown).
   */
  private async creative(b: Beacon, dealer: DealerDelivery): Promise<string | null> {
    const { input } = b;
    if (!input.asset || input.event === 'conversion') return null;
    try {
      const choice = await slotChoice(this.app, dealer, { ...input.asset, type: input.type ?? input.asset.type }, this.app.cdnProbes);
      return choice.modelKey === input.model ? creativeOf(choice) : null;
    } catch (err) {
      if (!(err instanceof NotFound)) b.log.warn({ err }, 'creative of a beacon not resolved; counted without it');
      return null;
    }
  }
}
