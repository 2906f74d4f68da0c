import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { openTestDatabase } from '../test-app';
import { seedDemoData, DEMO_DEALER } from '../db/seed';
import { EventIngestor, rollup, dealerStats, type AcceptedEvent } from './service';
import { eventRollupsHourly, events } from '../db/schema';

type TestDb = Awaited<ReturnType<typeof openTestDatabase>>;
let database: TestDb;
const log = pino({ level: 'silent' });
const at = (iso: string, event: AcceptedEvent['event'], model = 'civic', slotType: AcceptedEvent['slotType'] = 'header'): AcceptedEvent => ({
  dealerId: DEMO_DEALER.id,
  event,
  slotType,
  model,
  url: '',
  clientTimestamp: null,
  occurredAt: new Date(iso),
});

beforeAll(async () => {
  database = await openTestDatabase();
  await seedDemoData(database.db);
});
afterAll(() => database.dispose());

describe('rollup', () => {
  it('sums events per dealer, hour, model key and slot type', () => {
    const rows = rollup([
      at('2026-11-01T10:05:00Z', 'impression', 'Civic'),
      at('2026-11-01T10:59:59Z', 'impression', 'civic'),
      at('2026-11-01T10:30:00Z', 'click', 'CIVIC'),
      at('2026-11-01T11:00:00Z', 'impression', 'civic'),
      at('2026-11-01T10:10:00Z', 'conversion', 'cr-v', 'primary'),
    ]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ hour: new Date('2026-11-01T10:00:00Z'), model: 'civic', slotType: 'header', impressions: 2, clicks: 1, conversions: 0 });
    expect(rows[1]).toMatchObject({ hour: new Date('2026-11-01T11:00:00Z'), impressions: 1 });
    expect(rows[2]).toMatchObject({ model: 'crv', slotType: 'primary', conversions: 1 });
  });
});

describe('EventIngestor', () => {
  it('writes events and rollups in batches, adding to existing rollup rows', async () => {
    const ingest = new EventIngestor(database.db, log, { batchSize: 2, flushIntervalMs: 10_000 });
    for (let i = 0; i < 5; i++) expect(ingest.enqueue(at('2026-11-02T09:15:00Z', i % 2 ? 'click' : 'impression'))).toBe(true);
    await ingest.close();
    expect(await database.db.$count(events)).toBe(5);
    const stats = await dealerStats(database.db, DEMO_DEALER.id, new Date('2026-11-02T00:00:00Z'), new Date('2026-11-03T00:00:00Z'));
    expect(stats).toEqual({ impressions: 3, clicks: 2, conversions: 0, ctr: (2 * 100) / 3 });
    const rows = await database.db.select().from(eventRollupsHourly);
    expect(rows).toHaveLength(1);
  });

  it('refuses events when the buffer is full (back-pressure) and after close', async () => {
    const ingest = new EventIngestor(database.db, log, { maxBuffered: 3, batchSize: 100, flushIntervalMs: 10_000 });
    const e = at('2026-11-03T09:00:00Z', 'impression');
    expect([ingest.enqueue(e), ingest.enqueue(e), ingest.enqueue(e), ingest.enqueue(e)]).toEqual([true, true, true, false]);
    await ingest.flush();
    expect(ingest.enqueue(e)).toBe(true);
    await ingest.close();
    expect(ingest.enqueue(e)).toBe(false);
  });
});
