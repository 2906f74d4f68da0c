/**
 * Cheap dealer deletion, on PGlite and PostgreSQL: deleting a dealer with a year of traffic takes
 * it off the dealer list, its settings, banner delivery and beacon intake at once (404s), while
 * its events, event keys and hourly rollups stay until the purge job deletes them later, in
 * batches of at most `batchRows` rows, leaving every other dealer's rows and ingestion alone.
 * Its id cannot be reused until the purge is done. Rows are inserted directly and the purge's
 * clock is injected, so nothing sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { addDealerAsAdmin, createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerPurges, dealers, eventKeys, eventRollupsDaily, eventRollupsHourly, events } from '../db/schema';
import { dealerKeyOf } from '../db/dealer-row';
import { ensureEventPartitions } from './partitions';
import { DEALER_PURGE_GRACE_MS, DEALER_PURGE_INTERVAL_MS, purgeDeletedDealers } from './dealer-purge';

const DAY = 86_400_000;
const WEEKS = 53;
const GONE = 'gone-motors';
/** Adds the dealer GONE (Gone Motors) as an admin. */
const createGone = () => addDealerAsAdmin(t, admin, { name: 'Gone Motors', websiteUrl: 'https://www.gonemotors.com' });
const KEPT = DEMO_DEALER.id;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  ({ t, cookie: admin } = await createSignedInTestApp('admin'));
  const created = await createGone();
  expect(created.statusCode, created.body).toBe(201);
  // A year of traffic for both dealers: 3 events a week, a rollup hour a week, and event keys.
  const now = Date.now();
  await ensureEventPartitions(db(), new Date(now - WEEKS * 7 * DAY), new Date(now + DAY));
  for (const dealerId of [GONE, KEPT]) {
    const weeks = Array.from({ length: WEEKS }, (_, w) => new Date(now - w * 7 * DAY - 3_600_000));
    await db()
      .insert(events)
      .values(weeks.flatMap((occurredAt) => (['impression', 'impression', 'click'] as const).map((event) => ({ dealerKey: dealerKeyOf(dealerId), event, slotType: 'header', model: 'civic', occurredAt }))));
    await db()
      .insert(eventRollupsHourly)
      .values(weeks.map((at) => ({ dealerId, hour: new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000), model: 'civic', slotType: 'header', creative: 'placeholder', impressions: 2, clicks: 1 })));
    await db()
      .insert(eventKeys)
      .values(weeks.slice(0, 20).map((at, i) => ({ dealerId, kind: 'impression', key: `view-${i}`, slotType: 'header', at })));
  }
});
afterAll(() => t.close());

const db = () => t.database.db;
/** The dealers' keys as last seen: events and detailed days carry the key (migrations 0025, 0026), so a deleted dealer's are counted by its old one. */
const keyOf = new Map<string, number>();
const rowsOf = async (table: PgTable, dealerId: string) => {
  if (table !== events && table !== eventRollupsDaily) return db().$count(table, sql`dealer_id = ${dealerId}`);
  const [row] = await db().select({ key: dealers.key }).from(dealers).where(eq(dealers.id, dealerId));
  if (row) keyOf.set(dealerId, row.key);
  return db().$count(table, sql`dealer_key = ${keyOf.get(dealerId)!}`);
};
const traffic = async (dealerId: string) => ({
  events: await rowsOf(events, dealerId),
  eventKeys: await rowsOf(eventKeys, dealerId),
  hourlyRollups: await rowsOf(eventRollupsHourly, dealerId),
});
const banner = (dealerId: string) => t.app.inject({ url: `/api/scripts/${dealerId}/asset?model=civic&type=header&variant=desktop`, headers: { accept: 'image/webp,*/*' } });
const beacon = (dealerId: string, site: string, pv: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId, event: 'impression', type: 'header', model: 'civic', url: `${site}/new-inventory?model=civic`, pv }),
    headers: { 'content-type': 'text/plain', 'user-agent': UA, origin: site },
  });

