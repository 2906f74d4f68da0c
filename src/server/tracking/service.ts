/**
 * Event ingestion and the counts read from it (spec 01 §7, DECISIONS 17-18).
 *
 * `EventIngestor` buffers accepted events in memory and writes them in batches: FLUSH_INTERVAL_MS
 * after the first event of a batch, or at once when BATCH_SIZE events wait. Each batch is one
 * transaction with its per-hour rollups (dealer, hour, model key, slot type, creative, device), which are what the
 * dashboards read.
 *
 * The writer cannot be poisoned:
 * - A failed write puts the batch back at the head of the buffer and retries after a backoff
 *   (RETRY_MIN_MS doubling to RETRY_MAX_MS); the buffer keeps accepting meanwhile, so a database
 *   outage of any length loses nothing until MAX_BUFFERED events wait. Only then does `enqueue`
 *   refuse (the route answers 503): a client is never told 204 for an event that was dropped.
 * - When the same batch fails twice with an error about the data itself (SQLSTATE classes 22
 *   data exception, 23 integrity violation, 54 program limit), it is split in halves until the
 *   events that cannot be written are isolated; those go to `event_dead_letters` with the
 *   database's message, and every other event is stored. Any other error (connection lost,
 *   table missing, disk full) is an outage: nothing is dead-lettered, the batch waits.
 * - `flush()` never rejects and never waits out an outage: it makes one attempt at what is
 *   buffered (reads call it so they see the latest events). `close()` keeps retrying for up to
 *   CLOSE_RETRY_MS, then logs how many events it could not store.
 *
 * What is counted, the budget of one page view whoever sends its beacons:
 * an impression once per (dealer, page view, slot type), so a retried beacon is not counted twice;
 * a click only for a banner its page view rendered (same slot type and model), once;
 * a conversion only when a click of the same dealer and page view was received within
 * CONVERSION_WINDOW_MS before it, once per (dealer, page view) and once per (dealer, lead). The
 * keys in `event_keys` decide (schema.ts eventKeys): each statement inserts the keys of its events
 * with ON CONFLICT DO NOTHING and stores exactly the events whose key it inserted, so of two
 * writers of the same key (a retried beacon ingested by two processes at once) the second waits for
 * the first's commit and stores nothing. Only the rows stored are rolled up, so rollups never count
 * a duplicate. A click looks up its impression's key (at most CLICK_WINDOW_MS older), a conversion
 * its click's (at most CONVERSION_WINDOW_MS older): neither reads `events`, whatever its size.
 *
 * Crash loss is bounded by time (docs/OPERATIONS.md "What a crash can lose"): an acknowledged
 * event is *secured* once it is in the database or in the journal (journal.ts, on disk); `enqueue`
 * refuses (the intake answers 503 with Retry-After) while the oldest unsecured event is older than
 * maxUnsecuredMs (MAX_UNSECURED_MS, 250 ms). So a kill -9 loses at most the events acknowledged
 * within one such window, also when the database is slower than the intake (back-pressure).
 * During an outage (the last write failed), and while its backlog is written after it, the
 * unsecured events are spilled to the journal as they come (one append and fdatasync at a time,
 * each taking what arrived during the last), so beacons keep being acknowledged through it, up
 * to MAX_BUFFERED, and the journal is replayed at the next start if the process dies before the
 * database is back. Without
 * a journal (PGlite, whose database is in this process) an outage keeps events in memory only, up
 * to MAX_BUFFERED, and the age bound applies while the writer is not failing.
 */
import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../db/client';
import { dealerLastEvents, eventDeadLetters, eventKeys, eventRollupsHourly, events, eventUrls } from '../db/schema';
import type { SlotType, TrackEventName } from '../../domain/schemas';
import type { DeviceClass } from '../../domain/enums';
import { CONVERSION_WINDOW_MS } from '../../domain/conversions';
import { MAX_UNSECURED_MS } from '../../domain/constants';
import { causeChain } from '../db/availability';
import type { EventJournal, JournalSegment } from './journal';
import { CLICK_WINDOW_MS, ensurePartitionsFor, forgetPartitions } from '../maintenance/partitions';

/** An event as accepted by the track route; `model` is already the comparison key. */
export interface AcceptedEvent {
  dealerId: string;
  event: TrackEventName;
  slotType: SlotType | null;
  model: string;
  /** The page URL in its privacy-safe form (privacySafeUrl; the route reduces it), or ''. */
  url: string;
  occurredAt: Date;
  /** The page view the banner was rendered in (trackBodySchema `pv`); for a conversion, the page view of its click. */
  pageView: string | null;
  /** Conversions: SHA-256 (hex) of the site's lead id, when it sent one (leadIdHash). */
  leadId?: string | null;
  /** Impressions and clicks: the creative shown (events.creative), null when unknown; a conversion's is its click's. */
  creative?: string | null;
  /** The device the beacon came from (domain/device.ts deviceOf); absent in journal lines of a version before it: 'unknown'. */
  device?: DeviceClass;
}

