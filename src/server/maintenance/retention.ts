/**
 * Retention pruning: raw events older than EVENT_RETENTION_DAYS (whole weekly partitions, see
 * partitions.ts, which this job also creates ahead, and the expired event_keys), dead
 * letters older than the same, expired sessions, feed runs beyond the newest FEED_RUNS_KEPT per
 * dealer, client errors beyond CLIENT_ERROR_LOG_LIMIT and forgotten sign-in throttle rows
 * are deleted by a periodic job, and so are the tag health counters (tracking/tag-health.ts) and
 * the rollup rows older than the screens read (domain/retention.ts DETAIL_HOURLY_DAYS,
 * HOURLY_ROLLUP_DAYS, DETAIL_DAILY_DAYS): the dealers' daily and all-time totals keep their
 * counts for ever; dashboards and exports never read raw events.
 *
 * One run per interval across server processes: a process runs the job only after claiming its
 * `job_leases` row with `UPDATE ... SET next_run_at = now + interval WHERE next_run_at <= now
 * RETURNING`, the same row-claim as feeds; a second process finds the row not due (PostgreSQL
 * re-checks the WHERE after waiting on the first's row lock) and skips. A process that dies
 * mid-job leaves the next run to the next interval; every delete is idempotent.
 *
 * Events and the hourly rollups' expired days go by dropping partitions, not rows. Other large deletes go in bounded batches (RETENTION_BATCH_ROWS per statement, each its own
 * transaction), so no statement holds locks for long; the job stops between batches when the
 * server is closing. Stale 'running' feed runs are handled by the feed scheduler on every pass
 * (failStaleFeedRuns in ../inventory/feeds), not here, so they never wait for this hourly job.
 */
import { and, desc, eq, gte, inArray, isNull, lt, lte, not, notInArray, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { clientErrors, eventDeadLetters, feedRuns, jobLeases, loginThrottles, sessions } from '../db/schema';
import { CLIENT_ERROR_LOG_LIMIT, FEED_LEASE_MS, FEED_RUNS_KEPT } from '../../domain/constants';
import { PeriodicTask } from './periodic';
import { maintainEventStorage } from './partitions';
import { LOGIN_THROTTLE } from '../../domain/login-throttle';
import { pruneHourlyRollups } from '../reporting/service';
import { pruneTagHealth } from '../tracking/tag-health';

/** The job_leases row of this job. */
export const RETENTION_JOB = 'retention';
/** How often the retention job runs across all processes, milliseconds (hourly). */
export const RETENTION_INTERVAL_MS = 3_600_000;
/** Most rows one DELETE statement removes. */
export const RETENTION_BATCH_ROWS = 10_000;

const DAY_MS = 86_400_000;

/** Rows deleted by one retention run, per table. */
export interface RetentionCounts {
  /** Events in the partitions dropped, from their table statistics when analyzed (maintenance/partitions.ts partitionRows). */
  events: number;
  /** Weekly events partitions dropped. */
  eventPartitions: number;
  /** Expired event_keys rows deleted. */
  eventKeys: number;
  deadLetters: number;
  sessions: number;
  feedRuns: number;
  clientErrors: number;
  /** Sign-in throttle rows whose failures are forgotten. */
  loginThrottles: number;
  /**
   * Rollup rows past what the screens read (reporting/service.ts pruneHourlyRollups): detailed hours
   * past DETAIL_HOURLY_DAYS, dealer hours past HOURLY_ROLLUP_DAYS, detailed days past
   * DETAIL_DAILY_DAYS (their counts stay in the dealer's days and all-time totals).
   */
  hourlyRollups: number;
  /** Tag health counters past TAG_HEALTH_KEPT_DAYS and last-seen rows past TAG_LAST_SEEN_KEPT_DAYS (tracking/tag-health.ts). */
  tagHealth: number;
}

export interface RetentionOptions {
  /** Raw events (whole partitions) and dead letters older than this many days are deleted (EVENT_RETENTION_DAYS, >= 1). */
  retentionDays: number;
  /** The job's clock (tests inject it); default the current time. */
  now?: Date;
  /** Rows per DELETE statement; default RETENTION_BATCH_ROWS. */
  batchRows?: number;
  /** Checked between batches; true stops the run early (server closing). */
  shouldStop?: () => boolean;
}

/**
 * Runs `deleteBatch` until a batch deletes fewer than `batchRows` rows (or `shouldStop` says so)
 * and returns the total deleted.
 */
async function deleteInBatches(deleteBatch: () => Promise<unknown[] | number>, batchRows: number, shouldStop: () => boolean): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch();
    const n = typeof deleted === 'number' ? deleted : deleted.length;
    total += n;
    if (n < batchRows || shouldStop()) return total;
  }
}

