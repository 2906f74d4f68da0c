import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { openTestDatabase } from '../test-app';
import { seedDemoData, DEMO_DEALER } from '../db/seed';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventIngestor, dealerStats, type AcceptedEvent } from './service';
import { EventJournal } from './journal';
import { and, eq, gte, like, lt, sql } from 'drizzle-orm';
import { eventDeadLetters, eventRollupsHourly, events, eventUrls } from '../db/schema';
import { CONVERSION_WINDOW_MS } from '../../domain/conversions';

type TestDb = Awaited<ReturnType<typeof openTestDatabase>>;
let database: TestDb;
const log = pino({ level: 'silent' });
const at = (iso: string, event: AcceptedEvent['event'], model = 'civic', slotType: AcceptedEvent['slotType'] = 'header', pageView = 'view-0'): AcceptedEvent => ({
  dealerId: DEMO_DEALER.id,
  event,
  slotType,
  model,
  url: '',
  occurredAt: new Date(iso),
  pageView,
});

/**
 * An ingestor on the test database. Its back-pressure bound (maxUnsecuredMs, 250 ms in production)
 * is an hour unless the test is about it: a busy machine can pause this process longer than 250 ms
 * between two enqueues, and the ingestor would then rightly refuse an event the test expects taken.
 */
const ingestor = (opts: ConstructorParameters<typeof EventIngestor>[2]) => new EventIngestor(database.db, log, { maxUnsecuredMs: 3_600_000, ...opts });

beforeAll(async () => {
  database = await openTestDatabase();
  await seedDemoData(database.db);
});
afterAll(() => database.dispose());

describe('EventIngestor', () => {
  it('writes events and rollups in batches, adding to existing rollup rows', async () => {
    const ingest = ingestor({ batchSize: 2, flushIntervalMs: 10_000 });
    for (let i = 0; i < 5; i++) expect(ingest.enqueue(at('2026-11-02T09:15:00Z', i % 2 ? 'click' : 'impression', 'civic', 'header', `view-${Math.floor(i / 2)}`))).toBe(true);
    await ingest.close();
    expect(await database.db.$count(events)).toBe(5);
    const stats = await dealerStats(database.db, DEMO_DEALER.id, new Date('2026-11-02T00:00:00Z'), new Date('2026-11-03T00:00:00Z'));
    expect(stats).toEqual({ impressions: 3, clicks: 2, conversions: 0, ctr: (2 * 100) / 3 });
    const rows = await database.db.select().from(eventRollupsHourly);
    expect(rows).toHaveLength(1);
  });

  it('writes a batch larger than statementEvents in several statements of one transaction, deduplicating across them', async () => {
    const ingest = ingestor({ statementEvents: 2, flushIntervalMs: 10_000 });
    const before = await database.db.$count(events);
    // Five impressions, the fifth a retry of the first (another statement), then a click of each page view.
    for (const pv of ['view-chunk-1', 'view-chunk-2', 'view-chunk-3', 'view-chunk-4', 'view-chunk-1']) expect(ingest.enqueue(at('2026-11-04T09:00:00Z', 'impression', 'civic', 'header', pv))).toBe(true);
    for (const pv of ['view-chunk-1', 'view-chunk-2', 'view-chunk-3', 'view-chunk-4']) ingest.enqueue(at('2026-11-04T09:01:00Z', 'click', 'civic', 'header', pv));
    await ingest.close();
    expect(await database.db.$count(events)).toBe(before + 8);
    expect(ingest.stats()).toMatchObject({ stored: 9, impressionsIgnored: 1, clicksRefused: 0 });
    const stats = await dealerStats(database.db, DEMO_DEALER.id, new Date('2026-11-04T00:00:00Z'), new Date('2026-11-05T00:00:00Z'));
    expect(stats).toMatchObject({ impressions: 4, clicks: 4 });
  });

  it('stores each page URL once: events carry its dictionary id, across batches and processes', async () => {
    const page = (n: number) => `https://www.hondaofdemo.com/url-dictionary-${n}?model=civic`;
    const withUrl = (pv: string, url: string): AcceptedEvent => ({ ...at('2026-10-20T09:00:00Z', 'impression', 'urltest', 'header', pv), url });
    const first = new EventIngestor(database.db, log, { batchSize: 2, flushIntervalMs: 10_000 });
    for (const [pv, url] of [['url-1', page(1)], ['url-2', page(1)], ['url-3', page(2)], ['url-4', ''], ['url-5', page(1)]] as const) {
      expect(first.enqueue(withUrl(pv, url))).toBe(true);
    }
    await first.close();
    // Another server process: its own cache, the same dictionary.
    const second = new EventIngestor(database.db, log, { flushIntervalMs: 10_000 });
    expect(second.enqueue(withUrl('url-6', page(2)))).toBe(true);
    expect(second.enqueue(withUrl('url-7', page(3)))).toBe(true);
    await second.close();
    const stored = await database.db
      .select({ pageView: events.pageView, urlId: events.urlId, url: eventUrls.url })
      .from(events)
      .leftJoin(eventUrls, eq(eventUrls.id, events.urlId))
      .where(eq(events.model, 'urltest'))
      .orderBy(events.pageView);
    expect(stored.map((r) => [r.pageView, r.url])).toEqual([
      ['url-1', page(1)],
      ['url-2', page(1)],
      ['url-3', page(2)],
      ['url-4', null],
      ['url-5', page(1)],
      ['url-6', page(2)],
      ['url-7', page(3)],
    ]);
    expect(stored[3]!.urlId).toBeNull();
    expect(await database.db.$count(eventUrls, like(eventUrls.url, '%/url-dictionary-%'))).toBe(3);
  });

  it('refuses events when the buffer is full (back-pressure) and after close', async () => {
    const ingest = ingestor({ maxBuffered: 3, batchSize: 100, flushIntervalMs: 10_000 });
    const e = at('2026-11-03T09:00:00Z', 'impression');
    expect([ingest.enqueue(e), ingest.enqueue(e), ingest.enqueue(e), ingest.enqueue(e)]).toEqual([true, true, true, false]);
    await ingest.flush();
    expect(ingest.enqueue(e)).toBe(true);
    await ingest.close();
    expect(ingest.enqueue(e)).toBe(false);
  });
});

