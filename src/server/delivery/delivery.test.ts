import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

let t: TestApp;
let cookie: string;
const asset = (q: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?${q}`, headers });

beforeAll(async () => {
  t = await createTestApp();
  cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
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
    expect(res.body).toContain('Honda civic');
    expect(res.body).toContain('header banner · 1920x300');
    expect(res.headers['cache-control']).toMatch(/public/);
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
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
