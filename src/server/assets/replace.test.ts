/**
 * Replace in place: a new file of the same size replaces an asset's bytes under the same
 * id, so its statistics, window and on/off state stay; delivery shows the new file at once; the
 * replacement is recorded; a file of another size, the same file, a second file, a viewer and
 * another dealer are refused with a clear answer. Thumbnails: cards load a small server-side
 * variant, not the original bytes, and a replaced file gets a new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { assets, eventRollupsHourly } from '../db/schema';
import sharp from 'sharp';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { THUMBNAIL_BOX } from './service';

let t: TestApp;
let manager: string;
let viewer: string;
const base = `/api/dealers/${DEMO_DEALER.id}/assets`;
const banner = (q: string) => t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?${q}`, headers: { accept: 'image/webp' } });
const replace = (id: string, files: Array<{ filename: string; data: Buffer }>, cookie = manager) => {
  const { body, contentType } = multipartBody(files);
  return t.app.inject({ method: 'PUT', url: `${base}/${id}/file`, payload: body, headers: { cookie, 'content-type': contentType } });
};

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager'));
  viewer = await t.login(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password);
});
afterAll(() => t.close());

describe('replace an asset in place', () => {
  let id = '';
  let original: Buffer;

  it('keeps the id, statistics, window and state, serves the new file at once and records the replacement', async () => {
    original = await makeBanner(1920, 300, 'jpeg', '#aa0000');
    const { body, contentType } = multipartBody([{ filename: 'new_2026_honda_odyssey_elite_1920x300.jpg', data: original }]);
    const up = await t.app.inject({ method: 'POST', url: base, payload: body, headers: { cookie: manager, 'content-type': contentType } });
    id = up.json().results[0].asset.id;
    const window = await t.app.inject({ method: 'PATCH', url: `${base}/${id}`, headers: { cookie: manager }, payload: { endsAt: '2099-01-01T00:00:00Z' } });
    expect(window.statusCode).toBe(200);
    await t.database.db.insert(eventRollupsHourly).values({ dealerId: DEMO_DEALER.id, hour: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000), model: 'odyssey', slotType: 'header', creative: id, impressions: 120, clicks: 6, conversions: 1 });
    const before = await banner('model=odyssey&type=header&variant=desktop');
    expect(before.headers['x-banner-creative']).toBe(id);

    const replacement = await makeBanner(1920, 300, 'png', '#0000aa');
    const res = await replace(id, [{ filename: 'odyssey-holiday-final.png', data: replacement }]);
    expect(res.statusCode).toBe(200);
    const asset = res.json().asset;
    expect(asset).toMatchObject({ id, name: 'new_2026_honda_odyssey_elite_1920x300.jpg', model: 'odyssey', trim: 'elite', isActive: true, mimeType: 'image/png', sizeBytes: replacement.length, endsAt: '2099-01-01T00:00:00.000Z' });
    expect(asset.replacements).toEqual([{ at: expect.any(String), filename: 'odyssey-holiday-final.png', replacedSizeBytes: original.length }]);
    const image = await t.app.inject({ method: 'GET', url: asset.url, headers: { cookie: manager } });
    expect(image.rawPayload.equals(replacement)).toBe(true);

    const after = await banner('model=odyssey&type=header&variant=desktop');
    expect(after.headers['x-banner-creative']).toBe(id);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const a = (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/analytics?period=24h`, headers: { cookie: manager } })).json();
    expect(a.creatives.find((c: { creative: string }) => c.creative === id)).toMatchObject({ impressions: 120, clicks: 6, conversions: 1, name: 'new_2026_honda_odyssey_elite_1920x300.jpg', status: 'live' });
  });

  it('refuses another size, the file already shown, two files, and names the problem; nothing changes', async () => {
    const stored = async () => (await t.database.db.select({ hash: assets.contentHash, size: assets.sizeBytes }).from(assets).where(eq(assets.id, id)))[0];
    const was = await stored();
    const wrongSize = await replace(id, [{ filename: 'x.jpg', data: await makeBanner(1200, 300) }]);
    expect(wrongSize.statusCode).toBe(400);
    expect(wrongSize.json().error.message).toBe('The replacement must be 1920x300 like the banner it replaces; this image is 1200x300');
    const current = (await t.app.inject({ method: 'GET', url: `${base}/${id}/image`, headers: { cookie: manager } })).rawPayload;
    const same = await replace(id, [{ filename: 'again.png', data: current }]);
    expect(same.statusCode).toBe(400);
    expect(same.json().error.message).toBe('This is the file new_2026_honda_odyssey_elite_1920x300.jpg already shows');
    const two = await replace(id, [
      { filename: 'a.jpg', data: await makeBanner(1920, 300) },
      { filename: 'b.jpg', data: await makeBanner(1920, 300) },
    ]);
    expect(two.statusCode).toBe(400);
    expect(two.json().error.message).toBe('Send exactly one "file" field to replace an asset (got 2)');
    const notImage = await replace(id, [{ filename: 'notes.txt', data: Buffer.from('hello') }]);
    expect(notImage.statusCode).toBe(400);
    expect(notImage.json().error.message).toMatch(/file type must be/);
    expect(await stored()).toEqual(was);
  });

  it('refuses a viewer (403; other dealers: role-matrix.test.ts), and answers 404 for an unknown asset', async () => {
    const file = [{ filename: 'v.jpg', data: await makeBanner(1920, 300) }];
    expect((await replace(id, file, viewer)).statusCode).toBe(403);
    expect((await replace('00000000-0000-4000-8000-000000000000', file)).statusCode).toBe(404);
  });
});

describe('thumbnails', () => {
  it('answers a small WebP (or JPEG) variant that fits the box, never enlarged, and a new one after a replacement', async () => {
    const big = await makeBanner(1920, 300, 'png', '#006600');
    const { body, contentType } = multipartBody([{ filename: 'new_2026_honda_hrv_sport_1920x300.png', data: big }]);
    const asset = (await t.app.inject({ method: 'POST', url: base, payload: body, headers: { cookie: manager, 'content-type': contentType } })).json().results[0].asset;
    const thumb = (accept: string, url = asset.url) => t.app.inject({ method: 'GET', url: `${url}&size=thumb`, headers: { cookie: manager, accept } });
    const webp = await thumb('image/avif,image/webp,*/*');
    expect(webp.statusCode).toBe(200);
    expect(webp.headers['content-type']).toBe('image/webp');
    const meta = await sharp(webp.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([THUMBNAIL_BOX.width, Math.round((THUMBNAIL_BOX.width * 300) / 1920)]);
    expect(webp.rawPayload.length).toBeLessThan(big.length);
    const jpeg = await thumb('image/*');
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    // A small image stays its own size.
    const { body: b2, contentType: c2 } = multipartBody([{ filename: 'new_2026_honda_hrv_sport_300x200.jpg', data: await makeBanner(300, 200) }]);
    const small = (await t.app.inject({ method: 'POST', url: base, payload: b2, headers: { cookie: manager, 'content-type': c2 } })).json().results[0].asset;
    expect((await sharp((await thumb('image/webp', small.url)).rawPayload).metadata()).width).toBe(300);
    // After a replacement the thumbnail shows the new file.
    const replaced = (await replace(asset.id, [{ filename: 'hrv-v2.png', data: await makeBanner(1920, 300, 'png', '#000066') }])).json().asset;
    expect(replaced.url).not.toBe(asset.url);
    expect((await thumb('image/webp', replaced.url)).rawPayload.equals(webp.rawPayload)).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: `${base}/${asset.id}/image?size=huge`, headers: { cookie: manager } })).statusCode).toBe(400);
  });
});
