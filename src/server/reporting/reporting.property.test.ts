/**
 * Every reporting read equals the raw events counted, for random events and random windows:
 * events of three dealers at random instants over ~200 days (duplicates, clicks and conversions
 * included) go through the ingestion (the app's EventIngestor, in several batches so hourly rows
 * are both inserted and updated); the hourly rollups older than the screens read are pruned; then
 * each of CASES seeded cases pins the app's clock at a random instant of the last two days and
 * compares one screen (dealer analytics, CSV export, Admin Dashboard, dealer list, Platform
 * Analytics, dealer stats) or reporting read (totals, series, ranked, dailyByModel, dealer totals
 * over a random window) with counts computed here from the stored `events` rows.
 * A failure names the seed (REPORTING_SEED reruns it) and the case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, getTableColumns, sql } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { addDealerAsAdmin, createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealers, events } from '../db/schema';
import type { AcceptedEvent } from '../tracking/service';
import { CONVERSION_WINDOW_MS } from '../../domain/conversions';
import { PERIOD_SPANS, bucketKey, bucketKeys, periodWindow, previousWindow, spanWindow, type PeriodUnit, type TimeWindow } from '../../domain/periods';
import { ANALYTICS_PERIODS, type AnalyticsPeriod } from '../../domain/schemas';
import { detailDailyCutoff, detailHourlyCutoff, hourlyRollupCutoff } from '../../domain/retention';
import { dailyByModel, dealerTotals, pruneHourlyRollups, ranked, series, totals, type Counts, type Scope } from './service';

const SEED = Number(process.env.REPORTING_SEED ?? 20261126);
const CASES = 240;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** The latest instant the clock is pinned at; cases pick instants of the two days before it. */
const BASE = Date.parse('2026-11-20T15:37:12Z');

/** mulberry32: a small seeded generator, so a failing case replays from its seed. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}

let t: TestApp;
let admin: string;
let clock = new Date(BASE);
let raw: Array<{ dealerId: string; event: string; model: string; slot: string; creative: string; at: number }> = [];
const DEALERS: string[] = [DEMO_DEALER.id];

const zero = (): Counts => ({ impressions: 0, clicks: 0, conversions: 0 });
const add = (c: Counts, event: string) => {
  if (event === 'impression') c.impressions += 1;
  else if (event === 'click') c.clicks += 1;
  else c.conversions += 1;
};
/** The raw events of the hour buckets starting in [from, to) (the reporting rule), optionally of one dealer. */
const inWindow = (w: TimeWindow, dealerId?: string) =>
  raw.filter((e) => (!dealerId || e.dealerId === dealerId) && Math.floor(e.at / HOUR) * HOUR >= w.from.getTime() && Math.floor(e.at / HOUR) * HOUR < w.to.getTime());
const count = (rows: typeof raw) => rows.reduce((c, e) => (add(c, e.event), c), zero());
const perBucket = (rows: typeof raw, unit: PeriodUnit) => {
  const m = new Map<string, Counts>();
  for (const e of rows) {
    const k = bucketKey(new Date(e.at), unit);
    if (!m.has(k)) m.set(k, zero());
    add(m.get(k)!, e.event);
  }
  return m;
};
const get = async (url: string) => {
  const res = await t.app.inject({ method: 'GET', url, headers: { cookie: admin } });
  expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
  return res;
};

