import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { assetBlobs, assets, dealers } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { MAX_ASSET_BYTES, TEXT } from '../../domain/constants';

let t: TestApp;
let cookie: string;
const url = `/api/dealers/${DEMO_DEALER.id}/assets`;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
});
afterAll(() => t.close());

async function upload(files: Array<{ filename: string; data: Buffer }>) {
  const { body, contentType } = multipartBody(files);
  return t.app.inject({ method: 'POST', url, payload: body, headers: { cookie, 'content-type': contentType } });
}

async function countAssets() {
  return (await t.database.db.select().from(assets).where(eq(assets.dealerId, DEMO_DEALER.id))).length;
}

describe('asset upload', () => {
  it('stores a valid header banner with its real dimensions and classifies it', async () => {
    const res = await upload([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
    expect(res.statusCode).toBe(200);
    const [r] = res.json().results;
    expect(r).toMatchObject({ ok: true, warnings: [] });
    expect(r.asset).toMatchObject({ type: 'header', model: 'civic', trim: 'sport', year: '2025', manufacturer: 'honda', mimeType: 'image/jpeg', dimensions: { width: 1920, height: 300 } });
    const img = await t.app.inject({ method: 'GET', url: r.asset.url, headers: { cookie } });
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/jpeg');
  });

  it('uploads several files at once: valid ones stored, invalid ones reported with the hint', async () => {
    const before = await countAssets();
    const res = await upload([
      { filename: 'new_2025_honda_accord_ex_350x564.png', data: await makeBanner(350, 564, 'png') },
      { filename: 'accord-banner.jpg', data: await makeBanner(350, 564) },
    ]);
    const [ok, bad] = res.json().results;
    expect(ok).toMatchObject({ ok: true, asset: { type: 'primary', model: 'accord' } });
    expect(bad).toMatchObject({ ok: false, filename: 'accord-banner.jpg', error: TEXT.invalidFilename, hint: TEXT.invalidFilenameHint });
    expect(await countAssets()).toBe(before + 1);
  });

  it('lets the real size win over the filename and warns', async () => {
    const res = await upload([{ filename: 'new_2025_honda_pilot_elite_1920x300.webp', data: await makeBanner(600, 500, 'webp') }]);
    const [r] = res.json().results;
    expect(r.ok).toBe(true);
    expect(r.asset.dimensions).toEqual({ width: 600, height: 500 });
    expect(r.asset.type).toBe('header'); // exact match to the SRP header mobile size
    expect(r.warnings[0]).toMatch(/says 1920x300 but the image is 600x500/);
  });

  it('refuses corrupt image bytes with a valid name and stores nothing', async () => {
    const before = await countAssets();
    const good = await makeBanner(1920, 300);
    const corrupt = Buffer.concat([good.subarray(0, 200), Buffer.alloc(2000, 7)]);
    const res = await upload([{ filename: 'new_2025_honda_civic_lx_1920x300.jpg', data: corrupt }]);
    const [r] = res.json().results;
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^Failed to read file/);
    expect(await countAssets()).toBe(before);
  });

  it('refuses files over 2 MB (2097152 bytes)', async () => {
    const big = Buffer.alloc(MAX_ASSET_BYTES + 10, 1);
    const res = await upload([{ filename: 'new_2025_honda_civic_lx_1920x300.jpg', data: big }]);
    expect(res.json().results[0]).toMatchObject({ ok: false, error: `${TEXT.invalidFileTypeOrSize}: file is larger than 2097152 bytes` });
  });

  it('refuses other file types', async () => {
    const res = await upload([{ filename: 'new_2025_honda_civic_lx_1920x300.gif', data: Buffer.from('GIF89a') }]);
    expect(res.json().results[0].error).toMatch(/Invalid file type or size: file type must be jpg, jpeg, png, webp/);
  });

  it("refuses uploads above 90 % of the quota with 'Storage nearly full!...'", async () => {
    const { usedBytes } = (await t.app.inject({ method: 'GET', url, headers: { cookie } })).json().usage;
    const [d] = await t.database.db.select().from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
    await t.database.db
      .update(dealers)
      .set({ assetStorage: { ...d!.assetStorage, storageQuotaBytes: Math.floor(usedBytes / 0.95) } })
      .where(eq(dealers.id, DEMO_DEALER.id));
    const before = await countAssets();
    const res = await upload([{ filename: 'new_2025_honda_civic_lx_1920x300.jpg', data: await makeBanner(1920, 300) }]);
    expect(res.json().results[0]).toMatchObject({ ok: false, error: TEXT.storageNearlyFull });
    expect(await countAssets()).toBe(before);
    await t.database.db.update(dealers).set({ assetStorage: d!.assetStorage }).where(eq(dealers.id, DEMO_DEALER.id));
  });

  it('lists assets newest first with usage, and deletes one with its bytes', async () => {
    const list = (await t.app.inject({ method: 'GET', url, headers: { cookie } })).json();
    expect(list.assets.length).toBeGreaterThanOrEqual(3);
    const times = list.assets.map((a: { createdAt: string }) => a.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(list.usage.usedBytes).toBe(list.assets.reduce((s: number, a: { sizeBytes: number }) => s + a.sizeBytes, 0));
    const victim = list.assets[0];
    const del = await t.app.inject({ method: 'DELETE', url: `${url}/${victim.id}`, headers: { cookie } });
    expect(del.statusCode).toBe(204);
    expect(await t.database.db.select().from(assetBlobs).where(eq(assetBlobs.assetId, victim.id))).toHaveLength(0);
    const again = await t.app.inject({ method: 'DELETE', url: `${url}/${victim.id}`, headers: { cookie } });
    expect(again.statusCode).toBe(404);
  });
});
