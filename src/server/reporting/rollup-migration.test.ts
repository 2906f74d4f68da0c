/**
 * Migration 0015_reporting_rollups on a database that already holds hourly rollups: the daily
 * rollups, the per-dealer days and the all-time totals are backfilled from them, and from then on
 * the triggers keep them equal to the hourly rows written (an insert adds, an ON CONFLICT update
 * adds its difference, a corrective delete subtracts, the retention's pruning keeps them).
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countsText, databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';
import { pruneHourlyRollups } from './service';

/** The detailed days with their model, slot type and creative (migration 0026 stores those once, in rollup_details). */
const DETAILED_DAYS = sql.raw('(SELECT r.*, x.model, x.slot_type, x.creative FROM event_rollups_daily r JOIN rollup_details x ON x.id = r.detail_id) AS days');

const before = databaseBeforeHooks('0015_reporting_rollups', async (database) => {
  const d = DEMO_DEALER.id;
  await writeHourlyRollups(database, 'dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions', [
    `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', '', 10, 2, 1)`,
    `('${d}', '2026-03-01T23:00:00Z', 'civic', 'header', '', 5, 1, 0)`,
    `('${d}', '2026-03-01T23:00:00Z', 'civic', 'header', 'cdn', 7, 0, 0)`,
    `('${d}', '2026-03-02T00:00:00Z', 'accord', 'primary', 'placeholder', 4, 1, 1)`,
  ]);
});
const { rows } = before;

const daily = () =>
  rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, model, slot_type, creative, impressions, clicks, conversions FROM ${DETAILED_DAYS} ORDER BY 1, 2, 4`).then((r) =>
    r.map((x) => `${String(x.day)} ${String(x.model)}/${String(x.slot_type)}/${String(x.creative)} ${countsText(x)}`),
  );
const perDay = () =>
  rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, impressions, clicks, conversions FROM dealer_rollups_daily ORDER BY 1`).then((r) =>
    r.map((x) => `${String(x.day)} ${countsText(x)}`),
  );
const allTime = () => rows<Record<string, unknown>>(sql`SELECT impressions, clicks, conversions FROM dealer_rollup_totals`).then((r) => r.map(countsText));

describe('migration 0015 reporting rollups', () => {
  it('backfills the daily rollups, the dealer days and the all-time totals from the hourly rollups by UTC day', async () => {
    expect(await daily()).toEqual(['2026-03-01 civic/header/ 15/3/1', '2026-03-01 civic/header/cdn 7/0/0', '2026-03-02 accord/primary/placeholder 4/1/1']);
    expect(await perDay()).toEqual(['2026-03-01 22/3/1', '2026-03-02 4/1/1']);
    expect(await allTime()).toEqual(['26/4/2']);
  });

  it('keeps them equal to the hourly rows written afterwards; pruning old hours keeps the days', async () => {
    const d = DEMO_DEALER.id;
    // The ingestion's upsert: one new row and one existing row raised, in one statement.
    await writeHourlyRollups(before.database, 'dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions', [
      `('${d}', '2026-03-01T23:00:00Z', 'civic', 'header', '', 3, 1, 1)`,
      `('${d}', '2026-03-02T05:00:00Z', 'accord', 'primary', 'placeholder', 2, 0, 0)`,
    ], { upsert: true });
    expect(await daily()).toEqual(['2026-03-01 civic/header/ 18/4/2', '2026-03-01 civic/header/cdn 7/0/0', '2026-03-02 accord/primary/placeholder 6/1/1']);
    expect(await perDay()).toEqual(['2026-03-01 25/4/2', '2026-03-02 6/1/1']);
    expect(await allTime()).toEqual(['31/5/3']);

    // A corrective delete subtracts.
    await before.database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE creative = 'cdn'`));
    expect(await daily()).toContain('2026-03-01 civic/header/cdn 0/0/0');
    expect(await perDay()).toEqual(['2026-03-01 18/4/2', '2026-03-02 6/1/1']);
    expect(await allTime()).toEqual(['24/5/3']);

    // The retention's pruning (every hour here is far older than the hours kept) leaves the dealer
    // days alone: the 4 detailed hourly rows, the 4 dealer hours and the 3 detailed days (migration
    // 0017, all older than the screens read) go.
    expect(await pruneHourlyRollups(before.database.db, new Date('2026-11-01T00:00:00Z'), 100)).toBe(11);
    expect(await rows(sql`SELECT 1 FROM event_rollups_hourly UNION ALL SELECT 1 FROM dealer_rollups_hourly`)).toEqual([]);
    expect(await perDay()).toEqual(['2026-03-01 18/4/2', '2026-03-02 6/1/1']);
    expect(await allTime()).toEqual(['24/5/3']);
  });
});
