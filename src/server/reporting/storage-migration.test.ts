/**
 * Migration 0017_storage_compact on a database that already holds events and rollups: every event
 * is kept with its kind (now an enum) and every other column but the client timestamp; the
 * dealers' hour totals (dealer_rollups_hourly) are backfilled from the hourly rollups, the dealer
 * days keep their counts as integers; from then on an ingestion upsert and a corrective delete keep
 * the dealer hours equal to the hourly rows, and the retention's pruning keeps the dealer hours
 * HOURLY_ROLLUP_DAYS while the detailed hours go after DETAIL_HOURLY_DAYS, the detailed days after
 * DETAIL_DAILY_DAYS and the dealer's days stay.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countsText, databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';
import { pruneHourlyRollups } from './service';

const d = DEMO_DEALER.id;

const before = databaseBeforeHooks('0017_storage_compact', async (database) => {
  await database.db.execute(sql.raw(`SELECT event_partitions_ensure('2026-03-01T00:00:00Z', '2026-03-10T00:00:00Z')`));
  await database.db.execute(
    sql.raw(`INSERT INTO events (occurred_at, dealer_id, event, slot_type, model, url, client_timestamp, page_view, lead_id, creative) VALUES
      ('2026-03-01T00:10:00Z', '${d}', 'impression', 'header', 'civic', 'https://www.example.com/new/?model=civic', '2026-03-01T00:09:59Z', 'view-0001', NULL, 'cdn'),
      ('2026-03-01T00:11:00Z', '${d}', 'click', 'header', 'civic', 'https://www.example.com/new/?model=civic', '1772323860000', 'view-0001', NULL, 'cdn'),
      ('2026-03-01T00:20:00Z', '${d}', 'conversion', NULL, 'civic', 'https://www.example.com/thank-you', NULL, 'view-0001', 'abc123', 'cdn'),
      ('2026-03-02T05:00:00Z', '${d}', 'impression', 'primary', 'accord', '', NULL, 'view-0002', NULL, NULL)`),
  );
  await writeHourlyRollups(database, 'dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions', [
    `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 1, 1, 0)`,
    `('${d}', '2026-03-01T00:00:00Z', 'civic', '', 'cdn', 0, 0, 1)`,
    `('${d}', '2026-03-02T05:00:00Z', 'accord', 'primary', '', 1, 0, 0)`,
  ]);
});
const { rows } = before;

const dealerHours = () =>
  rows<Record<string, unknown>>(sql`SELECT to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS hour, impressions, clicks, conversions FROM dealer_rollups_hourly ORDER BY 1`).then((r) =>
    r.map((x) => `${String(x.hour)} ${countsText(x)}`),
  );

describe('migration 0017 storage compact', () => {
  it('keeps every event without its client timestamp, backfills the dealer hours and keeps the dealer days', async () => {
    const stored = await rows<Record<string, unknown>>(sql`
      SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS at, event::text AS event, pg_typeof(event)::text AS kind, slot_type, model,
        coalesce((SELECT url FROM event_urls WHERE id = url_id), '') AS url, page_view, creative, (SELECT id FROM dealers WHERE key = dealer_key) AS dealer
      FROM events ORDER BY occurred_at`);
    expect(stored).toEqual([
      { at: '2026-03-01T00:10', event: 'impression', kind: 'event_kind', slot_type: 'header', model: 'civic', url: 'https://www.example.com/new/?model=civic', page_view: 'view-0001', creative: 'cdn', dealer: d },
      { at: '2026-03-01T00:11', event: 'click', kind: 'event_kind', slot_type: 'header', model: 'civic', url: 'https://www.example.com/new/?model=civic', page_view: 'view-0001', creative: 'cdn', dealer: d },
      { at: '2026-03-01T00:20', event: 'conversion', kind: 'event_kind', slot_type: null, model: 'civic', url: 'https://www.example.com/thank-you', page_view: 'view-0001', creative: 'cdn', dealer: d },
      { at: '2026-03-02T05:00', event: 'impression', kind: 'event_kind', slot_type: 'primary', model: 'accord', url: '', page_view: 'view-0002', creative: null, dealer: d },
    ]);
    expect(await rows(sql`SELECT 1 FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'client_timestamp' AND table_schema = current_schema()`)).toEqual([]);
    expect(await dealerHours()).toEqual(['2026-03-01T00 1/1/1', '2026-03-02T05 1/0/0']);
    const days = await rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, impressions, clicks, conversions, pg_typeof(impressions)::text AS type FROM dealer_rollups_daily ORDER BY 1`);
    expect(days.map((x) => `${String(x.day)} ${countsText(x)} ${String(x.type)}`)).toEqual([
      '2026-03-01 1/1/1 integer',
      '2026-03-02 1/0/0 integer',
    ]);
  });

  it('keeps the dealer hours equal to the hourly rows written afterwards; pruning keeps them longer than the detailed hours', async () => {
    // The ingestion's upsert: one existing row raised, one new row, in one statement.
    await writeHourlyRollups(before.database, 'dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions', [
      `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 2, 1, 0)`,
      `('${d}', '2026-03-03T10:00:00Z', 'civic', 'upsell', '', 4, 0, 0)`,
    ], { upsert: true });
    expect(await dealerHours()).toEqual(['2026-03-01T00 3/2/1', '2026-03-02T05 1/0/0', '2026-03-03T10 4/0/0']);
    // A corrective delete subtracts.
    await before.database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE slot_type = ''`));
    expect(await dealerHours()).toEqual(['2026-03-01T00 3/2/0', '2026-03-02T05 1/0/0', '2026-03-03T10 4/0/0']);

    // 20 days later: the detailed hours are past DETAIL_HOURLY_DAYS, the dealer hours are not.
    expect(await pruneHourlyRollups(before.database.db, new Date('2026-03-23T12:00:00Z'), 100)).toBe(3);
    expect(await rows(sql`SELECT 1 FROM event_rollups_hourly`)).toEqual([]);
    expect(await dealerHours()).toEqual(['2026-03-01T00 3/2/0', '2026-03-02T05 1/0/0', '2026-03-03T10 4/0/0']);
    // 100 days later the dealer hours (3) and the detailed days (4) go too; the dealer's days stay.
    expect(await pruneHourlyRollups(before.database.db, new Date('2026-06-10T12:00:00Z'), 100)).toBe(7);
    expect(await dealerHours()).toEqual([]);
    expect(await rows(sql`SELECT 1 FROM event_rollups_daily`)).toEqual([]);
    const days = await rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, impressions, clicks, conversions FROM dealer_rollups_daily ORDER BY 1`);
    expect(days.map((x) => `${String(x.day)} ${countsText(x)}`)).toEqual(['2026-03-01 3/2/0', '2026-03-02 1/0/0', '2026-03-03 4/0/0']);
    const total = await rows<Record<string, unknown>>(sql`SELECT impressions, clicks, conversions FROM dealer_rollup_totals`);
    expect(total.map(countsText)).toEqual(['8/2/0']);
  });
});