/**
 * What is stored of a conversion's lead id (the 'lead' key of event_keys): its SHA-256, hex, salted with
 * the dealer id. Equal ids of one dealer give equal hashes (one conversion per lead), and a site
 * that uses an e-mail address as its lead id does not make the server store that address.
 */
export function leadIdHash(dealerId: string, leadId: string): string {
  return createHash('sha256').update(`${dealerId}\n${leadId}`).digest('hex');
}

export const FLUSH_INTERVAL_MS = 100;
export const BATCH_SIZE = 2000;
export const MAX_BUFFERED = 50_000;
export const RETRY_MIN_MS = 250;
export const RETRY_MAX_MS = 5000;
export const CLOSE_RETRY_MS = 10_000;
/** IngestorOptions.statementEvents on PGlite: about 5 ms of the event loop per statement on this machine (npm run bench). */
export const PGLITE_STATEMENT_EVENTS = 200;
/** Share of maxBuffered at which the process reports itself not ready (GET /readyz answers 503), so a load balancer sends beacons elsewhere before any is refused. */
export const HIGH_WATER_RATIO = 0.5;

/** An accepted event with what the writer knows of it. */
interface Entry {
  e: AcceptedEvent;
  /** When it was acknowledged, ms since the epoch. */
  at: number;
  /** In the database (stored, or knowingly not), or on disk in the journal: a crash no longer loses it. */
  secured: boolean;
  /** The journal file holding it, until it is in the database. */
  segment: JournalSegment | null;
}

export interface IngestorOptions {
  batchSize: number;
  maxBuffered: number;
  flushIntervalMs: number;
  retryMinMs: number;
  retryMaxMs: number;
  closeRetryMs: number;
  /** False while the database must not be written (e.g. the data disk is nearly full): writes wait. */
  canWrite: () => boolean;
  /**
   * Wait for the WAL flush at each commit. Needed on PGlite: it has no WAL writer process, so
   * with `synchronous_commit = off` committed batches stay in memory until a checkpoint and a
   * kill -9 loses them all (measured: 3,026 of 3,026). PostgreSQL's WAL writer flushes within
   * 200 ms, which only a PostgreSQL crash (not ours) can lose, so it commits asynchronously.
   */
  durableCommits: boolean;
  /**
   * Most events one INSERT statement of a batch writes; a batch of more is written in several
   * statements of its one transaction, with the event loop let run between them (setImmediate).
   * For PGlite, whose statements run on the event loop (WASM): a 2,000-event statement held it for
   * 50-90 ms, every request waiting; Infinity for PostgreSQL, where a statement is a
   * round trip and waits nothing.
   */
  statementEvents: number;
  /** Crash-loss bound (MAX_UNSECURED_MS): enqueue refuses while the oldest unsecured event is older. */
  maxUnsecuredMs: number;
  /** Where events wait on disk during an outage (journal.ts); null: in memory only. */
  journal: EventJournal | null;
  /** Called after each batch write attempt with its duration in seconds and whether it committed (metrics). */
  observeBatch?: (seconds: number, ok: boolean) => void;
}

/** What the writer has done since start, for logs, health and tests. */
export interface IngestorStats {
  pending: number;
  /** Events accepted into the buffer (answered 204). */
  accepted: number;
  /** Events refused because the buffer was full or the ingestor closed (answered 503). */
  refusedFull: number;
  /** Events refused because the oldest unsecured event was older than maxUnsecuredMs (answered 503). */
  refusedBehind: number;
  /** Events appended to the journal during outages. */
  journaled: number;
  /** Events read back from the journal files of processes that stopped (at start). */
  replayed: number;
  stored: number;
  /** Clicks not stored: no impression of their page view and slot, or already clicked there. */
  clicksRefused: number;
  /** Impressions not stored: that page view's slot was already counted (a retried beacon). */
  impressionsIgnored: number;
  /** Conversions not stored: no page view, no click of that page view in the window, or already counted for it or its lead. */
  conversionsRefused: number;
  deadLettered: number;
  /** Consecutive failed write attempts (0 when the last write succeeded). */
  failures: number;
  lastError: string | null;
}

