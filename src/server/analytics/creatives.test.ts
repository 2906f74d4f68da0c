/**
 * Creative analytics: creatives of the same model, slot and size rotate evenly by the
 * banner request's rotation bucket; a beacon naming its banner request is stored with the creative
 * that request showed (a conversion with its click's); Analytics lists creatives with their
 * figures, A/B verdicts, placeholder share and the models that need a banner; Preview lists the
 * rotation; Free up space never offers a creative in rotation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerKeyOf } from '../db/dealer-row';
import { eventRollupsHourly, events } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import type { DealerAnalytics } from '../../domain/schemas';
import { AB_MIN_IMPRESSIONS } from '../../domain/metrics';

let t: TestApp;
let manager: string;
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const PAGE = 'https://www.hondaofdemo.com/new-inventory?model=pilot';
const asset = (q: string) => t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?${q}`, headers: { accept: 'image/webp' } });
const track = (payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, url: PAGE, ...payload }),
    headers: { 'content-type': 'text/plain', 'user-agent': BROWSER_UA, origin: 'https://www.hondaofdemo.com' },
  });
const analytics = async (): Promise<DealerAnalytics> =>
  (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/analytics?period=7d`, headers: { cookie: manager } })).json();

async function upload(filename: string, data: Buffer): Promise<string> {
  const { body, contentType } = multipartBody([{ filename, data }]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie: manager, 'content-type': contentType } });
  const result = res.json().results[0];
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return result.asset.id as string;
}

let older: string;
let newer: string;

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager'));
  const admin = await t.login('admin@dc-banners.com', 'admin123');
  const dealer = (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}`, headers: { cookie: admin } })).json().dealer;
  // These tests send a few hundred beacons from one client: the per-client limits are tested in rate-limits.test.ts.
  await t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${DEMO_DEALER.id}/settings`, headers: { cookie: admin }, payload: { security: { ...dealer.security, rateLimitEnabled: false } } });
  older = await upload('new_2026_honda_pilot_touring_holiday_1920x300.jpg', await makeBanner(1920, 300));
  newer = await upload('new_2026_honda_pilot_touring_blackfriday_1920x300.jpg', await makeBanner(1920, 300));
  await upload('new_2026_honda_pilot_touring_1200x300.jpg', await makeBanner(1200, 300)); // another size: not in the header's rotation
});
afterAll(() => t.close());

describe('A/B rotation', () => {
  it('splits 1,000 banner requests evenly (within 5 %) between the two live creatives of the same model, slot and size', async () => {
    const shown = new Map<string, number>();
    for (let r = 0; r < 1000; r++) {
      const res = await asset(`model=pilot&type=header&variant=desktop&r=${r}`);
      expect(res.statusCode).toBe(200);
      const creative = res.headers['x-banner-creative'] as string;
      shown.set(creative, (shown.get(creative) ?? 0) + 1);
    }
    expect([...shown.keys()].sort()).toEqual([newer, older].sort());
    for (const n of shown.values()) expect(Math.abs(n - 500)).toBeLessThanOrEqual(25);
  });

  it('shows the newest without a bucket, and refuses a bucket out of range', async () => {
    expect((await asset('model=pilot&type=header&variant=desktop')).headers['x-banner-creative']).toBe(newer);
    expect((await asset('model=pilot&type=header&variant=desktop&r=2520')).statusCode).toBe(400);
  });

  it('Preview lists the rotation with a delivery URL per creative', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/preview?model=pilot&variant=desktop`, headers: { cookie: manager } });
    const header = res.json().slots.find((s: { slot: string }) => s.slot === 'header');
    expect(header.rotation.map((c: { assetId: string }) => c.assetId)).toEqual([newer, older]);
    expect(header.rotation.map((c: { assetName: string }) => c.assetName)).toEqual(['new_2026_honda_pilot_touring_blackfriday_1920x300.jpg', 'new_2026_honda_pilot_touring_holiday_1920x300.jpg']);
    for (const [i, c] of header.rotation.entries()) {
      expect((await t.app.inject({ method: 'GET', url: c.imageUrl })).headers['x-banner-creative'], `rotation ${i}`).toBe(c.assetId);
    }
  });

  it('Free up space offers neither creative of a rotation', async () => {
    const plan = (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/assets/cleanup`, headers: { cookie: manager } })).json();
    const offered = plan.groups.flatMap((g: { remove: Array<{ id: string }> }) => g.remove.map((a) => a.id));
    expect(offered).not.toContain(older);
    expect(offered).not.toContain(newer);
  });
});

describe('creative analytics', () => {
  it('stores each beacon with the creative its banner request showed, and a conversion with its click', async () => {
    const q = (r: number) => `model=pilot&type=header&variant=desktop&v=1&r=${r}`;
    const creativeOf = async (r: number) => (await asset(q(r))).headers['x-banner-creative'];
    expect((await track({ event: 'impression', type: 'header', model: 'pilot', pv: 'view-creative-a', asset: q(0) })).statusCode).toBe(204);
    expect((await track({ event: 'impression', type: 'header', model: 'pilot', pv: 'view-creative-b', asset: q(1) })).statusCode).toBe(204);
    expect((await track({ event: 'click', type: 'header', model: 'pilot', pv: 'view-creative-b', asset: q(1) })).statusCode).toBe(204);
    expect((await track({ event: 'conversion', model: 'pilot', pv: 'view-creative-b' })).statusCode).toBe(204);
    // The placeholder swap after a failed image, a beacon of an older script, a query that is not a banner's.
    expect((await track({ event: 'impression', type: 'header', model: 'pilot', pv: 'view-creative-c', asset: `${q(0)}&placeholder=1` })).statusCode).toBe(204);
    expect((await track({ event: 'impression', type: 'header', model: 'pilot', pv: 'view-creative-d' })).statusCode).toBe(204);
    expect((await track({ event: 'impression', type: 'header', model: 'pilot', pv: 'view-creative-e', asset: 'r=99999&type=nope' })).statusCode).toBe(204);
    await t.app.events.flush();
    const rows = await t.database.db.select({ pv: events.pageView, event: events.event, creative: events.creative }).from(events).where(eq(events.dealerKey, dealerKeyOf(DEMO_DEALER.id)));
    const of = (pv: string, event = 'impression') => rows.find((x) => x.pv === pv && x.event === event)?.creative;
    expect(of('view-creative-a')).toBe(await creativeOf(0));
    expect(of('view-creative-b')).toBe(await creativeOf(1));
    expect(of('view-creative-a')).not.toBe(of('view-creative-b'));
    expect(of('view-creative-b', 'click')).toBe(await creativeOf(1));
    expect(of('view-creative-b', 'conversion')).toBe(await creativeOf(1));
    expect(of('view-creative-c')).toBe('placeholder');
    expect(of('view-creative-d')).toBeNull();
    expect(of('view-creative-e')).toBeNull();
    const rollups = await t.database.db.select().from(eventRollupsHourly).where(eq(eventRollupsHourly.dealerId, DEMO_DEALER.id));
    expect(rollups.reduce((n, x) => n + x.impressions, 0)).toBe(5);
    expect(rollups.filter((x) => x.creative === (of('view-creative-b') ?? '')).map((x) => [x.impressions, x.clicks, x.conversions])).toEqual([[1, 1, 1]]);
  });

  it('names no A/B verdict before each creative has its minimum sample, and says how far the rotation is', async () => {
    // One viewable impression per creative and a click on one of them: a 100 % vs 0 % CTR that proves nothing.
    const a = await analytics();
    const header = a.creatives.filter((c) => c.kind === 'asset' && c.slot === 'header' && c.width === 1920);
    expect(header.map((c) => c.impressions)).toEqual([1, 1]);
    for (const c of header) expect(c).toMatchObject({ verdict: 'collecting', sample: { seen: 2, needed: 2 * AB_MIN_IMPRESSIONS } });
    // Outside a rotation (the placeholder, the beacons without a creative) there is no sample.
    expect(a.creatives.filter((c) => c.kind !== 'asset').every((c) => c.verdict === null && c.sample === null)).toBe(true);
  });

  it('lists creatives with figures, the A/B verdict, the placeholder share and the models that need a banner', async () => {
    // 400 more page views per creative of the rotation: 2 clicks on the older one, 40 on the newer.
    for (const [creative, r, clicks] of [[older, 0, 2], [newer, 1, 40]] as const) {
      const q = `model=pilot&type=header&variant=desktop&r=${r}`;
      expect((await asset(q)).headers['x-banner-creative']).toBe(r === 0 ? newer : older);
      for (let i = 0; i < 400; i++) {
        const pv = `view-ab-${creative.slice(0, 8)}-${i}`;
        await track({ event: 'impression', type: 'header', model: 'pilot', pv, asset: q });
        if (i < clicks) await track({ event: 'click', type: 'header', model: 'pilot', pv, asset: q });
      }
    }
    // The upsell slot of the Pilot page after its image failed: the placeholder of Pilot's upsell target.
    const target = (await asset('model=pilot&type=upsell&variant=desktop')).headers['x-banner-model'] as string;
    await track({ event: 'impression', type: 'upsell', model: target, pv: 'view-ph-1', asset: 'model=pilot&type=upsell&variant=desktop&placeholder=1' });
    const a = await analytics();
    const row = (creative: string) => a.creatives.find((c) => c.creative === creative && c.slot === 'header');
    // r=0 showed the newer creative (the rotation's first), r=1 the older.
    expect(row(newer)).toMatchObject({ kind: 'asset', name: 'new_2026_honda_pilot_touring_blackfriday_1920x300.jpg', model: 'pilot', width: 1920, height: 300, status: 'live', impressions: 401, clicks: 2 });
    expect(row(older)).toMatchObject({ kind: 'asset', name: 'new_2026_honda_pilot_touring_holiday_1920x300.jpg', impressions: 401, clicks: 41, conversions: 1, verdict: 'best' });
    expect(row(newer)!.verdict).toBe('trailing');
    expect(row(newer)!.sample).toEqual({ seen: 2 * AB_MIN_IMPRESSIONS, needed: 2 * AB_MIN_IMPRESSIONS });
    expect(a.creatives.find((c) => c.kind === 'placeholder' && c.slot === 'upsell')).toMatchObject({ impressions: 1 });
    expect(a.creatives.find((c) => c.kind === 'unknown')).toMatchObject({ impressions: 2 });
    const total = a.creatives.reduce((n, c) => n + c.impressions, 0);
    expect(total).toBe(a.current.impressions);
    expect(a.placeholderShare).toBeCloseTo((100 * 2) / total, 6); // view-creative-c (header) and view-ph-1 (upsell)
    expect(a.needBanner).toEqual(expect.arrayContaining([{ model: 'pilot', slot: 'header', impressions: 1 }, { model: expect.any(String), slot: 'upsell', impressions: 1 }]));
    expect(a.needBanner).toHaveLength(2);
  });

  it('keeps a deactivated creative\'s figures, listed as inactive', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: `/api/dealers/${DEMO_DEALER.id}/assets/${older}`, headers: { cookie: manager }, payload: { isActive: false } });
    expect(res.statusCode).toBe(200);
    const a = await analytics();
    expect(a.creatives.find((c) => c.creative === older && c.slot === 'header')).toMatchObject({ status: 'inactive', impressions: 401, clicks: 41 });
    // The rotation is now the newer creative alone, whatever the bucket.
    expect((await asset('model=pilot&type=header&variant=desktop&r=1')).headers['x-banner-creative']).toBe(newer);
  });
});
