/**
 * Forged beacons cannot bend the counting (red-team finding "forged-model floods"), through the
 * beacon endpoint a dealer's page uses and the analytics endpoints the dealer reads:
 * - a flood of 4,000 beacons from 2 addresses, every one naming a new invented model, adds no
 *   model to the dealer's lists: they count under the one unknown-model key, and the analytics
 *   answer grows by that one row only;
 * - model keys already stored (before beacons were limited to the dealer's models) cannot blow
 *   the answers up: at most MAX_ANALYTICS_MODELS models and MAX_ANALYTICS_CREATIVES creative rows,
 *   the rest summed into an '(other)' row, the totals unchanged;
 * - clicks and conversions beyond one page view's budget (a click per impression of the same slot
 *   and model, a conversion per page view) are acknowledged and not counted, so another model's
 *   CTR moves only as far as the page views the forger mints (each one costing its beacons within
 *   the per-IP limit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerKeyOf } from '../db/dealer-row';
import { eventRollupsHourly, events } from '../db/schema';
import { MAX_ANALYTICS_CREATIVES, MAX_ANALYTICS_MODELS, MAX_REQUESTS_PER_MINUTE, RATE_LIMIT_NAT_FACTOR } from '../../domain/constants';
import { OTHER_MODELS, UNKNOWN_MODEL_KEY } from '../../domain/model-keys';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const ORIGIN = 'https://www.hondaofdemo.com';
const SLOTS = ['header', 'primary', 'upsell'] as const;
const HOUR = 3_600_000;

/** The flood: this many beacons from ADDRESSES addresses, each address's share exactly its per-IP budget under the default settings. */
const FLOOD = 4_000;
const ADDRESSES = 2;
/** Beacons in flight at once (the flood is sent in concurrent batches). */
const BATCH = 500;
/** Rollup rows with junk models as a writer before this change could leave them (the red team's count). */
const STORED_JUNK = 21_094;
/**
 * Most bytes one row of the analytics answer takes: a model row (a name of up to 100 characters,
 * five numbers), a creative row (id, name, model, slot, size, status, five numbers, verdict) with
 * its needBanner entry. The answer's bound is its fixed part plus the capped rows at these sizes.
 */
const MODEL_ROW_BYTES = 300;
const CREATIVE_ROW_BYTES = 700;

let t: TestApp;
let cookie: string;

const beacon = (body: Record<string, unknown>, remoteAddress = '198.51.100.1') =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, url: `${ORIGIN}/new-inventory?model=civic`, ...body }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN },
    remoteAddress,
  });
