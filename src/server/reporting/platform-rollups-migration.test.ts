/**
 * Migration 0029_platform_rollups on a database that already holds rollups: the platform's hours and
 * days start as the sums of every dealer's stored rows, and its triggers keep them so through
 * ingestion upserts, the rollup triggers' deletes, a dealer's cascade delete and the retention's
 * pruning (which drops the platform's expired hours with the dealers').
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countsText, databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';
import { hourlyRollupCutoff } from '../../domain/retention';
import { pruneHourlyRollups } from './service';

const d = DEMO_DEALER.id;
const HOUR = 3_600_000;
const NOW = new Date(Math.floor(Date.now() / HOUR) * HOUR);
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * HOUR).toISOString();
const COLUMNS = 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions';

const db = databaseBeforeHooks('0029_platform_rollups', async (database) => {
  // A copy of the demo dealer under another id (its key is an identity column: a new one).
  const copied = (
    (await database.db.execute(sql`SELECT string_agg(quote_ident(column_name), ', ') AS cols FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'dealers' AND column_name NOT IN ('id', 'name', 'key')`)) as unknown as { rows: Array<{ cols: string }> }
  ).rows[0]!.cols;
  await database.db.execute(sql.raw(`INSERT INTO dealers (id, name, ${copied}) SELECT 'second-dealer', 'Second Dealer', ${copied} FROM dealers WHERE id = '${d}'`));
  await writeHourlyRollups(database, COLUMNS, [
    `('${d}', '${hoursAgo(3)}', 'civic', 'header', 'cdn', 'mobile', 10, 1, 0)`,
    `('${d}', '${hoursAgo(3)}', 'accord', 'primary', 'cdn', 'mobile', 4, 0, 1)`,
    `('second-dealer', '${hoursAgo(3)}', 'civic', 'header', 'cdn', 'mobile', 5, 2, 0)`,
    `('second-dealer', '${hoursAgo(40 * 24)}', 'pilot', 'upsell', '', 'desktop', 7, 0, 0)`,
    `('${d}', '${hoursAgo(200 * 24)}', 'pilot', 'upsell', '', 'desktop', 3, 1, 0)`,
  ]);
});
const { rows } = db;

/** The platform tables' sums and the dealer tables' sums, per hour (or day) and device, as text. */
async function sides(unit: 'hourly' | 'daily') {
  const col = unit === 'hourly' ? 'hour' : 'day';
  const read = async (table: string) =>
    (
      await rows<Record<string, unknown>>(
        sql.raw(`SELECT to_char(${col}, 'YYYY-MM-DD HH24') AS k, device::text AS device, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions
          FROM ${table} GROUP BY 1, 2 HAVING sum(impressions) <> 0 OR sum(clicks) <> 0 OR sum(conversions) <> 0 ORDER BY 1, 2`),
      )
    ).map((r) => `${String(r.k)} ${String(r.device)} ${countsText(r)}`);
  return { platform: await read(`platform_rollups_${unit}`), dealers: await read(`dealer_rollups_${unit}`) };
}

describe('migration 0029 platform rollups', () => {
  it("starts with the sums of the dealers' stored hours and days", async () => {
    const hourly = await sides('hourly');
    expect(hourly.platform).toEqual(hourly.dealers);
    expect(hourly.platform).toHaveLength(3); // 3 hours ago on mobile (both dealers), 40 and 200 days ago on desktop
    const daily = await sides('daily');
    expect(daily.platform).toEqual(daily.dealers);
    expect(daily.platform.some((r) => r.endsWith('mobile 19/3/1'))).toBe(true);
  });

  it('follows upserts, the rollup triggers, a dealer deleted with its rows, and the pruning', async () => {
    await writeHourlyRollups(db.database, COLUMNS, [
      `('${d}', '${hoursAgo(3)}', 'civic', 'header', 'cdn', 'mobile', 2, 0, 0)`,
      `('${d}', '${hoursAgo(1)}', 'odyssey', 'header', 'asset-2', 'desktop', 6, 0, 0)`,
    ], { upsert: true });
    await db.database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE model = 'accord'`));
    for (const unit of ['hourly', 'daily'] as const) {
      const s = await sides(unit);
      expect(s.platform, unit).toEqual(s.dealers);
    }
    expect((await sides('daily')).platform.some((r) => r.endsWith('mobile 17/3/0'))).toBe(true);
    await db.database.db.execute(sql.raw(`DELETE FROM dealers WHERE id = 'second-dealer'`));
    for (const unit of ['hourly', 'daily'] as const) {
      const s = await sides(unit);
      expect(s.platform, unit).toEqual(s.dealers);
    }
    expect((await sides('daily')).platform.some((r) => r.endsWith('mobile 12/1/0'))).toBe(true);
    while ((await pruneHourlyRollups(db.database.db, NOW, 1000)) > 0);
    const cutoff = hourlyRollupCutoff(NOW).toISOString();
    const [left] = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM platform_rollups_hourly WHERE hour < ${cutoff}::timestamptz`);
    expect(left?.n).toBe(0);
    for (const unit of ['hourly', 'daily'] as const) {
      const s = await sides(unit);
      expect(s.platform, unit).toEqual(s.dealers);
    }
  });
});
