/**
 * Purge of deleted dealers' traffic rows (migration 0021, admin/dealers.ts deleteDealer). Deleting
 * a dealer removes its row and settings at once and lists its id in dealer_purges; its events,
 * event_keys and hourly rollups (no foreign key to dealers) are deleted here, later, in bounded
 * batches: at most DEALER_PURGE_BATCH_ROWS rows per DELETE statement, each its own transaction, so
 * no statement holds row locks for long and ingestion, which writes other dealers' rows into the
 * same tables, never waits on it. Events are deleted partition by partition, by the dealer's key
 * kept in dealer_purges (they have no index on dealer_key: each batch scans one week's partition); event_keys and hourly rollups through their
 * primary keys, which start with dealer_id. The hourly rollups go with the rollup triggers told it
 * is pruning (dc_banners.rollup_prune, migration 0015): the dealer's daily rollups went with it.
 * When every table is clean the dealer_purges row goes, and the id may be given to a new dealer.
 *
 * A dealer is purged only DEALER_PURGE_GRACE_MS after its deletion, so that beacons another
 * process buffered before the deletion have been written (or refused) first. One pass per
 * DEALER_PURGE_INTERVAL_MS across server processes (the job_leases row-claim of retention.ts); a
 * pass stops between batches when the server closes, and the next pass carries on (every delete
 * is idempotent).
 */
