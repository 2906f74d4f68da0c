/**
 * The Analytics report through the HTTP API: a custom range in the dealer's time zone and its
 * comparison add up to the raw events the volume generator wrote (totals, per local day, per model,
 * per slot), and the CSV has the same rows; beacons sent through the real track route appear per
 * model beside the model's inventory (units, aged share, median days on lot, priority score from
 * the uploaded file); 'Raise upsell priority' (POST /upsell-priorities/:model/raise, as the screen calls it)
 * changes the upsell banner delivery serves.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { dealerKeyOf } from '../db/dealer-row';
import { generateVolume, type VolumeResult } from '../db/volume';
import { multipartBody } from '../../../tests/fixtures/images';
import type { AnalyticsReport } from '../../domain/contracts/analytics';
import { canonicalModel, modelKey, OTHER_MODELS } from '../../domain/model-keys';
import { comparisonRange, raisedWeight, shiftDay, zonedDay, zonedDayStart, type DayRange } from '../../domain/ranges';

// A fixed clock shortly after the US switch to summer time (8 March 2026): the ranges cross it.
// Ten days after the range's first local midnight: its edges are still kept hour by hour
// (domain/retention.ts DETAIL_HOURLY_DAYS), so the range is read by local day.
const NOW = new Date('2026-03-15T18:30:00Z');
const TZ = 'America/New_York';
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
let t: TestApp;
let admin: string;
let volume: VolumeResult;
let dealerId: string;
let modelMap: Record<string, string>;

const get = (url: string, cookie = admin) => t.app.inject({ method: 'GET', url, headers: { cookie } });
const report = async (id: string, q: string): Promise<AnalyticsReport> => {
  const res = await get(`/api/dealers/${id}/analytics/report?${q}`);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.json() as AnalyticsReport;
};

/** Rows of a raw query on the test database. */
async function query<T>(q: ReturnType<typeof sql>): Promise<T[]> {
  return ((await t.database.db.execute(q)) as unknown as { rows: T[] }).rows;
}

/** Raw events of a dealer in [from, to) per `group` (a column of events), counted on the events table. */
async function raw(id: string, from: Date, to: Date, group: 'model' | 'slot_type' | 'none') {
  const key = sql.raw(group === 'none' ? `''` : `coalesce(${group}, '')`);
  const rows = await query<{ k: string; i: string; c: string; v: string }>(sql`
    SELECT ${key} AS k, count(*) FILTER (WHERE event = 'impression') AS i, count(*) FILTER (WHERE event = 'click') AS c,
      count(*) FILTER (WHERE event = 'conversion') AS v
    FROM events WHERE dealer_key = ${dealerKeyOf(id)} AND occurred_at >= ${from.toISOString()}::timestamptz AND occurred_at < ${to.toISOString()}::timestamptz
    GROUP BY 1`);
  return rows.map((r) => ({ key: r.k, impressions: Number(r.i), clicks: Number(r.c), conversions: Number(r.v) }));
}
const sum = (rows: Array<{ impressions: number; clicks: number; conversions: number }>) =>
  rows.reduce((s, r) => ({ impressions: s.impressions + r.impressions, clicks: s.clicks + r.clicks, conversions: s.conversions + r.conversions }), { impressions: 0, clicks: 0, conversions: 0 });
const counts = (r: { impressions: number; clicks: number; conversions: number }) => ({ impressions: r.impressions, clicks: r.clicks, conversions: r.conversions });
const windowOf = (r: DayRange) => ({ from: zonedDayStart(r.from, TZ), to: zonedDayStart(shiftDay(r.to, 1), TZ) });