/** The SQLSTATE of a database error, looking through wrappers (Drizzle puts the driver's error in `cause`). */
export function sqlState(err: unknown): string | undefined {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** True for errors caused by the rows written (data exception, integrity violation, program limit), not by the database's state. */
export function isDataError(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && ['22', '23', '54'].includes(state.slice(0, 2));
}

const messageOf = (err: unknown) => {
  const cause = (err as { cause?: unknown })?.cause;
  const m = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
  return m.slice(0, 500);
};

export class EventIngestor {
  private buffer: Entry[] = [];
  /** Acknowledged events in order, the secured ones dropped from the head lazily (oldestUnsecured). */
  private unsecured: Entry[] = [];
  private unsecuredHead = 0;
  private spilling: Promise<void> | null = null;
  private spillTimer: NodeJS.Timeout | null = null;
  private spillFailed = false;
  /** Entries waiting in the buffer that are in the journal (a backlog still to be written after an outage). */
  private journalBacklog = 0;
  /** Events taken from the buffer by the write in progress. */
  private inFlight = 0;
  private draining: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private counts = { accepted: 0, refusedFull: 0, refusedBehind: 0, journaled: 0, replayed: 0, stored: 0, clicksRefused: 0, impressionsIgnored: 0, conversionsRefused: 0, deadLettered: 0, failures: 0, lastError: null as string | null };
  private readonly opts: IngestorOptions;
  /** The page URLs' dictionary ids this process has seen (bounded; see UrlIds). */
  private readonly urlIds = new UrlIds();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    opts: Partial<IngestorOptions> = {},
  ) {
    this.opts = {
      batchSize: BATCH_SIZE,
      maxBuffered: MAX_BUFFERED,
      flushIntervalMs: FLUSH_INTERVAL_MS,
      retryMinMs: RETRY_MIN_MS,
      retryMaxMs: RETRY_MAX_MS,
      closeRetryMs: CLOSE_RETRY_MS,
      canWrite: () => true,
      durableCommits: true,
      statementEvents: Infinity,
      maxUnsecuredMs: MAX_UNSECURED_MS,
      journal: null,
      ...opts,
    };
  }

  /** Number of events accepted and not yet stored (buffered or being written). */
  get pending(): number {
    return this.buffer.length + this.inFlight;
  }

  /** Buffered events at which the process reports itself not ready (HIGH_WATER_RATIO of maxBuffered). */
  get highWater(): number {
    return Math.max(1, Math.floor(this.opts.maxBuffered * HIGH_WATER_RATIO));
  }

  /** Counters since start (see IngestorStats). */
  stats(): IngestorStats {
    return { pending: this.pending, ...this.counts };
  }

  /**
   * Queues an event; false when the buffer is full, the ingestor is closed, or it is `behind`
   * (the caller answers 503).
   */
  enqueue(e: AcceptedEvent): boolean {
    if (this.closed || this.buffer.length >= this.opts.maxBuffered) {
      this.counts.refusedFull += 1;
      return false;
    }
    if (this.behind) {
      this.counts.refusedBehind += 1;
      return false;
    }
    this.counts.accepted += 1;
    const entry: Entry = { e, at: Date.now(), secured: false, segment: null };
    this.buffer.push(entry);
    this.unsecured.push(entry);
    if (this.counts.failures === 0) this.schedule(this.buffer.length >= this.opts.batchSize ? 0 : this.opts.flushIntervalMs);
    // During an outage, and while its backlog is written after it (new events wait behind it), new events go to the journal too.
    if (this.counts.failures > 0 || this.journalBacklog > 0) this.scheduleSpill();
    return true;
  }

  /**
   * True while the oldest acknowledged event that a crash would lose (neither in the database nor
   * in the journal) is older than maxUnsecuredMs: `enqueue` refuses until the writer or the
   * journal catches up. Never during an outage without a journal (events then wait in memory).
   */
  get behind(): boolean {
    if (this.counts.failures > 0 && !this.opts.journal) return false;
    const oldest = this.oldestUnsecured();
    return oldest !== undefined && Date.now() - oldest.at > this.opts.maxUnsecuredMs;
  }

  private oldestUnsecured(): Entry | undefined {
    while (this.unsecuredHead < this.unsecured.length && this.unsecured[this.unsecuredHead]!.secured) this.unsecuredHead += 1;
    if (this.unsecuredHead > 1024 && this.unsecuredHead * 2 > this.unsecured.length) {
      this.unsecured = this.unsecured.slice(this.unsecuredHead);
      this.unsecuredHead = 0;
    }
    return this.unsecured[this.unsecuredHead];
  }

  /** The entries are in the database (or dead-lettered, or knowingly not stored): secured, and released from their journal file. */
  private done(entries: Entry[]): void {
    for (const x of entries) {
      x.secured = true;
      if (x.segment) {
        this.opts.journal?.release(x.segment, 1);
        x.segment = null;
        this.journalBacklog -= 1;
      }
    }
    this.rotateWhenCaughtUp();
  }

  /** The backlog is written and no append runs: the journal file in use is closed (deleted, being empty). */
  private rotateWhenCaughtUp(): void {
    if (this.journalBacklog === 0 && this.counts.failures === 0 && !this.spilling) this.opts.journal?.rotate();
  }

  /** Starts a spill on the next turn of the event loop unless one runs (it starts the next when done: a group commit). */
  private scheduleSpill(): void {
    if (!this.opts.journal || this.spillTimer || this.spilling) return;
    this.spillTimer = setTimeout(() => {
      this.spillTimer = null;
      void this.spill();
    }, 0);
    this.spillTimer.unref();
  }

  /**
   * Appends every unsecured event to the journal and marks them secured once on disk. One spill at
   * a time; while the writer keeps failing, another is scheduled for the events that came meanwhile.
   * Never rejects (a failed append is logged; the events stay unsecured, so `behind` refuses new ones).
   */
  private spill(): Promise<void> {
    const journal = this.opts.journal;
    if (!journal) return Promise.resolve();
    if (this.spilling) return this.spilling.then(() => this.spill());
    const entries = this.unsecured.slice(this.unsecuredHead).filter((x) => !x.secured);
    if (entries.length === 0) return Promise.resolve();
    this.spilling = journal
      .append(entries.map((x) => x.e))
      .then(
        (segment) => {
          for (const x of entries) {
            if (x.secured) continue; // written to the database meanwhile (a replay of it is harmless)
            x.secured = true;
            x.segment = segment;
            segment.outstanding += 1;
            this.journalBacklog += 1;
          }
          this.counts.journaled += entries.length;
          if (this.spillFailed) this.log.info('event journal appends resumed');
          this.spillFailed = false;
        },
        (err: unknown) => {
          if (!this.spillFailed) this.log.error({ err }, 'event journal append failed; acknowledged events wait in memory only');
          this.spillFailed = true;
        },
      )
      .finally(() => {
        this.spilling = null;
        if ((this.counts.failures > 0 || this.journalBacklog > 0) && this.oldestUnsecured()) this.scheduleSpill();
        this.rotateWhenCaughtUp();
      });
    return this.spilling;
  }

  /**
   * Takes over the journal files of processes that stopped (journal.ts claimOrphans) and queues
   * their events, already secured, for writing. Call once at start. Never rejects.
   * @returns how many events were read back.
   */
  async recover(): Promise<number> {
    const journal = this.opts.journal;
    if (!journal) return 0;
    let count = 0;
    for (const { segment, events } of await journal.claimOrphans()) {
      for (const e of events) this.buffer.push({ e, at: Date.now(), secured: true, segment });
      count += events.length;
      this.journalBacklog += events.length;
    }
    if (count > 0) {
      this.counts.replayed += count;
      this.log.warn({ count }, 'events of a stopped process read back from the event journal; writing them');
      this.schedule(0);
    }
    return count;
  }

  /**
   * One attempt to write everything buffered so far (and what arrives meanwhile). Resolves when
   * the buffer is empty or a write failed (the events stay queued and a retry is scheduled).
   * Never rejects.
   */
  flush(): Promise<void> {
    if (this.draining) return this.draining.then(() => this.flush());
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.buffer.length > 0 && !this.closed) this.schedule(this.counts.failures > 0 ? this.backoff() : 0);
    });
    return this.draining;
  }

  /** Stops accepting events and writes the rest, retrying for up to closeRetryMs. */
  async close(): Promise<void> {
    this.closed = true;
    const deadline = Date.now() + this.opts.closeRetryMs;
    await this.flush();
    while (this.buffer.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(this.backoff(), Math.max(0, deadline - Date.now()))));
      await this.flush();
    }
    if (this.timer) clearTimeout(this.timer);
    if (this.spillTimer) clearTimeout(this.spillTimer);
    if (this.buffer.length > 0) {
      await this.spill();
      const inJournal = this.buffer.filter((x) => x.segment).length;
      this.log.error(
        { count: this.buffer.length, inJournal, lastError: this.counts.lastError },
        'events not stored at shutdown: the database did not accept them (those in the event journal are written at the next start)',
      );
    }
    await this.opts.journal?.close();
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.draining) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private backoff(): number {
    return Math.min(this.opts.retryMaxMs, this.opts.retryMinMs * 2 ** Math.max(0, this.counts.failures - 1));
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      if (!this.opts.canWrite()) {
        this.failed(new Error('database is not writable (disk space)'));
        return;
      }
      const batch = this.buffer.splice(0, this.opts.batchSize);
      this.inFlight = batch.length;
      const unwritten = await this.writeOrIsolate(batch).finally(() => (this.inFlight = 0));
      // What is not coming back was written (or dead-lettered, or knowingly not stored).
      if (unwritten.length === 0) this.done(batch);
      else if (unwritten.length < batch.length) {
        const left = new Set(unwritten);
        this.done(batch.filter((x) => !left.has(x)));
      }
      if (unwritten.length > 0) {
        this.buffer.unshift(...unwritten);
        return;
      }
    }
  }

  /**
   * Writes a batch. Returns the events still to be written: [] on success (or once the
   * unwritable ones are dead-lettered), the batch itself after an outage or a first failure.
   */
  private async writeOrIsolate(batch: Entry[]): Promise<Entry[]> {
    try {
      this.count(await this.write(batch));
      this.succeeded(batch.length);
      return [];
    } catch (err) {
      // A data error seen on the previous attempt too: find the events that cannot be written.
      const isolate = isDataError(err) && this.counts.failures > 0;
      this.failed(err, batch.length);
      return isolate ? this.isolate(batch) : batch;
    }
  }

  /** One writeBatch attempt, timed for observeBatch. @throws the database error. */
  private async write(batch: Entry[]): Promise<NotStored> {
    const started = performance.now();
    let ok = false;
    try {
      const notStored = await writeBatch(
        this.db,
        this.urlIds,
        batch.map((x) => x.e),
        this.opts.durableCommits,
        this.opts.statementEvents,
      );
      ok = true;
      return notStored;
    } finally {
      this.opts.observeBatch?.((performance.now() - started) / 1000, ok);
    }
  }

  /** Splits a batch that keeps failing with a data error; see the module doc. */
  private async isolate(batch: Entry[]): Promise<Entry[]> {
    const half = Math.ceil(batch.length / 2);
    const parts = batch.length > 1 ? [batch.slice(0, half), batch.slice(half)] : [batch];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      try {
        this.count(await this.write(part));
        this.succeeded(part.length);
        continue;
      } catch (err) {
        if (!isDataError(err)) {
          this.failed(err, part.length);
          return parts.slice(i).flat();
        }
        if (part.length > 1) {
          const rest = await this.isolate(part);
          if (rest.length > 0) return [...rest, ...parts.slice(i + 1).flat()];
          continue;
        }
        try {
          const e = part[0]!.e;
          await this.db.insert(eventDeadLetters).values({ dealerId: e.dealerId, payload: JSON.stringify(e), error: messageOf(err) });
          this.counts.deadLettered += 1;
          this.log.warn({ err, event: e }, 'event could not be stored; kept in event_dead_letters');
        } catch (dlErr) {
          this.failed(dlErr, 1);
          return parts.slice(i).flat();
        }
      }
    }
    this.counts.failures = 0;
    return [];
  }

  private count(n: NotStored): void {
    this.counts.clicksRefused += n.clicks;
    this.counts.impressionsIgnored += n.impressions;
    this.counts.conversionsRefused += n.conversions;
  }

  private succeeded(count: number): void {
    if (this.counts.failures > 0) {
      this.log.info({ afterFailures: this.counts.failures, journalBacklog: this.journalBacklog }, 'event writes resumed');
    }
    this.counts.stored += count;
    this.counts.failures = 0;
  }

  private failed(err: unknown, count = 0): void {
    this.counts.failures += 1;
    this.counts.lastError = messageOf(err);
    // One line per outage, not per retry.
    if (this.counts.failures === 1) this.log.error({ err, count, pending: this.pending }, 'event batch write failed; retrying with backoff');
    void this.spill(); // what waits goes to the journal now (see the module doc)
  }
}