describe('EventIngestor under failures', () => {
  const day = '2026-11-04T09:00:00Z';
  const count = (model: string) => database.db.$count(events, eq(events.model, model));
  const fast = { retryMinMs: 5, retryMaxMs: 20, flushIntervalMs: 5 };

  it('dead-letters an event the database refuses (NUL in a string) and stores every other event of its batch and after it', async () => {
    const ingest = ingestor({ ...fast, batchSize: 500 });
    for (let i = 0; i < 300; i++) ingest.enqueue(at(day, 'impression', i === 123 ? 'x\u0000y' : 'nultest', 'header', `nul-a-${i}`));
    await expect.poll(() => ingest.stats().pending, { timeout: 10_000 }).toBe(0);
    const accepted = Array.from({ length: 1000 }, (_, i) => ingest.enqueue(at(day, 'impression', 'nultest', 'header', `nul-b-${i}`)));
    expect(accepted).toEqual(Array<boolean>(1000).fill(true));
    await ingest.close();
    expect(await count('nultest')).toBe(1299);
    const dead = await database.db.select().from(eventDeadLetters);
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]!.payload)).toMatchObject({ dealerId: DEMO_DEALER.id, model: 'x\u0000y' });
    expect(dead[0]!.error).toMatch(/unicode|\\u0000|escape/i);
    expect(ingest.stats()).toMatchObject({ stored: 1299, deadLettered: 1, failures: 0 });
  });

  it('isolates the events a trigger rejects, whatever their position in the batch', async () => {
    await database.db.execute(sql.raw(`
      CREATE FUNCTION reject_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.model = 'poison' THEN RAISE EXCEPTION 'poison event' USING ERRCODE = '22023'; END IF; RETURN NEW; END $$`));
    await database.db.execute(sql.raw('CREATE TRIGGER reject_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION reject_poison()'));
    try {
      const before = (await database.db.select().from(eventDeadLetters)).length;
      const ingest = ingestor({ ...fast, batchSize: 1000 });
      for (let i = 0; i < 1000; i++) ingest.enqueue(at(day, 'impression', [0, 1, 500, 999].includes(i) ? 'poison' : 'triggertest', 'header', `trigger-${i}`));
      await ingest.close();
      expect(await count('triggertest')).toBe(996);
      expect((await database.db.select().from(eventDeadLetters)).length - before).toBe(4);
    } finally {
      await database.db.execute(sql.raw('DROP TRIGGER reject_poison ON events'));
      await database.db.execute(sql.raw('DROP FUNCTION reject_poison()'));
    }
  });

  it('keeps every event through a table outage and stores them once the table is back, dead-lettering none', async () => {
    const deadBefore = (await database.db.select().from(eventDeadLetters)).length;
    const ingest = ingestor({ ...fast, retryMaxMs: 50 });
    await database.db.execute(sql.raw('ALTER TABLE events RENAME TO events_away'));
    try {
      for (let i = 0; i < 500; i++) expect(ingest.enqueue(at(day, 'impression', 'outagetest', 'header', `outage-a-${i}`))).toBe(true);
      await expect.poll(() => ingest.stats().failures, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      await ingest.flush(); // resolves during the outage instead of waiting it out
      expect(ingest.pending).toBe(500);
      for (let i = 0; i < 500; i++) expect(ingest.enqueue(at(day, 'impression', 'outagetest', 'header', `outage-b-${i}`))).toBe(true);
    } finally {
      await database.db.execute(sql.raw('ALTER TABLE events_away RENAME TO events'));
    }
    // The writer resumes by itself: no flush or close needed.
    await expect.poll(() => ingest.pending, { timeout: 10_000 }).toBe(0);
    expect(await count('outagetest')).toBe(1000);
    expect((await database.db.select().from(eventDeadLetters)).length).toBe(deadBefore);
    await ingest.close();
  });

  it('refuses while the oldest unwritten event is older than maxUnsecuredMs, and takes events again once it is written', async () => {
    const ingest = ingestor({ flushIntervalMs: 60_000, maxUnsecuredMs: 40 });
    expect(ingest.enqueue(at(day, 'impression', 'behindtest', 'header', 'behind-1'))).toBe(true);
    const acknowledged = Date.now();
    await expect.poll(() => Date.now() - acknowledged > 40).toBe(true); // the writer waits for its (long) flush interval
    expect(ingest.behind).toBe(true);
    expect(ingest.enqueue(at(day, 'impression', 'behindtest', 'header', 'behind-2'))).toBe(false);
    expect(ingest.stats().refusedBehind).toBe(1);
    await ingest.flush();
    expect(ingest.behind).toBe(false);
    expect(ingest.enqueue(at(day, 'impression', 'behindtest', 'header', 'behind-3'))).toBe(true);
    await ingest.close();
    expect(await count('behindtest')).toBe(2);
  });

  it('during an outage puts acknowledged events in the journal, still accepting; a later process writes them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-journal-'));
    try {
      const down = ingestor({ ...fast, maxUnsecuredMs: 40, retryMinMs: 10_000, journal: new EventJournal(dir, log) });
      await database.db.execute(sql.raw('ALTER TABLE events RENAME TO events_away'));
      try {
        expect(down.enqueue(at(day, 'impression', 'journaltest', 'header', 'journal-0'))).toBe(true);
        await expect.poll(() => down.stats().journaled, { timeout: 10_000 }).toBe(1);
        for (let i = 1; i < 20; i++) {
          expect(down.enqueue(at(day, 'impression', 'journaltest', 'header', `journal-${i}`))).toBe(true);
          await expect.poll(() => down.stats().journaled, { timeout: 10_000 }).toBe(i + 1); // on disk: older than the bound is fine now
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await database.db.execute(sql.raw('ALTER TABLE events_away RENAME TO events'));
      }
      expect(readdirSync(dir)).toHaveLength(1);
      // The process "dies" here (never closed); another one claims its journal and writes it.
      const next = ingestor({ ...fast, journal: new EventJournal(dir, log) });
      expect(await next.recover()).toBe(20);
      await expect.poll(() => next.pending, { timeout: 10_000 }).toBe(0);
      expect(await count('journaltest')).toBe(20);
      await expect.poll(() => readdirSync(dir), { timeout: 10_000 }).toEqual([]); // written: the file goes
      await next.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('waits while the database is not writable, answering "full" only when the buffer is', async () => {
    let writable = false;
    const ingest = ingestor({ ...fast, maxBuffered: 10, canWrite: () => writable });
    for (let i = 0; i < 10; i++) expect(ingest.enqueue(at(day, 'impression', 'disktest', 'header', `disk-${i}`))).toBe(true);
    await ingest.flush();
    expect(ingest.enqueue(at(day, 'impression', 'disktest'))).toBe(false);
    writable = true;
    await expect.poll(() => ingest.pending, { timeout: 10_000 }).toBe(0);
    expect(await count('disktest')).toBe(10);
    await ingest.close();
  });
});

