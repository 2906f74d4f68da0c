/**
 * Through the API: same-origin checks on every state change, the
 * client error log only from a signed-in session with a per-user limit, upload and text limits,
 * server timeouts, and helmet's headers on every HTML page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { Readable } from 'node:stream';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { assets, clientErrors, dealerInventory } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { MAX_FILENAME_LENGTH, MAX_UPLOAD_FILES, UPLOAD_TEXT } from '../../domain/constants';
import { CROSS_SITE_REFUSED, crossSiteRefusal } from './csrf';
import { MAX_MULTIPART_REQUEST_BYTES, SERVER_TIMEOUTS, UPLOAD_TOO_LARGE } from './limits';
import { CLIENT_ERRORS_PER_MINUTE } from '../admin/client-errors';
import { buildApp } from '../app';
import { loadConfig } from '../config';

let t: TestApp;
let manager: string;
let admin: string;
const A = DEMO_DEALER.id;
const assetsUrl = `/api/dealers/${A}/assets`;
const inventoryCsv = readFileSync(path.resolve('tests/fixtures/inventory/honda-inventory.csv'));

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager'));
  admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
});
afterAll(() => t.close());

const countAssets = async () => (await t.database.db.select().from(assets).where(eq(assets.dealerId, A))).length;
const storedInventory = async () => (await t.database.db.select().from(dealerInventory).where(eq(dealerInventory.dealerId, A))).length;
const errorOf = (res: { json(): unknown }) => (res.json() as { error: { code: string; message: string } }).error;

async function bannerUpload(headers: Record<string, string>, files?: Array<{ filename: string; data: Buffer }>) {
  const { body, contentType } = multipartBody(files ?? [{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
  return t.app.inject({ method: 'POST', url: assetsUrl, payload: body, headers: { cookie: manager, 'content-type': contentType, ...headers } });
}
function inventoryUpload(route: 'inventory' | 'inventory/preview', headers: Record<string, string>) {
  const { body, contentType } = multipartBody([{ filename: 'honda-inventory.csv', data: inventoryCsv, contentType: 'text/csv' }]);
  return t.app.inject({ method: 'POST', url: `/api/dealers/${A}/${route}`, payload: body, headers: { cookie: manager, 'content-type': contentType, ...headers } });
}
function configsPut(headers: Record<string, string>, payload: unknown = { inventoryWeights: { civic: 7 } }) {
  return t.app.inject({ method: 'PUT', url: `/api/dealers/${A}/configs`, payload: payload as object, headers: { cookie: manager, ...headers } });
}
function settingsPut(headers: Record<string, string>) {
  return t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${A}/settings`, payload: { notifications: { emailAlerts: true, performanceAlerts: true, errorAlerts: true, weeklyReports: false, alertThreshold: 2 } }, headers: { cookie: admin, ...headers } });
}

describe('CSRF: state changes only from our own origin', () => {
  const otherPort = { origin: 'http://localhost:4000' };
  const sameSite = { 'sec-fetch-site': 'same-site', origin: 'http://localhost:4000' };

  it('refuses asset upload, inventory preview and apply, and settings saves from another origin of the same site; nothing changes', async () => {
    const assetsBefore = await countAssets();
    const inventoryBefore = await storedInventory();
    const attempts: Array<Record<string, string>> = [otherPort, sameSite, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }, { referer: 'http://localhost:4000/attack.html' }];
    for (const headers of attempts) {
      const responses = [
        await bannerUpload(headers),
        await inventoryUpload('inventory/preview', headers),
        await inventoryUpload('inventory', headers),
        await configsPut(headers),
        await settingsPut(headers),
        await t.app.inject({ method: 'DELETE', url: `${assetsUrl}/00000000-0000-4000-8000-000000000000`, headers: { cookie: manager, ...headers } }),
      ];
      for (const res of responses) {
        expect(res.statusCode, JSON.stringify(headers)).toBe(403);
        expect(errorOf(res)).toEqual({ code: 'FORBIDDEN', message: CROSS_SITE_REFUSED });
      }
    }
    expect(await countAssets()).toBe(assetsBefore);
    expect(await storedInventory()).toBe(inventoryBefore);
    const configs = (await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/configs`, headers: { cookie: manager } })).json();
    expect(configs.inventoryWeights.civic).not.toBe(7);
  });

  it('accepts the same requests from the app itself: Sec-Fetch-Site same-origin, Origin = PUBLIC_ORIGIN or the request host', async () => {
    expect((await bannerUpload({ 'sec-fetch-site': 'same-origin', origin: 'http://localhost:3000' })).statusCode).toBe(200);
    expect((await bannerUpload({ origin: 'http://localhost:3000' })).statusCode).toBe(200); // PUBLIC_ORIGIN
    expect((await bannerUpload({ origin: 'http://app.example:8080', host: 'app.example:8080' })).statusCode).toBe(200); // own origin
    expect((await inventoryUpload('inventory/preview', { 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    expect((await inventoryUpload('inventory', { origin: 'http://localhost:3000', referer: 'http://localhost:3000/dealer/inventory' })).statusCode).toBe(200);
    expect((await configsPut({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    expect((await settingsPut({ origin: 'http://localhost:3000' })).statusCode).toBe(200);
  });

  it('accepts non-browser clients that send no Origin, Sec-Fetch-Site or Referer, with or without a session cookie', async () => {
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: DEMO_ACCOUNTS[1]!.email, password: DEMO_ACCOUNTS[1]!.password } });
    expect(login.statusCode).toBe(200);
    expect((await configsPut({})).statusCode).toBe(200);
  });

  it('leaves reads alone and exempts tracking beacons, which dealer sites post from their own pages', async () => {
    expect((await t.app.inject({ method: 'GET', url: assetsUrl, headers: { cookie: manager, ...sameSite } })).statusCode).toBe(200);
    const beacon = await t.app.inject({
      method: 'POST',
      url: '/api/analytics/track',
      headers: { 'content-type': 'text/plain', origin: 'https://www.hondaofdemo.com', 'sec-fetch-site': 'cross-site' },
      payload: JSON.stringify({ dealerId: A, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic' }),
    });
    // Whatever the beacon rules answer, it is not the cross-site refusal.
    expect(beacon.statusCode, beacon.body).not.toBe(403);
    expect(beacon.body).not.toContain(CROSS_SITE_REFUSED);
  });

  it('crossSiteRefusal: header by header', () => {
    const ours = ['http://localhost:3000', 'http://localhost:3000'];
    expect(crossSiteRefusal({ 'sec-fetch-site': 'same-origin', origin: 'http://evil.example' }, ours)).toBeNull();
    expect(crossSiteRefusal({ 'sec-fetch-site': 'none' }, ours)).toBeNull();
    expect(crossSiteRefusal({ 'sec-fetch-site': 'same-site', origin: 'http://localhost:3000' }, ours)).toMatch(/same-site/);
    expect(crossSiteRefusal({ origin: 'HTTP://LOCALHOST:3000' }, ours)).toBeNull();
    expect(crossSiteRefusal({ origin: 'https://localhost:3000' }, ours)).toMatch(/Origin/);
    expect(crossSiteRefusal({ origin: 'http://localhost:3000.evil.example' }, ours)).toMatch(/Origin/);
    expect(crossSiteRefusal({ origin: 'javascript:alert(1)' }, ours)).toMatch(/Origin/);
    expect(crossSiteRefusal({ referer: 'http://localhost:3000/dealer' }, ours)).toBeNull();
    expect(crossSiteRefusal({}, ours)).toBeNull();
  });
});

describe('client error log only from a signed-in session, limited per user', () => {
  const report = (n: number) => ({ message: `Render failed ${n}`, url: `http://localhost/dealer?n=${n}` });
  const post = (n: number, cookie?: string) =>
    t.app.inject({ method: 'POST', url: '/api/client-errors', payload: report(n), headers: cookie ? { cookie } : {} });

  it('a signed-out report goes to the server log only: 204, nothing stored, nothing evicted', async () => {
    const before = await t.database.db.$count(clientErrors);
    for (let n = 0; n < 5; n++) expect((await post(n)).statusCode).toBe(204);
    expect(await t.database.db.$count(clientErrors)).toBe(before);
  });

  it(`a signed-in user's reports are stored, at most ${CLIENT_ERRORS_PER_MINUTE.user} a minute per user; other users keep their own budget`, async () => {
    const viewer = await t.userCookie('viewer', A);
    const other = await t.userCookie('dealer-manager', A);
    const before = await t.database.db.$count(clientErrors);
    for (let n = 0; n < CLIENT_ERRORS_PER_MINUTE.user; n++) expect((await post(100 + n, viewer)).statusCode).toBe(204);
    const limited = await post(999, viewer);
    expect(limited.statusCode).toBe(429);
    expect(errorOf(limited).code).toBe('RATE_LIMITED');
    expect((await post(1000, other)).statusCode).toBe(204);
    expect(await t.database.db.$count(clientErrors)).toBe(before + CLIENT_ERRORS_PER_MINUTE.user + 1);
  });

  it(`signed-out reports are limited per IP (${CLIENT_ERRORS_PER_MINUTE.anonymous} a minute)`, async () => {
    const ip = { remoteAddress: '10.9.8.7' };
    let last = 0;
    for (let n = 0; n <= CLIENT_ERRORS_PER_MINUTE.anonymous; n++) {
      last = (await t.app.inject({ method: 'POST', url: '/api/client-errors', payload: report(n), ...ip })).statusCode;
    }
    expect(last).toBe(429);
  });
});

describe('upload limits: an over-limit request stores nothing and names the limit', () => {
  it(`${MAX_UPLOAD_FILES + 2} files: 413 "${UPLOAD_TEXT.tooManyFiles}", none stored`, async () => {
    const data = await makeBanner(1920, 300);
    const files = Array.from({ length: MAX_UPLOAD_FILES + 2 }, (_, i) => ({ filename: `new_2025_honda_civic_sport${i}_1920x300.jpg`, data }));
    const before = await countAssets();
    const res = await bannerUpload({}, files);
    expect(res.statusCode).toBe(413);
    expect(errorOf(res)).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: UPLOAD_TEXT.tooManyFiles });
    expect(await countAssets()).toBe(before);
  });

  it(`a body over ${MAX_MULTIPART_REQUEST_BYTES} bytes is refused by its Content-Length before it is read`, async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: assetsUrl,
      payload: Buffer.alloc(16),
      headers: { cookie: manager, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(MAX_MULTIPART_REQUEST_BYTES + 1) },
    });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res)).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: UPLOAD_TOO_LARGE });
  });

  it('a chunked body (no Content-Length) is counted as it streams and refused once past the cap; nothing stored', async () => {
    const data = await makeBanner(1920, 300);
    const boundary = 'chunkedboundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="new_2025_honda_civic_sport_1920x300.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`);
    const before = await countAssets();
    const filler = Buffer.alloc(1024 * 1024, 0x41);
    const chunks = [Buffer.concat([head, data, Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`)])];
    for (let i = 0; i < Math.ceil(MAX_MULTIPART_REQUEST_BYTES / filler.length) + 2; i++) chunks.push(filler);
    chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
    const res = await t.app.inject({
      method: 'POST',
      url: assetsUrl,
      payload: Readable.from(chunks),
      headers: { cookie: manager, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
    });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res)).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: UPLOAD_TOO_LARGE });
    expect(await countAssets()).toBe(before);
  });

  it(`a file name over ${MAX_FILENAME_LENGTH} characters is refused by name; the other files of the request still upload`, async () => {
    const data = await makeBanner(1920, 300);
    const long = `new_2025_honda_${'civic'.repeat(12_000)}_sport_1920x300.jpg`;
    const before = await countAssets();
    const res = await bannerUpload({}, [{ filename: long, data }, { filename: 'new_2025_honda_accord_sport_1920x300.jpg', data }]);
    expect(res.statusCode).toBe(200);
    const [first, second] = res.json().results;
    expect(first).toMatchObject({ ok: false, error: UPLOAD_TEXT.filenameTooLong });
    expect(first.filename.length).toBeLessThan(50);
    expect(second.ok).toBe(true);
    expect(await countAssets()).toBe(before + 1);
    const models = (await t.database.db.select({ model: assets.model }).from(assets).where(eq(assets.dealerId, A))).map((r) => r.model.length);
    expect(Math.max(...models)).toBeLessThan(MAX_FILENAME_LENGTH);
  });

  it('free-text fields of settings have length limits', async () => {
    const key = 'x'.repeat(60_000);
    const res = await configsPut({}, { modelMap: { [key]: 'civic' } });
    expect(res.statusCode).toBe(400);
    const settings = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/dealers/${A}/settings`,
      payload: { security: { allowedDomains: ['a'.repeat(300)], enableCors: true, requireHttps: false, rateLimitEnabled: true, maxRequestsPerMinute: 100 } },
      headers: { cookie: admin },
    });
    expect(settings.statusCode).toBe(400);
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: DEMO_ACCOUNTS[1]!.email, password: 'x'.repeat(100_000) } });
    expect(login.statusCode).toBe(400);
  });
});

describe('server timeouts', () => {
  it('the server has requestTimeout, headersTimeout and an idle connection timeout', () => {
    expect(t.app.server.requestTimeout).toBe(SERVER_TIMEOUTS.requestTimeoutMs);
    expect(t.app.server.headersTimeout).toBe(SERVER_TIMEOUTS.headersTimeoutMs);
    expect(t.app.server.timeout).toBe(SERVER_TIMEOUTS.connectionTimeoutMs);
    expect(SERVER_TIMEOUTS.headersTimeoutMs).toBeLessThanOrEqual(SERVER_TIMEOUTS.requestTimeoutMs);
  });

  it('a connection dripping its body is answered 408 and closed once requestTimeout passes', async () => {
    // A second app on this file's database (no new database to migrate on a busy machine). The
    // drip keeps the socket from ever being idle, so only requestTimeout can answer: the 408 says it did
    // (an idle timeout would close the socket without an answer).
    const config = loadConfig({ FEED_SCHEDULER_INTERVAL_MS: '0', LOG_LEVEL: 'silent', WEB_DIST_DIR: path.resolve('dist/web') });
    const app = await buildApp({
      config,
      db: t.database.db,
      logger: false,
      timeouts: { requestTimeoutMs: 1500, headersTimeoutMs: 1000, connectionTimeoutMs: 5000, checkIntervalMs: 200 },
    });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as net.AddressInfo).port;
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        let received = '';
        const drip = setInterval(() => socket.write('x'), 200);
        socket.on('data', (d) => (received += d.toString()));
        socket.on('close', () => {
          clearInterval(drip);
          resolve(received);
        });
        socket.on('error', () => undefined);
        socket.write('POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await app.close();
    }
  });
});

describe("helmet's headers on every HTML response", () => {
  it.each(['/', '/login', '/dealer/assets', `/scripts/${A}`, '/no/such/page'])('%s: CSP with frame-ancestors and X-Frame-Options', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the embed script itself stays embeddable (no page headers on the JavaScript)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/scripts/dc-banners-${A}.js` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});
