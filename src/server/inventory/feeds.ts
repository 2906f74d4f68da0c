/**
 * Automatic inventory feeds (spec 02 §2 Inventory 'Automatic Feed', §3 InventoryFeed, §4 Feed test
 * status and Feed; DECISIONS 20): test a feed without storing anything, save it (active, first run
 * due at once), pause/resume it, run it (recorded in feed_runs; a failure keeps the last good
 * inventory), and the scheduler that runs every due active feed.
 *
 * One run at a time per feed across server processes: a run starts only after claiming the feed
 * row with `UPDATE ... WHERE next_run_at <= now() ... FOR UPDATE SKIP LOCKED`, which moves
 * next_run_at forward by a lease (FEED_LEASE_MS) in the same statement. A second process sees the
 * row locked or not yet due and skips it; a process that dies mid-run leaves the lease to expire.
 * Its run row, left 'running', is marked failed by the next scheduler pass once it is older than
 * the lease, and the feed is claimed again as usual. A server that shuts
 * down gracefully aborts its fetch instead: the run is recorded as interrupted and the
 * feed is due again at once, for another process or the next start.
 */
import { and, desc, eq, lt, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { dealers, feedRuns, inventoryFeeds } from '../db/schema';
import { updateFrequencySchema, type FieldMapping } from '../../domain/schemas';
import { FEED_INTERVAL_MS, FEED_LEASE_MS, INVENTORY_TEXT, TEXT } from '../../domain/constants';
import type { FeedRunView, FeedTestResult, FeedView, StoredInventory } from '../../domain/inventory';
import { modelViews } from '../../domain/inventory';
import { Invalid, NotFound } from '../errors';
import { buildInventory, vehicleListCandidates, type ParseOptions, type ParseResult } from './parse';
import { fetchFeedJson, type FetchFeedOptions } from './fetch-feed';
import { applyInventory, parseOptionsFor } from './service';
import { PeriodicTask } from '../maintenance/periodic';
import type { FeedSave, FeedTest } from '../../domain/contracts/inventory';

/** A run whose feed was paused before its data was applied: the data is not applied. */
export const FEED_PAUSED_DURING_RUN = 'The feed was paused during this run; its data was not applied';
/** Runs listed on the feed card. */
const RUNS_LISTED = 10;

// Request bodies: src/domain/contracts/inventory.ts.
export { feedSaveSchema, feedTestSchema, type FeedSave } from '../../domain/contracts/inventory';

/**
 * Vehicle records of a feed document, built into InventoryData.
 * @throws Invalid: 'Vehicle data is not in array format', 'Feed returned empty inventory data',
 * 'No new vehicles found in inventory data. Make sure vehicles have "IsNew": true';
 * OverLimit(INVENTORY_LIMIT_TEXT.vehicles('feed')) past MAX_VEHICLES.
 */
export async function feedInventory(doc: unknown, opts: ParseOptions): Promise<ParseResult> {
  const list = vehicleListCandidates(doc)[0];
  if (!Array.isArray(list)) throw new Invalid(INVENTORY_TEXT.notArray);
  if (list.length === 0) throw new Invalid(INVENTORY_TEXT.empty);
  return buildInventory(list, opts, 'feed');
}

async function fetchAndParse(db: Db, dealerId: string, feedUrl: string, fieldMapping: Partial<FieldMapping> | undefined, fetchOpts: FetchFeedOptions) {
  const options = await parseOptionsFor(db, dealerId);
  const doc = await fetchFeedJson(feedUrl, fetchOpts);
  return feedInventory(doc, { ...options, fieldMapping });
}

/** Test Feed: fetches and parses; nothing is stored. @throws NotFound, Invalid with the feed texts. */
export async function testFeed(
  db: Db,
  dealerId: string,
  input: FeedTest,
  fetchOpts: FetchFeedOptions,
): Promise<FeedTestResult> {
  const parsed = await fetchAndParse(db, dealerId, input.feedUrl, input.fieldMapping, fetchOpts);
  return {
    vehicleCount: parsed.data.totalUnits,
    modelCount: parsed.data.modelCount,
    agedUnits: parsed.data.agedUnits,
    skippedCount: parsed.skipped.length,
    models: modelViews(parsed.data).map((m) => ({ key: m.key, model: m.model, totalUnits: m.totalUnits })),
  };
}

function feedView(row: typeof inventoryFeeds.$inferSelect): FeedView {
  return {
    feedUrl: row.feedUrl,
    updateFrequency: updateFrequencySchema.parse(row.updateFrequency),
    isActive: row.isActive,
    fieldMapping: row.fieldMapping,
    lastUpdated: row.lastUpdated?.toISOString() ?? null,
    nextRunAt: row.nextRunAt?.toISOString() ?? null,
  };
}

async function assertDealer(db: Db, dealerId: string) {
  const [d] = await db.select({ id: dealers.id }).from(dealers).where(eq(dealers.id, dealerId));
  if (!d) throw new NotFound(TEXT.dealerNotFound);
}

/** The dealer's feed (or null) and its last runs, newest first. @throws NotFound('Dealer not found'). */
export async function getFeed(db: Db, dealerId: string): Promise<{ feed: FeedView | null; runs: FeedRunView[] }> {
  await assertDealer(db, dealerId);
  const [row] = await db.select().from(inventoryFeeds).where(eq(inventoryFeeds.dealerId, dealerId));
  const runs = await db
    .select()
    .from(feedRuns)
    .where(eq(feedRuns.dealerId, dealerId))
    .orderBy(desc(feedRuns.startedAt), desc(feedRuns.id))
    .limit(RUNS_LISTED);
  return {
    feed: row ? feedView(row) : null,
    runs: runs.map((r) => ({
      id: r.id,
      startedAt: r.startedAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
      status: r.status as FeedRunView['status'],
      vehicleCount: r.vehicleCount,
      error: r.error,
    })),
  };
}

/** Save: creates or replaces the feed, active, first run due now (spec 02 §4). @throws NotFound. */
export async function saveFeed(db: Db, dealerId: string, input: FeedSave): Promise<FeedView> {
  await assertDealer(db, dealerId);
  const values = { ...input, isActive: true, nextRunAt: new Date(), updatedAt: new Date() };
  const [row] = await db
    .insert(inventoryFeeds)
    .values({ dealerId, ...values })
    .onConflictDoUpdate({ target: inventoryFeeds.dealerId, set: values })
    .returning();
  return feedView(row!);
}

/** Pause Feed / Resume Feed. Resuming makes an overdue feed due at once. @throws NotFound when there is no feed. */
export async function setFeedActive(db: Db, dealerId: string, isActive: boolean): Promise<FeedView> {
  await assertDealer(db, dealerId);
  const [row] = await db
    .update(inventoryFeeds)
    .set({ isActive, updatedAt: new Date() })
    .where(eq(inventoryFeeds.dealerId, dealerId))
    .returning();
  if (!row) throw new NotFound('No inventory feed is configured');
  return feedView(row);
}

/**
 * Runs one feed now and records the run. On success the inventory is applied (source 'feed') and
 * lastUpdated set; on failure the run records the error and the stored inventory stays as it was.
 * Either way the next run is scheduled one interval later, unless `fetchOpts.signal` aborted the
 * fetch (shutdown): the run is then recorded as interrupted and the feed is due again at once.
 * Returns the run.
 */
export async function runFeed(db: Db, dealerId: string, fetchOpts: FetchFeedOptions, log?: FastifyBaseLogger): Promise<FeedRunView> {
  const [feed] = await db.select().from(inventoryFeeds).where(eq(inventoryFeeds.dealerId, dealerId));
  if (!feed) throw new NotFound('No inventory feed is configured');
  const [run] = await db.insert(feedRuns).values({ dealerId, status: 'running' }).returning();
  let result: { status: 'success' | 'error'; vehicleCount: number | null; error: string | null };
  let applied: StoredInventory | null = null;
  try {
    const parsed = await fetchAndParse(db, dealerId, feed.feedUrl, feed.fieldMapping, fetchOpts);
    // A feed paused while it was fetching (Pause Feed, or a manual upload that paused it) must not
    // replace what the dealer applied meanwhile: checked under the feed row's lock, in the apply's transaction.
    applied = await applyInventory(db, dealerId, parsed.data, 'feed', async (tx) => {
      const [current] = await tx.select({ isActive: inventoryFeeds.isActive }).from(inventoryFeeds).where(eq(inventoryFeeds.dealerId, dealerId)).for('update');
      if (!current?.isActive) throw new Invalid(FEED_PAUSED_DURING_RUN);
    });
    result = { status: 'success', vehicleCount: parsed.data.totalUnits, error: null };
  } catch (e) {
    if (!(e instanceof Invalid)) log?.error({ err: e, dealerId }, 'inventory feed run failed');
    result = { status: 'error', vehicleCount: null, error: e instanceof Error ? e.message : String(e) };
  }
  const finishedAt = new Date();
  const interval = fetchOpts.signal?.aborted ? 0 : FEED_INTERVAL_MS[updateFrequencySchema.parse(feed.updateFrequency)];
  await db.transaction(async (tx) => {
    await tx.update(feedRuns).set({ ...result, finishedAt }).where(eq(feedRuns.id, run!.id));
    await tx
      .update(inventoryFeeds)
      .set({
        nextRunAt: new Date(finishedAt.getTime() + interval),
        ...(applied ? { lastUpdated: finishedAt } : {}),
      })
      .where(eq(inventoryFeeds.dealerId, dealerId));
  });
  return { id: run!.id, startedAt: run!.startedAt.toISOString(), finishedAt: finishedAt.toISOString(), ...result };
}

/**
 * Claims up to `limit` due active feeds for this process (see module doc) and returns their dealer
 * ids. A claimed feed's next_run_at moves FEED_LEASE_MS ahead, so no other process claims it.
 */
export async function claimDueFeeds(db: Db, limit = 5, now = new Date()): Promise<string[]> {
  const due = db
    .select({ dealerId: inventoryFeeds.dealerId })
    .from(inventoryFeeds)
    .where(and(eq(inventoryFeeds.isActive, true), lte(inventoryFeeds.nextRunAt, now)))
    .orderBy(inventoryFeeds.nextRunAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  const claimed = await db
    .update(inventoryFeeds)
    .set({ nextRunAt: new Date(now.getTime() + FEED_LEASE_MS) })
    .where(sql`${inventoryFeeds.dealerId} in ${due}`)
    .returning({ dealerId: inventoryFeeds.dealerId });
  return claimed.map((c) => c.dealerId);
}

/**
 * Marks runs left 'running' by a server that stopped mid-run as failed: every
 * 'running' row that started more than FEED_LEASE_MS before `now` gets status 'error', finished_at
 * `now` and the error INVENTORY_TEXT.runInterrupted. A live run never outlasts its lease (its feed
 * would be claimed again anyway), so only dead runs match. Returns how many rows were marked.
 */
export async function failStaleFeedRuns(db: Db, now = new Date()): Promise<number> {
  const marked = await db
    .update(feedRuns)
    .set({ status: 'error', finishedAt: now, error: INVENTORY_TEXT.runInterrupted })
    .where(and(eq(feedRuns.status, 'running'), lt(feedRuns.startedAt, new Date(now.getTime() - FEED_LEASE_MS))))
    .returning({ id: feedRuns.id });
  return marked.length;
}

/** Feeds one scheduler pass runs at most. */
export const FEEDS_PER_PASS = 5;

/**
 * The in-server feed scheduler: every `intervalMs` one pass marks interrupted runs failed, then
 * claims due feeds one at a time and runs each (at most FEEDS_PER_PASS). `tick()` does one pass
 * (tests call it); `stop()` aborts a running fetch (a shutdown does not wait out 15-second
 * fetches), claims nothing more and waits for the pass to record its run.
 */
export class FeedScheduler extends PeriodicTask<void> {
  /** Aborted by stop(): the running fetch ends at once. */
  private readonly aborter: AbortController;

  /**
   * @param onRun called with each finished run (metrics: feed runs by result).
   */
  constructor(db: Db, fetchOpts: FetchFeedOptions, log?: FastifyBaseLogger, onRun?: (run: FeedRunView) => void) {
    const aborter = new AbortController();
    super(
      'feed scheduler pass',
      async (now, shouldStop) => {
        const interrupted = await failStaleFeedRuns(db, now);
        if (interrupted > 0) log?.warn({ interrupted }, 'feed runs interrupted by a stopped server marked failed');
        // One claim per run, so a shutdown between runs leaves no feed claimed and not run.
        for (let i = 0; i < FEEDS_PER_PASS && !shouldStop(); i++) {
          const [dealerId] = await claimDueFeeds(db, 1, now);
          if (!dealerId) break;
          onRun?.(await runFeed(db, dealerId, { ...fetchOpts, signal: aborter.signal }, log));
        }
      },
      log,
    );
    this.aborter = aborter;
  }

  /** Stops the timer, aborts a running feed fetch and waits for the pass to record it. */
  override async stop(): Promise<void> {
    this.aborter.abort();
    await super.stop();
  }

  /** Starts a pass now when the scheduler is running (e.g. a feed was just saved); a no-op when it is off. */
  kick(): void {
    if (this.started) void this.tick();
  }
}
