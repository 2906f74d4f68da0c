/**
 * The banner hot path (issue 18, hot-path.ts) answers exactly what the route answers: every
 * request below goes over real HTTP (a warm-up, then the same request again, which the hot path
 * answers when it can) and through fastify.inject (which never reaches the server's request
 * listener, so always the route), and the answers must be equal: status, body and every header
 * but the per-request ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { dealers } from '../db/schema';
import type { Security } from '../../domain/schemas';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

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
function overHttp(path: string, headers: Record<string, string>): Promise<Answer & { requestId: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${origin}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: comparable(res.headers), body: Buffer.concat(chunks).toString('base64'), requestId: res.headers['x-request-id'] as string | undefined }),
        );
      })
      .on('error', reject);
  });
}

/** The same request through fastify.inject: always the route. */
async function throughRoute(path: string, headers: Record<string, string>): Promise<Answer> {
  const res = await t.app.inject({ method: 'GET', url: path, headers });
  return { status: res.statusCode, headers: comparable(res.headers), body: res.rawPayload.toString('base64') };
}

/** Asks twice over HTTP and once through the route; returns both, and whether the hot path answered the second. */
async function compare(query: string, headers: Record<string, string> = {}) {
  const path = `/api/scripts/${DEMO_DEALER.id}/asset?${query}`;
  const h = { 'user-agent': UA, 'accept-encoding': 'gzip, deflate, br', ...headers };
  await overHttp(path, h); // makes and caches the choice and the bytes, as a first visitor does
  const before = t.app.bannerHotPath.answered;
  const hot = await overHttp(path, h);
  const answeredHot = t.app.bannerHotPath.answered === before + 1;
  const route = await throughRoute(path, h);
  return { hot, route, answeredHot };
}

async function setSecurity(patch: Partial<Security>) {
  const [d] = await t.database.db.select({ security: dealers.security }).from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
  await t.database.db.update(dealers).set({ security: { ...d!.security, ...patch } }).where(eq(dealers.id, DEMO_DEALER.id));
  t.app.caches.forgetDealer(DEMO_DEALER.id);
}

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
    ['a WebP banner with CORS for the dealer site', 'model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/avif,image/webp,*/*' }],
    ['the original format (JPEG) for a client without WebP', 'model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/*' }],
    ['a PNG asset at 2x, named by a Referer instead of an Origin', 'model=Accord&type=header&variant=desktop&scale=2', { ...https, referer: 'https://www.hondaofdemo.com/new-inventory?model=accord' }],
    ['a placeholder SVG, brotli-coded', 'model=pilot&type=primary&variant=mobile', fromDealerSite],
    ['a placeholder SVG, gzip-coded', 'model=pilot&type=primary&variant=mobile', { ...fromDealerSite, 'accept-encoding': 'gzip' }],
    ['the placeholder the script swaps to (placeholder=1)', 'model=civic&type=header&variant=desktop&placeholder=1', fromDealerSite],
    ['a rotation bucket and a trim', 'model=civic&type=header&variant=desktop&trim=Sport&r=17', fromDealerSite],
    ['an image request with neither Origin nor Referer', 'model=civic&type=header', https],
  ])('answers %s as the route does', async (_name, query, headers) => {
    const { hot, route, answeredHot } = await compare(query, headers);
    expect(answeredHot).toBe(true);
    expect(hot.status).toBe(200);
    expect(hot).toMatchObject(route);
  });

  it('answers If-None-Match with the same 304, for the identity and the coded ETags', async () => {
    const first = await compare('model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/webp' });
    const etag = first.route.headers.etag!;
    const { hot, route, answeredHot } = await compare('model=civic&type=header&variant=desktop', { ...fromDealerSite, accept: 'image/webp', 'if-none-match': `W/${etag}` });
    expect(answeredHot).toBe(true);
    expect(hot.status).toBe(304);
    expect(hot).toMatchObject(route);
    const svg = await compare('model=pilot&type=primary', fromDealerSite);
    const coded = await compare('model=pilot&type=primary', { ...fromDealerSite, 'if-none-match': svg.route.headers.etag! });
    expect(coded.hot.status).toBe(304);
    expect(coded.hot).toMatchObject(coded.route);
  });

  it.each([
    ['a site the dealer does not allow (403)', 'model=civic&type=header', { ...https, origin: 'https://evil.example' }],
    ['plain HTTP to a dealer that requires HTTPS (403)', 'model=civic&type=header', { origin: 'https://www.hondaofdemo.com' }],
    ['a model the dealer does not have (404)', 'model=delorean&type=header', fromDealerSite],
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
    expect(viaServer).toMatchObject(await throughRoute(path, h));
  });

  it("sees a settings change at once, and echoes the caller's request id", async () => {
    const path = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
    const h = { 'user-agent': UA, ...fromDealerSite, 'x-request-id': 'lb-1234.abc' };
    await overHttp(path, h);
    expect((await overHttp(path, h)).requestId).toBe('lb-1234.abc');
    await setSecurity({ allowedDomains: ['www.other-dealer.example'] });
    const refused = await overHttp(path, h);
    expect(refused.status).toBe(403);
    await setSecurity({ allowedDomains: ['www.hondaofdemo.com'] });
    expect((await overHttp(path, h)).status).toBe(200);
  });

  it('counts its answers in the request-duration metric under the route template', async () => {
    await compare('model=civic&type=header&variant=desktop', fromDealerSite);
    const text = await t.app.metrics.registry.metrics();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/scripts\/:dealerId\/asset",status_code="200"\} [1-9]/);
  });
});