describe('clicks and page views', () => {
  const day = '2026-11-05T09:00:00Z';
  const clicksOf = (model: string) => database.db.$count(events, sql`${events.model} = ${model} and ${events.event} = 'click'`);

  it('stores a click only for a page view that rendered the banner, once, and rolls up only stored clicks', async () => {
    const ingest = ingestor({ batchSize: 50 });
    ingest.enqueue(at(day, 'impression', 'clicktest', 'header', 'view-a'));
    ingest.enqueue(at(day, 'click', 'clicktest', 'header', 'view-a')); // same batch as its impression
    ingest.enqueue(at(day, 'click', 'clicktest', 'header', 'view-a')); // a second click on the same banner
    ingest.enqueue(at(day, 'click', 'clicktest', 'primary', 'view-a')); // a slot that page view did not render
    ingest.enqueue(at(day, 'click', 'clicktest', 'header', 'view-forged'));
    await ingest.flush();
    ingest.enqueue(at(day, 'click', 'clicktest', 'header', 'view-a')); // a later batch
    await ingest.close();
    expect(await clicksOf('clicktest')).toBe(1);
    expect(ingest.stats()).toMatchObject({ stored: 6, clicksRefused: 4 });
    const stats = await dealerStats(database.db, DEMO_DEALER.id, new Date('2026-11-05T00:00:00Z'), new Date('2026-11-06T00:00:00Z'));
    expect(stats).toMatchObject({ impressions: 1, clicks: 1, ctr: 100 });
  });
});


