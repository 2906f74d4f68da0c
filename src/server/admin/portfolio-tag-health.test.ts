/**
 * The portfolio table's tag health through HTTP (GET /api/admin/dealers?period=;
 * domain/tag-health.ts): each dealer on the page carries its beacons of the last 24 h,
 * counted and refused or dropped by reason (bot, domain not allowed, HTTPS, rate limit, DNT/GPC,
 * invalid), counts still held in memory included; the table sorts by the refusals on the server,
 * ties by name; the sort needs a period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { tagHealthHourly } from '../db/schema';
import type { DealerListPage, PortfolioTagHealth } from '../../domain/admin';

let t: TestApp;
let admin: string;
const NOW = new Date('2026-03-10T12:20:00Z');
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const HEADLESS_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';
const ALPHA_SITE = 'https://www.alpha-motors.example';
const ids: Record<'alpha' | 'beta', string> = { alpha: '', beta: '' };
let pv = 0;

/** One beacon as the embed script sends it for `dealerId`, from `origin` over `proto` (X-Forwarded-Proto). */
const track = (dealerId: string, headers: Record<string, string> = {}, origin = ALPHA_SITE, proto = 'https') =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId, event: 'impression', type: 'header', model: 'civic', url: `${origin}/new-inventory?model=civic`, pv: `portfolio-pv-${String(++pv).padStart(4, '0')}` }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin, 'x-forwarded-proto': proto, ...headers },
    remoteAddress: '203.0.113.9',
  });

async function portfolio(query: string): Promise<DealerListPage> {
  const res = await t.app.inject({ method: 'GET', url: `/api/admin/dealers?period=7d${query}`, headers: { cookie: admin } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const health = (page: DealerListPage, id: string) => page.items.find((d) => d.id === id)!.tagHealth;
const none = { bot: 0, domain: 0, https: 0, 'rate-limit': 0, 'opted-out': 0, invalid: 0 };

beforeAll(async () => {
  // An HTTPS deployment behind a proxy, so a dealer's Require HTTPS applies to beacons.
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { now: () => NOW, env: { PUBLIC_ORIGIN: 'https://dcb.example.com', TRUST_PROXY: '1' } }));
  for (const [key, name, site] of [['alpha', 'Alpha Motors', ALPHA_SITE], ['beta', 'Beta Motors', 'https://www.beta-motors.example']] as const) {
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/dealers', headers: { cookie: admin, origin: 'https://dcb.example.com' }, payload: { name, manufacturer: 'honda', websiteUrl: site, provider: 'mxs' } });
    expect(res.statusCode, res.body).toBe(201);
    ids[key] = res.json().dealer.id as string;
  }
  // Alpha's beacons go through the intake: two counted, one from a headless browser, one from a
  // page outside its allowed domains and one over plain HTTP.
  for (const res of [
    await track(ids.alpha),
    await track(ids.alpha),
    await track(ids.alpha, { 'user-agent': HEADLESS_UA }),
    await track(ids.alpha, {}, 'https://copycat.example.net'),
    await track(ids.alpha, {}, 'http://www.alpha-motors.example', 'http'),
  ])
    expect(res.statusCode, res.body).toBeLessThan(500);
  // Beta's counters as earlier flushes left them: two hours inside the window, one just before it.
  await t.database.db.insert(tagHealthHourly).values([
    { dealerId: ids.beta, origin: 'https://www.beta-motors.example', reason: 'rate-limit', hour: new Date('2026-03-10T11:00:00Z'), beacons: 7 },
    { dealerId: ids.beta, origin: 'https://www.beta-motors.example', reason: 'opted-out', hour: new Date('2026-03-09T13:00:00Z'), beacons: 2 },
    { dealerId: ids.beta, origin: 'https://www.beta-motors.example', reason: 'invalid', hour: new Date('2026-03-09T12:00:00Z'), beacons: 4 },
  ]);
});
afterAll(() => t.close());

describe('GET /api/admin/dealers?period= tag health', () => {
  it("gives each dealer on the page its beacons of the last 24 h by reason, counts not yet written included", async () => {
    const page = await portfolio('&sort=name');
    expect(health(page, ids.alpha)).toEqual<PortfolioTagHealth>({ counted: 2, refused: 3, byReason: { ...none, bot: 1, domain: 1, https: 1 } });
    // The invalid beacons are 24 h 20 min old: outside the window.
    expect(health(page, ids.beta)).toEqual<PortfolioTagHealth>({ counted: 0, refused: 9, byReason: { ...none, 'rate-limit': 7, 'opted-out': 2 } });
    expect(health(page, DEMO_DEALER.id)).toEqual<PortfolioTagHealth>({ counted: 0, refused: 0, byReason: none });
  });

  it('sorts every matching dealer by its refusals in both orders, ties by name, across pages', async () => {
    const order = async (query: string) => (await portfolio(query)).items.map((d) => d.id);
    expect(await order('&sort=refused')).toEqual([ids.beta, ids.alpha, DEMO_DEALER.id]);
    expect(await order('&sort=refused&order=asc')).toEqual([DEMO_DEALER.id, ids.alpha, ids.beta]);
    expect((await portfolio('&sort=refused&pageSize=1&page=2')).items.map((d) => [d.id, d.tagHealth?.refused])).toEqual([[ids.alpha, 3]]);
  });

  it('carries no tag health without a period and refuses the refusal sort there, naming the parameter', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/dealers', headers: { cookie: admin } });
    expect(list.statusCode).toBe(200);
    expect((list.json() as DealerListPage).items.every((d) => d.tagHealth === undefined)).toBe(true);
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/dealers?sort=refused', headers: { cookie: admin } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^sort: refused needs a period/);
  });
});
