/**
 * The volume generator (db/volume.ts) writes what ingestion would: read back through the product's
 * own routes (dealer analytics, the admin's dealer list), its events add up to the rollups the
 * dashboards show, and every click and conversion is one ingestion would have let in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS } from './seed';
import { dealerKeyOf } from './dealer-row';
import { deleteVolumeDealers, generateVolume, MOBILE_SHARE, type VolumeResult } from './volume';
import { CONVERSION_WINDOW_MS } from '../../domain/conversions';
import type { DealerAnalytics } from '../../domain/schemas';
import type { DealerListItem } from '../../domain/admin';

const NOW = new Date();
const DAY_MS = 86_400_000;
let t: TestApp;
let cookie: string;
let result: VolumeResult;

/** Rows of a raw query on the test database. */
async function query<T>(q: ReturnType<typeof sql>): Promise<T[]> {
  return ((await t.database.db.execute(q)) as unknown as { rows: T[] }).rows;
}

/** Stored events of a dealer per kind in [from, to), counted on the raw table. */
async function rawCounts(dealerId: string, from: Date, to: Date) {
  const [row] = await query<{ i: string; c: string; v: string }>(sql`
    SELECT count(*) FILTER (WHERE event = 'impression') AS i, count(*) FILTER (WHERE event = 'click') AS c, count(*) FILTER (WHERE event = 'conversion') AS v
    FROM events WHERE dealer_key = ${dealerKeyOf(dealerId)} AND occurred_at >= ${from.toISOString()}::timestamptz AND occurred_at < ${to.toISOString()}::timestamptz`);
  return { impressions: Number(row!.i), clicks: Number(row!.c), conversions: Number(row!.v) };
}

beforeAll(async () => {
  t = await createTestApp({ now: () => NOW });
  const admin = DEMO_ACCOUNTS.find((a) => a.role === 'admin')!;
  cookie = await t.login(admin.email, admin.password);
  result = await generateVolume(t.database.db, { dealers: 3, events: 3000, days: 10, now: NOW });
});
afterAll(() => t.close());

