/**
 * Event ingestion and the counts read from it (spec 01 §7, DECISIONS 17-18).
 *
 * `EventIngestor` buffers accepted events in memory and writes them in batches (every
 * FLUSH_INTERVAL_MS or as soon as BATCH_SIZE events wait). The buffer is bounded: when
 * MAX_BUFFERED events wait, `enqueue` refuses with `false` and the route answers 503, so a
 * client is never told 204 for an event that was dropped. `close()` flushes what is left.
 */
import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { events } from '../db/schema';
import type { DealerStats, SlotType, TrackEventName } from '../../domain/schemas';
import { ctr } from '../../domain/metrics';

export interface AcceptedEvent {
  dealerId: string;
  event: TrackEventName;
  slotType: SlotType | null;
  model: string;
  url: string;
  clientTimestamp: string | null;
  occurredAt: Date;
}

export const FLUSH_INTERVAL_MS = 1000;
export const BATCH_SIZE = 500;
export const MAX_BUFFERED = 50_000;

export class EventIngestor {
  private buffer: AcceptedEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Number of events waiting to be written. */
  get pending(): number {
    return this.buffer.length;
  }

  /** Queues an event; false when the buffer is full or the ingestor is closed (caller answers 503). */
  enqueue(e: AcceptedEvent): boolean {
    if (this.closed || this.buffer.length >= MAX_BUFFERED) return false;
    this.buffer.push(e);
    if (this.buffer.length >= BATCH_SIZE) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, FLUSH_INTERVAL_MS);
      this.timer.unref();
    }
    return true;
  }

  /** Writes everything buffered so far; resolves when it is stored. Failed batches go back to the buffer. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      while (this.buffer.length > 0) {
        const batch = this.buffer.splice(0, BATCH_SIZE);
        try {
          await this.db.insert(events).values(batch);
        } catch (err) {
          this.buffer.unshift(...batch);
          this.log.error({ err, count: batch.length }, 'event batch write failed; will retry');
          throw err;
        }
      }
    });
    return this.flushing.catch(() => undefined);
  }

  /** Stops accepting events and flushes the rest. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.flush();
  }
}

/** Impressions, clicks, conversions and CTR of one dealer between `from` (inclusive) and `to` (exclusive). */
export async function dealerStats(db: Db, dealerId: string, from: Date, to: Date): Promise<DealerStats> {
  const [row] = await db
    .select({
      impressions: sql<number>`count(*) filter (where ${events.event} = 'impression')`.mapWith(Number),
      clicks: sql<number>`count(*) filter (where ${events.event} = 'click')`.mapWith(Number),
      conversions: sql<number>`count(*) filter (where ${events.event} = 'conversion')`.mapWith(Number),
    })
    .from(events)
    .where(and(eq(events.dealerId, dealerId), gte(events.occurredAt, from), lt(events.occurredAt, to)));
  const impressions = row?.impressions ?? 0;
  const clicks = row?.clicks ?? 0;
  return { impressions, clicks, conversions: row?.conversions ?? 0, ctr: ctr(clicks, impressions) };
}
