/**
 * Migration 0028_rollups_partitioned on a database that already holds hourly rollups: both hourly
 * tables become partitioned by UTC day with every row kept where the screens read it (the days
 * within retention in their own partitions, older ones in the DEFAULT partition), the daily tables
 * and totals untouched; the rollup triggers, now on the partitioned table, keep the days equal to
 * the hours through upserts and deletes; the retention pruning removes what is past the cutoffs.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countsText, databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';
import { detailHourlyCutoff, hourlyRollupCutoff } from '../../domain/retention';
import { pruneHourlyRollups } from './service';

const d = DEMO_DEALER.id;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** The migration runs at the wall clock (its partitions follow now()); the rows are placed around it. */
const NOW = new Date(Math.floor(Date.now() / HOUR) * HOUR);
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * HOUR).toISOString();
const dayName = (table: string, iso: string) => `${table}_${iso.slice(0, 10).replace(/-/g, '')}`;

const RECENT = hoursAgo(48);
const MONTH = hoursAgo(30 * 24);
const NEXT = hoursAgo(-2);

/** Every row of an hourly table as '<partition> <hour> <keys...> i/c/v', in key order. */
const hourly = async (table: 'event_rollups_hourly' | 'dealer_rollups_hourly') =>
  (
    await rows<Record<string, unknown>>(
      table === 'event_rollups_hourly'
        ? sql`SELECT c.relname AS part, to_char(r.hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS hour, r.dealer_id AS k, r.model || '/' || r.slot_type || '/' || r.creative || '/' || r.device AS x, r.impressions, r.clicks, r.conversions
            FROM event_rollups_hourly r JOIN pg_class c ON c.oid = r.tableoid ORDER BY 2, 3, 4`
        : sql`SELECT c.relname AS part, to_char(r.hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS hour, r.dealer_key::text AS k, r.device::text AS x, r.impressions, r.clicks, r.conversions
            FROM dealer_rollups_hourly r JOIN pg_class c ON c.oid = r.tableoid ORDER BY 2, 3, 4`,
    )
  ).map((r) => ({ part: String(r.part), row: `${String(r.hour)} ${String(r.k)} ${String(r.x)} ${countsText(r)}` }));
/** The daily tables and totals, as text in key order. */
const days = async () => ({
  detail: (
    await rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, dealer_key, detail_id, device::text AS device, impressions, clicks, conversions FROM event_rollups_daily ORDER BY 1, 2, 3, 4`)
  ).map((r) => `${String(r.day)} ${String(r.dealer_key)} ${String(r.detail_id)} ${String(r.device)} ${countsText(r)}`),
  dealer: (
    await rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, dealer_key, device::text AS device, impressions, clicks, conversions FROM dealer_rollups_daily ORDER BY 1, 2, 3`)
  ).map((r) => `${String(r.day)} ${String(r.dealer_key)} ${String(r.device)} ${countsText(r)}`),
  totals: (await rows<Record<string, unknown>>(sql`SELECT dealer_id, impressions, clicks, conversions FROM dealer_rollup_totals ORDER BY 1`)).map(
    (r) => `${String(r.dealer_id)} ${countsText(r)}`,
  ),
});

let before: { detail: string[]; dealer: string[]; days: Awaited<ReturnType<typeof days>> };

const db = databaseBeforeHooks('0028_rollups_partitioned', async (database) => {
  await writeHourlyRollups(database, 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions', [
    `('${d}', '${RECENT}', 'civic', 'header', 'cdn', 'mobile', 10, 1, 0)`,
    `('${d}', '${RECENT}', 'civic', '', 'cdn', 'mobile', 0, 0, 1)`,
    `('${d}', '${MONTH}', 'accord', 'primary', 'fallback', 'desktop', 7, 0, 0)`,
    `('${d}', '${NEXT}', 'pilot', 'upsell', '', 'unknown', 3, 1, 0)`,
  ]);
  const read = async (table: 'event_rollups_hourly' | 'dealer_rollups_hourly') => (await hourly(table)).map((r) => r.row);
  before = { detail: await read('event_rollups_hourly'), dealer: await read('dealer_rollups_hourly'), days: await days() };
});
const { rows } = db;

