/**
 * Migration 0024_event_device on a database that already holds events and rollups: every stored
 * event and rollup row keeps its counts with the device 'unknown' (never guessed after the fact),
 * so 'all' reads what it read before and neither device claims them; from then on the rollup
 * triggers keep the daily and dealer rollups per device, the reporting reads narrow to one device,
 * and a device outside desktop, mobile and unknown is refused by the database.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countsText, databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';
import { ranked, totals } from './service';

/** The detailed days with their model, slot type and creative (migration 0026 stores those once, in rollup_details). */
const DETAILED_DAYS = sql.raw('(SELECT r.*, x.model, x.slot_type, x.creative FROM event_rollups_daily r JOIN rollup_details x ON x.id = r.detail_id) AS days');

const d = DEMO_DEALER.id;
const WINDOW = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-03-04T00:00:00Z') };

const before = databaseBeforeHooks('0024_event_device', async (database) => {
  await database.db.execute(sql.raw(`SELECT event_partitions_ensure('2026-03-01T00:00:00Z', '2026-03-10T00:00:00Z')`));
  await database.db.execute(
    sql.raw(`INSERT INTO events (occurred_at, dealer_id, event, slot_type, model, page_view, creative) VALUES
      ('2026-03-01T00:10:00Z', '${d}', 'impression', 'header', 'civic', 'view-0001', 'cdn'),
      ('2026-03-01T00:11:00Z', '${d}', 'click', 'header', 'civic', 'view-0001', 'cdn')`),
  );
  await writeHourlyRollups(database, 'dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions', [
    `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 10, 2, 1)`,
    `('${d}', '2026-03-02T05:00:00Z', 'accord', 'primary', '', 4, 0, 0)`,
  ]);
});
const { rows } = before;

type Row = Record<string, unknown>;
const line = (x: Row, key: string) => `${String(x[key])} ${String(x.device)} ${countsText(x)}`;
const dealerDays = () =>
  rows<Row>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, device::text AS device, impressions, clicks, conversions FROM dealer_rollups_daily ORDER BY 1, 2`).then((r) => r.map((x) => line(x, 'day')));
const dealerHours = () =>
  rows<Row>(sql`SELECT to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS hour, device::text AS device, impressions, clicks, conversions FROM dealer_rollups_hourly ORDER BY 1, 2`).then((r) =>
    r.map((x) => line(x, 'hour')),
  );
const detailDays = () =>
  rows<Row>(sql`SELECT to_char(day, 'YYYY-MM-DD') || ' ' || model AS day, device::text AS device, impressions, clicks, conversions FROM ${DETAILED_DAYS} ORDER BY 1, 2`).then((r) =>
    r.map((x) => line(x, 'day')),
  );
const allTime = () => rows<Row>(sql`SELECT impressions, clicks, conversions FROM dealer_rollup_totals`).then((r) => r.map(countsText));

describe('migration 0024 event device', () => {
  it("gives every stored event and rollup the device 'unknown' and keeps every count", async () => {
    const stored = await rows<Row>(sql`SELECT event::text AS event, device::text AS device, pg_typeof(device)::text AS type FROM events ORDER BY occurred_at`);
    expect(stored).toEqual([
      { event: 'impression', device: 'unknown', type: 'device_class' },
      { event: 'click', device: 'unknown', type: 'device_class' },
    ]);
    expect(await detailDays()).toEqual(['2026-03-01 civic unknown 10/2/1', '2026-03-02 accord unknown 4/0/0']);
    expect(await dealerHours()).toEqual(['2026-03-01T00 unknown 10/2/1', '2026-03-02T05 unknown 4/0/0']);
    expect(await dealerDays()).toEqual(['2026-03-01 unknown 10/2/1', '2026-03-02 unknown 4/0/0']);
    expect(await totals(before.database.db, { dealerId: d }, WINDOW)).toEqual({ impressions: 14, clicks: 2, conversions: 1 });
    expect(await totals(before.database.db, { dealerId: d, device: 'desktop' }, WINDOW)).toEqual({ impressions: 0, clicks: 0, conversions: 0 });
  });

  it('keeps the rollups per device from then on, and the reads narrow to one device', async () => {
    // The ingestion's upsert (tracking/service.ts withRollup): an hour already stored (as unknown), now for two devices.
    const upsert = (...values: string[]) =>
      writeHourlyRollups(before.database, 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions', values, { upsert: true });
    await upsert(`('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 'mobile', 3, 1, 0)`, `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 'desktop', 2, 0, 0)`);
    // A second statement raises the mobile row (ON CONFLICT DO UPDATE: the triggers add the difference).
    await upsert(`('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 'mobile', 1, 0, 1)`);
    expect(await dealerHours()).toEqual(['2026-03-01T00 desktop 2/0/0', '2026-03-01T00 mobile 4/1/1', '2026-03-01T00 unknown 10/2/1', '2026-03-02T05 unknown 4/0/0']);
    expect(await dealerDays()).toEqual(['2026-03-01 desktop 2/0/0', '2026-03-01 mobile 4/1/1', '2026-03-01 unknown 10/2/1', '2026-03-02 unknown 4/0/0']);
    expect(await allTime()).toEqual(['20/3/2']);
    expect(await totals(before.database.db, { dealerId: d, device: 'mobile' }, WINDOW)).toEqual({ impressions: 4, clicks: 1, conversions: 1 });
    expect(await totals(before.database.db, { dealerId: d, device: 'desktop' }, WINDOW)).toEqual({ impressions: 2, clicks: 0, conversions: 0 });
    expect(await totals(before.database.db, { dealerId: d, device: 'all' }, WINDOW)).toEqual({ impressions: 20, clicks: 3, conversions: 2 });
    const models = await ranked(before.database.db, { dealerId: d, device: 'mobile' }, ['model'], WINDOW, 5);
    expect(models.map((m) => `${m.model} ${m.impressions}`)).toEqual(['civic 4']);

    // A corrective delete subtracts from its own device's rows only.
    await before.database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE device = 'desktop'`));
    expect(await dealerDays()).toEqual(['2026-03-01 desktop 0/0/0', '2026-03-01 mobile 4/1/1', '2026-03-01 unknown 10/2/1', '2026-03-02 unknown 4/0/0']);
    expect(await allTime()).toEqual(['18/3/2']);
  });

  it('refuses a device outside the three classes', async () => {
    await expect(
      before.database.db.execute(sql.raw(`INSERT INTO event_rollups_hourly (dealer_id, hour, model, slot_type, creative, device) VALUES ('${d}', '2026-03-03T00:00:00Z', 'civic', 'header', '', 'tablet')`)),
    ).rejects.toThrow();
  });
});
