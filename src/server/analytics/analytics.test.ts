import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { eventRollupsHourly } from '../db/schema';

let t: TestApp;
let cookie: string;
const HOUR = 3_600_000;
const hoursAgo = (h: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR - h * HOUR);
const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}${url}`, headers: { cookie } });

beforeAll(async () => {
  t = await createTestApp();
  cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
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
    expect(a.series).toHaveLength(8);
    expect(a.series.reduce((s: number, b: { impressions: number }) => s + b.impressions, 0)).toBe(1600);
    expect(a.lastUpdated).toBe(hoursAgo(2).toISOString());
  });

  it('compares 24h with the 24h before, bucketed by hour', async () => {
    const a = (await get('/analytics?period=24h')).json();
    expect(a.current.impressions).toBe(1000);
    expect(a.previous.impressions).toBe(500); // the cr-v hour 30 h ago
    expect(a.trends.impressions).toBe(100);
    expect(a.series).toHaveLength(24);
  });

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

  it('refuses an unknown period', async () => {
    const res = await get('/analytics?period=1y');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^period: /);
  });
});