describe('generateVolume', () => {
  it('creates skewed dealers with about the events asked for, all within the last 10 days', async () => {
    expect(result.dealers.map((d) => d.rank)).toEqual([1, 2, 3]);
    expect(result.events.total).toBeGreaterThan(2500);
    expect(result.events.total).toBeLessThan(3500);
    expect(result.events.impression + result.events.click + result.events.conversion).toBe(result.events.total);
    const [span] = await query<{ first: string; last: string; n: string }>(sql`
      SELECT to_char(min(occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS first,
        to_char(max(occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last, count(*) AS n FROM events`);
    expect(Number(span!.n)).toBe(result.events.total);
    expect(new Date(span!.first).getTime()).toBeGreaterThan(NOW.getTime() - 10 * DAY_MS);
    expect(new Date(span!.last).getTime()).toBeLessThanOrEqual(NOW.getTime());
    const [big, , small] = await Promise.all(result.dealers.map((d) => rawCounts(d.id, new Date(0), new Date(NOW.getTime() + 1))));
    expect(big!.impressions).toBeGreaterThan(small!.impressions);
  });

  it('dealer analytics show exactly the raw events of each window, for every dealer', async () => {
    for (const d of result.dealers) {
      for (const period of ['7d', '30d'] as const) {
        const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${d.id}/analytics?period=${period}`, headers: { cookie } });
        expect(res.statusCode).toBe(200);
        const a = res.json<DealerAnalytics>();
        const raw = await rawCounts(d.id, new Date(a.from), new Date(a.to));
        expect({ dealer: d.id, period, ...a.current, ctr: undefined }).toEqual({ dealer: d.id, period, ...raw, ctr: undefined });
        expect(a.series.reduce((n, s) => n + s.impressions, 0)).toBe(raw.impressions);
        expect(a.creatives.length).toBeGreaterThan(0);
      }
    }
  });

  it('writes a device mix: about MOBILE_SHARE of page views mobile, the rest desktop, one device per page view', async () => {
    const rows = await query<{ device: string; views: string; n: string }>(sql`
      SELECT device, count(DISTINCT (dealer_key, page_view)) AS views, count(*) AS n FROM events GROUP BY device ORDER BY device`);
    const by = Object.fromEntries(rows.map((r) => [r.device, { views: Number(r.views), n: Number(r.n) }]));
    expect(Object.keys(by).sort()).toEqual(['desktop', 'mobile']);
    const share = by.mobile!.views / (by.mobile!.views + by.desktop!.views);
    expect(share).toBeGreaterThan(MOBILE_SHARE - 0.06);
    expect(share).toBeLessThan(MOBILE_SHARE + 0.06);
    const [mixed] = await query<{ n: string }>(sql`
      SELECT count(*) AS n FROM (SELECT dealer_key, page_view FROM events GROUP BY 1, 2 HAVING count(DISTINCT device) > 1) x`);
    expect(Number(mixed!.n)).toBe(0);
  });

  it('the hourly rollups equal the raw events per device, and the analytics device filter reads them', async () => {
    const rawBy = await query<{ key: string; i: string; c: string; v: string }>(sql`
      SELECT d.id || '|' || e.device AS key, count(*) FILTER (WHERE e.event = 'impression') AS i, count(*) FILTER (WHERE e.event = 'click') AS c,
        count(*) FILTER (WHERE e.event = 'conversion') AS v FROM events e JOIN dealers d ON d.key = e.dealer_key GROUP BY 1 ORDER BY 1`);
    const rolledBy = await query<{ key: string; i: string; c: string; v: string }>(sql`
      SELECT dealer_id || '|' || device AS key, sum(impressions) AS i, sum(clicks) AS c, sum(conversions) AS v FROM event_rollups_hourly GROUP BY 1 ORDER BY 1`);
    const plain = (rows: Array<{ key: string; i: string; c: string; v: string }>) => rows.map((r) => [r.key, Number(r.i), Number(r.c), Number(r.v)]);
    expect(plain(rolledBy)).toEqual(plain(rawBy));
    const d = result.dealers[0]!;
    for (const device of ['desktop', 'mobile'] as const) {
      const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${d.id}/analytics?period=30d&device=${device}`, headers: { cookie } });
      expect(res.statusCode).toBe(200);
      const a = res.json<DealerAnalytics>();
      const [raw] = await query<{ i: string }>(sql`
        SELECT count(*) AS i FROM events WHERE dealer_key = ${dealerKeyOf(d.id)} AND device = ${device} AND event = 'impression'
          AND occurred_at >= ${a.from}::timestamptz AND occurred_at < ${a.to}::timestamptz`);
      expect({ device, impressions: a.current.impressions }).toEqual({ device, impressions: Number(raw!.i) });
      expect(a.current.impressions).toBeGreaterThan(0);
    }
  });

  it("the admin's dealer list shows every generated event of each dealer", async () => {
    // Sorted by a figure, so the all-time totals are read for every dealer, not just a page's.
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/dealers?pageSize=100&sort=impressions', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const list = res.json<{ items: DealerListItem[] }>().items;
    for (const d of result.dealers) {
      const row = list.find((x) => x.id === d.id);
      const raw = await rawCounts(d.id, new Date(0), new Date(NOW.getTime() + 1));
      expect({ id: row?.id, impressions: row?.impressions, clicks: row?.clicks }).toEqual({ id: d.id, impressions: raw.impressions, clicks: raw.clicks });
    }
  });

  it('clicks only on an impression of the same page view, slot and model, at most one each; CTR between 0.1 and 4 %', async () => {
    const [orphans] = await query<{ n: string }>(sql`
      SELECT count(*) AS n FROM events c WHERE c.event = 'click' AND NOT EXISTS (
        SELECT 1 FROM events i WHERE i.event = 'impression' AND i.dealer_key = c.dealer_key AND i.page_view = c.page_view
          AND i.slot_type = c.slot_type AND i.model = c.model AND i.creative = c.creative AND i.occurred_at <= c.occurred_at)`);
    expect(Number(orphans!.n)).toBe(0);
    const [over] = await query<{ n: string }>(sql`
      SELECT count(*) AS n FROM (
        SELECT dealer_key, page_view, slot_type FROM events GROUP BY 1, 2, 3
        HAVING count(*) FILTER (WHERE event = 'click') > count(*) FILTER (WHERE event = 'impression')
          OR count(*) FILTER (WHERE event = 'impression') > 1) x`);
    expect(Number(over!.n)).toBe(0);
    expect(result.events.click).toBeGreaterThan(0.001 * result.events.impression);
    expect(result.events.click).toBeLessThan(0.04 * result.events.impression);
  });

  it('conversions only on a clicked page view within the conversion window, at most one per page view', async () => {
    const [unattributed] = await query<{ n: string }>(sql`
      SELECT count(*) AS n FROM events v WHERE v.event = 'conversion' AND NOT EXISTS (
        SELECT 1 FROM events c WHERE c.event = 'click' AND c.dealer_key = v.dealer_key AND c.page_view = v.page_view
          AND c.occurred_at <= v.occurred_at AND c.occurred_at >= v.occurred_at - ${CONVERSION_WINDOW_MS / 1000} * interval '1 second')`);
    expect(Number(unattributed!.n)).toBe(0);
    const [twice] = await query<{ views: string; leads: string; n: string }>(sql`
      SELECT count(DISTINCT (dealer_key, page_view)) AS views, count(*) AS n FROM events WHERE event = 'conversion'`);
    expect(Number(twice!.n)).toBe(result.events.conversion);
    expect(Number(twice!.views)).toBe(result.events.conversion);
    expect(result.events.conversion).toBeLessThanOrEqual(result.events.click);
  });

  it('deleteVolumeDealers removes the generated dealers with their events and rollups', async () => {
    const other = await generateVolume(t.database.db, { dealers: 1, events: 50, days: 1, now: NOW });
    expect(other.dealers[0]!.id).not.toBe(result.dealers[0]!.id);
    expect(await deleteVolumeDealers(t.database.db)).toBe(4);
    const [left] = await query<{ e: string; r: string }>(sql`SELECT (SELECT count(*) FROM events) AS e, (SELECT count(*) FROM event_rollups_hourly) AS r`);
    expect({ events: Number(left!.e), rollups: Number(left!.r) }).toEqual({ events: 0, rollups: 0 });
  });
});