describe('migration 0028 hourly rollups partitioned by day', () => {
  it('keeps every hourly row with its counts, each day of the retention in its own partition, the days untouched', async () => {
    expect(before.detail).toHaveLength(4);
    expect(before.dealer).toHaveLength(3);
    const detail = await hourly('event_rollups_hourly');
    const dealer = await hourly('dealer_rollups_hourly');
    expect(detail.map((r) => r.row)).toEqual(before.detail);
    expect(dealer.map((r) => r.row)).toEqual(before.dealer);
    expect(await days()).toEqual(before.days);
    // A month ago is past the ten days of detail kept: the DEFAULT partition, until the pruning deletes it.
    expect(detail.map((r) => r.part)).toEqual([
      'event_rollups_hourly_default',
      dayName('event_rollups_hourly', RECENT),
      dayName('event_rollups_hourly', RECENT),
      dayName('event_rollups_hourly', NEXT),
    ]);
    expect(dealer.map((r) => r.part)).toEqual([MONTH, RECENT, NEXT].map((h) => dayName('dealer_rollups_hourly', h)));
    const kinds = await rows<{ name: string; kind: string }>(
      sql`SELECT relname AS name, relkind::text AS kind FROM pg_class WHERE relname IN ('event_rollups_hourly', 'dealer_rollups_hourly') AND relnamespace = current_schema()::regnamespace ORDER BY 1`,
    );
    expect(kinds).toEqual([{ name: 'dealer_rollups_hourly', kind: 'p' }, { name: 'event_rollups_hourly', kind: 'p' }]);
    const indexes = await rows<{ def: string }>(
      sql`SELECT tablename || ' ' || regexp_replace(indexdef, '^.* USING ', '') AS def FROM pg_indexes WHERE tablename IN ('event_rollups_hourly', 'dealer_rollups_hourly') AND schemaname = current_schema() ORDER BY 1`,
    );
    expect(indexes.map((i) => i.def)).toEqual([
      'dealer_rollups_hourly btree (dealer_key, hour, device)',
      'dealer_rollups_hourly btree (hour)',
      'event_rollups_hourly btree (dealer_id, hour, model, slot_type, creative, device)',
      'event_rollups_hourly btree (hour)',
    ]);
  });

  it('keeps the days equal to the hours through upserts and deletes on the partitioned table', async () => {
    await writeHourlyRollups(db.database, 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions', [
      `('${d}', '${RECENT}', 'civic', 'header', 'cdn', 'mobile', 2, 0, 0)`,
      `('${d}', '${NEXT}', 'odyssey', 'header', 'asset-2', 'mobile', 6, 0, 0)`,
    ], { upsert: true });
    await db.database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE slot_type = ''`));
    // Each day's dealer totals and detailed days summed from the hours that make them.
    const fromHours = await rows<Record<string, unknown>>(sql`
      SELECT to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions
      FROM event_rollups_hourly GROUP BY 1 ORDER BY 1`);
    const fromDays = await rows<Record<string, unknown>>(sql`
      SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions
      FROM event_rollups_daily GROUP BY 1 ORDER BY 1`);
    const dealerDays = await rows<Record<string, unknown>>(sql`
      SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions
      FROM dealer_rollups_daily GROUP BY 1 ORDER BY 1`);
    const text = (list: Record<string, unknown>[]) => list.map((r) => `${String(r.day)} ${countsText(r)}`);
    expect(text(fromDays)).toEqual(text(fromHours));
    expect(text(dealerDays)).toEqual(text(fromHours));
    expect(text(fromHours)).toEqual([`${MONTH.slice(0, 10)} 7/0/0`, `${RECENT.slice(0, 10)} 12/1/0`, `${NEXT.slice(0, 10)} 9/1/0`].sort());
  });

  it("prunes the hours past the cutoffs and keeps the dealer's days and totals", async () => {
    const kept = await days();
    // The month-old detailed hour (in DEFAULT) goes; its dealer hour stays (92 days kept).
    expect(await pruneHourlyRollups(db.database.db, NOW, 100)).toBe(1);
    const detail = await hourly('event_rollups_hourly');
    expect(detail.every((r) => r.row.slice(0, 13) >= detailHourlyCutoff(NOW).toISOString().slice(0, 13))).toBe(true);
    expect(detail).toHaveLength(3);
    // The dealer's hours: a month ago, two days ago, and in two hours per device (odyssey on mobile too).
    expect(await hourly('dealer_rollups_hourly')).toHaveLength(4);
    expect(await days()).toEqual(kept);
    // Four months on, every hour is past both cutoffs: the partitions go whole, the days stay.
    const later = new Date(NOW.getTime() + 120 * DAY);
    expect(hourlyRollupCutoff(later).getTime()).toBeGreaterThan(new Date(NEXT).getTime());
    // 3 detailed hours and 4 dealer hours, and the 5 detailed days (past DETAIL_DAILY_DAYS too).
    expect(await pruneHourlyRollups(db.database.db, later, 100)).toBe(3 + 4 + 5);
    expect(await hourly('event_rollups_hourly')).toEqual([]);
    expect(await hourly('dealer_rollups_hourly')).toEqual([]);
    const left = await rows<{ name: string }>(sql`SELECT relid::text AS name FROM pg_partition_tree('event_rollups_hourly'::regclass) WHERE isleaf`);
    expect(left.map((r) => r.name.replace(/^.*\./, ''))).not.toContain(dayName('event_rollups_hourly', RECENT));
    expect((await days()).dealer).toEqual(kept.dealer);
    expect((await days()).totals).toEqual(kept.totals);
  });
});