beforeAll(async () => {
  t = await createTestApp({ now: () => NOW });
  const a = DEMO_ACCOUNTS.find((x) => x.role === 'admin')!;
  admin = await t.login(a.email, a.password);
  volume = await generateVolume(t.database.db, { dealers: 1, events: 6000, days: 40, now: NOW });
  dealerId = volume.dealers[0]!.id;
  const saved = await t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${dealerId}/settings`, headers: { cookie: admin }, payload: { timeZone: TZ } });
  expect(saved.statusCode, saved.body).toBe(200);
  modelMap = saved.json().dealer.configs.modelMap;
}, 120_000);
afterAll(() => t.close());

describe('custom range and comparison (volume generator events)', () => {
  const range = { from: '2026-03-05', to: '2026-03-14' };

  it('totals local days in the dealer time zone and compares with the 10 days before', async () => {
    const r = await report(dealerId, `from=${range.from}&to=${range.to}`);
    expect(r.range).toMatchObject({ period: null, from: range.from, to: range.to, label: 'Mar 5 – Mar 14, 2026', timeZone: TZ, unit: 'day', utcDays: false });
    // Local midnight: EST (UTC-5) before 8 March, EDT (UTC-4) after.
    expect(r.window).toEqual({ from: '2026-03-05T05:00:00.000Z', to: '2026-03-15T04:00:00.000Z' });
    expect(counts(r.current)).toEqual(sum(await raw(dealerId, new Date(r.window.from), new Date(r.window.to), 'none')));
    expect(r.current.impressions).toBeGreaterThan(0);
    const prev = comparisonRange(range, 'previous');
    expect(prev).toEqual({ from: '2026-02-23', to: '2026-03-04' });
    expect(r.comparison).toMatchObject({ compare: 'previous', label: 'vs previous 10 days', from: windowOf(prev).from.toISOString(), to: windowOf(prev).to.toISOString() });
    const before = sum(await raw(dealerId, windowOf(prev).from, windowOf(prev).to, 'none'));
    expect(counts(r.previous)).toEqual(before);
    expect(r.trends.impressions).toBeCloseTo(((r.current.impressions - before.impressions) * 100) / before.impressions, 9);
    expect(r.trends.conversions).toBe(before.conversions > 0 ? ((r.current.conversions - before.conversions) * 100) / before.conversions : null);

    // One bucket per local day; each equals the raw events of that local day.
    expect(r.series.map((p) => p.bucket)).toEqual(Array.from({ length: 10 }, (_, i) => shiftDay(range.from, i)));
    expect(r.previousSeries.map((p) => p.bucket)).toEqual(Array.from({ length: 10 }, (_, i) => shiftDay(prev.from, i)));
    for (const day of ['2026-03-07', '2026-03-08', '2026-03-14']) {
      const point = r.series.find((p) => p.bucket === day)!;
      expect(counts(point), day).toEqual(sum(await raw(dealerId, zonedDayStart(day, TZ), zonedDayStart(shiftDay(day, 1), TZ), 'none')));
    }
    expect(sum(r.series)).toEqual(counts(r.current));
    expect(sum(r.previousSeries)).toEqual(before);
  });

  it('per model and per slot, the rows equal the raw events of the window', async () => {
    const r = await report(dealerId, `from=${range.from}&to=${range.to}`);
    const w = { from: new Date(r.window.from), to: new Date(r.window.to) };
    const byModel = new Map<string, { impressions: number; clicks: number; conversions: number }>();
    for (const row of await raw(dealerId, w.from, w.to, 'model')) {
      const key = modelKey(canonicalModel(row.key, modelMap));
      byModel.set(key, sum([byModel.get(key) ?? { impressions: 0, clicks: 0, conversions: 0 }, row]));
    }
    const withEvents = r.models.filter((m) => m.impressions + m.clicks + m.conversions > 0);
    expect(withEvents.length).toBe(byModel.size);
    expect(r.models.some((m) => m.model === OTHER_MODELS)).toBe(false);
    for (const m of withEvents) expect(counts(m), m.model).toEqual(byModel.get(modelKey(m.model)));
    expect(sum(r.models)).toEqual(counts(r.current));
    // Ranked by viewable impressions; every named model carries its upsell weight (default 5).
    expect(withEvents.map((m) => m.impressions)).toEqual([...withEvents.map((m) => m.impressions)].sort((a, b) => b - a));
    expect(withEvents.every((m) => m.upsellWeight !== null && m.weightKey !== null)).toBe(true);

    const bySlot = new Map((await raw(dealerId, w.from, w.to, 'slot_type')).map((s) => [s.key, counts(s)]));
    expect(new Map(r.slots.map((s) => [s.slot, counts(s)]))).toEqual(bySlot);
  });

  it('exports the table on screen as CSV: same window, same rows, viewable impressions named', async () => {
    const r = await report(dealerId, `from=${range.from}&to=${range.to}`);
    const res = await get(`/api/dealers/${dealerId}/analytics/report.csv?from=${range.from}&to=${range.to}&table=models`);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain(`dc-banners-${dealerId}-models-2026-03-05_2026-03-14.csv`);
    const rows = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((x) => x.model)).toEqual(r.models.map((m) => m.model));
    expect(rows.map((x) => Number(x.viewable_impressions))).toEqual(r.models.map((m) => m.impressions));
    expect(rows.map((x) => Number(x.conversions))).toEqual(r.models.map((m) => m.conversions));
    const days = parse((await get(`/api/dealers/${dealerId}/analytics/report.csv?from=${range.from}&to=${range.to}&table=days`)).body, { columns: true }) as Array<Record<string, string>>;
    expect(days.map((d) => d.bucket)).toEqual(r.series.map((p) => p.bucket));
    expect(days.map((d) => Number(d.comparison_viewable_impressions))).toEqual(r.previousSeries.map((p) => p.impressions));
    const slots = parse((await get(`/api/dealers/${dealerId}/analytics/report.csv?from=${range.from}&to=${range.to}&table=slots`)).body, { columns: true }) as Array<Record<string, string>>;
    expect(slots.map((s) => [s.slot, Number(s.viewable_impressions)])).toEqual(r.slots.map((s) => [s.slot, s.impressions]));
  });

  it('compares with the same dates last year (nothing recorded then: -- trends)', async () => {
    const r = await report(dealerId, `from=${range.from}&to=${range.to}&compare=year`);
    expect(r.comparison).toMatchObject({ compare: 'year', label: 'vs same period last year', utcDays: true });
    expect(r.previousSeries.map((p) => p.bucket)).toEqual(Array.from({ length: 10 }, (_, i) => shiftDay('2025-03-05', i)));
    expect(counts(r.previous)).toEqual({ impressions: 0, clicks: 0, conversions: 0 });
    expect(r.trends).toEqual({ impressions: null, clicks: null, ctr: null, conversions: null, conversionRate: null });
  });

  it('keeps the fixed periods as the other dealer screens read them', async () => {
    const r = await report(dealerId, 'period=7d');
    const a = (await get(`/api/dealers/${dealerId}/analytics?period=7d`)).json();
    expect({ from: r.window.from, to: r.window.to }).toEqual({ from: a.from, to: a.to });
    expect(counts(r.current)).toEqual(counts(a.current));
    expect(counts(r.previous)).toEqual(counts(a.previous));
    expect(r.series).toEqual(a.series);
    expect(r.range).toMatchObject({ period: '7d', label: 'Last 7 Days', unit: 'day' });
  });

  it('refuses a range that ends before it starts, is too long, or mixes period and range', async () => {
    const bad = async (q: string) => {
      const res = await get(`/api/dealers/${dealerId}/analytics/report?${q}`);
      expect(res.statusCode, q).toBe(400);
      return res.json().error as { message: string };
    };
    expect((await bad('from=2026-03-10&to=2026-03-01')).message).toMatch(/^to: The range ends before it starts/);
    expect((await bad('from=2024-01-01&to=2026-03-01')).message).toMatch(/^to: A range covers at most 366 days/);
    expect((await bad('period=7d&from=2026-03-01&to=2026-03-02')).message).toMatch(/^period: /);
    expect((await bad('from=2026-02-30&to=2026-03-02')).message).toMatch(/^from: /);
    expect((await bad('from=2026-03-01')).message).toMatch(/^to: /);
    expect((await bad('period=24h&compare=year')).message).toMatch(/^compare: /);
    // Model, slot and creative figures are kept 92 days (domain/retention.ts DETAIL_DAILY_DAYS).
    expect((await bad('from=2025-12-01&to=2025-12-10')).message).toMatch(/^from: model, slot and creative figures are kept 92 days: choose a start on or after 2025-12-13/);
  });

  it('reads a range older than the detailed hours by whole UTC days, and says so', async () => {
    const r = await report(dealerId, 'from=2026-02-20&to=2026-02-26');
    expect(r.range).toMatchObject({ timeZone: TZ, utcDays: true });
    expect(r.window).toEqual({ from: '2026-02-20T00:00:00.000Z', to: '2026-02-27T00:00:00.000Z' });
    const w = { from: new Date(r.window.from), to: new Date(r.window.to) };
    expect(counts(r.current)).toEqual(sum(await raw(dealerId, w.from, w.to, 'none')));
    expect(sum(r.models)).toEqual(counts(r.current));
  });
});

describe('per-model table with inventory, and Raise upsell priority', () => {
  let manager: string;
  const track = (model: string, pv: string, event = 'impression', type = 'header') =>
    t.app.inject({
      method: 'POST',
      url: '/api/analytics/track',
      payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event, type, model, pv, url: `https://www.hondaofdemo.com/new-inventory?model=${model}` }),
      headers: { 'content-type': 'text/plain', 'user-agent': BROWSER_UA, origin: 'https://www.hondaofdemo.com' },
    });
  const fixture = readFileSync(new URL('../../../tests/fixtures/inventory/honda-inventory.csv', import.meta.url));
  /** Today in the demo dealer's time zone: the custom range of one day that holds the beacons just sent. */
  let today: string;

  beforeAll(async () => {
    const m = DEMO_ACCOUNTS.find((x) => x.role === 'dealer-manager')!;
    manager = await t.login(m.email, m.password);
    const dealer = (await get(`/api/dealers/${DEMO_DEALER.id}`)).json().dealer;
    await t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${DEMO_DEALER.id}/settings`, headers: { cookie: admin }, payload: { security: { ...dealer.security, rateLimitEnabled: false } } });
    today = zonedDay(new Date(), dealer.timeZone);
    const { body, contentType } = multipartBody([{ filename: 'honda-inventory.csv', data: fixture }]);
    const up = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/inventory`, payload: body, headers: { cookie: manager, 'content-type': contentType } });
    expect(up.statusCode, up.body.slice(0, 300)).toBe(200);
    // Beacons: civic 6 viewable impressions, 2 clicks, 1 conversion; cr-v 3 impressions (written CRV and CR-V); passport 2.
    for (let i = 0; i < 6; i++) expect((await track('civic', `view-civic-${i}`)).statusCode).toBe(204);
    for (const pv of ['view-civic-0', 'view-civic-1']) await track('civic', pv, 'click');
    await track('civic', 'view-civic-1', 'conversion');
    for (const [i, name] of ['CRV', 'CR-V', 'crv'].entries()) await track(name, `view-crv-${i}`);
    for (let i = 0; i < 2; i++) await track('passport', `view-passport-${i}`, 'impression', 'upsell');
  });

  it('shows each model with its viewable impressions, clicks, CTR, conversions and its inventory', async () => {
    // The beacons' local day (the server clock is pinned for reports; beacons carry the real time).
    const r = await report(DEMO_DEALER.id, `from=${shiftDay(today, -1)}&to=${shiftDay(today, 1)}`);
    const row = (name: string) => r.models.find((m) => modelKey(m.model) === modelKey(name))!;
    expect(row('civic')).toMatchObject({ impressions: 6, clicks: 2, conversions: 1, ctr: (2 * 100) / 6, conversionRate: 50 });
    expect(row('cr-v')).toMatchObject({ impressions: 3, clicks: 0, conversions: 0 });
    expect(row('passport')).toMatchObject({ impressions: 2, inventory: null, upsellWeight: 5 });
    expect(r.slots.map((s) => [s.slot, s.impressions])).toEqual([['header', 9], ['upsell', 2]]);

    // The inventory beside it equals the uploaded file: the Inventory screen's figures, and the median days on lot of its rows.
    const inventory = (await get(`/api/dealers/${DEMO_DEALER.id}/inventory`)).json().inventory as { models: Array<{ key: string; totalUnits: number; agedUnits: number; priorityScore: number }> };
    const rows = parse(fixture, { columns: true, bom: true }) as Array<Record<string, string>>;
    for (const inv of inventory.models) {
      const days = rows
        .filter((x) => x.Model && x.IsNew === 'true' && modelKey(canonicalModel(x.Model, {})) === modelKey(inv.key))
        .map((x) => Number(x.DaysInStock))
        .sort((a, b) => a - b);
      const mid = days.length % 2 ? days[(days.length - 1) / 2]! : (days[days.length / 2 - 1]! + days[days.length / 2]!) / 2;
      expect(row(inv.key).inventory, inv.key).toEqual({
        units: inv.totalUnits,
        agedUnits: inv.agedUnits,
        agedShare: (100 * inv.agedUnits) / inv.totalUnits,
        medianDaysOnLot: mid,
        priorityScore: inv.priorityScore,
      });
    }
    // Inventory models without beacons are listed too (zero figures), after those with events.
    expect(row('pilot')).toMatchObject({ impressions: 0, clicks: 0, conversions: 0, inventory: { units: 3 } });
  });

  it('Raise upsell priority changes the one number the upsell choice of delivery follows', async () => {
    const upsellOfCrv = async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?model=crv&type=upsell` });
      expect(res.statusCode).toBe(200);
      return res.headers['x-banner-model'];
    };
    const raise = (model: string) => t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/upsell-priorities/${encodeURIComponent(model)}/raise`, headers: { cookie: manager } });
    const priorities = async () => (await get(`/api/dealers/${DEMO_DEALER.id}/configs`, manager)).json().inventoryWeights as Record<string, number>;
    expect(await upsellOfCrv()).toBe('pilot'); // the Honda rule cr-v -> pilot, both at the neutral 5
    const r = await report(DEMO_DEALER.id, `from=${today}&to=${today}`);
    const passport = r.models.find((m) => m.model === 'passport')!;
    expect(passport.upsellWeight).toBe(5);

    // What the screen's button does: one call; the server computes the step (Normal -> High) and stores it.
    const first = await raise(passport.weightKey!);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ model: 'passport', from: 5, priority: raisedWeight(5), label: 'High Priority' });
    expect(first.json().configs.inventoryWeights.passport).toBe(8);
    expect(await upsellOfCrv()).toBe('passport');
    const after = await report(DEMO_DEALER.id, `from=${today}&to=${today}`);
    expect(after.models.find((m) => m.model === 'passport')!.upsellWeight).toBe(8);

    // Matched by model key, one band at a time, and refused at the top of the scale; nothing else changes.
    const before = await priorities();
    expect((await raise('Passport')).json()).toMatchObject({ from: 8, priority: 9 });
    expect((await raise('PASSPORT')).json()).toMatchObject({ from: 9, priority: 10 });
    const top = await raise('passport');
    expect(top.statusCode).toBe(409);
    expect(top.json().error.message).toBe('passport already has the highest upsell priority (10)');
    expect(await priorities()).toEqual({ ...before, passport: 10 });
    expect((await raise('no-such-model')).statusCode).toBe(404);

    // Raising Pilot to the same priority: equal priorities, so the rule's own target (Pilot) wins again.
    for (const step of [8, 9, 10]) expect((await raise('pilot')).json().priority).toBe(step);
    expect(await upsellOfCrv()).toBe('pilot');
    // Lowering Pilot where priorities are edited (Upsell Rules saves PUT /configs) hands the slot back to Passport.
    const save = await t.app.inject({ method: 'PUT', url: `/api/dealers/${DEMO_DEALER.id}/configs`, headers: { cookie: manager }, payload: { inventoryWeights: { ...(await priorities()), pilot: 7 } } });
    expect(save.statusCode, save.body).toBe(200);
    expect(await upsellOfCrv()).toBe('passport');
  });
});