/** Events of a batch the unique indexes or attribution kept out, by kind. */
interface NotStored {
  impressions: number;
  clicks: number;
  conversions: number;
}

/**
 * Writes one batch of events and its rollups in one transaction, in statements of at most
 * `statementEvents` events; `durable` false commits without waiting for the WAL flush (see
 * IngestorOptions.durableCommits, statementEvents). Impressions, then clicks, then
 * conversions, so a click may follow its impression and a conversion its click in the same batch;
 * each insert lets in only what counts (see the module doc) and adds exactly the rows it let in to
 * the hourly rollups in the same statement (withRollup): no stored row travels back to the process.
 * @returns how many events of each kind were not stored. @throws the database error.
 */
async function writeBatch(db: Db, urlIds: UrlIds, batch: AcceptedEvent[], durable: boolean, statementEvents: number): Promise<NotStored> {
  await ensurePartitionsFor(db, new Set(batch.map((e) => e.occurredAt.getTime())));
  const ids = await urlIds.resolve(db, batch.map((e) => e.url));
  const rows = batch.map((e) => rowOf(e, ids));
  const impressions = rows.filter((e) => e.event === 'impression');
  const clicks = rows.filter((e) => e.event === 'click');
  const conversions = rows.filter((e) => e.event === 'conversion');
  return db.transaction(async (tx) => {
    if (!durable) await tx.execute(sql`SET LOCAL synchronous_commit = off`);
    /** Writes `events` with `insert`, statementEvents at a time (IngestorOptions.statementEvents); returns how many were stored. */
    const written = async (events: EventRow[], insert: (tx: Tx, part: EventRow[]) => Promise<number>) => {
      let stored = 0;
      for (let i = 0; i < events.length; i += statementEvents) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        stored += await insert(tx, events.slice(i, i + statementEvents));
      }
      return stored;
    };
    return {
      impressions: impressions.length - (await written(impressions, insertImpressions)),
      clicks: clicks.length - (await written(clicks, insertClicks)),
      conversions: conversions.length - (await written(conversions, insertConversions)),
    };
  }).catch((err: unknown) => {
    // No partition for a row: one this process saw was dropped since (retention); look again next attempt.
    if (sqlState(err) === '23514') forgetPartitions(db);
    throw err;
  });
}