const ok = async (body: Record<string, unknown>, remoteAddress?: string) => expect((await beacon(body, remoteAddress)).statusCode).toBe(204);
const get = (path: string) => t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}${path}`, headers: { cookie } });

type ModelRow = { model: string; impressions: number; clicks: number; conversions: number; ctr: number | null };
const analytics = async (period = '90d') => {
  const res = await get(`/analytics?period=${period}`);
  expect(res.statusCode).toBe(200);
  return { bytes: Buffer.byteLength(res.body), body: res.json() as { models: ModelRow[]; creatives: Array<{ model: string; impressions: number }>; current: { impressions: number; clicks: number; conversions: number } } };
};
const byModel = (models: ModelRow[]) => new Map(models.map((m) => [m.model, m]));

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
  // Real shoppers: 10 page views of a Civic header (2 clicked, 1 converted), 20 of an Accord primary banner (1 clicked).
  for (let i = 0; i < 10; i++) await ok({ event: 'impression', type: 'header', model: 'Civic', pv: `real-civic-${i}` });
  for (let i = 0; i < 2; i++) await ok({ event: 'click', type: 'header', model: 'Civic', pv: `real-civic-${i}` });
  await ok({ event: 'conversion', model: 'Civic', pv: 'real-civic-0' });
  for (let i = 0; i < 20; i++) await ok({ event: 'impression', type: 'primary', model: 'Accord', pv: `real-accord-${i}` });
  await ok({ event: 'click', type: 'primary', model: 'Accord', pv: 'real-accord-0' });
  await t.app.events.flush();
});
afterAll(() => t.close());

describe('forged models', () => {
  it("counts a flood of 4,000 beacons with invented models under the one unknown-model key: the dealer's model lists stay as they were", { timeout: 300_000 }, async () => {
    const before = await analytics();
    const catalogue = (await get('/models')).json();
    expect(before.body.models.map((m) => m.model).sort()).toEqual(['accord', 'civic']);

    // Each address sends exactly its per-IP budget of a minute under the default settings.
    expect(FLOOD / ADDRESSES).toBe(MAX_REQUESTS_PER_MINUTE.fallback * RATE_LIMIT_NAT_FACTOR);
    const statuses = new Map<number, number>();
    for (let from = 0; from < FLOOD; from += BATCH) {
      const sent = Array.from({ length: Math.min(BATCH, FLOOD - from) }, (_, k) => {
        const i = from + k;
        // A page view per two beacons: its impression, then its click, both of the same invented model.
        const view = Math.floor(i / 2);
        return beacon({ event: i % 2 === 0 ? 'impression' : 'click', type: SLOTS[view % 3], model: `junk${view}x`, pv: `flood-view-${view}` }, `203.0.113.${i % ADDRESSES}`);
      });
      for (const res of await Promise.all(sent)) statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
    // Within the limits every beacon reached the intake: 2,000 distinct invented models.
    expect(Object.fromEntries(statuses)).toEqual({ 204: FLOOD });
    await t.app.events.flush();

    const distinct = await t.database.db.selectDistinct({ model: eventRollupsHourly.model }).from(eventRollupsHourly).where(eq(eventRollupsHourly.dealerId, DEMO_DEALER.id));
    expect(distinct.map((r) => r.model).sort()).toEqual(['(unknown)', 'accord', 'civic'].sort());
    const after = await analytics();
    const models = byModel(after.body.models);
    expect([...models.keys()].sort()).toEqual(['accord', 'civic', UNKNOWN_MODEL_KEY].sort());
    expect(models.get(UNKNOWN_MODEL_KEY)).toMatchObject({ impressions: FLOOD / 2, clicks: FLOOD / 2 });
    expect(models.get('civic')).toEqual(byModel(before.body.models).get('civic'));
    expect(models.get('accord')).toEqual(byModel(before.body.models).get('accord'));
    expect((await get('/models')).json()).toEqual(catalogue);
    // The answer grew by the unknown model's row and one creative row per slot type, nothing more.
    expect(after.body.creatives.filter((c) => c.model === UNKNOWN_MODEL_KEY)).toHaveLength(SLOTS.length);
    expect(after.bytes - before.bytes).toBeLessThanOrEqual(MODEL_ROW_BYTES + SLOTS.length * CREATIVE_ROW_BYTES);
    const csv = parse((await get('/analytics/export.csv?period=90d')).body, { columns: true }) as Array<Record<string, string>>;
    expect(new Set(csv.map((r) => r.model))).toEqual(new Set(['accord', 'civic', UNKNOWN_MODEL_KEY]));
  });

  it('keeps the answers bounded over junk model keys already stored: the models beyond the cap summed into one row', { timeout: 120_000 }, async () => {
    const before = await analytics();
    const hour = new Date(Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR);
    const junk = Array.from({ length: STORED_JUNK }, (_, i) => ({
      dealerId: DEMO_DEALER.id,
      hour,
      model: `old-junk-${i}`,
      slotType: SLOTS[i % 3]!,
      impressions: 1 + (i % 7),
      clicks: i % 2,
      conversions: 0,
    }));
    for (let i = 0; i < junk.length; i += 1000) await t.database.db.insert(eventRollupsHourly).values(junk.slice(i, i + 1000));
    const [stored] = await t.database.db
      .select({ n: sql<number>`count(distinct ${eventRollupsHourly.model})`.mapWith(Number) })
      .from(eventRollupsHourly)
      .where(eq(eventRollupsHourly.dealerId, DEMO_DEALER.id));
    expect(stored!.n).toBe(STORED_JUNK + 3);

    const after = await analytics();
    const models = byModel(after.body.models);
    expect(after.body.models.length).toBe(MAX_ANALYTICS_MODELS + 1);
    expect(after.body.creatives.length).toBe(MAX_ANALYTICS_CREATIVES + 1);
    // The real models, with the most impressions, keep their rows and figures; nothing is lost from the totals.
    for (const m of ['civic', 'accord', UNKNOWN_MODEL_KEY]) expect(models.get(m)).toEqual(byModel(before.body.models).get(m));
    const sum = (rows: Array<{ impressions: number }>) => rows.reduce((n, r) => n + r.impressions, 0);
    const junkImpressions = sum(junk);
    expect(after.body.current.impressions).toBe(before.body.current.impressions + junkImpressions);
    expect(sum(after.body.models)).toBe(after.body.current.impressions);
    expect(sum(after.body.creatives)).toBe(after.body.current.impressions);
    expect(models.get(OTHER_MODELS)!.impressions).toBe(junkImpressions - sum(after.body.models.filter((m) => m.model.startsWith('old-junk-'))));
    // The size bound follows from the caps: the answer before plus capped rows.
    expect(after.bytes).toBeLessThanOrEqual(before.bytes + (MAX_ANALYTICS_MODELS + 1) * MODEL_ROW_BYTES + (MAX_ANALYTICS_CREATIVES + 1) * CREATIVE_ROW_BYTES);

    // The CSV export: per day the capped models and one '(other)' row.
    const res = await get('/analytics/export.csv?period=90d');
    expect(res.statusCode).toBe(200);
    const csv = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    const days = new Set(csv.map((r) => r.date)).size;
    expect(csv.length).toBeLessThanOrEqual(days * (MAX_ANALYTICS_MODELS + 1));
    expect(csv.some((r) => r.model === OTHER_MODELS)).toBe(true);
    expect(csv.reduce((n, r) => n + Number(r.impressions), 0)).toBe(after.body.current.impressions);
    await t.database.db.delete(eventRollupsHourly).where(and(eq(eventRollupsHourly.dealerId, DEMO_DEALER.id), sql`${eventRollupsHourly.model} like 'old-junk-%'`));
  });
});

describe('the budget of one page view', () => {
  it("counts at most a click per impression of the same slot and model and a conversion per page view, so another model's CTR moves only as far as minted page views take it", async () => {
    const before = byModel((await analytics()).body.models);
    expect(before.get('accord')).toMatchObject({ impressions: 20, clicks: 1, conversions: 0 });
    const forger = '192.0.2.66';
    // Five page views minted by one address, each a shown Accord banner...
    for (let i = 0; i < 5; i++) {
      const pv = `minted-view-${i}`;
      await ok({ event: 'impression', type: 'primary', model: 'Accord', pv }, forger);
      // ...clicked 30 times, clicked in a slot it never showed, and a click moved onto another model...
      for (let k = 0; k < 30; k++) await ok({ event: 'click', type: 'primary', model: 'Accord', pv }, forger);
      await ok({ event: 'click', type: 'header', model: 'Accord', pv }, forger);
      await ok({ event: 'click', type: 'primary', model: 'Civic', pv }, forger);
      // ...and "converted" 20 times with different leads.
      for (let k = 0; k < 20; k++) await ok({ event: 'conversion', model: 'Accord', pv, leadId: `lead-${i}-${k}` }, forger);
    }
    // Accord clicks on the real shoppers' Civic page views: not a banner those page views showed.
    for (let i = 0; i < 10; i++) await ok({ event: 'click', type: 'header', model: 'Accord', pv: `real-civic-${i}` }, forger);
    await t.app.events.flush();

    const after = byModel((await analytics()).body.models);
    // Exactly what five real page views with a click and a conversion each give.
    expect(after.get('accord')).toMatchObject({ impressions: 20 + 5, clicks: 1 + 5, conversions: 5, ctr: (100 * 6) / 25 });
    expect(after.get('civic')).toEqual(before.get('civic'));
    const [forged] = await t.database.db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(events)
      .where(and(eq(events.dealerKey, dealerKeyOf(DEMO_DEALER.id)), sql`${events.pageView} like 'minted-view-%'`));
    expect(forged!.n).toBe(5 * 3); // an impression, a click and a conversion per minted page view
  });
});
