/**
 * Event storage by time (migration 0014): `events` is partitioned by RANGE (occurred_at), one
 * partition per UTC week from Monday 00:00, named events_YYYYMMDD after that Monday. Counting once
 * is decided by `event_keys` (tracking/service.ts), kept only as long as a key can matter.
 *
 * - Partitions are created ahead: the retention job (lease-claimed, hourly) makes sure the current
 *   week and the next PARTITION_WEEKS_AHEAD exist; the migration created them for a fresh
 *   database; and the writer creates the week of any event it is about to store whose partition it
 *   has not seen (ensurePartitionsFor), so no event waits for the job. No DEFAULT partition (see
 *   the migration).
 * - Retention drops a partition once all of it is older than the cutoff (its end <= now -
 *   EVENT_RETENTION_DAYS): one catalog change instead of deleting rows, no WAL per row, no vacuum,
 *   and the rows are not read (their number comes from the table statistics, partitionRows).
 *   DROP TABLE takes an ACCESS EXCLUSIVE lock on `events` for the moment of the drop (up to
 *   DROP_PARTITIONS_PER_STATEMENT partitions at once); it waits at most DROP_LOCK_TIMEOUT_MS for
 *   writers' transactions to end (and makes new writers wait no longer), else those partitions
 *   are left to the next run.
 * - event_keys rows go after EVENT_KEY_TTL_MS (lead keys after EVENT_RETENTION_DAYS), in bounded
 *   DELETE batches: the table holds about two days of keys, so a run deletes about an hour's.
 * - The hourly rollups (event_rollups_hourly, dealer_rollups_hourly; migration 0028) are
 *   partitioned by UTC day, <table>_YYYYMMDD, with a DEFAULT partition for any other hour. The same
 *   job keeps today's and the next weeks' days created (the writer does not: a row of a missing day
 *   lands in DEFAULT, and creating its day later moves it there); the rollup pruning
 *   (reporting/service.ts pruneHourlyRollups) drops the days past its cutoffs with
 *   dropExpiredRollupPartitions, the same way as the events weeks.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';

/** One partition's span, ms (a week, 168 hours: UTC has no daylight saving). */
export const WEEK_MS = 7 * 86_400_000;
/** Weeks after the current one whose partitions the retention job keeps created. */
export const PARTITION_WEEKS_AHEAD = 2;
/**
 * How long after its impression a click counts (the same page view, slot and model): a day, a tab
 * left open included. The click's lookup reads keys no older than this.
 */
export const CLICK_WINDOW_MS = 86_400_000;
/**
 * How long impression, click and conversion keys are kept: longer than CLICK_WINDOW_MS and
 * CONVERSION_WINDOW_MS (30 min) and than any beacon retry (minutes). A duplicate arriving later than
 * this would count again; none does. Lead keys stay EVENT_RETENTION_DAYS.
 */
export const EVENT_KEY_TTL_MS = 2 * 86_400_000;
/** Longest wait for the lock on `events` when dropping partitions, ms. */
export const DROP_LOCK_TIMEOUT_MS = 250;
/**
 * Expired partitions dropped by one DROP TABLE (one transaction, one lock on `events`, one commit):
 * the catch-up over a year of old weeks takes 5 commits instead of 39; the lock is held for the
 * catalog changes of these few tables only.
 */
export const DROP_PARTITIONS_PER_STATEMENT = 8;

/** Monday 1970-01-05 00:00 UTC, the first week start after the epoch, ms. */
const FIRST_MONDAY_MS = 4 * 86_400_000;

/** The start (Monday 00:00 UTC) of the week holding `ms`, ms since the epoch. */
export function weekStart(ms: number): number {
  return Math.floor((ms - FIRST_MONDAY_MS) / WEEK_MS) * WEEK_MS + FIRST_MONDAY_MS;
}

