/**
 * The admin dealer list (spec 01 §2 Dealer Management; GET /api/admin/dealers) through HTTP: one
 * page at a time, sorted, searched and filtered on the server, with only the fields the cards show
 * and all-time figures; bad parameters are refused naming the parameter; admins only. The
 * dashboard's Recent Dealers reads the first page of the same list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { dealers, eventRollupsHourly } from '../db/schema';

let t: TestApp;
let admin: string;
const NOW = new Date('2026-03-10T12:00:00Z');
const DAY = 86_400_000;

/** The dealers this file adds (name, manufacturer, website, age in days, all-time impressions and clicks). */
const ADDED = [
  { name: 'Zephyr Ford', manufacturer: 'ford', site: 'https://zephyr.example.com', age: 9, impressions: 1000, clicks: 10 },
  { name: 'alpine toyota', manufacturer: 'toyota', site: 'https://alpine.example.com', age: 8, impressions: 50, clicks: 5 },
  { name: 'Bayside Honda', manufacturer: 'honda', site: 'https://bayside.example.com', age: 7, impressions: 0, clicks: 0 },
  { name: 'Cedar Ford', manufacturer: 'ford', site: 'https://cedar-100pct.example.com', age: 6, impressions: 200, clicks: 2 },
  { name: 'Delta Toyota', manufacturer: 'toyota', site: 'https://delta.example.com', age: 5, impressions: 1000, clicks: 30 },
  { name: 'Echo Honda', manufacturer: 'honda', site: 'https://www.echo-motors.example.org', age: 4, impressions: 10, clicks: 0 },
  { name: 'Foxtrot Ford', manufacturer: 'ford', site: 'https://foxtrot.example.com', age: 3, impressions: 300, clicks: 3 },
];

beforeAll(async () => {
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { now: () => NOW }));
  const { db } = t.database;
  // The demo dealer is the oldest.
  await db.update(dealers).set({ createdAt: new Date(NOW.getTime() - 30 * DAY) }).where(eq(dealers.id, DEMO_DEALER.id));
  for (const d of ADDED) {
    const res = await get('/api/admin/dealers', admin, 'POST', { name: d.name, manufacturer: d.manufacturer, websiteUrl: d.site, provider: 'mxs' });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().dealer.id as string;
    await db.update(dealers).set({ createdAt: new Date(NOW.getTime() - d.age * DAY) }).where(eq(dealers.id, id));
    // Two rollup rows a year apart: the list sums all recorded time.
    if (d.impressions > 0) {
      const half = Math.floor(d.impressions / 2);
      const halfClicks = Math.floor(d.clicks / 2);
      await db.insert(eventRollupsHourly).values([
        { dealerId: id, hour: new Date(NOW.getTime() - 400 * DAY), model: 'civic', slotType: 'header', impressions: half, clicks: halfClicks, conversions: 0 },
        { dealerId: id, hour: new Date(NOW.getTime() - DAY), model: 'civic', slotType: 'header', impressions: d.impressions - half, clicks: d.clicks - halfClicks, conversions: 0 },
      ]);
    }
  }
});
afterAll(() => t.close());

function get(url: string, cookie?: string, method: 'GET' | 'POST' = 'GET', payload?: object) {
  return t.app.inject({ method, url, payload, headers: cookie ? { cookie } : {} });
}

interface Item {
  id: string;
  name: string;
  manufacturer: string;
  impressions: number;
  clicks: number;
  ctr: number | null;
}
async function list(query: string) {
  const res = await get(`/api/admin/dealers${query}`, admin);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: Item[]; total: number; page: number; pageSize: number };
}
const names = async (query: string) => (await list(query)).items.map((d) => d.name);
const ALL_NAMES = [DEMO_DEALER.name, ...ADDED.map((d) => d.name)];

