/**
 * The hot paths (hot-paths.ts) answer exactly what their routes answer: every request
 * below goes over real HTTP (the server's request listener: the hot path when it can) and through
 * fastify.inject (which never reaches that listener, so always the route), and the answers must be
 * equal: status, body and every header but the per-request ones; beacons must be counted alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from './test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from './db/seed';
import { events } from './db/schema';
import { RATE_LIMIT_NAT_FACTOR } from '../domain/constants';
import { UNKNOWN_MODEL_KEY } from '../domain/model-keys';
import { cacheLookups } from './observability/metrics';
import type { Security } from '../domain/schemas';
import { makeBanner, multipartBody } from '../../tests/fixtures/images';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
/** Headers that differ per request or per connection. */
const PER_REQUEST = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'transfer-encoding']);
let t: TestApp;
let origin: string;

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

/** One request over HTTP (the server's listener: the hot path first), its body as sent (not decoded). */
function overHttp(path: string, headers: Record<string, string>, body?: string): Promise<Answer & { requestId: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${path}`, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: comparable(res.headers), body: Buffer.concat(chunks).toString('base64'), requestId: res.headers['x-request-id'] as string | undefined }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The same request through fastify.inject: always the route. */
async function throughRoute(path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const res = await t.app.inject({ method: body === undefined ? 'GET' : 'POST', url: path, headers, payload: body });
  return { status: res.statusCode, headers: comparable(res.headers), body: res.rawPayload.toString('base64') };
}

/** An answer without what is not compared (the request id). */
const same = (a: Answer) => ({ status: a.status, headers: a.headers, body: a.body });

/**
 * Runs `run` once the app listens for dealer changes: its cached dealer settings are then current
 * until a change (dealer-sites/listener.ts), not for a second only, so the hot path's answers do not
 * depend on how fast a busy machine runs the requests of one comparison.
 */
async function withDealerCurrent<T>(app: TestApp['app'], run: () => Promise<T>): Promise<T> {
  expect(app.dealerListener?.connected, 'the app listens for dealer changes').toBe(true);
  return run();
}

/** Asks twice over HTTP and once through the route; returns both, and whether the hot path answered the second. */
function compare(query: string, headers: Record<string, string> = {}) {
  const path = `/api/scripts/${DEMO_DEALER.id}/asset?${query}`;
  const h = { 'user-agent': UA, 'accept-encoding': 'gzip, deflate, br', ...headers };
  return withDealerCurrent(t.app, async () => {
    await overHttp(path, h); // makes and caches the choice and the bytes, as a first visitor does
    const before = t.app.bannerHotPath.answered;
    const hot = await overHttp(path, h);
    const answeredHot = t.app.bannerHotPath.answered === before + 1;
    const route = await throughRoute(path, h);
    return { hot, route, answeredHot };
  });
}

const setSecurity = (patch: Partial<Security>) => t.patchSecurity(patch);

beforeAll(async () => {
  // A public deployment behind one trusted proxy (the test connects from 127.0.0.1), so
  // X-Forwarded-Proto decides HTTPS for the dealer's requireHttps, on both paths.
  t = await createTestApp({ env: { TRUST_PROXY: 'loopback', PUBLIC_ORIGIN: 'https://banners.example.com' } });
  const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
  const { body, contentType } = multipartBody([
    { filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) },
    { filename: 'new_2025_honda_accord_ex_1920x300.png', data: await makeBanner(1920, 300, 'png', '#0044aa') },
  ]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType, 'x-forwarded-proto': 'https' } });
  expect(res.statusCode).toBe(200);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

const https = { 'x-forwarded-proto': 'https' };
const fromDealerSite = { ...https, origin: 'https://www.hondaofdemo.com' };

describe('banner hot path', () => {
  it.each([
    ['a WebP banner asked by the dealer site', 'model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/avif,image/webp,*/*' }],
    ['the original format (JPEG) for a client without WebP', 'model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/*' }],
    ['a PNG asset at 2x, named by a Referer instead of an Origin', 'model=Accord&type=header&variant=desktop&scale=2', { ...https, referer: 'https://www.hondaofdemo.com/new-inventory?model=accord' }],
    ['a placeholder SVG, brotli-coded', 'model=pilot&type=primary&variant=mobile', fromDealerSite],
    ['a placeholder SVG, gzip-coded', 'model=pilot&type=primary&variant=mobile', { ...fromDealerSite, 'accept-encoding': 'gzip' }],
    ['the placeholder the script swaps to (placeholder=1)', 'model=civic&type=header&variant=desktop&placeholder=1', fromDealerSite],
    ['a rotation bucket and a trim', 'model=civic&type=header&variant=desktop&trim=Sport&r=17', fromDealerSite],
    ['an image request with neither Origin nor Referer', 'model=civic&type=header', https],
    // Banner images are public: no Origin or Referer changes the answer (delivery/public-policy.ts).
    ['a site the dealer does not list', 'model=civic&type=header', { ...https, origin: 'https://evil.example' }],
    ['a browser extension page', 'model=civic&type=header', { ...https, origin: 'chrome-extension://abcdef' }],
    ['an opaque origin', 'model=civic&type=header', { ...https, origin: 'null' }],
    ['an app referrer', 'model=civic&type=header', { ...https, referer: 'android-app://com.google.android.gm/' }],
  ])('answers %s as the route does', async (_name, query, headers) => {
    const { hot, route, answeredHot } = await compare(query, headers);
    expect(answeredHot).toBe(true);
    expect(hot.status).toBe(200);
    expect(same(hot)).toEqual(same(route));
  });

  it('answers with the CDN headers: public caching, an ETag, CORS for any site, Vary on Accept only', async () => {
    const webp = await compare('model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/webp' });
    const svg = await compare('model=pilot&type=primary&variant=mobile', { ...https, referer: 'https://evil.example/' });
    for (const [{ hot, answeredHot }, vary] of [[webp, 'Accept'], [svg, 'Accept, Accept-Encoding']] as const) {
      expect(answeredHot).toBe(true);
      expect(hot.headers['cache-control']).toMatch(/^public, max-age=\d+/);
      expect(hot.headers.etag).toMatch(/^"[\w-]+"$/);
      expect(hot.headers['access-control-allow-origin']).toBe('*');
      expect(hot.headers.vary).toBe(vary);
    }
  });

  it('answers a model the dealer does not have with the route\'s 404, so a flood of unknown models stays cheap', async () => {
    for (const model of ['delorean', `flood-${Date.now()}`]) {
      const { hot, route, answeredHot } = await compare(`model=${model}&type=header`, fromDealerSite);
      expect(answeredHot).toBe(true);
      expect(hot.status).toBe(404);
      expect(hot.headers['cache-control']).toBe('no-store');
      expect(hot.headers.vary).toBeUndefined();
      expect(same(hot)).toEqual(same(route));
    }
  });

  it('answers If-None-Match with the same 304, for the identity and the coded ETags', async () => {
    const first = await compare('model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/webp' });
    const etag = first.route.headers.etag!;
    const { hot, route, answeredHot } = await compare('model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/webp', 'if-none-match': `W/${etag}` });
    expect(answeredHot).toBe(true);
    expect(hot.status).toBe(304);
    expect(same(hot)).toEqual(same(route));
    const svg = await compare('model=pilot&type=primary', fromDealerSite);
    const coded = await compare('model=pilot&type=primary', { ...fromDealerSite, 'if-none-match': svg.route.headers.etag! });
    expect(coded.hot.status).toBe(304);
    expect(same(coded.hot)).toEqual(same(coded.route));
  });

  it.each([
    ['plain HTTP to a dealer that requires HTTPS (403)', 'model=civic&type=header', { origin: 'https://www.hondaofdemo.com' }],
    ['a query the schema refuses (400)', 'model=civic&type=sidebar', fromDealerSite],
    ['an unknown dealer (404)', 'model=civic', fromDealerSite],
  ])('leaves %s to the route', async (_name, query, headers) => {
    const path = query === 'model=civic' ? `/api/scripts/no-such-dealer/asset?${query}` : `/api/scripts/${DEMO_DEALER.id}/asset?${query}`;
    const h = { 'user-agent': UA, ...headers };
    await overHttp(path, h);
    const before = t.app.bannerHotPath.answered;
    const viaServer = await overHttp(path, h);
    expect(t.app.bannerHotPath.answered).toBe(before);
    expect(viaServer.status).toBeGreaterThanOrEqual(400);
    expect(viaServer.headers['cache-control']).toBe('no-store');
    expect(same(viaServer)).toEqual(same(await throughRoute(path, h)));
  });

  it("sees a settings change at once, and echoes the caller's request id", async () => {
    const path = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
    const h = { 'user-agent': UA, ...fromDealerSite, 'x-request-id': 'lb-1234.abc' };
    await overHttp(path, h);
    expect((await overHttp(path, h)).requestId).toBe('lb-1234.abc');
    const plainHttp = { ...h, 'x-forwarded-proto': 'http' };
    expect((await overHttp(path, plainHttp)).status).toBe(403); // the dealer requires HTTPS
    await setSecurity({ requireHttps: false });
    try {
      expect((await overHttp(path, plainHttp)).status).toBe(200);
    } finally {
      await setSecurity({ requireHttps: true });
    }
    expect((await overHttp(path, plainHttp)).status).toBe(403);
  });

  it('counts its answers in the request-duration metric under the route template', async () => {
    await compare('model=civic&type=header&variant=desktop', fromDealerSite);
    const text = await t.app.metrics.registry.metrics();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/scripts\/:dealerId\/asset",status_code="200"\} [1-9]/);
  });
});

describe('beacon hot path', () => {
  const TRACK = '/api/analytics/track';
  const beaconHeaders = (headers: Record<string, string> = {}) => ({ 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, ...fromDealerSite, ...headers });
  let views = 0;
  /** A page view id of its own for each beacon of a test. */
  const newView = () => `view-hot-${(views += 1)}-${Date.now().toString(36)}`;
  const impression = (pv: string) => ({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv });
  const storedFor = async (pv: string) => {
    await t.app.events.flush();
    return t.database.db.select({ event: events.event, model: events.model, creative: events.creative, url: events.url }).from(events).where(eq(events.pageView, pv)).orderBy(events.occurredAt, sql`array_position(array['impression', 'click', 'conversion'], ${events.event})`);
  };

  /**
   * Sends the beacon `body(pv)` over HTTP (page view A) and through the route (page view B);
   * returns both answers, whether the hot path answered it, and what each stored.
   */
  async function compareBeacon(body: (pv: string) => unknown, headers: Record<string, string> = {}) {
    const [a, b] = [newView(), newView()];
    const text = (pv: string) => {
      const v = body(pv);
      return typeof v === 'string' ? v : JSON.stringify(v);
    };
    const h = (pv: string) => beaconHeaders({ 'content-length': String(Buffer.byteLength(text(pv))), ...headers });
    const before = t.app.beaconHotPath.answered;
    const hot = await overHttp(TRACK, h(a), text(a));
    const answeredHot = t.app.beaconHotPath.answered === before + 1;
    const route = await throughRoute(TRACK, h(b), text(b));
    return { hot, route, answeredHot, storedHot: await storedFor(a), storedRoute: await storedFor(b) };
  }

  it('answers and counts an impression, a click naming its banner request and a conversion as the route does', async () => {
    const [pvA, pvB] = [newView(), newView()];
    // Page views A (over HTTP) and B (through the route) each show, click and convert on the civic header.
    for (const [pv, send] of [
      [pvA, (body: string) => overHttp(TRACK, beaconHeaders({ 'content-length': String(Buffer.byteLength(body)) }), body)],
      [pvB, (body: string) => throughRoute(TRACK, beaconHeaders(), body)],
    ] as const) {
      const asset = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`; // the banner request the slot made
      for (const beacon of [impression(pv), { ...impression(pv), event: 'click', asset }, { dealerId: DEMO_DEALER.id, event: 'conversion', model: 'civic', url: 'https://www.hondaofdemo.com/thanks?email=a@b.example', pv, leadId: `lead-${pv}` }]) {
        const answer = await send(JSON.stringify(beacon));
        expect(answer.status, JSON.stringify(beacon)).toBe(204);
      }
    }
    const [hot, route] = [await storedFor(pvA), await storedFor(pvB)];
    expect(hot.map((e) => e.event)).toEqual(['impression', 'click', 'conversion']);
    expect(hot).toEqual(route);
    expect(hot[1]!.creative).toMatch(/^[0-9a-f-]{36}$/); // the uploaded civic creative
    expect(hot[2]!.url).toBe('https://www.hondaofdemo.com/thanks');
  });

  it.each([
    ['an impression from the dealer site (CORS, the page-view limit headers)', {}],
    ['an impression named by a Referer only', { origin: '', referer: 'https://www.hondaofdemo.com/new-inventory?model=civic' }],
    ['a bot (acknowledged, not counted)', { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }],
    ['a visitor with Global Privacy Control (acknowledged, not counted)', { 'sec-gpc': '1' }],
    ['a site the dealer does not allow (403)', { origin: 'https://evil.example' }],
    ['an opaque origin (403)', { origin: 'null' }],
    ['a browser extension page (403, not a 500)', { origin: 'moz-extension://abcdef' }],
    ['a file: page (403, not a 500)', { origin: 'file://' }],
    ['plain HTTP to a dealer that requires HTTPS (403)', { 'x-forwarded-proto': 'http' }],
  ])('answers %s as the route does', async (_name, headers) => {
    const h = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== '')) as Record<string, string>;
    const dropped = Object.keys(headers).filter((k) => (headers as Record<string, string>)[k] === '');
    const { hot, route, answeredHot, storedHot, storedRoute } = await compareBeacon(impression, h);
    for (const k of dropped) expect(hot.headers[k]).toBeUndefined();
    expect(answeredHot).toBe(true);
    expect(same(hot)).toEqual(same(route));
    expect(storedHot.length).toBe(storedRoute.length);
  });

  it("counts a model the dealer's pages do not know under the unknown-model key, as the route does", async () => {
    const { hot, route, answeredHot, storedHot, storedRoute } = await compareBeacon((pv) => ({ ...impression(pv), model: 'Junk Model 42' }));
    expect(answeredHot).toBe(true);
    expect(same(hot)).toEqual(same(route));
    expect(storedHot.map((e) => e.model)).toEqual([UNKNOWN_MODEL_KEY]);
    expect(storedHot).toEqual(storedRoute);
  });

  it.each([
    ['text that is not JSON (400)', () => '{"dealerId": '],
    ['JSON nested too deep (400)', () => `${'['.repeat(40)}${']'.repeat(40)}`],
    ['a body the schema refuses, naming the field (400)', (pv: string) => ({ ...impression(pv), model: 'x\u0000y' })],
    ['an unknown dealer (404)', (pv: string) => ({ ...impression(pv), dealerId: 'no-such-dealer' })],
  ])('reads and hands %s to the route, which answers it', async (_name, body) => {
    const { hot, route, answeredHot } = await compareBeacon(body);
    expect(answeredHot).toBe(false);
    expect(hot.status).toBeGreaterThanOrEqual(400);
    expect(same(hot)).toEqual(same(route));
  });

  it('leaves a body over the limit and application/json beacons to the route', async () => {
    const before = t.app.beaconHotPath.answered;
    const long = await compareBeacon((pv) => ({ ...impression(pv), url: `https://www.hondaofdemo.com/${'x'.repeat(5000)}` }));
    expect(long.hot.status).toBe(413);
    expect(same(long.hot)).toEqual(same(long.route));
    const json = await compareBeacon(impression, { 'content-type': 'application/json' });
    expect(json.hot.status).toBe(204);
    expect(same(json.hot)).toEqual(same(json.route));
    expect(json.storedHot).toHaveLength(1);
    expect(t.app.beaconHotPath.answered).toBe(before);
  });

  it("answers the dealer's page-view limit with the same 429, and the per-IP budget counts both paths", async () => {
    await setSecurity({ maxRequestsPerMinute: 2 });
    try {
      const answers: Answer[][] = [[], []];
      for (const [i, pv, ip] of [[0, newView(), '198.51.100.7'], [1, newView(), '198.51.100.8']] as const) {
        for (let k = 0; k < 3; k++) {
          const body = JSON.stringify(k === 0 ? impression(pv) : { ...impression(pv), event: 'click' });
          const headers = beaconHeaders({ 'x-forwarded-for': ip, 'content-length': String(Buffer.byteLength(body)) });
          answers[i]!.push(i === 0 ? await overHttp(TRACK, headers, body) : await throughRoute(TRACK, headers, body));
        }
      }
      expect(answers[0]!.map((a) => a.status)).toEqual([204, 204, 429]);
      expect(answers[0]!.map(same)).toEqual(answers[1]!.map(same));
      expect(answers[0]![2]!.headers['retry-after']).toBe('60');
      // One IP: 2 × RATE_LIMIT_NAT_FACTOR beacons a minute over any page views, whichever path takes them.
      const ip = '198.51.100.9';
      const statuses: number[] = [];
      for (let k = 0; k < 2 * RATE_LIMIT_NAT_FACTOR + 1; k++) {
        const body = JSON.stringify(impression(newView()));
        const headers = beaconHeaders({ 'x-forwarded-for': ip, 'content-length': String(Buffer.byteLength(body)) });
        statuses.push((k % 2 === 0 ? await overHttp(TRACK, headers, body) : await throughRoute(TRACK, headers, body)).status);
      }
      expect(statuses.filter((s) => s === 204)).toHaveLength(2 * RATE_LIMIT_NAT_FACTOR);
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await setSecurity({ maxRequestsPerMinute: 100 });
    }
  });
});