/** Most page URLs whose dictionary id a process keeps (about 100 bytes each); the oldest seen go first. */
export const URL_ID_CACHE_SIZE = 20_000;

/**
 * The dictionary ids of page URLs (`event_urls`, migration 0022), cached in the process so a
 * batch of events costs no lookup per event: only URLs not seen before go to the database, all of
 * a batch's in one INSERT ... ON CONFLICT statement committed on its own before the batch (a
 * dictionary row is never deleted, so an id once returned stays valid whatever becomes of the
 * batch). Bounded by URL_ID_CACHE_SIZE, oldest first. Owned by its EventIngestor.
 */
export class UrlIds {
  private readonly ids = new Map<string, number>();

  constructor(private readonly capacity = URL_ID_CACHE_SIZE) {}

  /**
   * The ids of `urls` (duplicates allowed), storing the new ones. '' (no URL) has none: it is
   * stored as a null url_id. @returns URL to id, '' absent. @throws the database error.
   */
  async resolve(db: Db, urls: Iterable<string>): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const missing = new Set<string>();
    for (const url of urls) {
      if (url === '' || out.has(url)) continue;
      const id = this.ids.get(url);
      if (id === undefined) {
        missing.add(url);
      } else {
        // Seen again: to the young end, so the URLs in use are the last to go.
        this.ids.delete(url);
        this.ids.set(url, id);
        out.set(url, id);
      }
    }
    if (missing.size > 0) {
      for (const [url, id] of await storeUrls(db, [...missing])) {
        out.set(url, id);
        this.ids.set(url, id);
      }
      for (const url of this.ids.keys()) {
        if (this.ids.size <= this.capacity) break;
        this.ids.delete(url);
      }
    }
    return out;
  }
}

