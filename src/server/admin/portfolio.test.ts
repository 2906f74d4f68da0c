/**
 * The portfolio table of Platform Analytics through HTTP (GET /api/admin/dealers?period=; spec 01
 * §2 Platform Analytics, DECISIONS 18-19): each dealer's viewable impressions, clicks, CTR and
 * conversions over the period's window, the trend against the previous window, coverage gaps and
 * the last event; sorted on those figures on the server, searched, filtered and paged; the
 * figures add up to what Platform Analytics counts for the same period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { assets, dealers, eventRollupsHourly, events, manufacturers } from '../db/schema';
import { dealerKeyOf } from '../db/dealer-row';
import { ensureEventPartitions } from '../maintenance/partitions';
import type { DealerListItem, DealerListPage } from '../../domain/admin';
import { modelKey } from '../../domain/model-keys';
import { periodWindow } from '../../domain/periods';

let t: TestApp;
let admin: string;
const NOW = new Date('2026-03-10T12:00:00Z');
const DAY = 86_400_000;

/**
 * The dealers this file adds, with counts in the last 30 days (`cur`, two rows: 2 days and 20 days
 * back), in the 30 days before (`prev`, 45 days back) and long ago (`old`, 400 days back: in the
 * all-time figures only): [impressions, clicks, conversions].
 */
const ADDED = [
  { name: 'Zephyr Ford', manufacturer: 'ford', cur: [1000, 10, 2], prev: [500, 5, 1], old: [7, 0, 0] },
  { name: 'Alpine Toyota', manufacturer: 'toyota', cur: [50, 5, 4], prev: [100, 1, 0], old: [0, 0, 0] },
  { name: 'Bayside Honda', manufacturer: 'honda', cur: [0, 0, 0], prev: [0, 0, 0], old: [300, 3, 0] },
  { name: 'Cedar Ford', manufacturer: 'ford', cur: [200, 2, 0], prev: [0, 0, 0], old: [0, 0, 0] },
  { name: 'Delta Toyota', manufacturer: 'toyota', cur: [1000, 30, 1], prev: [2000, 20, 3], old: [0, 0, 0] },
];
const ids = new Map<string, string>();

async function rollup(dealerId: string, daysBack: number, [impressions, clicks, conversions]: number[]) {
  if (!impressions && !clicks && !conversions) return;
  await t.database.db.insert(eventRollupsHourly).values({ dealerId, hour: new Date(NOW.getTime() - daysBack * DAY), model: 'civic', slotType: 'header', impressions: impressions!, clicks: clicks!, conversions: conversions! });
}

beforeAll(async () => {
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { now: () => NOW }));
  for (const d of ADDED) {
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/dealers', headers: { cookie: admin, origin: 'http://localhost:3000' }, payload: { name: d.name, manufacturer: d.manufacturer, websiteUrl: 'https://example.com', provider: 'mxs' } });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().dealer.id as string;
    ids.set(d.name, id);
    // The current window's counts in two rows (a whole day and a partial day are read from different tables).
    const half = d.cur.map((n) => Math.floor(n / 2));
    await rollup(id, 2, half);
    await rollup(id, 20, d.cur.map((n, i) => n - half[i]!));
    await rollup(id, 45, d.prev);
    await rollup(id, 400, d.old);
  }
});
afterAll(() => t.close());

