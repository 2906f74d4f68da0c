/**
 * `tsx scripts/measure-disk.ts measure|prune|migrate`: the disk figures of docs/OPERATIONS.md "Disk
 * per million events", on the database of DATABASE_URL and DATABASE_SCHEMA (PostgreSQL; fill it
 * with `npm run seed:volume` first).
 * - measure: VACUUM ANALYZE, then MB per table with its indexes and rows (events: every weekly
 *   partition with its indexes), the events per kind and the total per million events;
 * - prune: the retention job's rollup pruning (pruneHourlyRollups) at NOW_ISO (default now: give
 *   the generation time), then VACUUM FULL of the rollups, event keys and URLs (the steady state);
 * - migrate: runs the pending migrations, timed (a database filled by an older commit).
 * Prints to stdout. @throws the database error of a failing statement.
 */
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/server/db/client';
import { pruneHourlyRollups } from '../src/server/reporting/service';

const mode = process.argv[2];
if (!['measure', 'prune', 'migrate'].includes(mode ?? '') || !process.env.DATABASE_URL) {
  process.stderr.write('usage: DATABASE_URL=postgres://... [DATABASE_SCHEMA=...] tsx scripts/measure-disk.ts measure|prune|migrate\n');
  process.exit(2);
}
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schemaName: process.env.DATABASE_SCHEMA });
const db = database.db;
const rows = async <T>(q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as { rows: T[] }).rows;
const ROLLUPS = ['event_rollups_hourly', 'dealer_rollups_hourly', 'event_rollups_daily', 'rollup_details', 'dealer_rollups_daily', 'dealer_rollup_totals', 'platform_rollups_hourly', 'platform_rollups_daily', 'event_keys', 'event_urls'];
try {
  if (mode === 'migrate') {
    const t0 = performance.now();
    await database.migrate();
    console.log(`migrated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } else if (mode === 'prune') {
    const now = new Date(process.env.NOW_ISO ?? Date.now());
    let n = 0;
    for (let k; (k = await pruneHourlyRollups(db, now, 50_000)) > 0; ) n += k;
    console.log(`pruned ${n} rollup rows at ${now.toISOString()}`);
    for (const t of ROLLUPS) await db.execute(sql.raw(`VACUUM FULL ${t}`));
  } else {
    const parts = await rows<{ name: string }>(sql`SELECT relid::regclass::text AS name FROM pg_partition_tree('events') WHERE isleaf`);
    for (const p of parts) await db.execute(sql.raw(`VACUUM ANALYZE ${p.name}`));
    for (const t of ROLLUPS) await db.execute(sql.raw(`VACUUM ANALYZE ${t}`));
    const mb = (b: unknown) => (Number(b) / 1048576).toFixed(1);
    const [ev] = await rows<{ b: string; heap: string; n: string }>(sql`SELECT sum(pg_total_relation_size(relid)) AS b, sum(pg_relation_size(relid)) AS heap, (SELECT count(*) FROM events) AS n FROM pg_partition_tree('events')`);
    let total = Number(ev!.b);
    const out: string[] = [`events ${mb(ev!.b)} MB (heap ${mb(ev!.heap)}; ${ev!.n} rows, ${(Number(ev!.heap) / Number(ev!.n)).toFixed(1)} B/row heap)`];
    for (const t of ROLLUPS) {
      // The hourly tables are partitioned (migration 0028): a partitioned table or index has no storage of its own, its partitions' is summed.
      const tree = (fn: string, rel: string) => `greatest((SELECT coalesce(sum(${fn}(relid)), 0) FROM pg_partition_tree(${rel})), ${fn}(${rel}))`;
      const [r] = await rows<{ b: string; i: string; n: string }>(
        sql.raw(`SELECT ${tree('pg_total_relation_size', `'${t}'::regclass`)} AS b, ${tree('pg_indexes_size', `'${t}'::regclass`)} AS i, (SELECT count(*) FROM ${t}) AS n`),
      );
      total += Number(r!.b);
      const idx = await rows<{ name: string; b: string }>(
        sql.raw(`SELECT indexrelid::regclass::text AS name, ${tree('pg_relation_size', 'indexrelid')} AS b FROM pg_index WHERE indrelid = '${t}'::regclass`),
      );
      out.push(`${t} ${mb(r!.b)} MB (${r!.n} rows; indexes ${idx.map((x) => `${x.name} ${mb(x.b)}`).join(', ')})`);
    }
    const [k] = await rows<{ i: string; c: string; v: string }>(sql`SELECT count(*) FILTER (WHERE event = 'impression') AS i, count(*) FILTER (WHERE event = 'click') AS c, count(*) FILTER (WHERE event = 'conversion') AS v FROM events`);
    out.push(`per kind ${k!.i} / ${k!.c} / ${k!.v}`);
    out.push(`TOTAL ${mb(total)} MB; per million events ${(Number(total) / 1048576 / (Number(ev!.n) / 1e6)).toFixed(1)} MB`);
    console.log(out.join('\n'));
  }
} finally {
  await database.close();
}
