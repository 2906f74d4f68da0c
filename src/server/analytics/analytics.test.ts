import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { ensureEventPartitions } from '../maintenance/partitions';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerKeyOf } from '../db/dealer-row';
import { eq } from 'drizzle-orm';
import { eventRollupsHourly, events } from '../db/schema';

let t: TestApp;
let cookie: string;
const HOUR = 3_600_000;
// The app's clock is pinned (app.now): 23:30 UTC is the hour in which the old window
// (end of hour - 7 days) started at midnight and gave 7 day buckets instead of the usual 8.
const NOW = new Date('2026-03-10T23:30:00Z');
let clock = NOW;
const hoursAgo = (h: number) => new Date(Math.floor(NOW.getTime() / HOUR) * HOUR - h * HOUR);
const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}${url}`, headers: { cookie } });

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { now: () => clock }));
  const row = (h: number, model: string, impressions: number, clicks: number, conversions: number) => ({
    dealerId: DEMO_DEALER.id,
    hour: hoursAgo(h),
    model,
    slotType: 'header',
    impressions,
    clicks,
    conversions,
  });
  await t.database.db.insert(eventRollupsHourly).values([
    row(2, 'civic', 1000, 40, 4), // this week
    row(30, 'crv', 500, 25, 5),
    row(50, 'accord', 100, 1, 0),
    row(24 * 9, 'civic', 800, 20, 1), // previous week
    row(24 * 40, 'civic', 999, 99, 9), // outside both 7-day windows
  ]);
});
afterAll(() => t.close());
afterEach(() => {
  clock = NOW;
});

describe('dealer analytics', () => {
  it('totals the period, compares with the previous one and ranks models by conversions', async () => {
    const res = await get('/analytics?period=7d');
    expect(res.statusCode).toBe(200);
    const a = res.json();
    expect(a.current).toEqual({ impressions: 1600, clicks: 66, conversions: 9, ctr: (66 * 100) / 1600 });
    expect(a.previous).toMatchObject({ impressions: 800, clicks: 20, conversions: 1 });
    expect(a.trends.impressions).toBe(100);
    expect(a.trends.clicks).toBe(230);
    expect(a.models.map((m: { model: string }) => m.model)).toEqual(['cr-v', 'civic', 'accord']);
    expect(a.models[0]).toMatchObject({ impressions: 500, clicks: 25, conversions: 5, ctr: 5, conversionRate: 20 });
    expect(a.series.map((b: { bucket: string }) => b.bucket)).toEqual(['2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10']);
    expect(a.series.reduce((s: number, b: { impressions: number }) => s + b.impressions, 0)).toBe(1600);
    expect({ from: a.from, to: a.to }).toEqual({ from: '2026-03-04T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' });
    expect(a.lastUpdated).toBe(hoursAgo(2).toISOString());
  });

  it('compares 24h with the 24h before, bucketed by hour', async () => {
    const a = (await get('/analytics?period=24h')).json();
    expect(a.current.impressions).toBe(1000);
    expect(a.previous.impressions).toBe(500); // the cr-v hour 30 h ago
    expect(a.trends.impressions).toBe(100);
    expect(a.series).toHaveLength(24);
    expect(a.series.at(-1)).toMatchObject({ bucket: '2026-03-10T23:00' });
  });

  // Before the periods were fixed the day series had 8 buckets except from 23:00 to 23:59 UTC (7), and the test
  // that expected 8 failed every evening. Now a period has one bucket per day, ending today.
  it.each(['2026-03-10T00:30:00Z', '2026-03-10T12:00:00Z', '2026-03-10T23:00:00Z', '2026-03-10T23:59:59.999Z'])(
    'has one bucket per day of the period, the last one today, with the clock at %s',
    async (at) => {
      clock = new Date(at);
      for (const [period, days] of [['7d', 7], ['30d', 30], ['90d', 90]] as const) {
        const a = (await get(`/analytics?period=${period}`)).json();
        expect(a.series).toHaveLength(days);
        expect(a.series.at(-1).bucket).toBe('2026-03-10');
        expect(a.series.reduce((s: number, b: { impressions: number }) => s + b.impressions, 0)).toBe(a.current.impressions);
      }
    },
  );

  it('exports the period per day and model as CSV', async () => {
    const res = await get('/analytics/export.csv?period=7d');
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain('dc-banners-honda-of-demo-7d.csv');
    const rows = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.model === 'civic')).toEqual({ date: hoursAgo(2).toISOString().slice(0, 10), model: 'civic', impressions: '1000', clicks: '40', ctr: '4.00', conversions: '4' });
  });

  it('shows -- trends (null) when the previous period has no data', async () => {
    const a = (await get('/analytics?period=90d')).json();
    expect(a.previous.impressions).toBe(0);
    expect(a.trends).toEqual({ impressions: null, clicks: null, ctr: null, conversionRate: null });
  });

  it("gives 'Last updated' as the newest event's own time, not the start of its hour", async () => {
    // The newest rollup hour is 21:00; events arrived at 21:10 and 21:35 (its rollup row is the 21:00 one).
    const at = (min: number) => new Date(hoursAgo(2).getTime() + min * 60_000 + 345);
    await ensureEventPartitions(t.database.db, at(10), at(36)); // the writer does this itself; this test writes rows directly
    await t.database.db.insert(events).values([
      { dealerKey: dealerKeyOf(DEMO_DEALER.id), event: 'impression', slotType: 'header', model: 'civic', occurredAt: at(35) },
      { dealerKey: dealerKeyOf(DEMO_DEALER.id), event: 'impression', slotType: 'header', model: 'civic', occurredAt: at(10) },
    ]);
    const a = (await get('/analytics?period=24h')).json();
    expect(a.lastUpdated).toBe('2026-03-10T21:35:00.345Z');
    // Raw events removed by retention: the newest rollup hour still answers.
    await t.database.db.delete(events).where(eq(events.dealerKey, dealerKeyOf(DEMO_DEALER.id)));
    expect((await get('/analytics?period=24h')).json().lastUpdated).toBe(hoursAgo(2).toISOString());
  });

  it("keeps 'Last updated' at the newest ingested event's time after its raw events are gone", async () => {
    const at = new Date(hoursAgo(1).getTime() + 17 * 60_000 + 250);
    for (const occurredAt of [at, new Date(at.getTime() - 5 * 60_000)]) {
      expect(t.app.events.enqueue({ dealerId: DEMO_DEALER.id, event: 'impression', slotType: 'primary', model: 'pilot', url: '', pageView: `pv-${occurredAt.getTime()}`, occurredAt, creative: null })).toBe(true);
    }
    await t.app.events.flush();
    expect((await get('/analytics?period=24h')).json().lastUpdated).toBe(at.toISOString());
    // Retention dropped the raw events: the time ingestion recorded still answers, not the hour's start.
    await t.database.db.delete(events).where(eq(events.dealerKey, dealerKeyOf(DEMO_DEALER.id)));
    expect((await get('/analytics?period=24h')).json().lastUpdated).toBe(at.toISOString());
  });

  it('refuses an unknown period', async () => {
    const res = await get('/analytics?period=1y');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^period: /);
  });
});