async function portfolio(query: string): Promise<DealerListPage> {
  const res = await t.app.inject({ method: 'GET', url: `/api/admin/dealers?period=30d${query}`, headers: { cookie: admin } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const names = async (query: string) => (await portfolio(query)).items.map((d) => d.name);
const item = (page: DealerListPage, name: string) => page.items.find((d) => d.name === name)!;

describe('GET /api/admin/dealers?period= (portfolio table)', () => {
  it('gives each dealer the window figures, the trend vs the previous window, all-time figures and the window it covers', async () => {
    const page = await portfolio('&sort=name');
    const window = periodWindow('30d', NOW);
    expect(page.window).toEqual({ period: '30d', from: window.from.toISOString(), to: window.to.toISOString() });
    expect(item(page, 'Zephyr Ford')).toMatchObject({
      impressions: 1507,
      clicks: 15,
      window: { impressions: 1000, clicks: 10, conversions: 2, ctr: 1, previousImpressions: 500, trend: 100 },
    });
    expect(item(page, 'Alpine Toyota').window).toEqual({ impressions: 50, clicks: 5, conversions: 4, ctr: 10, previousImpressions: 100, trend: -50 });
    // Counts only long ago: nothing in the window, no previous figures, so CTR and trend are null ('--').
    expect(item(page, 'Bayside Honda')).toMatchObject({ impressions: 300, window: { impressions: 0, ctr: null, previousImpressions: 0, trend: null } });
    expect(item(page, 'Cedar Ford').window).toMatchObject({ impressions: 200, trend: null });
  });

  it('adds up, over every page, to what Platform Analytics counts for the same period', async () => {
    const pages = await Promise.all([1, 2, 3].map((p) => portfolio(`&sort=impressions&pageSize=2&page=${p}`)));
    const rows = pages.flatMap((p) => p.items);
    expect(rows).toHaveLength(ADDED.length + 1);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/analytics?period=30d', headers: { cookie: admin } });
    const analytics = res.json() as { dealers: Array<{ id: string; impressions: number; clicks: number }> };
    for (const d of analytics.dealers) {
      const row = rows.find((r) => r.id === d.id)!;
      expect({ id: d.id, impressions: row.window!.impressions, clicks: row.window!.clicks }).toEqual({ id: d.id, impressions: d.impressions, clicks: d.clicks });
    }
    const sum = (f: (r: DealerListItem) => number) => rows.reduce((s, r) => s + f(r), 0);
    expect(sum((r) => r.window!.impressions)).toBe(ADDED.reduce((s, d) => s + d.cur[0]!, 0));
    expect(sum((r) => r.window!.conversions)).toBe(ADDED.reduce((s, d) => s + d.cur[2]!, 0));
  });

  it('sorts by the window figures and the trend in both orders, nulls last, ties by name', async () => {
    expect(await names('&sort=impressions')).toEqual(['Delta Toyota', 'Zephyr Ford', 'Cedar Ford', 'Alpine Toyota', 'Bayside Honda', DEMO_DEALER.name]);
    expect(await names('&sort=impressions&order=asc')).toEqual(['Bayside Honda', DEMO_DEALER.name, 'Alpine Toyota', 'Cedar Ford', 'Delta Toyota', 'Zephyr Ford']);
    expect(await names('&sort=conversions')).toEqual(['Alpine Toyota', 'Zephyr Ford', 'Delta Toyota', 'Bayside Honda', 'Cedar Ford', DEMO_DEALER.name]);
    expect(await names('&sort=ctr')).toEqual(['Alpine Toyota', 'Delta Toyota', 'Cedar Ford', 'Zephyr Ford', 'Bayside Honda', DEMO_DEALER.name]);
    // Trend: Zephyr +100 %, Delta -50 %, Alpine -50 % (ties by name); the others have no previous window.
    expect(await names('&sort=trend')).toEqual(['Zephyr Ford', 'Alpine Toyota', 'Delta Toyota', 'Bayside Honda', 'Cedar Ford', DEMO_DEALER.name]);
    expect(await names('&sort=trend&order=asc')).toEqual(['Alpine Toyota', 'Delta Toyota', 'Zephyr Ford', 'Bayside Honda', 'Cedar Ford', DEMO_DEALER.name]);
    const byName = await names('&sort=name&order=desc');
    expect(byName).toEqual([...byName].sort((a, b) => b.toLowerCase().localeCompare(a.toLowerCase())));
  });

  it('searches and filters by manufacturer, with the total of every page', async () => {
    const fords = await portfolio('&manufacturer=ford&sort=impressions&pageSize=1');
    expect(fords).toMatchObject({ total: 2, pageSize: 1, items: [{ name: 'Zephyr Ford' }] });
    expect((await portfolio('&manufacturer=ford&sort=impressions&pageSize=1&page=2')).items.map((d) => d.name)).toEqual(['Cedar Ford']);
    expect(await names('&q=toyota&sort=trend')).toEqual(['Alpine Toyota', 'Delta Toyota']);
    expect(await portfolio('&q=nothing-like-this')).toMatchObject({ total: 0, items: [] });
  });

  it('counts coverage gaps: active catalogue models without an active uploaded banner in force', async () => {
    const id = ids.get('Cedar Ford')!;
    const [ford] = await t.database.db.select().from(manufacturers).where(eq(manufacturers.id, 'ford'));
    const models = ford!.models.filter((m) => m.isActive !== false);
    const before = item(await portfolio('&q=cedar'), 'Cedar Ford').coverageGaps!;
    expect(before.count).toBe(models.length);
    const asset = (model: string, extra: Partial<typeof assets.$inferInsert> = {}) => ({
      id: crypto.randomUUID(), dealerId: id, name: `new_2026_ford_${model}_base_1920x300.jpg`, type: 'header', model, modelKey: modelKey(model), trim: 'base', year: '2026',
      manufacturer: 'ford', mimeType: 'image/jpeg', sizeBytes: 10, width: 1920, height: 300, parsedMetadata: {} as never, ...extra,
    });
    await t.database.db.insert(assets).values([
      asset(models[0]!.name),
      asset(models[1]!.name, { isActive: false }), // inactive: still a gap
      asset(models[2]!.name, { endsAt: new Date(NOW.getTime() - DAY) }), // promotion over: still a gap
    ]);
    const after = item(await portfolio('&q=cedar'), 'Cedar Ford').coverageGaps!;
    expect(after.count).toBe(models.length - 1);
    expect(after.models).not.toContain(models[0]!.displayName || models[0]!.name);
    expect(after.models.length).toBeLessThanOrEqual(5);
  });

  it('gives the last event time, null before any', async () => {
    const page = await portfolio('&sort=name');
    expect(item(page, 'Zephyr Ford').lastEventAt).toBe(new Date(NOW.getTime() - 2 * DAY).toISOString());
    await t.database.db.update(dealers).set({ name: 'Quiet Dealer' }).where(eq(dealers.id, DEMO_DEALER.id));
    expect(item(await portfolio('&q=quiet'), 'Quiet Dealer').lastEventAt).toBeNull();
  });

  it("gives each dealer its own newest event's time, not another listed dealer's", async () => {
    // Zephyr Ford and Alpine Toyota share their newest rollup hour; each gets the minute of its own raw event in it.
    const hour = new Date(NOW.getTime() - 2 * DAY);
    const at = (min: number) => new Date(hour.getTime() + min * 60_000);
    await ensureEventPartitions(t.database.db, at(0), at(60)); // the writer does this itself; this test writes rows directly
    const raw = (name: string, min: number) => ({ dealerKey: dealerKeyOf(ids.get(name)!), event: 'impression' as const, slotType: 'header', model: 'civic', occurredAt: at(min) });
    await t.database.db.insert(events).values([raw('Zephyr Ford', 41), raw('Zephyr Ford', 5), raw('Alpine Toyota', 20)]);
    const page = await portfolio('&sort=name');
    expect(item(page, 'Zephyr Ford').lastEventAt).toBe(at(41).toISOString());
    expect(item(page, 'Alpine Toyota').lastEventAt).toBe(at(20).toISOString());
    // No raw event in its newest hour: the hour itself.
    expect(item(page, 'Cedar Ford').lastEventAt).toBe(hour.toISOString());
  });

  it('refuses a trend sort without a period and an unknown period, naming the parameter', async () => {
    for (const [query, field] of [['?sort=trend', 'sort'], ['?period=1y', 'period']] as const) {
      const res = await t.app.inject({ method: 'GET', url: `/api/admin/dealers${query}`, headers: { cookie: admin } });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.message, query).toMatch(new RegExp(`^${field}: `));
    }
  });
});