/**
 * Stores the page URLs not yet in `event_urls` and returns the id of every one of `urls` (distinct,
 * none ''), in one statement: ON CONFLICT DO UPDATE returns the existing rows' ids too, those a
 * concurrent writer is inserting included (the statement waits for it). Used by the ingestion
 * (UrlIds) and the volume generator (db/volume.ts). @throws the database error.
 */
export async function storeUrls(db: Db | Tx, urls: string[]): Promise<Map<string, number>> {
  const u = eventUrls;
  // In one order, so two writers of overlapping URL sets lock the rows in the same order.
  const result = (await db.execute(sql`
    INSERT INTO ${u} (url) SELECT url FROM jsonb_array_elements_text(${JSON.stringify(urls)}::jsonb) AS x(url) ORDER BY url COLLATE "C"
    ON CONFLICT (url) DO UPDATE SET url = excluded.url
    RETURNING id, url`)) as unknown as { rows: Array<{ id: number | string; url: string }> };
  return new Map(result.rows.map((r) => [r.url, Number(r.id)]));
}

/** An event as the batch statements read it (`recordset`), the URL as its dictionary id. */
interface EventRow {
  dealer_id: string;
  event: TrackEventName;
  slot_type: SlotType | null;
  model: string;
  url_id: number | null;
  occurred_at: string;
  page_view: string | null;
  lead_id: string | null;
  creative: string | null;
  device: DeviceClass;
}

const rowOf = (e: AcceptedEvent, urlIds: Map<string, number>): EventRow => ({
  dealer_id: e.dealerId,
  event: e.event,
  slot_type: e.slotType,
  model: e.model,
  url_id: urlIds.get(e.url) ?? null,
  occurred_at: e.occurredAt.toISOString(),
  page_view: e.pageView,
  lead_id: e.leadId ?? null,
  creative: e.creative ?? null,
  device: e.device ?? 'unknown',
});

/**
 * The events table's columns a batch writes (migration 0025: the dealer's key, no lead id; migration
 * 0024: the device), in the order of STORED_VALUES.
 */
const STORED_COLUMNS = sql.raw('dealer_key, event, slot_type, model, url_id, occurred_at, page_view, creative, device');
/**
 * The values of STORED_COLUMNS from a batch row `r`: the dealer's key looked up by its id (the unique
 * index of dealers.key's owner row, no row lock). An unknown or deleted dealer has none: its NULL
 * fails the NOT NULL of events.dealer_key and the batch is refused, as a foreign key would.
 */
const STORED_VALUES = sql.raw(
  '(SELECT d.key FROM dealers d WHERE d.id = r.dealer_id), r.event, r.slot_type, r.model, r.url_id, r.occurred_at, r.page_view, r.creative, r.device',
);

/**
 * A batch as ONE json parameter expanded by jsonb_to_recordset into rows `r` with EventRow's columns:
 * a fixed, short statement instead of 10 bound parameters per row, which is several times cheaper
 * to build and to parse on both PGlite and PostgreSQL.
 */
