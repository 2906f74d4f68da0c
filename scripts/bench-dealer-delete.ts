/**
 * `tsx scripts/bench-dealer-delete.ts`: times the deletion of the biggest generated dealer (most
 * rolled-up impressions, ids starting with `volume-`) in the server's database (DATABASE_URL,
 * DATABASE_SCHEMA; fill it with `npm run seed:volume` first), while beacon-sized inserts of
 * another generated dealer run beside it, and prints one JSON line:
 * - `deleteMs`: the admin's deleteDealer transaction (what holds the dealer's row lock);
 * - `purgeMs`, `batches`, `longestBatchMs`: the purge of its traffic rows (maintenance/dealer-purge.ts,
 *   no grace period), when the database has dealer_purges (migration 0021); each batch is its own
 *   transaction, so `longestBatchMs` is the longest any purge statement holds its locks;
 * - `rows`: the dealer's events, event keys and hourly rollups before the deletion;
 * - `ingest`: the inserts of the other dealer's events (one row each, through the events table
 *   and its foreign-key checks) made during the deletion and the purge, and the slowest, ms.
 * The database is changed: the dealer is gone afterwards.
 */
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/server/config';
import { openDatabase } from '../src/server/db/client';
import { deleteDealer } from '../src/server/admin/dealers';

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schemaName: config.databaseSchema });
const db = database.db;
const rows = async <T>(q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as { rows: T[] }).rows;

const ranked = await rows<{ dealer_id: string }>(
  sql`SELECT dealer_id FROM dealer_rollup_totals WHERE dealer_id LIKE 'volume-%' ORDER BY impressions DESC, dealer_id LIMIT 2`,
);
const [victim, other] = [ranked[0]?.dealer_id, ranked[1]?.dealer_id];
if (!victim || !other) throw new Error('no generated dealers: run `npm run seed:volume` first');
// Events carry the dealer's integer key since migration 0025 (dealers.key), its text id before.
const keyed =
  Number((await rows<{ n: string }>(sql`SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'dealer_key' AND table_schema = current_schema()`))[0]!.n) > 0;
// Read before the deletion: the events are counted by it after the dealer row is gone.
const victimKey = keyed ? Number((await rows<{ key: number }>(sql`SELECT key FROM dealers WHERE id = ${victim}`))[0]!.key) : null;
const count = async (table: string) =>
  Number(
    (await rows<{ n: string }>(sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE ${table === 'events' && keyed ? sql`dealer_key = ${victimKey}` : sql`dealer_id = ${victim}`}`))[0]!.n,
  );
const before = { events: await count('events'), eventKeys: await count('event_keys'), hourlyRollups: await count('event_rollups_hourly') };
const hasPurge = (await rows<{ t: string | null }>(sql`SELECT to_regclass('dealer_purges')::text AS t`))[0]!.t !== null;

// Beside the deletion: one event of the other dealer at a time, as an ingestion statement would write it.
let ingesting = true;
const ingest = { inserts: 0, slowestMs: 0 };
const writer = (async () => {
  while (ingesting) {
    const t0 = performance.now();
    await db.execute(
      keyed
        ? sql`INSERT INTO events (dealer_key, event, slot_type, model, occurred_at) SELECT key, 'impression', 'header', 'civic', now() FROM dealers WHERE id = ${other}`
        : sql`INSERT INTO events (dealer_id, event, slot_type, model, occurred_at) VALUES (${other}, 'impression', 'header', 'civic', now())`,
    );
    ingest.slowestMs = Math.max(ingest.slowestMs, performance.now() - t0);
    ingest.inserts++;
  }
})();

const t0 = performance.now();
await deleteDealer(db, victim);
const deleteMs = performance.now() - t0;
let purge: Record<string, number> | null = null;
if (hasPurge) {
  const { purgeDeletedDealers } = await import('../src/server/maintenance/dealer-purge');
  let last = performance.now();
  let longestBatchMs = 0;
  const p0 = performance.now();
  // shouldStop is asked before every batch: the time between two asks is one batch.
  const counts = await purgeDeletedDealers(db, {
    graceMs: 0,
    now: new Date(Date.now() + 60_000),
    shouldStop: () => {
      const now = performance.now();
      longestBatchMs = Math.max(longestBatchMs, now - last);
      last = now;
      return false;
    },
  });
  longestBatchMs = Math.max(longestBatchMs, performance.now() - last);
  purge = { purgeMs: Math.round(performance.now() - p0), batches: counts.batches, longestBatchMs: Math.round(longestBatchMs), purged: counts.events + counts.eventKeys + counts.hourlyRollups };
}
ingesting = false;
await writer;
process.stdout.write(
  `${JSON.stringify({ dealer: victim, migration0021: hasPurge, rows: before, deleteMs: Math.round(deleteMs), ...purge, ingest: { inserts: ingest.inserts, slowestMs: Math.round(ingest.slowestMs) } })}\n`,
);
await database.close();