describe('GET /api/admin/dealers', () => {
  it('answers the first page oldest first with only the card fields and all-time figures', async () => {
    const page = await list('');
    expect(page).toMatchObject({ total: ALL_NAMES.length, page: 1, pageSize: 24 });
    expect(page.items.map((d) => d.name)).toEqual(ALL_NAMES);
    expect(Object.keys(page.items[0]!).sort()).toEqual(['clicks', 'createdAt', 'ctr', 'id', 'impressions', 'manufacturer', 'manufacturerName', 'name', 'provider', 'status', 'websiteUrl']);
    expect(page.items.find((d) => d.name === 'Zephyr Ford')).toMatchObject({ manufacturer: 'ford', impressions: 1000, clicks: 10, ctr: 1 });
    expect(page.items.find((d) => d.name === 'Bayside Honda')).toMatchObject({ impressions: 0, clicks: 0, ctr: null });
  });

  it('pages without overlap or gap, and past the last page answers no items with the total', async () => {
    const byName = [...ALL_NAMES].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    const pages = await Promise.all([1, 2, 3].map((p) => list(`?sort=name&pageSize=3&page=${p}`)));
    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 2]);
    expect(pages.every((p) => p.total === ALL_NAMES.length && p.pageSize === 3)).toBe(true);
    expect(new Set(pages.flatMap((p) => p.items.map((d) => d.id))).size).toBe(ALL_NAMES.length);
    const past = await list('?sort=name&pageSize=3&page=4');
    expect(past).toMatchObject({ items: [], total: ALL_NAMES.length, page: 4 });
    // Names sort case-insensitively on both databases, whatever their collation.
    expect(pages.flatMap((p) => p.items.map((d) => d.name))).toEqual(byName);
  });

  it('sorts by each column in both orders, figures highest first by default, ties by name', async () => {
    const asc = await names('?sort=name&order=asc');
    expect(await names('?sort=name&order=desc')).toEqual([...asc].reverse());
    expect(await names('?sort=created&order=desc')).toEqual([...ALL_NAMES].reverse());
    expect(await names('?sort=impressions')).toEqual(['Delta Toyota', 'Zephyr Ford', 'Foxtrot Ford', 'Cedar Ford', 'alpine toyota', 'Echo Honda', 'Bayside Honda', DEMO_DEALER.name]);
    expect(await names('?sort=clicks&order=asc')).toEqual(['Bayside Honda', 'Echo Honda', DEMO_DEALER.name, 'Cedar Ford', 'Foxtrot Ford', 'alpine toyota', 'Zephyr Ford', 'Delta Toyota']);
    // CTR: alpine 10 %, Delta 3 %, Zephyr/Cedar/Foxtrot 1 % (ties by name), Echo 0 %, then the dealers without impressions.
    const byCtr = await list('?sort=ctr&order=desc');
    expect(byCtr.items.map((d) => d.name).slice(0, 6)).toEqual(['alpine toyota', 'Delta Toyota', 'Cedar Ford', 'Foxtrot Ford', 'Zephyr Ford', 'Echo Honda']);
    expect(byCtr.items.slice(6).map((d) => d.ctr)).toEqual([null, null]);
    const byCtrAsc = await list('?sort=ctr&order=asc');
    expect(byCtrAsc.items[0]!.name).toBe('Echo Honda');
    expect(byCtrAsc.items.slice(6).map((d) => d.ctr)).toEqual([null, null]);
    const byMaker = await list('?sort=manufacturer');
    expect(byMaker.items.map((d) => d.manufacturer)).toEqual(['ford', 'ford', 'ford', 'honda', 'honda', 'honda', 'toyota', 'toyota']);
    expect(byMaker.items.slice(0, 3).map((d) => d.name)).toEqual(['Cedar Ford', 'Foxtrot Ford', 'Zephyr Ford']);
  });

  it('searches name, id and website case-insensitively, takes % and _ literally, and filters by manufacturer', async () => {
    expect(await names('?q=ALPINE')).toEqual(['alpine toyota']);
    expect(await names('?q=delta-toyota')).toEqual(['Delta Toyota']);
    expect(await names('?q=echo-motors.example.ORG')).toEqual(['Echo Honda']);
    expect(await names(`?q=${encodeURIComponent('100%')}`)).toEqual([]);
    expect(await names(`?q=${encodeURIComponent('cedar-100')}`)).toEqual(['Cedar Ford']);
    expect(await names('?q=_')).toEqual([]);
    expect(await names('?q=%20%20')).toEqual(ALL_NAMES); // blank after trimming: no search
    const fords = await list('?manufacturer=ford&sort=name&pageSize=2');
    expect(fords).toMatchObject({ total: 3, pageSize: 2 });
    expect(fords.items.map((d) => d.name)).toEqual(['Cedar Ford', 'Foxtrot Ford']);
    expect(await list('?manufacturer=ford&q=zeph')).toMatchObject({ total: 1, items: [{ name: 'Zephyr Ford' }] });
    expect(await list('?manufacturer=honda&q=toyota')).toMatchObject({ total: 0, items: [] });
  });

  it('refuses a bad parameter with 400 naming it', async () => {
    const cases: Array<[string, RegExp]> = [
      ['?page=0', /^page: must be at least 1/],
      ['?page=abc', /^page: must be a whole number/],
      ['?page=1.5', /^page: must be a whole number/],
      ['?pageSize=101', /^pageSize: must be at most 100/],
      ['?pageSize=0', /^pageSize: must be at least 1/],
      ['?sort=price', /^sort: /],
      ['?order=up', /^order: /],
      ['?manufacturer=', /^manufacturer: must not be empty/],
      [`?q=${'x'.repeat(201)}`, /^q: must be at most 200 characters/],
      ['?page=1&page=2', /^page: /],
      ['?limit=10', /limit/],
    ];
    for (const [query, message] of cases) {
      const res = await get(`/api/admin/dealers${query}`, admin);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.message, query).toMatch(message);
    }
  });

  it('is for admins only', async () => {
    expect((await get('/api/admin/dealers')).statusCode).toBe(401);
    for (const account of DEMO_ACCOUNTS.slice(1)) {
      const cookie = await t.login(account.email, account.password);
      expect((await get('/api/admin/dealers?page=1', cookie)).statusCode, account.role).toBe(403);
    }
  });

  it('gives the dashboard the first five dealers, oldest first, with the same fields', async () => {
    const res = await get('/api/admin/dashboard', admin);
    expect(res.statusCode).toBe(200);
    const d = res.json();
    expect(d.recentDealers.map((r: Item) => r.name)).toEqual(ALL_NAMES.slice(0, 5));
    expect(d.recentDealers[1]).toMatchObject({ name: 'Zephyr Ford', impressions: 1000, clicks: 10, ctr: 1 });
    expect(d.recentDealers[0].configs).toBeUndefined();
    expect(d).toMatchObject({ activeDealers: ALL_NAMES.length, impressions: 2560, clicks: 50 });
  });
});
