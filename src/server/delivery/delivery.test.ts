import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { dealers } from '../db/schema';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

let t: TestApp;
let cookie: string;
const asset = (q: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?${q}`, headers });

beforeAll(async () => {
  // The test CDN listens on 127.0.0.1: allowed here as FEED_ALLOW_PRIVATE_HOSTS would in a dev setup.
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' } }));
});
afterAll(() => t.close());

async function upload(filename: string, data: Buffer) {
  const { body, contentType } = multipartBody([{ filename, data }]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  expect(res.json().results[0].ok).toBe(true);
}

describe('banner delivery', () => {
  it('serves a placeholder SVG naming manufacturer, model, slot and size when nothing matches', async () => {
    const res = await asset('model=civic&type=header&variant=desktop');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['x-banner-source']).toBe('placeholder');
    expect(res.body).toContain('Honda Civic');
    expect(res.body).toContain('header banner · 1920x300');
    expect(res.headers['cache-control']).toMatch(/public/);
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('answers 404 for a model the dealer does not have, Object.prototype names and ad copy included: nothing is printed', async () => {
    for (const model of ['constructor', '__proto__', 'toString', 'Call 555-0100 for 90% off!']) {
      const res = await asset(`model=${encodeURIComponent(model)}&type=header&variant=desktop`);
      expect(res.statusCode, model).toBe(404);
      expect(res.headers['content-type']).toMatch(/json/);
      expect(res.body).not.toContain('555');
      expect(res.body).not.toContain('function');
    }
  });

  it('serves a known model through its mappings and names it by the catalogue in X-Banner-Model and the placeholder', async () => {
    // 'CRV' and 'cr-v' are the same catalogue model; the placeholder uses its display name.
    for (const model of ['CRV', 'cr-v', 'CR V']) {
      const res = await asset(`model=${encodeURIComponent(model)}&type=primary&variant=desktop`);
      expect(res.statusCode, model).toBe(200);
      expect(res.headers['x-banner-model']).toBe('crv');
      expect(res.body).toContain('Honda CR-V');
    }
  });

  it('answers the placeholder with placeholder=1 even when an asset is chosen (the script swap after a failed load)', async () => {
    await upload('new_2025_honda_ridgeline_rtl_1920x300.jpg', await makeBanner(1920, 300));
    expect((await asset('model=ridgeline&type=header&variant=desktop')).headers['x-banner-source']).toBe('asset');
    const ph = await asset('model=ridgeline&type=header&variant=desktop&placeholder=1');
    expect(ph.statusCode).toBe(200);
    expect(ph.headers['x-banner-source']).toBe('placeholder');
    expect(ph.headers['x-banner-model']).toBe('ridgeline');
    expect(ph.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((await asset('model=ridgeline&type=header&variant=desktop&placeholder=yes')).statusCode).toBe(400);
  });

  it('serves the uploaded asset, as WebP when accepted and JPEG otherwise, at the slot size', async () => {
    await upload('new_2025_honda_civic_sport_1920x300.jpg', await makeBanner(1920, 300));
    const webp = await asset('model=Civic&type=header&variant=desktop', { accept: 'image/avif,image/webp,*/*' });
    expect(webp.headers['x-banner-source']).toBe('asset');
    expect(webp.headers['content-type']).toBe('image/webp');
    const meta = await sharp(webp.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([1920, 300]);
    const jpeg = await asset('model=civic&type=header&variant=desktop', { accept: 'image/*' });
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    // mobile header slot is 600x500: the 1920x300 banner is scaled to fit inside it
    const mobile = await asset('model=civic&type=header&variant=mobile');
    const m = await sharp(mobile.rawPayload).metadata();
    expect(m.width).toBe(600);
  });

  it('answers 304 to a matching If-None-Match with a strong ETag', async () => {
    const first = await asset('model=civic&type=header');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    const second = await asset('model=civic&type=header', { 'if-none-match': etag });
    expect(second.statusCode).toBe(304);
    expect(second.body).toBe('');
  });

  it('changes the answer after an upload (cache invalidated by dealer version)', async () => {
    const before = await asset('model=accord&type=primary');
    expect(before.headers['x-banner-source']).toBe('placeholder');
    await upload('new_2025_honda_accord_ex_350x564.jpg', await makeBanner(350, 564));
    const after = await asset('model=accord&type=primary');
    expect(after.headers['x-banner-source']).toBe('asset');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('resolves type=upsell to the upsell target (civic -> accord by the Honda defaults)', async () => {
    const res = await asset('model=civic&type=upsell');
    expect(res.headers['x-banner-source']).toBe('asset');
    const direct = await asset('model=accord&type=primary');
    expect(res.headers.etag).toBe(direct.headers.etag);
  });

  it('refuses an unknown dealer and a bad slot type', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/scripts/nope/asset?model=civic' })).statusCode).toBe(404);
    const bad = await asset('model=civic&type=sidebar');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^type: /);
  });
});

describe('choice order after uploaded assets (DECISIONS 14 b-d)', () => {
  let cdn: http.Server;
  let cdnOrigin: string;
  const heads: string[] = [];

  beforeAll(async () => {
    cdn = http.createServer((req, res) => {
      if (req.method === 'HEAD') heads.push(req.url ?? '');
      if (req.url === `/assets/new_${new Date().getFullYear()}_pilot_1920x300.jpg`) res.writeHead(200, { 'content-type': 'image/jpeg' }).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => cdn.listen(0, '127.0.0.1', r));
    cdnOrigin = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;
    const [row] = await t.database.db.select().from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
    const fallback = (id: string, priority: number, isActive = true) => ({
      id,
      name: id,
      type: 'srpHeaderDesktop' as const,
      url: `https://static.example.com/${id}.jpg`,
      isUploaded: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      isActive,
      priority,
    });
    await t.database.db
      .update(dealers)
      .set({
        assetStorage: { ...row!.assetStorage, baseUrl: `${cdnOrigin}/assets`, fallbackEnabled: true, customNaming: { pattern: 'new_{year}_{model}_{trim}_{size}.{ext}', variables: [] } },
        fallbackAssets: { ...row!.fallbackAssets, srpHeaderDesktop: [fallback('second', 2), fallback('inactive', 0, false), fallback('first', 1)] },
      })
      .where(eq(dealers.id, DEMO_DEALER.id));
    t.app.dealerSites.forget(DEMO_DEALER.id); // the database bumped the version (migration 0007)
  });
  afterAll(async () => {
    t.app.cdnProbes.clear();
    await new Promise((r) => cdn.close(r));
  });

  it('redirects to the CDN image once the CDN has been found to serve it, without waiting for the probe', async () => {
    const first = await asset('model=pilot&type=header&variant=desktop');
    // The probe runs in the background: this request gets the next choice (the fallback asset).
    expect(first.headers['x-banner-source']).toBe('fallback');
    await t.app.cdnProbes.settle();
    expect(heads).toContain(`/assets/new_${new Date().getFullYear()}_pilot_1920x300.jpg`);
    const second = await asset('model=pilot&type=header&variant=desktop');
    expect(second.statusCode).toBe(302);
    expect(second.headers['x-banner-source']).toBe('cdn');
    expect(second.headers.location).toBe(`${cdnOrigin}/assets/new_${new Date().getFullYear()}_pilot_1920x300.jpg`);
  });

  it('redirects to the active fallback with the best priority when the CDN has no image', async () => {
    await asset('model=odyssey&type=header&variant=desktop');
    await t.app.cdnProbes.settle();
    const res = await asset('model=odyssey&type=header&variant=desktop');
    expect(res.statusCode).toBe(302);
    expect(res.headers['x-banner-source']).toBe('fallback');
    expect(res.headers.location).toBe('https://static.example.com/first.jpg');
  });

  it('shows the placeholder when there is no fallback for the banner type', async () => {
    const res = await asset('model=odyssey&type=primary&variant=desktop');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-banner-source']).toBe('placeholder');
  });

  it('the preview reports the same sources', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/preview?model=odyssey`, headers: { cookie } });
    const slots = res.json().slots as Array<{ slot: string; source: string; status: string }>;
    expect(slots.map((s) => [s.slot, s.source, s.status])).toEqual([
      ['header', 'fallback', 'found'],
      ['primary', 'placeholder', 'Missing'],
      ['upsell', 'placeholder', 'Missing'],
    ]);
  });
});