/** The partition name of the week starting at `startMs`: events_YYYYMMDD. */
export function partitionName(startMs: number): string {
  return `events_${new Date(startMs).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** An events partition: its name and its range [start, end), ms. */
export interface EventPartition {
  name: string;
  start: number;
  end: number;
}

/**
 * Creates the missing weekly partitions covering [from, until) (SQL function
 * event_partitions_ensure of migration 0014; a concurrent creator is not an error).
 * @returns how many it created. @throws the database error.
 */
export async function ensureEventPartitions(db: Db, from: Date, until: Date): Promise<number> {
  const result = (await db.execute(sql`SELECT event_partitions_ensure(${from.toISOString()}::timestamptz, ${until.toISOString()}::timestamptz) AS n`)) as unknown as {
    rows: Array<{ n: number | string }>;
  };
  return Number(result.rows[0]?.n ?? 0);
}

/**
 * The partitions of `parent` named `<parent>_YYYYMMDD` (pg_inherits; a DEFAULT partition is left
 * out), each spanning `spanMs` from that UTC date, oldest first.
 */
async function datedPartitions(db: Db, parent: string, spanMs: number): Promise<EventPartition[]> {
  const result = (await db.execute(
    sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass(${parent})`,
  )) as unknown as { rows: Array<{ name: string }> };
  const pattern = new RegExp(`^${parent}_(\\d{4})(\\d{2})(\\d{2})$`);
  return result.rows
    .flatMap(({ name }) => {
      const m = pattern.exec(name);
      if (!m) return [];
      const start = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      return [{ name, start, end: start + spanMs }];
    })
    .sort((a, b) => a.start - b.start);
}

/** The weekly partitions of `events`, oldest first. */
export function eventPartitions(db: Db): Promise<EventPartition[]> {
  return datedPartitions(db, 'events', WEEK_MS);
}

/** Weeks (start ms) whose partitions this process has seen exist, per database (ensurePartitionsFor). */
const knownWeeks = new WeakMap<Db, Set<number>>();

/**
 * Makes sure the partitions of the weeks of `times` (ms) exist before a batch with these
 * occurred_at values is written; a database round trip only for a week this process has not
 * seen yet. @throws the database error.
 */
export async function ensurePartitionsFor(db: Db, times: Iterable<number>): Promise<void> {
  let known = knownWeeks.get(db);
  if (!known) knownWeeks.set(db, (known = new Set()));
  for (const t of times) {
    const week = weekStart(t);
    if (known.has(week)) continue;
    await ensureEventPartitions(db, new Date(week), new Date(week + WEEK_MS));
    known.add(week);
  }
}

/** Forgets the partitions this process has seen (a write found one missing: retention dropped it). */
export function forgetPartitions(db: Db): void {
  knownWeeks.delete(db);
}

/** The hourly rollup tables partitioned by UTC day (migration 0028). */
export type RollupTable = 'event_rollups_hourly' | 'dealer_rollups_hourly';
/** One rollup partition's span, ms (a UTC day). */
export const DAY_MS = 86_400_000;

/** A rollup table's daily partitions (not its DEFAULT one), oldest first. */
export function rollupPartitions(db: Db, table: RollupTable): Promise<EventPartition[]> {
  return datedPartitions(db, table, DAY_MS);
}

/**
 * Creates the missing daily partitions of `table` covering [from, until) (SQL function
 * rollup_partitions_ensure of migration 0028, which moves a day's rows out of the DEFAULT
 * partition into it). @returns how many it created. @throws the database error.
 */
export async function ensureRollupPartitions(db: Db, table: RollupTable, from: Date, until: Date): Promise<number> {
  const result = (await db.execute(
    sql`SELECT rollup_partitions_ensure(${table}, ${from.toISOString()}::timestamptz, ${until.toISOString()}::timestamptz) AS n`,
  )) as unknown as { rows: Array<{ n: number | string }> };
  return Number(result.rows[0]?.n ?? 0);
}

/** What dropping a rollup table's expired partitions did. */
export interface DroppedRollups {
  /** Rows the dropped partitions held (counted just before the drop). */
  rows: number;
  /** Partitions dropped. */
  partitions: number;
}