describe('impressions and conversions counted once', () => {
  const day = '2026-11-06T09:00:00Z';
  const stats = () => dealerStats(database.db, DEMO_DEALER.id, new Date('2026-11-06T00:00:00Z'), new Date('2026-11-07T00:00:00Z'));
  const conversion = (pageView: string | null, leadId: string | null = null): AcceptedEvent => ({ ...at(day, 'conversion', 'oncetest', null, 'unused'), pageView, leadId });

  it('stores and rolls up one impression per page view and slot, one attributed conversion per page view and lead, in one batch or several', async () => {
    const ingest = ingestor({ batchSize: 100, flushIntervalMs: 10_000 });
    ingest.enqueue(at(day, 'impression', 'oncetest', 'header', 'once-1'));
    ingest.enqueue(at(day, 'impression', 'oncetest', 'header', 'once-1')); // retried beacon, same batch
    ingest.enqueue(at(day, 'impression', 'oncetest', 'primary', 'once-1'));
    ingest.enqueue(at(day, 'click', 'oncetest', 'primary', 'once-1'));
    ingest.enqueue(conversion('once-1')); // attributed to the click of the same batch
    ingest.enqueue(conversion('once-1')); // a reload
    ingest.enqueue(conversion(null)); // no page view: never attributed
    ingest.enqueue(conversion('once-unclicked'));
    await ingest.flush();
    ingest.enqueue(at(day, 'impression', 'oncetest', 'header', 'once-1')); // retried, a later batch
    ingest.enqueue(at(day, 'impression', 'oncetest', 'header', 'once-2'));
    ingest.enqueue(at(day, 'click', 'oncetest', 'header', 'once-2'));
    ingest.enqueue(conversion('once-2', 'lead-hash-1'));
    ingest.enqueue(at(day, 'impression', 'oncetest', 'header', 'once-3'));
    ingest.enqueue(at(day, 'click', 'oncetest', 'header', 'once-3'));
    ingest.enqueue(conversion('once-3', 'lead-hash-1')); // the same lead from another page view
    ingest.enqueue(conversion('once-1', 'lead-hash-2')); // its page view already converted
    await ingest.close();
    expect(await stats()).toEqual({ impressions: 4, clicks: 3, conversions: 2, ctr: 75 });
    const stored = await database.db.select({ event: events.event, pageView: events.pageView }).from(events).where(eq(events.model, 'oncetest'));
    expect(stored.filter((e) => e.event === 'impression')).toHaveLength(4);
    expect(stored.filter((e) => e.event === 'conversion').map((e) => e.pageView).sort()).toEqual(['once-1', 'once-2']);
    expect(ingest.stats()).toMatchObject({ stored: 16, impressionsIgnored: 2, clicksRefused: 0, conversionsRefused: 5 });
  });
});

