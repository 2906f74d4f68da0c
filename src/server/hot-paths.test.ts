/**
 * The beacon hot path (tracking/hot-path.ts) answers exactly what its route answers, checked on
 * generated requests (fast-check): each beacon goes over real HTTP (the server's request listener:
 * the hot path when it takes the beacon) and through fastify.inject (which never reaches the
 * listener, so always the route), and the two answers must have the same status, body and every
 * header but the per-request ones. The requests vary the server's proxy setting (TRUST_PROXY off,
 * a hop count, a proxy-addr name, lists of addresses with and without the client's), the forwarding headers (X-Forwarded-For,
 * X-Forwarded-Proto), Origin, Referer, Accept, user agents (browsers, crawlers, headless Chromium,
 * none), Do-Not-Track and Global Privacy Control, the content type, and the body (valid impressions,
 * clicks and conversions, unknown models and dealers, text that is not JSON, JSON nested too deep,
 * bodies the schema refuses, one over the size limit). Each case also checks that the hot path took
 * it exactly when it should (a text/plain beacon the schema accepts), so the comparison cannot pass
 * by the route answering both. The apps listen for dealer changes, so their cached dealer stays
 * current until a change: no answer depends on cache timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { loadConfig } from './config';
import { openTestDatabase } from './test-app';
import { DEMO_DEALER } from './db/seed';
import { dealers } from './db/schema';
import { trackBodySchema } from '../domain/contracts/public';

/** Generated cases per run. */
const RUNS = 1000;
const TRACK = '/api/analytics/track';
/** Headers that differ per request or per connection. */
const PER_REQUEST = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'transfer-encoding']);
/**
 * TRUST_PROXY settings, one app each: none, a hop count, a proxy-addr name, a list holding the
 * test's own address, and a list without it (the forwarding headers must then be ignored). `true`
 * is refused by the config: it would believe any client.
 */
const PROXY_SETTINGS = ['false', '1', 'loopback', '192.0.2.0/24,127.0.0.1', '192.0.2.0/24'];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const comparable = (headers: Record<string, string | string[] | number | undefined>) =>
  Object.fromEntries(
    Object.entries(headers)
      .filter(([k, v]) => !PER_REQUEST.has(k) && v !== undefined)
      .map(([k, v]) => [k, String(v)])
      .sort(([a], [b]) => a!.localeCompare(b!)),
  );

/** One POST over HTTP to `origin` (the server's listener: the hot path first), with its Content-Length declared as a browser does. */
function overHttp(origin: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${TRACK}`, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: comparable(res.headers), body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The same POST through fastify.inject: always the route. */
async function throughRoute(app: FastifyInstance, headers: Record<string, string>, body: string): Promise<Answer> {
  const res = await app.inject({ method: 'POST', url: TRACK, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, payload: body });
  return { status: res.statusCode, headers: comparable(res.headers), body: res.body };
}

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const HEADLESS = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';

/** Optional header: absent, or one of `values`. */
const header = <T extends string>(name: string, values: fc.Arbitrary<T>) => fc.option(values, { nil: undefined }).map((v) => (v === undefined ? {} : { [name]: v }));

const ip = fc.oneof(fc.ipV4(), fc.constantFrom('127.0.0.1', '192.0.2.10', '10.1.2.3', '::1', '2001:db8::7'));

/** Request headers across forwarding, origin, referrer, privacy signals and user agents. */
const headersArb = fc
  .record({
    contentType: fc.constantFrom('text/plain;charset=UTF-8', 'text/plain', 'TEXT/PLAIN; charset=utf-8', 'application/json', 'text/plain;charset=UTF-8'),
    ua: header('user-agent', fc.constantFrom(CHROME, SAFARI_IPHONE, GOOGLEBOT, HEADLESS, 'curl/8.5.0')),
    origin: header('origin', fc.constantFrom('https://www.hondaofdemo.com', 'http://www.hondaofdemo.com', 'https://hondaofdemo.com', 'https://evil.example', 'null', 'moz-extension://abcdef', 'file://')),
    referer: header('referer', fc.constantFrom('https://www.hondaofdemo.com/new-inventory?model=civic', 'https://evil.example/page', 'android-app://com.google.android.gm/')),
    accept: header('accept', fc.constantFrom('*/*', 'application/json', 'text/plain')),
    xff: header('x-forwarded-for', fc.array(ip, { minLength: 1, maxLength: 3 }).map((a) => a.join(', '))),
    xfp: header('x-forwarded-proto', fc.constantFrom('https', 'http', 'https, http', 'http, https', 'HTTPS')),
    dnt: header('dnt', fc.constantFrom('1', '0')),
    gpc: header('sec-gpc', fc.constantFrom('1')),
  })
  .map(({ contentType, ...rest }) => Object.assign({ 'content-type': contentType }, ...Object.values(rest)) as Record<string, string>);

const pageUrl = fc.constantFrom('https://www.hondaofdemo.com/new-inventory?model=civic', 'https://www.hondaofdemo.com/thanks?email=a@b.example', 'https://evil.example/x', 'not a url');
const asset = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;

/** A beacon body as the embed script sends it, some fields off the schema's path. */
const beaconArb = fc.record(
  {
    dealerId: fc.constantFrom(DEMO_DEALER.id, DEMO_DEALER.id, 'no-such-dealer', ''),
    event: fc.constantFrom('impression', 'click', 'conversion', 'hover'),
    type: fc.constantFrom('header', 'primary', 'upsell', 'sidebar'),
    model: fc.constantFrom('civic', 'Accord', 'pilot', 'Junk Model 42', 'x\u0000y', ''),
    url: pageUrl,
    pv: fc.constantFrom('view-a1b2c3d4', 'view-prop-1', 'not a page view id!'),
    asset: fc.constantFrom(asset, `${asset}&r=17`, '/elsewhere'),
    leadId: fc.constantFrom('lead-42', ''),
    imp: fc.constantFrom(1, 2, true),
  },
  { requiredKeys: ['dealerId', 'event', 'url'] },
);

/** A beacon the schema accepts, as the embed script sends them. */
const validBeaconArb = fc.record(
  {
    dealerId: fc.constant(DEMO_DEALER.id),
    event: fc.constantFrom('impression', 'click'),
    type: fc.constantFrom('header', 'primary', 'upsell'),
    model: fc.constantFrom('civic', 'Accord', 'pilot', 'Junk Model 42'),
    url: fc.constantFrom('https://www.hondaofdemo.com/new-inventory?model=civic', 'https://www.hondaofdemo.com/used/'),
    pv: fc.constantFrom('view-a1b2c3d4', 'view-prop-1'),
    asset: fc.constantFrom(asset, `${asset}&r=17`),
  },
  { requiredKeys: ['dealerId', 'event', 'model', 'url'] },
);

/** The body text: a beacon, or text the route refuses before the intake (not JSON, too deep, over the limit, no dealer). */
const bodyArb = fc.oneof(
  { weight: 6, arbitrary: validBeaconArb.map((b) => JSON.stringify(b)) },
  { weight: 3, arbitrary: beaconArb.map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: fc.constantFrom('{"dealerId": ', '', 'null', '[]', '"text"', `${'['.repeat(40)}${']'.repeat(40)}`) },
  { weight: 1, arbitrary: validBeaconArb.map((b) => JSON.stringify({ ...b, url: `https://www.hondaofdemo.com/${'x'.repeat(5000)}` })) },
);