beforeAll(async () => {
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { now: () => clock }));
  for (const [name, manufacturer] of [['Toyota of Randomville', 'toyota'], ['Ford of Randomville', 'ford']] as const) {
    const res = await addDealerAsAdmin(t, admin, { name, manufacturer, websiteUrl: 'https://www.example.com' });
    expect(res.statusCode).toBe(201);
    DEALERS.push(res.json().dealer.id as string);
  }

  // Page views at random instants: most over 200 days, some in the last three days (the 24h and
  // partial-day reads) and some a few minutes from a UTC midnight (day edges).
  const rng = generator(SEED);
  const models = ['civic', 'accord', 'pilot', 'cr-v', '(unknown)', 'odyssey', 'hr-v'];
  // Asset creatives are asset ids (uuids; none of them stored: shown as deleted assets).
  const creatives = [null, 'cdn', 'fallback', 'placeholder', '6f1c2a52-8f0e-4c7b-9a51-0d3e2b7c9a10', 'b2e4d6f8-1a3c-4e5f-8a7b-9c0d1e2f3a4b'];
  const batches: AcceptedEvent[][] = [];
  for (let b = 0; b < 12; b++) {
    const batch: AcceptedEvent[] = [];
    for (let i = 0; i < 60; i++) {
      const pv = `pv-${b}-${i}`;
      const r = rng.next();
      const at =
        r < 0.6 ? BASE - rng.next() * 200 * DAY : r < 0.85 ? BASE - rng.next() * 3 * DAY : Math.floor((BASE - rng.next() * 100 * DAY) / DAY) * DAY + (rng.next() - 0.5) * 20 * 60_000;
      const base = { dealerId: rng.pick(DEALERS), slotType: rng.pick(['header', 'primary', 'upsell'] as const), model: rng.pick(models), url: '', pageView: pv };
      const creative = rng.pick(creatives);
      batch.push({ ...base, event: 'impression', occurredAt: new Date(at), creative });
      if (rng.next() < 0.1) batch.push({ ...base, event: 'impression', occurredAt: new Date(at + rng.int(HOUR)), creative }); // a retried beacon
      if (rng.next() < 0.45) {
        const clickAt = at + rng.int(2 * HOUR);
        batch.push({ ...base, event: 'click', occurredAt: new Date(clickAt), creative });
        if (rng.next() < 0.5) batch.push({ ...base, event: 'conversion', slotType: null, occurredAt: new Date(clickAt + rng.int(CONVERSION_WINDOW_MS)), leadId: null });
      }
    }
    batches.push(batch);
  }
  for (const batch of batches) {
    for (const e of batch) expect(t.app.events.enqueue(e)).toBe(true);
    await t.app.events.flush();
  }
  raw = (await t.database.db.select({ ...getTableColumns(events), dealerId: dealers.id }).from(events).innerJoin(dealers, eq(dealers.key, events.dealerKey))).map((e) => ({
    dealerId: e.dealerId,
    event: e.event,
    model: e.model,
    slot: e.slotType ?? '',
    creative: e.creative ?? '',
    at: e.occurredAt.getTime(),
  }));
  // The retention job's pruning of hourly rollups, at the latest clock the cases use.
  let pruned = 0;
  for (let n = -1; n !== 0; pruned += n) n = await pruneHourlyRollups(t.database.db, new Date(BASE), 50);
  expect(pruned).toBeGreaterThan(0);
  // Detailed hours are kept DETAIL_HOURLY_DAYS, the dealers' hour totals longer: the cases below read both.
  const [left] = (await t.database.db.execute(sql`
    SELECT (SELECT count(*) FROM event_rollups_hourly WHERE hour < ${detailHourlyCutoff(new Date(BASE)).toISOString()}::timestamptz) AS detail,
      (SELECT count(*) FROM dealer_rollups_hourly WHERE hour < ${detailHourlyCutoff(new Date(BASE)).toISOString()}::timestamptz) AS totals,
      (SELECT count(*) FROM dealer_rollups_hourly WHERE hour < ${hourlyRollupCutoff(new Date(BASE)).toISOString()}::timestamptz) AS expired`) as unknown as { rows: Array<Record<string, unknown>> }).rows;
  expect({ detail: Number(left?.detail), expired: Number(left?.expired) }).toEqual({ detail: 0, expired: 0 });
  expect(Number(left?.totals)).toBeGreaterThan(0);
}, 120_000);
afterAll(() => t?.close());

