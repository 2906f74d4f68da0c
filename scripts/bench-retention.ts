/**
 * `tsx scripts/bench-retention.ts`: times the retention passes of the data-volume bench
 * (scripts/bench-volume.ts step 5) on a schema already filled by `npm run seed:volume`, so the
 * passes can be measured again and again at the same volume without generating it each time
 * (copy the database first with `CREATE DATABASE copy TEMPLATE filled`: the passes delete).
 *
 * Environment: BENCH_DATABASE_URL (PostgreSQL, required), BENCH_SCHEMA (the seeded schema,
 * required), BENCH_NOW (ISO time of the first pass; default now), BENCH_PREPARE=1 to bring the
 * schema first into the state bench-volume times the passes from (the rollups the screens no
 * longer read pruned at BENCH_NOW by pruneHourlyRollups, the rollup tables compacted with VACUUM
 * FULL ANALYZE, the events VACUUM ANALYZEd) and stop there.
 *
 * Passes (pruneExpired, EVENT_RETENTION_DAYS 90, as bench-volume): the catch-up at BENCH_NOW, then
 * an hour, a day and a week later, each from the state the one before left. Prints one line per pass
 * (seconds, partitions and events dropped, rollup rows deleted) and a JSON summary to stdout.
 */
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/server/db/client';
import { pruneExpired } from '../src/server/maintenance/retention';
import { pruneHourlyRollups } from '../src/server/reporting/service';

const url = process.env.BENCH_DATABASE_URL;
const schema = process.env.BENCH_SCHEMA;
if (!url || !schema) {
  process.stderr.write('bench-retention: BENCH_DATABASE_URL and BENCH_SCHEMA are required\n');
  process.exit(2);
}
const now = process.env.BENCH_NOW ? new Date(process.env.BENCH_NOW) : new Date();
if (Number.isNaN(now.getTime())) {
  process.stderr.write(`bench-retention: BENCH_NOW is not a time: ${process.env.BENCH_NOW}\n`);
  process.exit(2);
}
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const ROLLUP_TABLES = ['event_rollups_hourly', 'event_rollups_daily', 'dealer_rollups_hourly', 'dealer_rollups_daily', 'dealer_rollup_totals', 'platform_rollups_hourly', 'platform_rollups_daily'];

const database = await openDatabase({ databaseUrl: url, schemaName: schema });
const { db } = database;
try {
  if (process.env.BENCH_PREPARE === '1') {
    const t0 = performance.now();
    while ((await pruneHourlyRollups(db, now, 50_000)) > 0);
    for (const t of ROLLUP_TABLES) await db.execute(sql.raw(`VACUUM FULL ANALYZE ${t}`));
    await db.execute(sql`VACUUM ANALYZE events`);
    process.stderr.write(`prepared in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  } else {
    const out: Record<string, unknown> = {};
    for (const [name, at] of [
      ['catchUp', now],
      ['hour', new Date(now.getTime() + HOUR_MS)],
      ['day', new Date(now.getTime() + DAY_MS)],
      ['week', new Date(now.getTime() + 7 * DAY_MS)],
    ] as const) {
      const t1 = performance.now();
      const c = await pruneExpired(db, { retentionDays: 90, now: at });
      const ms = performance.now() - t1;
      out[name] = { ms: Math.round(ms), partitions: c.eventPartitions, events: c.events, rollups: c.hourlyRollups };
      process.stderr.write(`${name} at ${at.toISOString()}: ${ms.toFixed(0)} ms, ${c.eventPartitions} partitions (${c.events} events), ${c.hourlyRollups} rollup rows\n`);
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
} finally {
  await database.close();
}