/**
 * Deletes what retention allows (see module doc), without claiming the job: creates the events
 * partitions ahead and drops those entirely older than `retentionDays` days before `now`, deletes
 * expired event_keys, dead letters older than `retentionDays` days, sessions expired at `now`, feed runs beyond
 * the newest FEED_RUNS_KEPT per dealer (never a 'running' run started within FEED_LEASE_MS of
 * `now`), client errors beyond the newest CLIENT_ERROR_LOG_LIMIT, login_throttles rows forgotten at
 * `now` (LOGIN_THROTTLE.windowMs after their last failure and lock), rollup rows older than the screens
 * read (reporting/service.ts pruneHourlyRollups; the dealers' days and totals keep their counts). Returns the counts per table.
 * @throws the database error of a failing statement (rows deleted by earlier batches stay deleted).
 */
export async function pruneExpired(db: Db, opts: RetentionOptions): Promise<RetentionCounts> {
  const now = opts.now ?? new Date();
  const batchRows = opts.batchRows ?? RETENTION_BATCH_ROWS;
  const shouldStop = opts.shouldStop ?? (() => false);
  const cutoff = new Date(now.getTime() - opts.retentionDays * DAY_MS);
  const leaseCutoff = new Date(now.getTime() - FEED_LEASE_MS);

  const storage = await maintainEventStorage(db, { now, retentionDays: opts.retentionDays, batchRows, shouldStop });

  const oldDeadLetters = () =>
    db.select({ id: eventDeadLetters.id }).from(eventDeadLetters).where(lt(eventDeadLetters.createdAt, cutoff)).limit(batchRows);
  const deadLetterCount = await deleteInBatches(
    () => db.delete(eventDeadLetters).where(inArray(eventDeadLetters.id, oldDeadLetters())).returning({ id: eventDeadLetters.id }),
    batchRows,
    shouldStop,
  );

  const expiredSessions = () => db.select({ id: sessions.id }).from(sessions).where(lte(sessions.expiresAt, now)).limit(batchRows);
  const sessionCount = await deleteInBatches(
    () => db.delete(sessions).where(inArray(sessions.id, expiredSessions())).returning({ id: sessions.id }),
    batchRows,
    shouldStop,
  );

  // Ranked in the feed card's order (started_at, then id, newest first).
  const ranked = db
    .select({
      id: feedRuns.id,
      status: feedRuns.status,
      startedAt: feedRuns.startedAt,
      rank: sql<number>`row_number() over (partition by ${feedRuns.dealerId} order by ${feedRuns.startedAt} desc, ${feedRuns.id} desc)`.as(
        'rank',
      ),
    })
    .from(feedRuns)
    .as('ranked');
  const surplusRuns = () =>
    db
      .select({ id: ranked.id })
      .from(ranked)
      .where(and(sql`${ranked.rank} > ${FEED_RUNS_KEPT}`, not(and(eq(ranked.status, 'running'), gte(ranked.startedAt, leaseCutoff))!)))
      .limit(batchRows);
  const feedRunCount = await deleteInBatches(
    () => db.delete(feedRuns).where(inArray(feedRuns.id, surplusRuns())).returning({ id: feedRuns.id }),
    batchRows,
    shouldStop,
  );

  // recordClientError already caps the log on insert; this catches rows left by older versions.
  const keptErrors = db.select({ id: clientErrors.id }).from(clientErrors).orderBy(desc(clientErrors.id)).limit(CLIENT_ERROR_LOG_LIMIT);
  const clientErrorCount = (await db.delete(clientErrors).where(notInArray(clientErrors.id, keptErrors)).returning({ id: clientErrors.id }))
    .length;

  // Sign-in throttle rows whose failures are forgotten (throttleForgotten: the window has passed
  // since the last failure and the end of the last lock).
  const throttleCutoff = new Date(now.getTime() - LOGIN_THROTTLE.windowMs);
  const forgottenThrottles = () =>
    db
      .select({ emailLower: loginThrottles.emailLower })
      .from(loginThrottles)
      .where(and(lte(loginThrottles.lastFailureAt, throttleCutoff), or(isNull(loginThrottles.lockedUntil), lte(loginThrottles.lockedUntil, throttleCutoff))))
      .limit(batchRows);
  const throttleCount = await deleteInBatches(
    () => db.delete(loginThrottles).where(inArray(loginThrottles.emailLower, forgottenThrottles())).returning({ emailLower: loginThrottles.emailLower }),
    batchRows,
    shouldStop,
  );

  const hourlyRollupCount = await pruneHourlyRollups(db, now, batchRows, shouldStop);

  return {
    events: storage.events,
    eventPartitions: storage.partitions,
    eventKeys: storage.keys,
    deadLetters: deadLetterCount,
    sessions: sessionCount,
    feedRuns: feedRunCount,
    clientErrors: clientErrorCount,
    loginThrottles: throttleCount,
    hourlyRollups: hourlyRollupCount,
    tagHealth: await pruneTagHealth(db, now),
  };
}