describe(`reporting reads equal the raw events (seed ${SEED}, REPORTING_SEED reruns one)`, () => {
  it(`answers ${CASES} random cases exactly`, { timeout: 300_000 }, async () => {
    expect(raw.filter((e) => e.event === 'click').length).toBeGreaterThan(50);
    expect(raw.filter((e) => e.event === 'conversion').length).toBeGreaterThan(20);
    const rng = generator(SEED ^ 0x5eed);
    for (let k = 0; k < CASES; k++) {
      const now = new Date(BASE - rng.int(2 * DAY));
      clock = now;
      const period: AnalyticsPeriod = rng.pick(ANALYTICS_PERIODS);
      const dealerId = rng.pick(DEALERS);
      const kind = k % 6;
      const what = `seed ${SEED}, case ${k} (kind ${kind}, ${dealerId}, ${period}, now ${now.toISOString()})`;
      const span = PERIOD_SPANS[period];
      const window = periodWindow(period, now);

      if (kind === 0) {
        // Dealer analytics: totals, previous window, series, and the models and creatives adding up.
        const body = (await get(`/api/dealers/${dealerId}/analytics?period=${period}`)).json();
        const cur = count(inWindow(window, dealerId));
        const prev = count(inWindow(previousWindow(window, span), dealerId));
        expect(body.current, what).toMatchObject(cur);
        expect(body.previous, what).toMatchObject(prev);
        const buckets = perBucket(inWindow(window, dealerId), span.unit);
        expect(body.series, what).toEqual(bucketKeys(window, span.unit).map((bucket) => ({ bucket, ...(buckets.get(bucket) ?? zero()) })));
        const sum = (rows: Counts[]) => rows.reduce((c, r) => ({ impressions: c.impressions + r.impressions, clicks: c.clicks + r.clicks, conversions: c.conversions + r.conversions }), zero());
        expect(sum(body.models), what).toEqual(cur);
        expect(sum(body.creatives), what).toEqual(cur);
      } else if (kind === 1) {
        // CSV export: per UTC day, the rows add up to the day's events.
        const csv = parse((await get(`/api/dealers/${dealerId}/analytics/export.csv?period=${period}`)).body, { columns: true }) as Array<Record<string, string>>;
        const byDay = new Map<string, Counts>();
        for (const r of csv) {
          const c = byDay.get(r.date!) ?? zero();
          byDay.set(r.date!, { impressions: c.impressions + Number(r.impressions), clicks: c.clicks + Number(r.clicks), conversions: c.conversions + Number(r.conversions) });
        }
        expect(byDay, what).toEqual(perBucket(inWindow(window, dealerId), 'day'));
      } else if (kind === 2) {
        // Admin Dashboard and the dealer list: all-time and the last 30 days against the 30 before.
        const body = (await get('/api/admin/dashboard')).json();
        const all = count(raw);
        const w30 = periodWindow('30d', now);
        const cur = count(inWindow(w30));
        expect(body, what).toMatchObject({ impressions: all.impressions, clicks: all.clicks, recent: { impressions: cur.impressions, clicks: cur.clicks } });
        const list = (await get('/api/admin/dealers?pageSize=100')).json().items as Array<{ id: string; impressions: number; clicks: number }>;
        for (const d of list) {
          const c = count(raw.filter((e) => e.dealerId === d.id));
          expect(d, what).toMatchObject({ impressions: c.impressions, clicks: c.clicks });
        }
      } else if (kind === 3) {
        // Platform Analytics: per dealer and the series across dealers.
        const body = (await get(`/api/admin/analytics?period=${period}`)).json();
        for (const d of body.dealers as Array<{ id: string; impressions: number; clicks: number }>) {
          const c = count(inWindow(window, d.id));
          expect(d, what).toMatchObject({ impressions: c.impressions, clicks: c.clicks });
        }
        const buckets = perBucket(inWindow(window), span.unit);
        expect(body.series, what).toEqual(bucketKeys(window, span.unit).map((bucket) => ({ bucket, impressions: buckets.get(bucket)?.impressions ?? 0, clicks: buckets.get(bucket)?.clicks ?? 0 })));
      } else if (kind === 4) {
        // The dealer stats route: today and the days - 1 before.
        const days = 1 + rng.int(90);
        const body = (await get(`/api/dealers/${dealerId}/stats?days=${days}`)).json();
        expect(body, what).toMatchObject(count(inWindow(spanWindow({ unit: 'day', count: days }, now), dealerId)));
      } else {
        // The reporting reads over a random window (the weekly report's and alerts' are not
        // aligned to days or hours): its edges older than the hourly rollups kept are whole days
        // (the dealer totals' hours for the totals, the detailed hours for ranked and dailyByModel,
        // whose days start DETAIL_DAILY_DAYS back at the most).
        const to = new Date(now.getTime() - rng.int(10 * DAY));
        let from = new Date(to.getTime() - rng.int(150 * DAY));
        const kept = hourlyRollupCutoff(new Date(BASE)); // where the pruning above stopped
        if (from < kept) from = new Date(Math.ceil(from.getTime() / DAY) * DAY);
        const w = { from, to };
        const detailKept = detailHourlyCutoff(new Date(BASE));
        const daysKept = Date.parse(`${detailDailyCutoff(new Date(BASE))}T00:00:00Z`); // detailed days before it pruned
        const wd = {
          from: new Date(Math.max(daysKept, from < detailKept ? Math.ceil(from.getTime() / DAY) * DAY : from.getTime())),
          to: to < detailKept ? new Date(Math.floor(to.getTime() / DAY) * DAY) : to,
        };
        const desc = `${what}, window ${from.toISOString()}..${to.toISOString()}`;
        const scope: Scope = rng.next() < 0.3 ? 'platform' : { dealerId };
        const rows = inWindow(w, scope === 'platform' ? undefined : dealerId);
        expect(await totals(t.database.db, scope, w), desc).toEqual(count(rows));
        // Hour buckets only where hours are kept (the screens' only hourly series is the 24h period's).
        const unit: PeriodUnit = rng.next() < 0.2 && from >= kept ? 'hour' : 'day';
        const buckets = perBucket(rows, unit);
        const points = await series(t.database.db, scope, w, unit);
        expect(points.filter((p) => p.impressions || p.clicks || p.conversions), desc).toEqual(
          bucketKeys(w, unit).filter((b) => buckets.has(b)).map((bucket) => ({ bucket, ...buckets.get(bucket)! })),
        );
        const mine = inWindow(wd, dealerId);
        const column = rng.pick(['model', 'slot_type', 'creative'] as const);
        const limit = 1 + rng.int(4);
        const groups = await ranked(t.database.db, { dealerId }, [column], wd, limit);
        const expected = new Map<string, Counts>();
        for (const e of mine) {
          const key = column === 'model' ? e.model : column === 'slot_type' ? e.slot : e.creative;
          if (!expected.has(key)) expected.set(key, zero());
          add(expected.get(key)!, e.event);
        }
        for (const g of groups.filter((x) => !x.rest)) expect({ impressions: g.impressions, clicks: g.clicks, conversions: g.conversions }, desc).toEqual(expected.get(g[column]));
        const rest = groups.find((x) => x.rest);
        expect(groups.filter((x) => !x.rest).length + (rest ? 1 : 0), desc).toBe(Math.min(expected.size, limit) + (expected.size > limit ? 1 : 0));
        const sum = groups.reduce((c, g) => ({ impressions: c.impressions + g.impressions, clicks: c.clicks + g.clicks, conversions: c.conversions + g.conversions }), zero());
        expect(sum, desc).toEqual(count(mine));
        const csvRows = await dailyByModel(t.database.db, { dealerId }, wd, limit);
        const perDay = new Map<string, Counts>();
        for (const r of csvRows) {
          const c = perDay.get(r.day) ?? zero();
          perDay.set(r.day, { impressions: c.impressions + r.impressions, clicks: c.clicks + r.clicks, conversions: c.conversions + r.conversions });
        }
        expect(perDay, desc).toEqual(perBucket(mine, 'day'));
        const some = DEALERS.filter(() => rng.next() < 0.6);
        const byDealer = await dealerTotals(t.database.db, some, w);
        for (const id of some) expect(byDealer.get(id) ?? zero(), desc).toEqual(count(inWindow(w, id)));
        expect([...byDealer.keys()].every((id) => some.includes(id)), desc).toBe(true);
      }
    }
  });

  it('a deleted dealer leaves the platform figures: windows and series equal the other dealers\' events', async () => {
    const gone = DEALERS[2]!;
    expect(raw.some((e) => e.dealerId === gone)).toBe(true);
    clock = new Date(BASE);
    const res = await t.app.inject({ method: 'DELETE', url: `/api/admin/dealers/${gone}`, headers: { cookie: admin } });
    expect(res.statusCode, res.body).toBeLessThan(300);
    raw = raw.filter((e) => e.dealerId !== gone);
    const body = (await get('/api/admin/dashboard')).json();
    const w30 = periodWindow('30d', clock);
    expect(body).toMatchObject({ impressions: count(raw).impressions, recent: { impressions: count(inWindow(w30)).impressions, clicks: count(inWindow(w30)).clicks } });
    for (const period of ANALYTICS_PERIODS) {
      const window = periodWindow(period, clock);
      const unit = PERIOD_SPANS[period].unit;
      expect(await totals(t.database.db, 'platform', window), period).toEqual(count(inWindow(window)));
      const buckets = perBucket(inWindow(window), unit);
      expect(await series(t.database.db, 'platform', window, unit), period).toEqual(bucketKeys(window, unit).map((bucket) => ({ bucket, ...(buckets.get(bucket) ?? zero()) })));
    }
  });
});
