import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { eq } from 'drizzle-orm';
import { dealers } from '../db/schema';
import { hostAllowed } from './public-policy';
import type { Security } from '../../domain/schemas';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const event = { dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', pv: 'view-policy-1' };
let t: TestApp;

// Requests reach this public deployment over HTTPS through its proxy unless a test says otherwise.
const viaHttps = { 'x-forwarded-proto': 'https' };
const track = (headers: Record<string, string> = {}, body: Record<string, string> = event) =>
  t.app.inject({ method: 'POST', url: '/api/analytics/track', payload: JSON.stringify(body), headers: { 'content-type': 'text/plain', 'user-agent': UA, ...viaHttps, ...headers } });
const image = (headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header`, headers: { 'user-agent': UA, ...viaHttps, ...headers } });

const setSecurity = (patch: Partial<Security>) => t.patchSecurity(patch);

beforeAll(async () => {
  // Behind a trusted proxy (fastify.inject connects from 127.0.0.1), so X-Forwarded-For/-Proto count here;
  // without TRUST_PROXY they do not (src/server/auth/trust-proxy.test.ts).
  t = await createTestApp({ env: { TRUST_PROXY: 'loopback', PUBLIC_ORIGIN: 'https://banners.example.com' } });
});
afterAll(() => t.close());

describe('dealer security on public endpoints', () => {
  it('matches allowed domains exactly or as a parent domain', () => {
    expect(hostAllowed('www.hondaofdemo.com', ['www.hondaofdemo.com'])).toBe(true);
    expect(hostAllowed('shop.hondaofdemo.com', ['hondaofdemo.com'])).toBe(true);
    expect(hostAllowed('hondaofdemo.com.evil.example', ['hondaofdemo.com'])).toBe(false);
    expect(hostAllowed('www.hondaofdemo.com', ['https://www.hondaofdemo.com/'])).toBe(true);
  });

  it('accepts beacons from the dealer site and answers CORS for it', async () => {
    const res = await track({ origin: 'https://www.hondaofdemo.com' });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://www.hondaofdemo.com');
  });

  it('refuses beacons from origins outside the allowed domains, by Origin or Referer, with no-store', async () => {
    const res = await track({ origin: 'https://evil.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('Origin https://evil.example is not an allowed domain for this dealer');
    expect(res.headers['cache-control']).toBe('no-store');
    const byReferer = await track({ referer: 'https://evil.example/page' });
    expect(byReferer.statusCode).toBe(403);
    expect(byReferer.headers['cache-control']).toBe('no-store');
  });

  it('serves banner images to any page, byte for byte the same answer whatever Origin or Referer it sends (images are public)', async () => {
    const callers: Array<Record<string, string>> = [
      {}, // a no-referrer page, or a CDN fetching the image
      { referer: 'https://www.hondaofdemo.com/new-inventory?model=civic' },
      { origin: 'https://www.hondaofdemo.com' },
      { referer: 'https://evil.example/page' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'null', referer: 'https://www.hondaofdemo.com/new-inventory' },
      { referer: 'android-app://com.google.android.gm/' },
    ];
    const answers = [];
    for (const headers of callers) answers.push(await image({ accept: 'image/webp', ...headers }));
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers.vary).toBe('Accept, Accept-Encoding'); // the demo dealer's civic is a placeholder SVG, compressible
      expect(res.headers.etag).toBe(answers[0]!.headers.etag);
      expect(res.rawPayload.equals(answers[0]!.rawPayload)).toBe(true);
    }
  });

  it('still refuses a beacon with neither Origin nor Referer, or from an opaque origin, while the dealer restricts domains', async () => {
    const beacon = await track();
    expect(beacon.statusCode).toBe(403);
    expect(beacon.json().error.message).toBe('Beacons must come from an allowed domain of this dealer (no Origin or Referer)');
    const opaque = await track({ origin: 'null' });
    expect(opaque.statusCode).toBe(403);
    const [{ security }] = (await t.database.db.select({ security: dealers.security }).from(dealers).where(eq(dealers.id, DEMO_DEALER.id))) as [{ security: Security }];
    expect(security.allowedDomains.length).toBeGreaterThan(0);
  });

  it('allows any origin when CORS enforcement is off', async () => {
    await setSecurity({ enableCors: false });
    expect((await track({ origin: 'https://evil.example' })).statusCode).toBe(204);
    await setSecurity({ enableCors: true });
  });

  it('refuses plain HTTP when HTTPS is required (only a server whose PUBLIC_ORIGIN is loopback is exempt), images too', async () => {
    const res = await track({ host: 'banners.example.com', 'x-forwarded-proto': 'http', origin: 'https://www.hondaofdemo.com' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('HTTPS is required for this dealer');
    expect(res.json().error.hint).toBe("serve the page over HTTPS, or turn off the dealer's Require HTTPS (Security settings)");
    // The scheme is part of the image URL (and of every CDN's cache key): the refusal is not cached.
    const img = await image({ 'x-forwarded-proto': 'http' });
    expect(img.statusCode).toBe(403);
    expect(img.json().error.message).toBe('HTTPS is required for this dealer');
    expect(img.headers['cache-control']).toBe('no-store');
    // The Host header is the client's word: naming localhost does not make a request local.
    expect((await track({ host: 'localhost', 'x-forwarded-proto': 'http', origin: 'https://www.hondaofdemo.com' })).statusCode).toBe(403);
    const viaProxy = await track({ host: 'banners.example.com', 'x-forwarded-proto': 'https', origin: 'https://www.hondaofdemo.com' });
    expect(viaProxy.statusCode).toBe(204);
    await setSecurity({ requireHttps: false });
    expect((await track({ host: 'banners.example.com', 'x-forwarded-proto': 'http', origin: 'https://www.hondaofdemo.com' })).statusCode).toBe(204);
    expect((await image({ 'x-forwarded-proto': 'http' })).statusCode).toBe(200);
    await setSecurity({ requireHttps: true });
  });

  it('never limits banner images per client IP; limits beacons per page view, with Retry-After', async () => {
    await setSecurity({ maxRequestsPerMinute: 10 });
    const ip = { 'x-forwarded-for': '203.0.113.7', origin: 'https://www.hondaofdemo.com' };
    const images: number[] = [];
    for (let i = 0; i < 25; i++) images.push((await image(ip)).statusCode);
    expect(images.every((s) => s === 200)).toBe(true);
    const view = { ...event, pv: 'view-policy-limit' };
    const beacons: number[] = [];
    for (let i = 0; i < 10; i++) beacons.push((await track(ip, view)).statusCode);
    expect(beacons.every((s) => s === 204)).toBe(true);
    const limited = await track(ip, view);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['cache-control']).toBe('no-store');
    expect((await track(ip, { ...event, pv: 'view-policy-other' })).statusCode).toBe(204); // another page view
    await setSecurity({ rateLimitEnabled: false });
    expect((await track(ip, view)).statusCode).toBe(204);
    await setSecurity({ rateLimitEnabled: true, maxRequestsPerMinute: 100 });
  });
});