import { asc, eq, lte, sql, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { dealerPurges, eventKeys, eventRollupsHourly, jobLeases } from '../db/schema';
import { claimJob } from './retention';
import { eventPartitions } from './partitions';
import { PeriodicTask } from './periodic';

/** The job_leases row of this job. */
export const DEALER_PURGE_JOB = 'dealer-purge';
/** How often the purge runs across all processes, milliseconds. */
export const DEALER_PURGE_INTERVAL_MS = 60_000;
/** How long after its deletion a dealer's rows are purged, milliseconds (event buffers flushed by then). */
export const DEALER_PURGE_GRACE_MS = 60_000;
/** Most rows one DELETE statement removes. */
export const DEALER_PURGE_BATCH_ROWS = 5_000;

/** What one purge pass did. */
export interface DealerPurgeCounts {
  /** Deleted dealers whose rows are all gone now (their dealer_purges rows deleted). */
  dealers: number;
  events: number;
  eventKeys: number;
  hourlyRollups: number;
  /** DELETE statements run (each its own transaction, at most batchRows rows). */
  batches: number;
}

export interface DealerPurgeOptions {
  /** The pass's clock (tests inject it); default the current time. */
  now?: Date;
  /** Rows per DELETE statement; default DEALER_PURGE_BATCH_ROWS. */
  batchRows?: number;
  /** Only dealers deleted at least this long before `now` are purged, ms; default DEALER_PURGE_GRACE_MS. */
  graceMs?: number;
  /** Checked between batches; true stops the pass early (server closing). */
  shouldStop?: () => boolean;
}

/** Runs a `DELETE ... RETURNING 1` and returns how many rows it deleted (both drivers answer `rows`). */
const deleted = async (db: Db, query: SQL): Promise<number> => ((await db.execute(query)) as unknown as { rows: unknown[] }).rows.length;

/**
 * Purges the traffic rows of the dealers deleted at least `graceMs` before `now`, oldest deletion
 * first, in batches (see the module doc), without claiming the job. A dealer whose rows are all
 * gone loses its dealer_purges row; a pass stopped early leaves it for the next one.
 * @throws the database error of a failing statement (earlier batches stay deleted).
 */
export async function purgeDeletedDealers(db: Db, opts: DealerPurgeOptions = {}): Promise<DealerPurgeCounts> {
  const now = opts.now ?? new Date();
  const batchRows = opts.batchRows ?? DEALER_PURGE_BATCH_ROWS;
  const shouldStop = opts.shouldStop ?? (() => false);
  const counts: DealerPurgeCounts = { dealers: 0, events: 0, eventKeys: 0, hourlyRollups: 0, batches: 0 };
  const due = await db
    .select({ dealerId: dealerPurges.dealerId, dealerKey: dealerPurges.dealerKey })
    .from(dealerPurges)
    .where(lte(dealerPurges.deletedAt, new Date(now.getTime() - (opts.graceMs ?? DEALER_PURGE_GRACE_MS))))
    .orderBy(asc(dealerPurges.deletedAt), asc(dealerPurges.dealerId));
  if (due.length === 0) return counts;
  const partitions = await eventPartitions(db);

  /** Runs `batch` until it deletes fewer than batchRows rows; false when the pass must stop. */
  const drain = async (batch: () => Promise<number>, field: 'events' | 'eventKeys' | 'hourlyRollups'): Promise<boolean> => {
    for (;;) {
      if (shouldStop()) return false;
      const n = await batch();
      counts.batches++;
      counts[field] += n;
      if (n < batchRows) return true;
    }
  };

  for (const { dealerId, dealerKey } of due) {
    // Events carry the dealer's key (migration 0025); a dealer deleted before it has none left.
    for (const p of dealerKey === null ? [] : partitions) {
      // A leaf partition by name: its rows have a ctid, and a batch scans this week only.
      const table = sql.identifier(p.name);
      const done = await drain(
        () => deleted(db, sql`DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE dealer_key = ${dealerKey} LIMIT ${batchRows})) RETURNING 1`),
        'events',
      );
      if (!done) return counts;
    }
    const keys = await drain(
      () => deleted(db, sql`DELETE FROM ${eventKeys} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${eventKeys} WHERE dealer_id = ${dealerId} LIMIT ${batchRows})) RETURNING 1`),
      'eventKeys',
    );
    if (!keys) return counts;
    const rollups = await drain(
      () =>
        db.transaction(async (tx) => {
          await tx.execute(sql`SELECT set_config('dc_banners.rollup_prune', 'on', true)`);
          const h = eventRollupsHourly;
          // Partitioned by day (migration 0028): a ctid names a row within its partition only, so
          // the dealer is named again; another of its rows at the same ctid of another day goes too.
          return deleted(
            tx as unknown as Db,
            sql`DELETE FROM ${h} WHERE dealer_id = ${dealerId} AND ctid = ANY(ARRAY(SELECT ctid FROM ${h} WHERE dealer_id = ${dealerId} LIMIT ${batchRows})) RETURNING 1`,
          );
        }),
      'hourlyRollups',
    );
    if (!rollups) return counts;
    await db.delete(dealerPurges).where(eq(dealerPurges.dealerId, dealerId));
    counts.dealers++;
  }
  return counts;
}

/**
 * The purge job: claims DEALER_PURGE_JOB for DEALER_PURGE_INTERVAL_MS at `now` and, when this
 * process won the claim and some dealer is due, purges (purgeDeletedDealers), records last_run_at
 * and last_result in job_leases and logs one info line. Returns null when not claimed.
 * @throws the database error of a failing statement (the next pass tries again).
 */
export async function runDealerPurgeJob(db: Db, opts: DealerPurgeOptions & { log?: FastifyBaseLogger } = {}): Promise<DealerPurgeCounts | null> {
  const now = opts.now ?? new Date();
  if (!(await claimJob(db, DEALER_PURGE_JOB, DEALER_PURGE_INTERVAL_MS, now))) return null;
  const started = performance.now();
  const counts = await purgeDeletedDealers(db, { ...opts, now });
  if (counts.batches > 0) {
    const lastResult = `dealers ${counts.dealers}, events ${counts.events}, event keys ${counts.eventKeys}, hourly rollups ${counts.hourlyRollups}, batches ${counts.batches}`;
    await db.update(jobLeases).set({ lastRunAt: now, lastResult }).where(eq(jobLeases.name, DEALER_PURGE_JOB));
    opts.log?.info({ job: DEALER_PURGE_JOB, purged: counts, ms: Math.round(performance.now() - started) }, 'deleted dealers purged');
  }
  return counts;
}

/**
 * The in-server purge scheduler (app.dealerPurge, maintenance/plugin.ts): every `intervalMs` it
 * tries to claim the purge job. `tick(now)` does one attempt (tests inject the clock); `stop()`
 * asks a running pass to stop between batches and waits for it.
 */
export class DealerPurgeScheduler extends PeriodicTask<DealerPurgeCounts | null> {
  constructor(db: Db, log?: FastifyBaseLogger) {
    super('deleted dealer purge', (now, shouldStop) => runDealerPurgeJob(db, { now, log, shouldStop }), log);
  }
}