const recordset = (batch: EventRow[]) => sql`jsonb_to_recordset(${JSON.stringify(batch)}::jsonb)
  AS r(dealer_id text, event event_kind, slot_type text, model text, url_id int, occurred_at timestamptz, page_view text, lead_id text, creative text, device device_class)`;

/**
 * Runs an INSERT INTO events (without RETURNING) as a CTE, after the CTEs of `prelude` (the keys it
 * stores by, see insertImpressions), sums the rows it stored per (dealer, UTC hour, model key, slot type, creative ('' when unknown), device) into
 * event_rollups_hourly and each dealer's newest event time into dealer_last_events in the same
 * statement, and returns how many it stored. The hour is cut from
 * the epoch, not by date_trunc, so the session's time zone cannot move it. Exported for the volume
 * generator (db/volume.ts), so generated data is rolled up exactly as ingested data is.
 */
export async function withRollup(tx: Tx, insert: SQL, prelude?: SQL): Promise<number> {
  const r = eventRollupsHourly;
  const result = (await tx.execute(sql`
    WITH ${prelude ? sql`${prelude},` : sql``} stored AS (${insert} RETURNING dealer_key, event, slot_type, model, creative, device, occurred_at),
    rolled AS (
      INSERT INTO ${r} (dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions)
      SELECT d.id, to_timestamp(floor(extract(epoch FROM s.occurred_at) / 3600) * 3600), s.model, coalesce(s.slot_type, ''), coalesce(s.creative, ''), s.device,
        count(*) FILTER (WHERE s.event = 'impression'), count(*) FILTER (WHERE s.event = 'click'), count(*) FILTER (WHERE s.event = 'conversion')
      FROM stored s JOIN dealers d ON d.key = s.dealer_key GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT (dealer_id, hour, model, slot_type, creative, device) DO UPDATE SET
        impressions = ${r.impressions} + excluded.impressions,
        clicks = ${r.clicks} + excluded.clicks,
        conversions = ${r.conversions} + excluded.conversions),
    newest AS (
      INSERT INTO ${dealerLastEvents} AS t (dealer_key, at)
      SELECT dealer_key, max(occurred_at) FROM stored GROUP BY 1 ORDER BY 1
      ON CONFLICT (dealer_key) DO UPDATE SET at = excluded.at WHERE excluded.at > t.at)
    SELECT count(*)::int AS n FROM stored`)) as unknown as { rows: Array<{ n: number | string }> };
  return Number(result.rows[0]?.n ?? 0);
}

/** The batch as rows of EventRow's columns, once per statement (CTE `batch`), then the statement's CTEs. */
const batchOf = (events: EventRow[]) => sql`batch AS (SELECT * FROM ${recordset(events)})`;

/** Stores the rows of CTE `once` whose (dealer, page view, slot type) key CTE `keyed` (keyedOnce) took. */
const INSERT_KEYED_ONCE = sql`
    INSERT INTO ${events} (${STORED_COLUMNS})
    SELECT ${STORED_VALUES} FROM once r
    WHERE EXISTS (SELECT 1 FROM keyed k WHERE k.dealer_id = r.dealer_id AND k.key = r.page_view AND k.slot_type = coalesce(r.slot_type, ''))`;

/**
 * CTE `keyed`: takes the `kind` key (dealer, page view, slot type) of each row of CTE `once`, and
 * returns the keys it took (a key already taken, by a retried beacon or a concurrent writer, is not).
 */
const keyedOnce = (kind: 'impression' | 'click') => sql`keyed AS (
      INSERT INTO ${eventKeys} (dealer_id, kind, key, slot_type, at, model, creative)
      SELECT dealer_id, ${sql.raw(`'${kind}'`)}, page_view, coalesce(slot_type, ''), occurred_at, model, creative FROM once
      ON CONFLICT DO NOTHING
      RETURNING dealer_id, key, slot_type)`;

/**
 * Inserts impressions, at most one per (dealer, page view, slot type): a beacon retried after a
 * 503, or sent twice, is one impression. The first of a batch's duplicates (by occurred_at) is the
 * one stored; an impression without a page view (an old script) is always stored.
 * @returns how many impressions were stored.
 */
function insertImpressions(tx: Tx, batch: EventRow[]): Promise<number> {
  return withRollup(
    tx,
    sql`${INSERT_KEYED_ONCE}
    UNION ALL
    SELECT ${STORED_VALUES} FROM batch r WHERE r.page_view IS NULL`,
    sql`${batchOf(batch)},
    once AS (
      SELECT DISTINCT ON (dealer_id, page_view, coalesce(slot_type, '')) * FROM batch
      WHERE page_view IS NOT NULL ORDER BY dealer_id, page_view, coalesce(slot_type, ''), occurred_at),
    ${keyedOnce('impression')}`,
  );
}

