/**
 * Banner warm-up at start-up: an app started on a database that already holds a live banner has
 * encoded it before its first request, so that request makes no encoding
 * (dcb_banner_encodings_total unchanged) and gets the same bytes as a process that encoded it on
 * demand; what is left when the process starts serving is encoded later, each banner and size still
 * once (a request's own first, the rest at an idle moment); BANNER_WARM_UP bounds the encodings; the hottest slots (last day's impressions) come
 * before the slots of live uploads, and traffic older than a day does not count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { eq } from 'drizzle-orm';
import { assetBlobs, eventRollupsHourly } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { hotSlots, WARM_UP_TRAFFIC_HOURS } from './warm-up';

const TOKEN = 'metrics-token-warm-up-0123456789';
const BANNER = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
const WEBP = { accept: 'image/avif,image/webp,*/*' };
let t: TestApp;
const started: FastifyInstance[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
  const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  expect(res.json().results[0].ok, res.body).toBe(true);
});
afterAll(async () => {
  for (const app of started) await app.close();
  await t.close();
});

/** A second process on the same database, as after a restart: its own empty caches, the warm-up as configured. */
async function restart(env: { banners: number; waitMs?: number }): Promise<FastifyInstance> {
  const app = await buildApp({ config: { ...t.config, bannerWarmUp: env.banners, bannerWarmUpWaitMs: env.waitMs ?? 30_000 }, db: t.database.db, logger: false });
  started.push(app);
  await app.ready();
  return app;
}

/** dcb_banner_encodings_total of WebP, as /metrics exposes it (the app's own counter: each restart starts at 0). */
async function webpEncodings(app: FastifyInstance): Promise<number> {
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  return Number(/^dcb_banner_encodings_total\{format="webp"\} (\d+)$/m.exec(res.body)?.[1] ?? 0);
}

describe('banner warm-up at start-up', () => {
  it('encodes a live banner before its first request, which then makes no encoding and gets the same bytes', async () => {
    const app = await restart({ banners: 10 });
    const warmed = await webpEncodings(app);
    // Desktop 1x, mobile 2x and desktop 2x of the one civic header.
    expect(warmed).toBe(3);
    const first = await app.inject({ url: BANNER, headers: WEBP });
    const retina = await app.inject({ url: `${BANNER.replace('desktop', 'mobile')}&scale=2`, headers: WEBP });
    expect(first.statusCode).toBe(200);
    expect(retina.statusCode).toBe(200);
    expect(first.headers['x-banner-source']).toBe('asset');
    expect(first.headers['content-type']).toBe('image/webp');
    expect(await webpEncodings(app)).toBe(warmed);
    // The process without a warm-up encodes it on demand: the same bytes, the same ETag.
    const onDemand = await t.app.inject({ url: BANNER, headers: WEBP });
    expect(onDemand.headers.etag).toBe(first.headers.etag);
    expect(onDemand.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('after listening, leaves the banner a request asks for to the request and encodes the other sizes later, once each', async () => {
    // BANNER_WARM_UP_WAIT_MS=0: the process serves at once and the whole warm-up is background work.
    const app = await restart({ banners: 10, waitMs: 0 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => app.inject({ url: BANNER, headers: WEBP })));
    for (const res of answers) expect(res.statusCode).toBe(200);
    expect(new Set(answers.map((r) => r.headers.etag)).size).toBe(1);
    // The background part, at an idle moment, encodes the two sizes not asked for: three in all.
    await expect.poll(() => webpEncodings(app), { timeout: 30_000, interval: 100 }).toBe(3);
    const retina = await app.inject({ url: `${BANNER.replace('desktop', 'mobile')}&scale=2`, headers: WEBP });
    expect(retina.statusCode).toBe(200);
    expect(await webpEncodings(app)).toBe(3);
  });

  it('makes at most BANNER_WARM_UP encodings, and none when it is 0', async () => {
    expect(await webpEncodings(await restart({ banners: 1 }))).toBe(1);
    expect(await webpEncodings(await restart({ banners: 0 }))).toBe(0);
  });

  it('takes the slots with impressions in the last day first, then live uploads; older traffic does not count', async () => {
    const now = new Date();
    const hourAgo = new Date(Math.floor(now.getTime() / 3600_000) * 3600_000 - 3600_000);
    const older = new Date(hourAgo.getTime() - WARM_UP_TRAFFIC_HOURS * 3600_000);
    await t.database.db.insert(eventRollupsHourly).values([
      { dealerId: DEMO_DEALER.id, hour: hourAgo, model: 'accord', slotType: 'primary', creative: 'placeholder', impressions: 3 },
      { dealerId: DEMO_DEALER.id, hour: hourAgo, model: 'pilot', slotType: 'header', creative: 'placeholder', impressions: 9 },
      { dealerId: DEMO_DEALER.id, hour: older, model: 'odyssey', slotType: 'header', creative: 'placeholder', impressions: 500 },
    ]);
    const slot = (model: string, type: string) => ({ dealerId: DEMO_DEALER.id, model, type });
    expect(await hotSlots(t.database.db, now, 10)).toEqual([slot('pilot', 'header'), slot('accord', 'primary'), slot('civic', 'header')]);
    expect(await hotSlots(t.database.db, now, 2)).toEqual([slot('pilot', 'header'), slot('accord', 'primary')]);
    await t.database.db.delete(eventRollupsHourly);
  });

  it('skips a banner it cannot encode and still starts, with every other banner warmed', async () => {
    const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_accord_ex_1920x300.png', data: await makeBanner(1920, 300, 'png', '#0044aa') }]);
    const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
    const id = res.json().results[0].asset.id as string;
    // The newest upload (warmed first) has bytes sharp cannot read.
    await t.database.db.update(assetBlobs).set({ data: Buffer.from('not an image at all') }).where(eq(assetBlobs.assetId, id));
    const app = await restart({ banners: 10 });
    // The civic header's three sizes; none of the accord's.
    expect(await webpEncodings(app)).toBe(3);
    const civic = await app.inject({ url: BANNER, headers: WEBP });
    expect(civic.statusCode).toBe(200);
    expect(await webpEncodings(app)).toBe(3);
  });
});
