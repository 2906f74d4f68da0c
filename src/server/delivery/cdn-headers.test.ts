/**
 * What a shared cache (a CDN in front, docs/OPERATIONS.md "Putting a CDN in front") reads of each
 * public delivery answer: Cache-Control, Vary and ETag per route. Banner images, placeholders and
 * redirects are public and depend on no Origin or Referer (Vary names Accept, and Accept-Encoding
 * for compressed bodies, never Origin); an image URL without the dealer's version (the header's)
 * is `no-cache`, revalidated on every use; the embed script varies on Accept-Encoding only; every
 * refusal (403, 404, 400, 429, 5xx) is `Cache-Control: no-store`. Through fastify.inject (the
 * routes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { dealers } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

let t: TestApp;
const https = { 'x-forwarded-proto': 'https' };
const image = (query: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?${query}`, headers: { ...https, ...headers } });
/** The Vary fields of an answer, lower case, in order. */
const varyOf = (res: LightMyRequestResponse) => (res.headers.vary === undefined ? [] : String(res.headers.vary).split(',').map((v) => v.trim().toLowerCase()));
const PUBLIC = /^public, max-age=([1-9]\d*)(, stale-while-revalidate=\d+)?$/;

beforeAll(async () => {
  // A public deployment behind its proxy: the demo dealer's requireHttps applies.
  t = await createTestApp({ env: { TRUST_PROXY: 'loopback', PUBLIC_ORIGIN: 'https://banners.example.com' } });
  const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
  const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType, ...https } });
  expect(res.json().results[0].ok).toBe(true);
});
afterAll(() => t.close());

describe('CDN headers of delivery answers', () => {
  it('banner image: public max-age, a strong ETag, Vary: Accept only, CORS for any site; 304 with the same validators', async () => {
    const asked = [
      await image('model=civic&type=header&variant=desktop&v=3', { accept: 'image/webp', origin: 'https://www.hondaofdemo.com' }),
      await image('model=civic&type=header&variant=desktop&v=3', { accept: 'image/webp', referer: 'https://another-site.example/' }),
    ];
    for (const res of asked) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-banner-source']).toBe('asset');
      expect(res.headers['cache-control']).toMatch(PUBLIC);
      expect(varyOf(res)).toEqual(['accept']);
      expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    expect(asked[1]!.headers.etag).toBe(asked[0]!.headers.etag);
    // The negotiated format is another representation under the same URL: its own ETag.
    const jpeg = await image('model=civic&type=header&variant=desktop&v=3', { accept: 'image/*' });
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    expect(jpeg.headers.etag).not.toBe(asked[0]!.headers.etag);
    const revalidated = await image('model=civic&type=header&variant=desktop&v=3', { accept: 'image/webp', 'if-none-match': asked[0]!.headers.etag as string });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.headers.etag).toBe(asked[0]!.headers.etag);
    expect(revalidated.headers['cache-control']).toMatch(PUBLIC);
    expect(varyOf(revalidated)).toEqual(['accept']);
  });

  it('banner image without a version (the header URL a pasted tag asks for): stored but revalidated on every use, 304 while unchanged', async () => {
    const first = await image('model=civic&type=header&variant=desktop&r=5', { accept: 'image/webp' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-banner-source']).toBe('asset');
    expect(first.headers['cache-control']).toBe('public, no-cache');
    expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(varyOf(first)).toEqual(['accept']);
    const revalidated = await image('model=civic&type=header&variant=desktop&r=5', { accept: 'image/webp', 'if-none-match': first.headers.etag as string });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.headers['cache-control']).toBe('public, no-cache');
    // The same slot under a version is cacheable for minutes.
    expect((await image('model=civic&type=header&variant=desktop&v=3&r=5', { accept: 'image/webp' })).headers['cache-control']).toMatch(PUBLIC);
  });

  it('placeholder: public max-age, Vary: Accept, Accept-Encoding, one ETag per coding', async () => {
    const identity = await image('model=pilot&type=primary&variant=mobile&v=3');
    const br = await image('model=pilot&type=primary&variant=mobile&v=3', { 'accept-encoding': 'br', origin: 'https://evil.example' });
    for (const res of [identity, br]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-banner-source']).toBe('placeholder');
      expect(res.headers['cache-control']).toMatch(PUBLIC);
      expect(varyOf(res)).toEqual(['accept', 'accept-encoding']);
      expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).not.toBe(identity.headers.etag);
  });

  it('redirect to a fallback image: public max-age, no Vary, CORS for any site', async () => {
    const [row] = await t.database.db.select({ storage: dealers.assetStorage, fallbacks: dealers.fallbackAssets }).from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
    const fallback = { id: 'fb', name: 'fb', type: 'srpHeaderDesktop' as const, url: 'https://static.example.com/fb.jpg', isUploaded: false, createdAt: '2026-01-01T00:00:00.000Z', isActive: true, priority: 1 };
    await t.database.db
      .update(dealers)
      .set({ assetStorage: { ...row!.storage, baseUrl: '', fallbackEnabled: true }, fallbackAssets: { ...row!.fallbacks, srpHeaderDesktop: [fallback] } })
      .where(eq(dealers.id, DEMO_DEALER.id));
    t.app.dealerSites.forget(DEMO_DEALER.id);
    try {
      const res = await image('model=odyssey&type=header&variant=desktop&v=3', { accept: 'image/webp', origin: 'https://www.hondaofdemo.com' });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('https://static.example.com/fb.jpg');
      expect(res.headers['cache-control']).toMatch(/^public, max-age=[1-9]\d*$/);
      expect(res.headers.vary).toBeUndefined();
      expect(res.headers['access-control-allow-origin']).toBe('*');
      // Without a version the redirect is asked again on every use.
      expect((await image('model=odyssey&type=header&variant=desktop', { accept: 'image/webp' })).headers['cache-control']).toBe('public, no-cache');
    } finally {
      await t.database.db.update(dealers).set({ assetStorage: row!.storage, fallbackAssets: row!.fallbacks }).where(eq(dealers.id, DEMO_DEALER.id));
      t.app.dealerSites.forget(DEMO_DEALER.id);
    }
  });

  it('embed script: public max-age, Vary: Accept-Encoding only, an ETag per coding', async () => {
    const url = `/scripts/dc-banners-${DEMO_DEALER.id}.js`;
    const identity = await t.app.inject({ method: 'GET', url });
    const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br', origin: 'https://evil.example' } });
    for (const res of [identity, br]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(varyOf(res)).toEqual(['accept-encoding']);
      expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    }
    expect(br.headers.etag).not.toBe(identity.headers.etag);
  });

  it.each([
    ['an image over plain HTTP to a dealer that requires HTTPS', `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header`, { 'x-forwarded-proto': 'http' }, 403],
    ['an image of an unknown dealer', '/api/scripts/no-such-dealer/asset?model=civic&type=header', https, 404],
    ['an image of a model the dealer does not have', `/api/scripts/${DEMO_DEALER.id}/asset?model=delorean&type=header`, https, 404],
    ['an image query the schema refuses', `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=sidebar`, https, 400],
    ['the script of an unknown dealer', '/scripts/dc-banners-no-such-dealer.js', https, 404],
  ])('refusal, never cached: %s', async (_name, url, headers, status) => {
    const res = await t.app.inject({ method: 'GET', url, headers });
    expect(res.statusCode).toBe(status);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toBeUndefined();
    expect(varyOf(res)).not.toContain('origin');
  });
});
