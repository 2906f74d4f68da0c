/**
 * The dealer change listener: this process hears from the database which dealer's delivery
 * settings changed, whoever wrote them (another server process, a scheduled feed, SQL by hand), and
 * forgets that dealer in its read-model cache (cache.ts), so a copy can be trusted for minutes instead of a
 * second and thin traffic (a dealer site asks every few seconds) is answered from memory.
 *
 * - Migration 0013's triggers `pg_notify(DEALER_CHANGED_CHANNEL, '{"schema": …, "dealer": …,
 *   "version": …}')` on commit of every change of a dealer's version (migration 0007 raises it on
 *   every delivery-affecting write), creation or deletion (version null). The dealer is forgotten
 *   unless this process already holds that version or a later one (it read the row after its own
 *   write: cache.ts dealerChanged). A notification for another schema (several share a database)
 *   is ignored; one that cannot be read forgets every dealer.
 * - It LISTENs on a dedicated connection (Database.listen: a `pg.Client` outside the pool on
 *   PostgreSQL, PGlite's listen API in process). While connected the cache trusts a copy for
 *   DEALER_CACHE_LISTENING_TTL_MS; `connected` and the metric `dcb_dealer_listener_connected` say so.
 * - A lost connection (PostgreSQL restarted, the connection terminated, the network cut, found by
 *   a ping every LISTENER_PING_MS that must answer within LISTENER_PING_TIMEOUT_MS) switches the
 *   cache back to DEALER_CACHE_TTL_MS at once and distrusts every copy (changes may go unheard),
 *   then reconnects with exponential backoff from LISTENER_RETRY_MIN_MS to LISTENER_RETRY_MAX_MS.
 *   Once listening again it distrusts every copy once more (the changes of the gap were not
 *   heard) and returns to the long lifetime. Distrusted copies still serve stale-if-error.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ChannelListener, Database } from '../db/client';
import type { DealerCache } from './cache';

/** The channel migration 0013's triggers notify on; the payload is `{"schema": "<schema>", "dealer": "<dealer id>", "version": <number or null>}`. */
export const DEALER_CHANGED_CHANNEL = 'dealer_changed';
/** First wait before reconnecting a lost listener, ms; doubled per failed attempt. */
export const LISTENER_RETRY_MIN_MS = 250;
/** Longest wait between reconnection attempts, ms. */
export const LISTENER_RETRY_MAX_MS = 15_000;
/** How often the listening connection is pinged to find a dead one (a network cut sends no error), ms. */
export const LISTENER_PING_MS = 10_000;
/** How long a ping may take before the connection counts as lost, ms. */
export const LISTENER_PING_TIMEOUT_MS = 5_000;

/** Listens for dealer changes and keeps one app's dealer cache in step (see module doc). */
export class DealerChangeListener {
  /** True while LISTENing: the cache trusts its copies for the long lifetime. */
  connected = false;
  /** Connections lost since start. */
  losses = 0;
  /** Notifications received (this schema's) since start. */
  notifications = 0;
  /** The current connection's backend process id on PostgreSQL (pg_stat_activity.pid), else null. */
  get pid(): number | null {
    return this.connection?.pid ?? null;
  }

  private connection: ChannelListener | null = null;
  private closed = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  /** The connecting attempt in progress, if any (close waits for it). */
  private connecting: Promise<void> | null = null;

  constructor(
    private readonly listen: Database['listen'],
    private readonly cache: DealerCache,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Connects (resolves after the first attempt, successful or not; a failure retries in the background). */
  start(): Promise<void> {
    return this.connect();
  }

  /** Stops listening and reconnecting; the cache goes back to the short lifetime. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    await this.connecting;
    const connection = this.connection;
    this.connection = null;
    if (this.connected) this.cache.setListening(false);
    this.connected = false;
    await connection?.close();
  }

  private connect(): Promise<void> {
    this.connecting = this.tryConnect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async tryConnect(): Promise<void> {
    let connection: ChannelListener;
    // Callbacks of an earlier connection (a late loss) must not touch the current one.
    const holder: { connection?: ChannelListener } = {};
    try {
      connection = await this.listen(DEALER_CHANGED_CHANNEL, (payload) => this.notified(holder.connection, payload), (err) => this.lost(holder.connection, err));
    } catch (err) {
      if (this.closed) return;
      this.log.warn({ err, attempt: this.attempt + 1 }, 'dealer change listener could not connect; dealer settings are re-read every second until it does');
      this.scheduleRetry();
      return;
    }
    holder.connection = connection;
    if (this.closed) {
      await connection.close();
      return;
    }
    this.connection = connection;
    this.connected = true;
    this.attempt = 0;
    this.cache.setListening(true);
    this.pingTimer = setInterval(() => void connection.ping(LISTENER_PING_TIMEOUT_MS), LISTENER_PING_MS).unref();
    if (this.losses > 0) this.log.info({ losses: this.losses }, 'dealer change listener reconnected');
  }

  private notified(connection: ChannelListener | undefined, payload: string): void {
    if (!connection || connection !== this.connection) return;
    let message: { schema?: unknown; dealer?: unknown; version?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      message = {};
    }
    if (typeof message.dealer !== 'string' || typeof message.schema !== 'string') {
      this.notifications++;
      this.cache.forgetAll(); // unreadable: forgetting everything is always safe
      return;
    }
    if (message.schema !== connection.schema) return;
    this.notifications++;
    this.cache.dealerChanged(message.dealer, typeof message.version === 'number' ? message.version : null);
  }

  private lost(connection: ChannelListener | undefined, err: Error): void {
    if (!connection || connection !== this.connection || this.closed) return;
    this.connection = null;
    this.connected = false;
    this.losses++;
    clearInterval(this.pingTimer);
    this.cache.setListening(false);
    this.log.warn({ err }, 'dealer change listener lost its connection; dealer settings are re-read every second until it reconnects');
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    const delay = Math.min(LISTENER_RETRY_MAX_MS, LISTENER_RETRY_MIN_MS * 2 ** this.attempt);
    this.attempt++;
    // Up to a quarter less, so processes that lost the same server do not all come back at once.
    this.retryTimer = setTimeout(() => void this.connect(), delay * (0.75 + Math.random() / 4)).unref();
  }
}