/**
 * Claims the periodic job `name` for this process: creates its job_leases row (due at once) when
 * missing, then moves next_run_at to `now + intervalMs` only if it is due at `now`. Returns true
 * when this call won the claim (run the job now), false when another claim holds this interval.
 */
export async function claimJob(db: Db, name: string, intervalMs: number, now = new Date()): Promise<boolean> {
  await db.insert(jobLeases).values({ name, nextRunAt: now }).onConflictDoNothing({ target: jobLeases.name });
  const claimed = await db
    .update(jobLeases)
    .set({ nextRunAt: new Date(now.getTime() + intervalMs) })
    .where(and(eq(jobLeases.name, name), lte(jobLeases.nextRunAt, now)))
    .returning({ name: jobLeases.name });
  return claimed.length > 0;
}

/** The counts as the short text stored in job_leases.last_result, e.g. "events 12 (1 partitions), event keys 40, sessions 3, ...". */
export function formatCounts(c: RetentionCounts): string {
  return `events ${c.events} (${c.eventPartitions} partitions), event keys ${c.eventKeys}, dead letters ${c.deadLetters}, sessions ${c.sessions}, feed runs ${c.feedRuns}, client errors ${c.clientErrors}, login throttles ${c.loginThrottles}, hourly rollups ${c.hourlyRollups}`;
}

/**
 * The retention job: claims RETENTION_JOB for RETENTION_INTERVAL_MS at `now`; when this process won
 * the claim, prunes (pruneExpired), records last_run_at and last_result in job_leases, logs one info
 * line with the counts and returns them. Returns null when the job is not due (another process, or
 * this one, ran it this interval). @throws the database error of a failing statement, after
 * recording it as last_result 'failed: ...' (the job is tried again next interval).
 */
export async function runRetentionJob(db: Db, opts: RetentionOptions & { log?: FastifyBaseLogger }): Promise<RetentionCounts | null> {
  const now = opts.now ?? new Date();
  if (!(await claimJob(db, RETENTION_JOB, RETENTION_INTERVAL_MS, now))) return null;
  let counts: RetentionCounts;
  try {
    counts = await pruneExpired(db, { ...opts, now });
  } catch (e) {
    const lastResult = `failed: ${e instanceof Error ? e.message : String(e)}`.slice(0, 500);
    await db.update(jobLeases).set({ lastRunAt: now, lastResult }).where(eq(jobLeases.name, RETENTION_JOB));
    throw e;
  }
  await db.update(jobLeases).set({ lastRunAt: now, lastResult: formatCounts(counts) }).where(eq(jobLeases.name, RETENTION_JOB));
  opts.log?.info({ job: RETENTION_JOB, retentionDays: opts.retentionDays, deleted: counts }, 'retention pruning done');
  return counts;
}

/**
 * The in-server maintenance scheduler (owned by the app, like the feed scheduler): every
 * `intervalMs` it tries to claim the retention job, which runs at most once per
 * RETENTION_INTERVAL_MS across all processes. `tick()` does one attempt (tests call it with an
 * injected `now`); `stop()` stops the timer, asks a running pass to stop between batches and waits for it.
 */
export class MaintenanceScheduler extends PeriodicTask<RetentionCounts | null> {
  /**
   * @param db the database
   * @param retentionDays EVENT_RETENTION_DAYS (>= 1)
   * @param log where failures and the per-run info line go
   */
  constructor(db: Db, retentionDays: number, log?: FastifyBaseLogger) {
    super('retention pruning', (now, shouldStop) => runRetentionJob(db, { retentionDays, now, log, shouldStop }), log);
  }
}