describe('deleting a dealer with a year of traffic', () => {
  it('takes it off every screen, delivery and beacon at once, and leaves its traffic rows to the purge', async () => {
    expect((await banner(GONE)).statusCode).toBe(200);
    const before = await traffic(GONE);
    expect(before).toEqual({ events: WEEKS * 3, eventKeys: 20, hourlyRollups: WEEKS });

    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/admin/dealers/${GONE}`, headers: { cookie: admin } });
    expect(deleted.statusCode).toBe(204);

    const list = await t.app.inject({ url: '/api/admin/dealers', headers: { cookie: admin } });
    expect(list.statusCode).toBe(200);
    expect(JSON.stringify(list.json())).not.toContain(GONE);
    expect((await t.app.inject({ url: `/api/dealers/${GONE}`, headers: { cookie: admin } })).statusCode).toBe(404);
    expect((await banner(GONE)).statusCode).toBe(404);
    expect((await beacon(GONE, 'https://www.gonemotors.com', 'view-after-delete')).statusCode).toBe(404);
    // Its daily rollups went with the dealer (they cascade); the traffic rows wait for the purge.
    expect(await rowsOf(eventRollupsDaily, GONE)).toBe(0);
    expect(await traffic(GONE)).toEqual(before);
    // The purge finds its events by the key they carry.
    expect(await db().select({ key: dealerPurges.dealerKey }).from(dealerPurges).where(eq(dealerPurges.dealerId, GONE))).toEqual([{ key: keyOf.get(GONE) }]);
    // The id is not free while its rows remain.
    expect((await createGone()).statusCode).toBe(409);

    // Ingestion for the other dealers goes on.
    const kept = await rowsOf(events, KEPT);
    expect((await beacon(KEPT, 'https://www.hondaofdemo.com', 'view-kept-1')).statusCode).toBe(204);
    await t.app.events.flush();
    expect(await rowsOf(events, KEPT)).toBe(kept + 1);
  });

  it('purges the rows in bounded batches after the grace period, beside ingestion, and frees the id', async () => {
    const keptBefore = await traffic(KEPT);
    // Within the grace period nothing is purged.
    expect(await purgeDeletedDealers(db(), { now: new Date() })).toMatchObject({ dealers: 0, events: 0, batches: 0 });

    const later = new Date(Date.now() + DEALER_PURGE_GRACE_MS + 1000);
    const batchRows = 10;
    // A beacon of the kept dealer written while the purge runs.
    const [counts, accepted] = await Promise.all([
      purgeDeletedDealers(db(), { now: later, batchRows }),
      beacon(KEPT, 'https://www.hondaofdemo.com', 'view-kept-2').then(async (res) => (await t.app.events.flush(), res.statusCode)),
    ]);
    expect(accepted).toBe(204);
    expect(counts).toMatchObject({ dealers: 1, events: WEEKS * 3, eventKeys: 20, hourlyRollups: WEEKS });
    // Every statement deleted at most batchRows rows: the year took many short statements.
    expect(counts.batches).toBeGreaterThanOrEqual(Math.ceil((WEEKS * 3 + 20 + WEEKS) / batchRows));
    expect(await traffic(GONE)).toEqual({ events: 0, eventKeys: 0, hourlyRollups: 0 });
    expect(await db().select().from(dealerPurges)).toEqual([]);
    // The other dealer's rows are untouched, the beacon included.
    const keptAfter = await traffic(KEPT);
    expect(keptAfter.events).toBe(keptBefore.events + 1);
    expect(keptAfter.eventKeys).toBe(keptBefore.eventKeys + 1);
    expect(keptAfter.hourlyRollups).toBeGreaterThanOrEqual(keptBefore.hourlyRollups);

    // The id is free again; the new dealer starts with no traffic.
    expect((await createGone()).statusCode).toBe(201);
    expect(await traffic(GONE)).toEqual({ events: 0, eventKeys: 0, hourlyRollups: 0 });
  });

  it('runs as a job claimed once per interval across processes', async () => {
    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/admin/dealers/${GONE}`, headers: { cookie: admin } });
    expect(deleted.statusCode).toBe(204);
    const at = new Date(Date.now() + DEALER_PURGE_GRACE_MS + 5 * DEALER_PURGE_INTERVAL_MS);
    expect(await t.app.dealerPurge.tick(at)).toMatchObject({ dealers: 1 });
    expect(await t.app.dealerPurge.tick(at)).toBeNull(); // claimed for this interval
    expect(await db().select().from(dealerPurges)).toEqual([]);
  });
});
