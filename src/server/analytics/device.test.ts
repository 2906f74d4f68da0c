/**
 * The desktop/mobile split of the dealer's analytics: beacons are classified by the server from
 * their request headers (Sec-CH-UA-Mobile, else the User-Agent; domain/device.ts) and every figure
 * of the Analytics screen's report, the dashboard analytics and both CSV exports can be narrowed to
 * one device; 'all' (the default) counts every event, those of unknown device included, as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { eventRollupsHourly } from '../db/schema';
import type { AnalyticsReport } from '../../domain/contracts/analytics';

let t: TestApp;
let manager: string;
const PAGE = 'https://www.hondaofdemo.com/new-inventory?model=pilot';
const IPHONE_SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID_CHROME = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36';
const WINDOWS_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36';
const MAC_FIREFOX = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0';

/** What each browser sends: its user agent, and Chromium's client hint. */
const PHONE_SAFARI = { 'user-agent': IPHONE_SAFARI };
const PHONE_CHROME = { 'user-agent': ANDROID_CHROME, 'sec-ch-ua-mobile': '?1' };
const DESKTOP_CHROME = { 'user-agent': WINDOWS_CHROME, 'sec-ch-ua-mobile': '?0' };
const DESKTOP_FIREFOX = { 'user-agent': MAC_FIREFOX };

const track = (headers: Record<string, string>, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, url: PAGE, model: 'pilot', ...payload }),
    headers: { 'content-type': 'text/plain', origin: 'https://www.hondaofdemo.com', ...headers },
  });
const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}${url}`, headers: { cookie: manager } });
const report = async (query: string): Promise<AnalyticsReport> => {
  const res = await get(`/analytics/report?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const figures = (r: Pick<AnalyticsReport, 'current'>) => [r.current.impressions, r.current.clicks, r.current.conversions];

// What is sent below, per device.
const MOBILE = { impressions: 3, clicks: 2, conversions: 1 };
const DESKTOP = { impressions: 4, clicks: 1, conversions: 0 };
/** Impressions stored before devices were recorded (migration 0024 gives them 'unknown'). */
const UNKNOWN = 5;

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager'));
  const beacons: Array<[Record<string, string>, Record<string, unknown>]> = [
    // Mobile: an iPhone without client hints (user agent), an Android phone's Chrome (?1).
    [PHONE_SAFARI, { event: 'impression', type: 'header', pv: 'device-phone-1' }],
    [PHONE_SAFARI, { event: 'click', type: 'header', pv: 'device-phone-1' }],
    [PHONE_CHROME, { event: 'impression', type: 'header', pv: 'device-phone-2' }],
    [PHONE_CHROME, { event: 'click', type: 'header', pv: 'device-phone-2' }],
    [PHONE_CHROME, { event: 'conversion', pv: 'device-phone-2' }],
    [PHONE_CHROME, { event: 'impression', type: 'primary', pv: 'device-phone-3' }],
    // Desktop: Chrome saying ?0, Firefox without client hints.
    [DESKTOP_CHROME, { event: 'impression', type: 'header', pv: 'device-desk-1' }],
    [DESKTOP_CHROME, { event: 'click', type: 'header', pv: 'device-desk-1' }],
    [DESKTOP_CHROME, { event: 'impression', type: 'header', pv: 'device-desk-2' }],
    [DESKTOP_FIREFOX, { event: 'impression', type: 'header', pv: 'device-desk-3' }],
    [DESKTOP_FIREFOX, { event: 'impression', type: 'primary', pv: 'device-desk-4' }],
  ];
  for (const [headers, payload] of beacons) expect((await track(headers, payload)).statusCode, JSON.stringify(payload)).toBe(204);
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000);
  await t.database.db.insert(eventRollupsHourly).values({ dealerId: DEMO_DEALER.id, hour, model: 'pilot', slotType: 'header', impressions: UNKNOWN });
});
afterAll(() => t.close());

describe('device split', () => {
  it('stores each beacon with the device its headers name', async () => {
    await t.app.events.flush();
    const rows = (await t.database.db.execute(sql`SELECT device::text AS device, event::text AS event, count(*)::int AS n FROM events GROUP BY 1, 2 ORDER BY 1, 2`)) as unknown as {
      rows: Array<{ device: string; event: string; n: number }>;
    };
    expect(rows.rows.map((r) => `${r.device} ${r.event} ${r.n}`)).toEqual(['desktop click 1', 'desktop impression 4', 'mobile click 2', 'mobile conversion 1', 'mobile impression 3']);
  });

  it("narrows the report's cards, series, model and slot tables to one device", async () => {
    const mobile = await report('period=7d&device=mobile');
    expect(mobile.device).toBe('mobile');
    expect(figures(mobile)).toEqual([MOBILE.impressions, MOBILE.clicks, MOBILE.conversions]);
    expect(mobile.series.reduce((n, p) => n + p.impressions, 0)).toBe(MOBILE.impressions);
    expect(mobile.models.find((m) => m.model === 'pilot')).toMatchObject(MOBILE);
    expect(mobile.slots.map((s) => [s.slot, s.impressions, s.clicks])).toEqual([['header', 2, 2], ['primary', 1, 0]]);

    const desktop = await report('period=7d&device=desktop');
    expect(figures(desktop)).toEqual([DESKTOP.impressions, DESKTOP.clicks, DESKTOP.conversions]);
    expect(desktop.slots.map((s) => [s.slot, s.impressions, s.clicks])).toEqual([['header', 3, 1], ['primary', 1, 0]]);
    expect(desktop.creatives.reduce((n, c) => n + c.impressions, 0)).toBe(DESKTOP.impressions);
  });

  it("counts every device with 'all', the same answer as without a device", async () => {
    const all = await report('period=7d&device=all');
    expect(figures(all)).toEqual([MOBILE.impressions + DESKTOP.impressions + UNKNOWN, MOBILE.clicks + DESKTOP.clicks, MOBILE.conversions]);
    expect(await report('period=7d')).toEqual(all);
    // Hours start in the 24h window too, read from the hourly rollups.
    expect(figures(await report('period=24h&device=mobile'))).toEqual([MOBILE.impressions, MOBILE.clicks, MOBILE.conversions]);
  });

  it('narrows the dashboard analytics and both CSV exports', async () => {
    const a = (await get('/analytics?period=7d&device=mobile')).json();
    expect(a.current).toMatchObject(MOBILE);
    expect((await get('/analytics?period=7d&device=desktop')).json().current).toMatchObject(DESKTOP);

    const csv = await get('/analytics/report.csv?period=7d&device=mobile&table=models');
    expect(csv.headers['content-disposition']).toMatch(/-mobile\.csv"$/);
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.find((r) => r.model === 'pilot')).toMatchObject({ viewable_impressions: '3', clicks: '2', conversions: '1' });

    const daily = await get('/analytics/export.csv?period=7d&device=desktop');
    expect(daily.headers['content-disposition']).toContain('dc-banners-honda-of-demo-7d-desktop.csv');
    const days = parse(daily.body, { columns: true }) as Array<Record<string, string>>;
    expect(days.reduce((n, r) => n + Number(r.impressions), 0)).toBe(DESKTOP.impressions);
  });

  it('refuses a device it does not know, naming the field', async () => {
    const res = await get('/analytics/report?period=7d&device=tablet');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.fields.map((f: { path: string }) => f.path)).toEqual(['device']);
  });
});
