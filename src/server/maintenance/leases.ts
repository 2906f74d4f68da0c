/**
 * Sharded job leases: a periodic job whose work is split over S shards (hash of a key, e.g. the
 * dealer id, mod S), each shard a `job_leases` row named `<job>:<i>/<S>`, so several server
 * processes share one pass. A process claims one due shard at a time with
 * `UPDATE ... WHERE name IN (SELECT ... WHERE next_run_at <= now FOR UPDATE SKIP LOCKED LIMIT 1)`,
 * which moves next_run_at to `now + leaseMs`: no other process claims the shard while the lease
 * runs. The holder renews the lease while it works and releases the shard when done by moving
 * next_run_at to the shard's next run. A process that dies leaves the lease to expire; the next pass
 * of any process after `leaseMs` claims the shard again.
 *
 * The next_run_at a claim or renewal wrote is the lease's fencing token: renew and release change
 * the row only while it still holds that value, so a holder whose lease expired and was taken over
 * learns it lost the shard instead of overwriting the new holder's lease. No schema change: the
 * rows use job_leases' name, next_run_at, last_run_at and last_result columns.
 */
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { jobLeases } from '../db/schema';

/** A shard this process holds until `until` (the value of its row's next_run_at). */
export interface ShardLease {
  /** The job_leases row, `<job>:<index>/<shards>`. */
  name: string;
  /** The shard's index, 0 <= index < shards. */
  index: number;
  /** When the lease expires; also the fencing token renew and release compare against. */
  until: Date;
}

/** The job_leases row names of `job`'s `shards` shards, e.g. 'notifications:3/32'. @throws RangeError unless 1 <= shards <= 1024. */
export function shardNames(job: string, shards: number): string[] {
  if (!Number.isInteger(shards) || shards < 1 || shards > 1024) throw new RangeError(`shards must be an integer from 1 to 1024, got ${shards}`);
  return Array.from({ length: shards }, (_, i) => `${job}:${i}/${shards}`);
}

/** The shard (0 .. shards-1) of `key`: FNV-1a 32-bit hash of its UTF-16 code units, mod `shards`. Stable across processes and versions. */
export function shardOf(key: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** The shard index encoded in a row name of shardNames. */
function indexOf(name: string): number {
  return Number(name.slice(name.lastIndexOf(':') + 1, name.lastIndexOf('/')));
}

/** Creates the job_leases rows of `names` that are missing, due at `now` (one statement). */
export async function ensureShardRows(db: Db, names: string[], now: Date): Promise<void> {
  await db
    .insert(jobLeases)
    .values(names.map((name) => ({ name, nextRunAt: now })))
    .onConflictDoNothing({ target: jobLeases.name });
}

/**
 * Claims one shard of `names` that is due at `now` (next_run_at <= now) and not being claimed by
 * another transaction, until `until` (later than `now`). Returns the lease, or null when no shard
 * is due. The rows must exist (ensureShardRows).
 */
export async function claimShard(db: Db, names: string[], now: Date, until: Date): Promise<ShardLease | null> {
  const due = db
    .select({ name: jobLeases.name })
    .from(jobLeases)
    .where(and(inArray(jobLeases.name, names), lte(jobLeases.nextRunAt, now)))
    .orderBy(asc(jobLeases.nextRunAt), asc(jobLeases.name))
    .limit(1)
    .for('update', { skipLocked: true });
  const [row] = await db
    .update(jobLeases)
    .set({ nextRunAt: until })
    .where(and(sql`${jobLeases.name} in ${due}`, lte(jobLeases.nextRunAt, now)))
    .returning({ name: jobLeases.name });
  return row ? { name: row.name, index: indexOf(row.name), until } : null;
}

/**
 * Extends `lease` to `now + leaseMs`. Returns the renewed lease, or null when the shard is no longer
 * this lease's (it expired and another process claimed it): stop working on it then.
 */
export async function renewShard(db: Db, lease: ShardLease, leaseMs: number, now: Date): Promise<ShardLease | null> {
  const until = new Date(Math.max(now.getTime() + leaseMs, lease.until.getTime()));
  const rows = await db
    .update(jobLeases)
    .set({ nextRunAt: until })
    .where(and(eq(jobLeases.name, lease.name), eq(jobLeases.nextRunAt, lease.until)))
    .returning({ name: jobLeases.name });
  return rows.length ? { ...lease, until } : null;
}

/**
 * Releases `lease`: the shard is next due at `nextRunAt`; `lastRunAt` and `lastResult` (cut to 500
 * characters) record the run. Returns false when the lease had been lost (nothing changed).
 */
export async function releaseShard(db: Db, lease: ShardLease, nextRunAt: Date, lastRunAt: Date, lastResult: string): Promise<boolean> {
  const rows = await db
    .update(jobLeases)
    .set({ nextRunAt, lastRunAt, lastResult: lastResult.slice(0, 500) })
    .where(and(eq(jobLeases.name, lease.name), eq(jobLeases.nextRunAt, lease.until)))
    .returning({ name: jobLeases.name });
  return rows.length > 0;
}