/**
 * Inserts the clicks whose page view has an impression of the same dealer, slot type and model at
 * most CLICK_WINDOW_MS before, at most one per (dealer, page view, slot type), so clicks never
 * exceed the banners page views rendered and CTR stays <= 100 %, per model too: a click cannot be
 * moved onto a model its page view's banner did not show. The impression is looked up by its key.
 * @returns how many clicks were stored.
 */
function insertClicks(tx: Tx, clicks: EventRow[]): Promise<number> {
  const k = eventKeys;
  return withRollup(
    tx,
    INSERT_KEYED_ONCE,
    sql`${batchOf(clicks)},
    once AS (
      SELECT DISTINCT ON (dealer_id, page_view, coalesce(slot_type, '')) * FROM batch b
      WHERE EXISTS (
        SELECT 1 FROM ${k} v
        WHERE v.dealer_id = b.dealer_id AND v.kind = 'impression' AND v.key = b.page_view AND v.slot_type = coalesce(b.slot_type, '')
          AND v.model = b.model AND v.at >= b.occurred_at - ${CLICK_WINDOW})
      ORDER BY dealer_id, page_view, coalesce(slot_type, ''), occurred_at),
    ${keyedOnce('click')}`,
  );
}

/** A click older than this (by server receipt time) no longer takes a conversion (CONVERSION_WINDOW_MS). */
const CONVERSION_WINDOW = sql.raw(`interval '${CONVERSION_WINDOW_MS / 1000} seconds'`);
/** An impression older than this no longer takes a click (CLICK_WINDOW_MS). */
const CLICK_WINDOW = sql.raw(`interval '${CLICK_WINDOW_MS / 1000} seconds'`);

/**
 * Inserts the conversions attributed to a stored banner click: a click of the same dealer and page
 * view (any slot) received at most CONVERSION_WINDOW_MS before the conversion (its key); at most one
 * per (dealer, page view) and one per (dealer, lead id), so a reloaded thank-you page or a lead sent
 * from two page views counts once. The lead's key is taken first, only while the page view has no
 * conversion; a conversion refused for its page view by a concurrent writer may thus spend its lead
 * key (it is never counted twice). Unattributed conversions are not stored and never enter the
 * Conversion Rate. @returns how many conversions were stored.
 */
function insertConversions(tx: Tx, conversions: EventRow[]): Promise<number> {
  const k = eventKeys;
  // The click's creative (and slot, when the beacon names none) goes with the conversion: the newest click of the page view, when several slots were clicked.
  return withRollup(
    tx,
    sql`
    INSERT INTO ${events} (${STORED_COLUMNS})
    SELECT ${STORED_VALUES}
    FROM once r
    WHERE EXISTS (SELECT 1 FROM viewed v WHERE v.dealer_id = r.dealer_id AND v.key = r.page_view)`,
    sql`${batchOf(conversions)},
    attributed AS (
      SELECT DISTINCT ON (b.dealer_id, b.page_view)
        b.dealer_id, b.event, coalesce(b.slot_type, nullif(c.slot_type, '')) AS slot_type, b.model, b.url_id, b.occurred_at,
        b.page_view, b.lead_id, c.creative, b.device
      FROM batch b
      CROSS JOIN LATERAL (
        SELECT c.creative, c.slot_type FROM ${k} c
        WHERE c.dealer_id = b.dealer_id AND c.kind = 'click' AND c.key = b.page_view AND c.at >= b.occurred_at - ${CONVERSION_WINDOW}
        ORDER BY c.at DESC LIMIT 1) c
      ORDER BY b.dealer_id, b.page_view, b.occurred_at),
    once AS (
      SELECT DISTINCT ON (dealer_id, coalesce(lead_id, page_view)) * FROM attributed
      ORDER BY dealer_id, coalesce(lead_id, page_view), occurred_at),
    leads AS (
      INSERT INTO ${k} (dealer_id, kind, key, slot_type, at)
      SELECT o.dealer_id, 'lead', o.lead_id, '', o.occurred_at FROM once o
      WHERE o.lead_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ${k} v WHERE v.dealer_id = o.dealer_id AND v.kind = 'conversion' AND v.key = o.page_view AND v.slot_type = '')
      ON CONFLICT DO NOTHING
      RETURNING dealer_id, key),
    viewed AS (
      INSERT INTO ${k} (dealer_id, kind, key, slot_type, at, model, creative)
      SELECT o.dealer_id, 'conversion', o.page_view, '', o.occurred_at, o.model, o.creative FROM once o
      WHERE o.lead_id IS NULL OR EXISTS (SELECT 1 FROM leads l WHERE l.dealer_id = o.dealer_id AND l.key = o.lead_id)
      ON CONFLICT DO NOTHING
      RETURNING dealer_id, key)`,
  );
}

/** A dealer's totals of a window: read through server/reporting (re-exported for the ingestion's callers). */
export { dealerStats } from '../reporting/service';
