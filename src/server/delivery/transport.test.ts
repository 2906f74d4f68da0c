/**
 * Delivery transport: the embed script and placeholder SVGs are sent brotli- or
 * gzip-encoded when the client accepts it (the demo dealer's script at most 4.25 KiB brotli on the
 * wire), with Vary: Accept-Encoding and a strong ETag per coding; raster images are never
 * recompressed; weak, listed and `*` If-None-Match values revalidate to 304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

/**
 * The budget of the demo dealer's script on the wire, brotli: 4.25 KiB, about one round trip's worth of
 * TCP's initial window, for a script that keeps one page view through re-renders, joins
 * shortcodes split across HTML chunks and explains refusals in the console (about 3.6 KB); it
 * loads async and never blocks the page's first paint.
 */
// 4 KiB until the script learned to collapse boxes it cannot fill, to give up on an image that never
// answers and to feed the page's dataLayer (4,239 B for the demo dealer): 4.25 KiB. Taking the page's
// slots and shortcodes one per task (on a large page at 4x CPU its start-up had been one 30-80 ms
// task: docs/PERFORMANCE.md "longest stretch") cost 120 bytes (4,470 B, budget 4.5 KiB for a
// while), won back by simpler bookkeeping (the banner list alone knows which slots are taken and
// which text node made them; 4,346 B).
const SCRIPT_BROTLI_BUDGET = 4352;

let t: TestApp;
const scriptUrl = `/scripts/dc-banners-${DEMO_DEALER.id}.js`;
const placeholderUrl = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const varyOf = (res: LightMyRequestResponse) => String(res.headers.vary ?? '').split(',').map((v) => v.trim().toLowerCase());

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('embed script encodings', () => {
  it('is identity without Accept-Encoding, and brotli ≤ 4.25 KiB / gzip with it, each decoding to the same bytes', async () => {
    const identity = await get(scriptUrl);
    expect(identity.statusCode).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body).toContain(`"dealerId":"${DEMO_DEALER.id}"`);
    expect(varyOf(identity)).toContain('accept-encoding');

    const br = await get(scriptUrl, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(br.rawPayload.length).toBeLessThanOrEqual(SCRIPT_BROTLI_BUDGET);
    expect(Number(br.headers['content-length'])).toBe(br.rawPayload.length);
    expect(brotliDecompressSync(br.rawPayload).equals(identity.rawPayload)).toBe(true);
    expect(varyOf(br)).toContain('accept-encoding');

    const gz = await get(scriptUrl, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.rawPayload.length).toBeLessThan(identity.rawPayload.length);
    expect(gunzipSync(gz.rawPayload).equals(identity.rawPayload)).toBe(true);

    // Each coding is its own representation: three distinct strong ETags.
    const tags = [identity, br, gz].map((r) => r.headers.etag as string);
    for (const tag of tags) expect(tag).toMatch(/^"[\w-]+"$/);
    expect(new Set(tags).size).toBe(3);
  });

  it('follows the client preference by q-value, and sends identity when nothing offered is acceptable', async () => {
    expect((await get(scriptUrl, { 'accept-encoding': 'br;q=0, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get(scriptUrl, { 'accept-encoding': 'gzip;q=1, br;q=0.5' })).headers['content-encoding']).toBe('gzip');
    expect((await get(scriptUrl, { 'accept-encoding': '*' })).headers['content-encoding']).toBe('br');
    for (const accept of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const res = await get(scriptUrl, { 'accept-encoding': accept });
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBeUndefined();
    }
  });
});

describe('If-None-Match revalidation (weak comparison, lists, *)', () => {
  const cases = (etag: string) => ({
    exact: etag,
    weak: `W/${etag}`,
    list: `"something-else", ${etag}`,
    weakList: `W/"old", W/${etag}`,
    star: '*',
  });

  for (const [name, url] of [['script', scriptUrl], ['placeholder image', placeholderUrl]] as const) {
    it(`answers 304 on the ${name}, identity and brotli, and 200 for another tag`, async () => {
      for (const encoding of ['', 'br']) {
        const headers: Record<string, string> = encoding ? { 'accept-encoding': encoding } : {};
        const first = await get(url, headers);
        expect(first.statusCode).toBe(200);
        if (url === placeholderUrl) {
          expect(first.headers['x-banner-source']).toBe('placeholder');
          expect(first.headers['content-type']).toMatch(/^image\/svg\+xml/);
        }
        const etag = first.headers.etag as string;
        for (const [kind, value] of Object.entries(cases(etag))) {
          const res = await get(url, { ...headers, 'if-none-match': value });
          expect(res.statusCode, `${name} ${encoding || 'identity'} ${kind}`).toBe(304);
          expect(res.body).toBe('');
          expect(res.headers.etag).toBe(etag);
        }
        const other = await get(url, { ...headers, 'if-none-match': '"not-this-one", W/"nor-this"' });
        expect(other.statusCode).toBe(200);
        expect(other.rawPayload.length).toBeGreaterThan(0);
      }
    });
  }

  it("does not revalidate one coding's cached copy for another coding", async () => {
    const br = await get(scriptUrl, { 'accept-encoding': 'br' });
    const identity = await get(scriptUrl, { 'if-none-match': br.headers.etag as string });
    expect(identity.statusCode).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
  });
});

describe('banner images', () => {
  it('sends the placeholder SVG brotli- or gzip-encoded, decoding to the identity SVG', async () => {
    const identity = await get(placeholderUrl);
    expect(identity.headers['content-encoding']).toBeUndefined();
    const br = await get(placeholderUrl, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(br.rawPayload.length).toBeLessThan(identity.rawPayload.length);
    expect(brotliDecompressSync(br.rawPayload).equals(identity.rawPayload)).toBe(true);
    const gz = await get(placeholderUrl, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(identity.rawPayload)).toBe(true);
    for (const res of [identity, br, gz]) {
      expect(varyOf(res)).toEqual(['accept', 'accept-encoding']); // never Origin: images are public (public-policy.ts)
    }
    expect(new Set([identity, br, gz].map((r) => r.headers.etag)).size).toBe(3);
  });

  it('never recompresses WebP or JPEG banners, and revalidates them by weak comparison too', async () => {
    const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_accord_ex_350x564.jpg', data: await makeBanner(350, 564) }]);
    const uploaded = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
    expect(uploaded.json().results[0].ok).toBe(true);
    const url = `/api/scripts/${DEMO_DEALER.id}/asset?model=accord&type=primary&variant=desktop`;
    for (const accept of ['image/avif,image/webp,*/*', 'image/*']) {
      const res = await get(url, { accept, 'accept-encoding': 'gzip, deflate, br' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-banner-source']).toBe('asset');
      expect(res.headers['content-type']).toMatch(/^image\/(webp|jpeg)$/);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(varyOf(res)).not.toContain('accept-encoding');
      const weak = await get(url, { accept, 'if-none-match': `W/${res.headers.etag as string}` });
      expect(weak.statusCode).toBe(304);
    }
  });
});