/**
 * Drops every daily partition of `table` whose end is at or before `cutoff`, like the events
 * partitions (DROP_PARTITIONS_PER_STATEMENT per DROP TABLE, each waiting at most
 * DROP_LOCK_TIMEOUT_MS for the lock on the table; those not granted stay, and the caller's row
 * pruning deletes their rows). No trigger fires: the daily tables and totals keep the counts. The
 * rows are counted before each drop (count(*) of a day's partition: an index-free sequential read,
 * no WAL, no dead rows), so the job reports exact counts. Stops between statements when
 * `shouldStop`. Nothing to do when the table is not partitioned (a database before migration 0028).
 * @throws the database error of a failing statement other than a lock timeout.
 */
export async function dropExpiredRollupPartitions(db: Db, table: RollupTable, cutoff: Date, shouldStop: () => boolean): Promise<DroppedRollups> {
  const counts: DroppedRollups = { rows: 0, partitions: 0 };
  const expired = (await rollupPartitions(db, table)).filter((p) => p.end <= cutoff.getTime());
  for (let i = 0; i < expired.length && !shouldStop(); i += DROP_PARTITIONS_PER_STATEMENT) {
    const group = expired.slice(i, i + DROP_PARTITIONS_PER_STATEMENT);
    const rows = await dropTogether(db, group, async (tx) => {
      const counted = (await tx.execute(
        sql.raw(`SELECT (${group.map((p) => `(SELECT count(*) FROM "${p.name}")`).join(' + ')})::int AS n`),
      )) as unknown as { rows: Array<{ n: number | string }> };
      return Number(counted.rows[0]?.n ?? 0);
    });
    if (rows === null) continue;
    counts.rows += rows;
    counts.partitions += group.length;
  }
  return counts;
}

/** The UTC day start of `ms`. */
function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** What one retention pass did to event storage. */
export interface EventStorageCounts {
  /** Events in the partitions dropped. */
  events: number;
  /** Partitions dropped. */
  partitions: number;
  /** event_keys rows deleted. */
  keys: number;
}

/**
 * The event-storage part of a retention pass at `now`: creates the partitions of the current week
 * and the next PARTITION_WEEKS_AHEAD (and the hourly rollups' days from today through the same
 * weeks), drops every partition whose end is at or before `now -
 * retentionDays` (DROP_PARTITIONS_PER_STATEMENT at a time, each statement waiting at most
 * DROP_LOCK_TIMEOUT_MS for its lock; partitions whose lock was not granted stay for the next run;
 * their events counted by partitionRows), and deletes expired event_keys rows in
 * batches of `batchRows`. @throws the database error of a failing statement other than a lock timeout.
 */
export async function maintainEventStorage(
  db: Db,
  opts: { now: Date; retentionDays: number; batchRows: number; shouldStop: () => boolean },
): Promise<EventStorageCounts> {
  const now = opts.now.getTime();
  const cutoff = now - opts.retentionDays * 86_400_000;
  const ahead = new Date(weekStart(now) + (PARTITION_WEEKS_AHEAD + 1) * WEEK_MS);
  await ensureEventPartitions(db, new Date(weekStart(now)), ahead);
  // The hourly rollups' days from today through the same weeks (migration 0028). Creating a day
  // locks its table against writers for the moment of the catalog change: it waits at most
  // DROP_LOCK_TIMEOUT_MS for the lock, else the day is left to the next run (three weeks ahead, so
  // many runs come before it is needed; a row of a day not created waits in DEFAULT meanwhile).
  for (const table of ['event_rollups_hourly', 'dealer_rollups_hourly'] as const) {
    await db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`SET LOCAL lock_timeout = '${DROP_LOCK_TIMEOUT_MS}ms'`));
        await ensureRollupPartitions(tx as unknown as Db, table, new Date(dayStart(now)), ahead);
      })
      .catch((err: unknown) => {
        if (!lockNotAvailable(err)) throw err;
      });
  }

  const counts: EventStorageCounts = { events: 0, partitions: 0, keys: 0 };
  const expired = (await eventPartitions(db)).filter((p) => p.end <= cutoff);
  for (let i = 0; i < expired.length && !opts.shouldStop(); i += DROP_PARTITIONS_PER_STATEMENT) {
    const group = expired.slice(i, i + DROP_PARTITIONS_PER_STATEMENT);
    // Counted before the lock, so writers never wait for the count: nothing is written to a week
    // this old but a replayed journal's stray event, which the count may then miss.
    const rows = await partitionRows(db, group.map((p) => p.name));
    if ((await dropTogether(db, group)) === null) continue;
    counts.events += rows;
    counts.partitions += group.length;
  }
  forgetPartitions(db);

  const keyCutoff = new Date(now - EVENT_KEY_TTL_MS);
  const leadCutoff = new Date(cutoff);
  for (;;) {
    const result = (await db.execute(sql`
      WITH gone AS (
        DELETE FROM event_keys WHERE ctid = ANY (ARRAY(
          SELECT ctid FROM event_keys
          WHERE at < ${keyCutoff.toISOString()}::timestamptz AND (kind <> 'lead' OR at < ${leadCutoff.toISOString()}::timestamptz)
          LIMIT ${opts.batchRows}))
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`)) as unknown as { rows: Array<{ n: number | string }> };
    const n = Number(result.rows[0]?.n ?? 0);
    counts.keys += n;
    if (n < opts.batchRows || opts.shouldStop()) break;
  }
  return counts;
}