/** True when the hot path must take the beacon: text/plain, within the size limit, JSON the schema accepts, of a known dealer. */
function takenHot(headers: Record<string, string>, body: string): boolean {
  if (!/^text\/plain\s*(;|$)/i.test(headers['content-type'] ?? '') || Buffer.byteLength(body) > 4096 || body === '') return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  const input = trackBodySchema.safeParse(parsed);
  return input.success && input.data.dealerId === DEMO_DEALER.id;
}

describe('beacon hot path against its route, on generated requests', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  const apps: Array<{ app: FastifyInstance; origin: string }> = [];

  beforeAll(async () => {
    database = await openTestDatabase({ seeded: true });
    // The limits count across both paths and every case (they have tests of their own, tracking/rate-limits.test.ts).
    const [d] = await database.db.select({ security: dealers.security }).from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
    await database.db.update(dealers).set({ security: { ...d!.security, rateLimitEnabled: false, requireHttps: true } }).where(eq(dealers.id, DEMO_DEALER.id));
    for (const trustProxy of PROXY_SETTINGS) {
      const config = loadConfig({
        TRUST_PROXY: trustProxy,
        PUBLIC_ORIGIN: 'https://banners.example.com', // a public deployment: the dealer's requireHttps applies
        FEED_SCHEDULER_INTERVAL_MS: '0',
        NOTIFICATION_INTERVAL_MS: '0',
        MAX_EVENT_LOOP_DELAY_MS: '0',
        EVENT_MAX_UNSECURED_MS: '0',
        LOG_LEVEL: 'silent',
      });
      const app = await buildApp({ config, db: database.db, logger: false, listen: database.listen });
      await app.listen({ host: '127.0.0.1', port: 0 });
      apps.push({ app, origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` });
    }
  });
  afterAll(async () => {
    for (const { app } of apps) await app.close();
    await database?.dispose();
  });

  it(`answers ${RUNS} generated beacons as the route does, under every proxy setting`, async () => {
    let hot = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: PROXY_SETTINGS.length - 1 }), headersArb, bodyArb, async (i, headers, body) => {
        const { app, origin } = apps[i]!;
        const before = app.beaconHotPath.answered;
        const viaServer = await overHttp(origin, headers, body);
        const took = app.beaconHotPath.answered - before;
        const route = await throughRoute(app, headers, body);
        expect(viaServer).toEqual(route);
        expect(took).toBe(takenHot(headers, body) ? 1 : 0);
        hot += took;
      }),
      { numRuns: RUNS },
    );
    expect(hot).toBeGreaterThan(RUNS / 5); // the hot path answered a good share of the cases
  }, 600_000);
});