describe('what the hot paths record of a request', () => {
  /** dcb_cache_lookups_total{cache="dealer",result="hit"} now. */
  const dealerHits = async () => (await cacheLookups.get()).values.find((v) => v.labels.cache === 'dealer' && v.labels.result === 'hit')?.value ?? 0;

  it('counts a cache hit once, whether the hot path answers or hands the request to the route', async () => {
    const path = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
    const refused = { 'user-agent': UA, origin: 'https://www.hondaofdemo.com' }; // plain HTTP to a dealer that requires HTTPS
    const allowed = { 'user-agent': UA, ...fromDealerSite };
    await overHttp(path, allowed); // the dealer, choice and bytes cached
    for (const [headers, send] of [
      [allowed, () => overHttp(path, allowed)], // answered by the hot path
      [refused, () => overHttp(path, refused)], // handed to the route (403)
      [refused, () => throughRoute(path, refused)], // the route alone
    ] as const) {
      const before = await dealerHits();
      expect((await send()).status, JSON.stringify(headers)).toBeLessThan(500);
      expect(await dealerHits(), JSON.stringify(headers)).toBe(before + 1);
    }
  });

  it('writes the request log line at LOG_PUBLIC_SAMPLE_RATE, each request sampled once', async () => {
    const lines: string[] = [];
    const sampled = await createTestApp({ env: { LOG_PUBLIC_SAMPLE_RATE: '0.5' }, logStream: { write: (line) => void lines.push(line) } });
    try {
      await sampled.app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(sampled.app.server.address() as AddressInfo).port}`;
      const url = `/api/scripts/${DEMO_DEALER.id}/asset?model=delorean&type=header`;
      const before = await withDealerCurrent(sampled.app, async () => {
        await fetch(`${base}${url}`); // the dealer cached (and current until a change): the next 400 are the hot path's 404s
        lines.length = 0;
        const answered = sampled.app.bannerHotPath.answered;
        for (let i = 0; i < 400; i++) expect((await fetch(`${base}${url}`)).status).toBe(404);
        return answered;
      });
      expect(sampled.app.bannerHotPath.answered - before).toBe(400); // sampled or not, the hot path answers and logs
      const logged = lines.map((l) => JSON.parse(l) as { msg: string; req?: { url: string }; res?: { statusCode: number }; reqId?: string }).filter((l) => l.msg === 'request completed');
      // 400 requests at 0.5: 200 expected (standard deviation 10); sampling twice would give 100.
      expect(logged.length).toBeGreaterThan(150);
      expect(logged.length).toBeLessThan(250);
      expect(logged[0]).toMatchObject({ req: { url }, res: { statusCode: 404 } });
      expect(logged[0]!.reqId).toBeTruthy();
    } finally {
      await sampled.close();
    }
  });
});