/**
 * The events in the partitions `names`, for the retention job's counts: each partition's table
 * statistics (pg_class.reltuples, kept by autovacuum's ANALYZE and VACUUM; exact for a small
 * table, an estimate within a few per cent for a large one) when it has been analyzed or vacuumed,
 * else counted with count(*). A written week is analyzed by autovacuum long before it expires, so a
 * pass does not read the rows it drops: counting them took 0.3 s per week of a 20M-events year
 * and most of an 11 s catch-up over 39 weeks (docs/PERFORMANCE.md). @throws the database error.
 */
export async function partitionRows(db: Db, names: string[]): Promise<number> {
  if (names.length === 0) return 0;
  const stats = (await db.execute(
    sql`SELECT n.name, c.reltuples::float8 AS n FROM unnest(${`{${names.join(',')}}`}::text[]) AS n(name) LEFT JOIN pg_class c ON c.oid = to_regclass('"' || n.name || '"')`,
  )) as unknown as { rows: Array<{ name: string; n: number | string | null }> };
  let total = 0;
  for (const r of stats.rows) {
    const estimate = r.n === null ? -1 : Number(r.n);
    if (estimate >= 0) {
      total += Math.round(estimate);
      continue;
    }
    // Never analyzed nor vacuumed (reltuples -1): small, or written moments ago; counting reads it.
    const counted = (await db.execute(sql.raw(`SELECT count(*)::int AS n FROM "${r.name}"`))) as unknown as { rows: Array<{ n: number | string }> };
    total += Number(counted.rows[0]?.n ?? 0);
  }
  return total;
}

/**
 * Drops `partitions` in one DROP TABLE, waiting at most DROP_LOCK_TIMEOUT_MS for the lock; in the
 * same transaction, first, `count` reads what they hold. @returns what `count` found (0 without
 * one), or null when the lock was not granted (the partitions stay). @throws any other database error.
 */
async function dropTogether(db: Db, partitions: EventPartition[], count?: (tx: Db) => Promise<number>): Promise<number | null> {
  return db
    .transaction(async (tx) => {
      await tx.execute(sql.raw(`SET LOCAL lock_timeout = '${DROP_LOCK_TIMEOUT_MS}ms'`));
      const rows = count ? await count(tx as unknown as Db) : 0;
      await tx.execute(sql.raw(`DROP TABLE ${partitions.map((p) => `"${p.name}"`).join(', ')}`));
      return rows;
    })
    .catch((err: unknown) => {
      if (lockNotAvailable(err)) return null;
      throw err;
    });
}

/** True for PostgreSQL's lock_not_available (55P03), as lock_timeout raises it. */
function lockNotAvailable(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '55P03') return true;
  }
  return false;
}