describe('the conversion window', () => {
  it(`counts a conversion only within CONVERSION_WINDOW_MS (${CONVERSION_WINDOW_MS / 60_000} minutes) of its click`, async () => {
    const ingest = ingestor({ batchSize: 100, flushIntervalMs: 10_000 });
    for (const pv of ['window-1', 'window-2']) {
      ingest.enqueue(at('2026-11-07T09:00:00Z', 'impression', 'windowtest', 'header', pv));
      ingest.enqueue(at('2026-11-07T09:00:01Z', 'click', 'windowtest', 'header', pv));
    }
    const late = new Date(Date.parse('2026-11-07T09:00:01Z') + CONVERSION_WINDOW_MS + 1000);
    const inTime = new Date(Date.parse('2026-11-07T09:00:01Z') + CONVERSION_WINDOW_MS - 1000);
    ingest.enqueue(at(late.toISOString(), 'conversion', 'windowtest', null, 'window-1'));
    ingest.enqueue(at(inTime.toISOString(), 'conversion', 'windowtest', null, 'window-2'));
    await ingest.close();
    const rows = await database.db.select({ pageView: events.pageView }).from(events).where(sql`${events.model} = 'windowtest' and ${events.event} = 'conversion'`);
    expect(rows).toEqual([{ pageView: 'window-2' }]);
    expect(ingest.stats()).toMatchObject({ conversionsRefused: 1 });
  });
});

// Last: the tests above count every event and rollup row of the file's database.
describe('rollups', () => {
  it('sum the stored events (whose model is already the key) per dealer, UTC hour, model and slot type', async () => {
    const ingest = ingestor({ flushIntervalMs: 10_000 });
    for (const e of [
      at('2026-10-01T10:05:00Z', 'impression', 'civic', 'header', 'view-rollup-1'),
      at('2026-10-01T10:59:59Z', 'impression', 'civic', 'header', 'view-rollup-2'),
      at('2026-10-01T10:30:00Z', 'click', 'civic', 'header', 'view-rollup-1'),
      at('2026-10-01T11:00:00Z', 'impression', 'civic', 'header', 'view-rollup-3'),
      at('2026-10-01T10:10:00Z', 'impression', 'crv', 'primary', 'view-rollup-4'),
      at('2026-10-01T10:12:00Z', 'click', 'crv', 'primary', 'view-rollup-4'),
      at('2026-10-01T10:15:00Z', 'conversion', 'crv', 'primary', 'view-rollup-4'),
    ])
      expect(ingest.enqueue(e)).toBe(true);
    await ingest.close();
    const rows = await database.db
      .select()
      .from(eventRollupsHourly)
      .where(and(gte(eventRollupsHourly.hour, new Date('2026-10-01T00:00:00Z')), lt(eventRollupsHourly.hour, new Date('2026-10-02T00:00:00Z'))))
      .orderBy(eventRollupsHourly.hour, eventRollupsHourly.model);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ hour: new Date('2026-10-01T10:00:00Z'), model: 'civic', slotType: 'header', impressions: 2, clicks: 1, conversions: 0 });
    expect(rows[1]).toMatchObject({ hour: new Date('2026-10-01T10:00:00Z'), model: 'crv', slotType: 'primary', impressions: 1, clicks: 1, conversions: 1 });
    expect(rows[2]).toMatchObject({ hour: new Date('2026-10-01T11:00:00Z'), model: 'civic', impressions: 1 });
  });
});
