/**
 * Analytics and its CSV export with hostile model names: a beacon's model
 * the dealer does not have is counted under the unknown-model key, and rollup rows that older
 * writers stored under models named after Object.prototype members are counted like any other, and model cells that a spreadsheet
 * would run as a formula are exported with a leading single quote (OWASP CSV injection).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { eventRollupsHourly } from '../db/schema';
import { UNKNOWN_MODEL_KEY } from '../../domain/model-keys';

const HOUR = 3_600_000;
const hoursAgo = (h: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR - h * HOUR);
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
/** Rollup models as older rows (or any writer other than the track route) may hold them. */
const FORMULAS = ['=HYPERLINK("x")', '+1+2', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd'];
/** Their CSV cells: quoted when they start with =, +, - or @; a leading tab or CR is trimmed by canonicalModel. */
const FORMULA_CELLS = [`'=hyperlink("x")`, "'+1+2", "'-2+3", "'@sum(a1)", 'cmd'];

let t: TestApp;
let cookie: string;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}${url}`, headers: { cookie } });
const track = (model: string, event: 'impression' | 'click' | 'conversion', view = 0) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event, type: 'header', model, url: 'https://www.hondaofdemo.com/new-inventory?model=x', pv: `view-${model}-${view}` }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER_UA, origin: 'https://www.hondaofdemo.com' },
  });

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
  // 'constructor' through the real beacon endpoint: 3 impressions (3 page views), 1 click, counted
  // under the unknown-model key (no Honda model is called so).
  for (const [event, view] of [['impression', 0], ['impression', 1], ['impression', 2], ['click', 0]] as const) {
    expect((await track('constructor', event, view)).statusCode).toBe(204);
  }
  await t.app.events.flush();
  const row = (model: string, impressions: number, clicks: number, conversions: number) => ({
    dealerId: DEMO_DEALER.id,
    hour: hoursAgo(3),
    model,
    slotType: 'primary',
    impressions,
    clicks,
    conversions,
  });
  await t.database.db.insert(eventRollupsHourly).values([
    row('__proto__', 50, 5, 1),
    row('toString', 40, 4, 0),
    row('hasOwnProperty', 30, 3, 0),
    ...FORMULAS.map((m, i) => row(m, 10 + i, 1, 0)),
  ]);
});
afterAll(() => t.close());

describe('analytics with hostile model names', () => {
  it('answers the dashboard and counts each model exactly', async () => {
    const res = await get('/analytics?period=90d');
    expect(res.statusCode).toBe(200);
    const models = res.json().models as Array<{ model: string; impressions: number; clicks: number; conversions: number }>;
    const by = new Map(models.map((m) => [m.model, m]));
    expect(by.get(UNKNOWN_MODEL_KEY)).toMatchObject({ impressions: 3, clicks: 1, conversions: 0, ctr: (1 * 100) / 3 });
    expect(by.has('constructor')).toBe(false);
    expect(by.get('__proto__')).toMatchObject({ impressions: 50, clicks: 5, conversions: 1 });
    expect(by.get('tostring')).toMatchObject({ impressions: 40, clicks: 4 });
    expect(by.get('hasownproperty')).toMatchObject({ impressions: 30, clicks: 3 });
    expect(by.get('=hyperlink("x")')).toMatchObject({ impressions: 10, clicks: 1 });
    expect(models.every((m) => typeof m.model === 'string')).toBe(true);
    expect(res.json().current).toMatchObject({ impressions: 3 + 50 + 40 + 30 + 10 + 11 + 12 + 13 + 14 + 15, clicks: 1 + 5 + 4 + 3 + 6 });
  });

  it('exports every row as CSV, formula-like model cells prefixed with a quote', async () => {
    for (const period of ['24h', '7d', '30d', '90d']) {
      const res = await get(`/analytics/export.csv?period=${period}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const rows = parse(res.body, { columns: true }) as Array<Record<string, string>>;
      const by = new Map(rows.map((r) => [r.model, r]));
      expect(rows).toHaveLength(4 + FORMULAS.length);
      expect(by.get(UNKNOWN_MODEL_KEY)).toMatchObject({ impressions: '3', clicks: '1', ctr: '33.33', conversions: '0' });
      expect(by.get('__proto__')).toMatchObject({ impressions: '50', clicks: '5', conversions: '1' });
      expect(by.get('tostring')).toMatchObject({ impressions: '40' });
      expect(by.get('hasownproperty')).toMatchObject({ impressions: '30' });
      expect(by.get(`'=hyperlink("x")`)).toMatchObject({ impressions: '10', clicks: '1' });
      for (const cell of FORMULA_CELLS) expect(by.has(cell), cell).toBe(true);
      // No cell starts with a formula character (dates and counts start with digits).
      for (const r of rows) for (const cell of Object.values(r)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    }
  });
});
