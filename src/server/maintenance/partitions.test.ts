/**
 * Event storage by time (migration 0014, partitions.ts), on PGlite and PostgreSQL: the weekly
 * partitions of `events` exist ahead of time and are created on demand for an event of any other
 * week; retention drops the partitions entirely past EVENT_RETENTION_DAYS and leaves the newer
 * ones, and what the dealer sees (analytics read from the rollups) does not change; two writers of
 * the same retried beacon at once store it once (PostgreSQL, where writers run concurrently). The
 * hourly rollups' daily partitions (migration 0028) exist from today through the same weeks, rows of
 * a day not created wait in DEFAULT and move into their day when it is created, and retention drops
 * the days past their cutoffs whole while the analytics screens keep their counts. Every clock is injected (the app's `now`, the scheduler's tick(now)); nothing sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { eq, sql } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerRollupsDaily, eventKeys, eventRollupsHourly, events } from '../db/schema';
import { detailHourlyCutoff, hourlyRollupCutoff } from '../../domain/retention';
import { EventIngestor, type AcceptedEvent } from '../tracking/service';
import { RETENTION_INTERVAL_MS } from './retention';
import { PARTITION_WEEKS_AHEAD, WEEK_MS, ensureRollupPartitions, partitionName, weekStart, type RollupTable } from './partitions';

const ROLLUP_TABLES = ['event_rollups_hourly', 'dealer_rollups_hourly'] as const;

const A = DEMO_DEALER.id;
const DAY = 86_400_000;
const RETENTION_DAYS = 7;
/**
 * The app's clock; each test moves it a fresh hour and a minute past the last job claim, so the
 * hourly job is due. It starts five minutes into the current hour so that a test's events, a minute
 * apart, never straddle an hourly rollup bucket whose end the screens' windows stop at.
 */
let clock = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 5 * 60_000);
const nextHour = () => (clock = new Date(clock.getTime() + RETENTION_INTERVAL_MS + 60_000));

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { env: { EVENT_RETENTION_DAYS: String(RETENTION_DAYS) }, now: () => clock }));
});
afterAll(() => t.close());

const db = () => t.database.db;
/** The partitions of events by name, from pg_partition_tree (leaves only), oldest first. */
const partitions = async () =>
  ((await db().execute(sql`SELECT relid::text AS name FROM pg_partition_tree('events') WHERE isleaf ORDER BY 1`)) as unknown as { rows: Array<{ name: string }> }).rows.map(
    (r) => r.name.replace(/^.*\./, '').replace(/"/g, ''),
  );
const ev = (event: AcceptedEvent['event'], occurredAt: Date, pageView: string, extra: Partial<AcceptedEvent> = {}): AcceptedEvent => ({
  dealerId: A,
  event,
  slotType: 'header',
  model: 'civic',
  url: 'https://www.hondaofdemo.com/new-inventory',
  occurredAt,
  pageView,
  creative: 'cdn',
  ...extra,
});
/** Writes `batch` through the app's own ingestor (the track route's writer). */
const ingest = async (batch: AcceptedEvent[]) => {
  for (const e of batch) expect(t.app.events.enqueue(e)).toBe(true);
  await t.app.events.flush();
  expect(t.app.events.stats()).toMatchObject({ pending: 0, failures: 0 });
};
const storedFor = async (pv: string) => (await db().select({ event: events.event }).from(events).where(eq(events.pageView, pv))).map((r) => r.event).sort();
/** What the dealer's analytics screen shows for `period`, without the fields that name the clock. */
const screen = async (period: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/analytics?period=${period}`, headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
};

describe('events partitions', () => {
  it('keeps the current week and the next ones created, and creates the week of an event that has none', async () => {
    const now = nextHour();
    expect(await t.app.maintenance.tick(now)).not.toBeNull();
    const names = await partitions();
    for (let k = 0; k <= PARTITION_WEEKS_AHEAD; k++) expect(names).toContain(partitionName(weekStart(now.getTime()) + k * WEEK_MS));

    // Thirty weeks ahead (a clock jump, a replayed journal): no partition yet; the writer creates it and stores the events.
    const far = new Date(now.getTime() + 30 * WEEK_MS);
    expect(names).not.toContain(partitionName(weekStart(far.getTime())));
    await ingest([ev('impression', far, 'pv-far'), ev('click', new Date(far.getTime() + 1_000), 'pv-far')]);
    expect(await storedFor('pv-far')).toEqual(['click', 'impression']);
    expect(await partitions()).toContain(partitionName(weekStart(far.getTime())));
  });

  it('drops only the partitions entirely past EVENT_RETENTION_DAYS; the dealer sees the same counts', async () => {
    const now = nextHour();
    const cutoff = now.getTime() - RETENTION_DAYS * DAY;
    // Three weeks ago (a partition wholly past the cutoff), in the partition the cutoff falls in, and now.
    const old = new Date(now.getTime() - 21 * DAY);
    const edge = new Date(Math.max(weekStart(cutoff), cutoff - DAY) + 60_000);
    const batch = (at: Date, pv: string) => [ev('impression', at, pv), ev('click', new Date(at.getTime() + 5_000), pv), ev('conversion', new Date(at.getTime() + 60_000), pv, { slotType: null, leadId: `lead-${pv}` })];
    await ingest([...batch(old, 'pv-old'), ...batch(edge, 'pv-edge'), ...batch(now, 'pv-now')]);
    expect(await storedFor('pv-old')).toEqual(['click', 'conversion', 'impression']);
    const before = { d30: await screen('30d'), d7: await screen('7d') };
    expect(before.d30).toMatchObject({ current: { impressions: 3, clicks: 3, conversions: 3 } });

    const counts = await t.app.maintenance.tick(now);
    expect(counts).toMatchObject({ eventPartitions: 1, events: 3 });
    const names = await partitions();
    expect(names).not.toContain(partitionName(weekStart(old.getTime())));
    expect(names).toContain(partitionName(weekStart(edge.getTime())));
    expect(names).toContain(partitionName(weekStart(now.getTime())));
    // Every partition left ends after the cutoff.
    for (const name of names) {
      const m = /^events_(\d{4})(\d{2})(\d{2})$/.exec(name)!;
      expect(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + WEEK_MS).toBeGreaterThan(cutoff);
    }
    expect(await storedFor('pv-old')).toEqual([]);
    expect(await storedFor('pv-edge')).toEqual(['click', 'conversion', 'impression']);
    expect(await storedFor('pv-now')).toEqual(['click', 'conversion', 'impression']);
    expect({ d30: await screen('30d'), d7: await screen('7d') }).toEqual(before);

    // The keys of the old page view went with their age (older than two days); its lead's key
    // stays for the retention period, so that lead is still counted once.
    const keys = await db().select({ kind: eventKeys.kind, key: eventKeys.key }).from(eventKeys).where(eq(eventKeys.dealerId, A));
    expect(keys.filter((k) => k.key === 'pv-old')).toEqual([]);
    expect(keys.filter((k) => k.key === 'pv-now').map((k) => k.kind).sort()).toEqual(['click', 'conversion', 'impression']);
  });
});

/** The daily partitions of an hourly rollup table (migration 0028), without its DEFAULT one, oldest first. */
const rollupDays = async (table: RollupTable) =>
  ((await db().execute(sql`SELECT relid::text AS name FROM pg_partition_tree(${table}::regclass) WHERE isleaf ORDER BY 1`)) as unknown as { rows: Array<{ name: string }> }).rows
    .map((r) => r.name.replace(/^.*\./, '').replace(/"/g, ''))
    .filter((name) => !name.endsWith('_default'));
/** The name of `table`'s partition of the UTC day holding `ms`. */
const dayName = (table: RollupTable, ms: number) => `${table}_${new Date(Math.floor(ms / DAY) * DAY).toISOString().slice(0, 10).replace(/-/g, '')}`;
/** The partition each of `table`'s rows of the UTC day holding `at` is stored in, one name per row. */
const storedIn = async (table: RollupTable, at: Date) => {
  const day = Math.floor(at.getTime() / DAY) * DAY;
  const result = (await db().execute(sql`
    SELECT c.relname AS name FROM ${sql.identifier(table)} r JOIN pg_class c ON c.oid = r.tableoid
    WHERE r.hour >= ${new Date(day).toISOString()}::timestamptz AND r.hour < ${new Date(day + DAY).toISOString()}::timestamptz`)) as unknown as { rows: Array<{ name: string }> };
  return result.rows.map((r) => r.name);
};
/** Rows of `table` older than `cutoff`. */
const rowsBefore = async (table: RollupTable, cutoff: Date) =>
  Number(
    ((await db().execute(sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE hour < ${cutoff.toISOString()}::timestamptz`)) as unknown as { rows: Array<{ n: number }> })
      .rows[0]!.n,
  );

describe('hourly rollup partitions', () => {
  it("keeps today's and the next weeks' days created; a day's rows written before its partition move into it", async () => {
    const now = nextHour();
    expect(await t.app.maintenance.tick(now)).not.toBeNull();
    const ahead = weekStart(now.getTime()) + (PARTITION_WEEKS_AHEAD + 1) * WEEK_MS;
    for (const table of ROLLUP_TABLES) {
      const names = await rollupDays(table);
      for (let day = Math.floor(now.getTime() / DAY) * DAY; day < ahead; day += DAY) expect(names).toContain(dayName(table, day));
    }

    // Forty days ahead, past the days created: the rows wait in the DEFAULT partitions, no write fails.
    const far = new Date(now.getTime() + 40 * DAY);
    expect(await rollupDays('event_rollups_hourly')).not.toContain(dayName('event_rollups_hourly', far.getTime()));
    await ingest([ev('impression', far, 'pv-far-day'), ev('impression', new Date(far.getTime() + 1_000), 'pv-far-day', { slotType: 'upsell' })]);
    expect(await storedIn('event_rollups_hourly', far)).toEqual(['event_rollups_hourly_default', 'event_rollups_hourly_default']);
    expect(await storedIn('dealer_rollups_hourly', far)).toEqual(['dealer_rollups_hourly_default']);
    const rowsOfDay = async () =>
      (await db().select().from(eventRollupsHourly).where(eq(eventRollupsHourly.dealerId, A))).filter((r) => Math.floor(r.hour.getTime() / DAY) === Math.floor(far.getTime() / DAY));
    const rows = await rowsOfDay();
    const dealerDays = await db().select().from(dealerRollupsDaily);

    // Creating the day moves them into it, unchanged; no rollup trigger counts them again.
    for (const table of ROLLUP_TABLES) {
      expect(await ensureRollupPartitions(db(), table, far, new Date(far.getTime() + 1))).toBe(1);
      expect(await storedIn(table, far)).toEqual((table === 'event_rollups_hourly' ? [1, 2] : [1]).map(() => dayName(table, far.getTime())));
    }
    expect(await rowsOfDay()).toEqual(rows);
    expect(await db().select().from(dealerRollupsDaily)).toEqual(dealerDays);
    // Later writes of that day go to its partition and add up as before.
    await ingest([ev('impression', new Date(far.getTime() + 2_000), 'pv-far-day-2')]);
    expect((await rowsOfDay()).find((r) => r.slotType === 'header')).toMatchObject({ impressions: 2 });
  });

  it('drops the days past their cutoffs whole; the dealer sees the same counts', async () => {
    const now = nextHour();
    // Twelve days ago (past the detailed hours' cutoff, within the dealer hours'), a hundred days ago
    // (past both), and now, in partitions created before their rows (the job created them ahead).
    const old = new Date(now.getTime() - 12 * DAY);
    const ancient = new Date(now.getTime() - 100 * DAY);
    for (const at of [old, ancient]) for (const table of ROLLUP_TABLES) await ensureRollupPartitions(db(), table, at, new Date(at.getTime() + 1));
    const batch = (at: Date, pv: string) => [ev('impression', at, pv), ev('click', new Date(at.getTime() + 5_000), pv), ev('conversion', new Date(at.getTime() + 60_000), pv, { slotType: null, leadId: `lead-${pv}` })];
    await ingest([...batch(old, 'pv-rollup-old'), ...batch(ancient, 'pv-rollup-ancient'), ...batch(now, 'pv-rollup-now')]);
    for (const [at, table] of [[old, 'event_rollups_hourly'], [ancient, 'event_rollups_hourly'], [ancient, 'dealer_rollups_hourly']] as const) {
      expect(new Set(await storedIn(table, at))).toEqual(new Set([dayName(table, at.getTime())]));
    }
    const screens = async () => ({ d7: await screen('7d'), d30: await screen('30d'), d90: await screen('90d') });
    const before = await screens();
    const expired = (await rowsBefore('event_rollups_hourly', detailHourlyCutoff(now))) + (await rowsBefore('dealer_rollups_hourly', hourlyRollupCutoff(now)));
    // One detailed hour of each old batch (its conversion counts with its click), one dealer hour of the ancient one.
    expect(expired).toBeGreaterThanOrEqual(2 + 1);

    const counts = await t.app.maintenance.tick(now);
    expect(counts?.hourlyRollups).toBeGreaterThanOrEqual(expired);
    expect(await rowsBefore('event_rollups_hourly', detailHourlyCutoff(now))).toBe(0);
    expect(await rowsBefore('dealer_rollups_hourly', hourlyRollupCutoff(now))).toBe(0);
    const detailDays = await rollupDays('event_rollups_hourly');
    expect(detailDays).not.toContain(dayName('event_rollups_hourly', old.getTime()));
    expect(detailDays).not.toContain(dayName('event_rollups_hourly', ancient.getTime()));
    expect(await rollupDays('dealer_rollups_hourly')).not.toContain(dayName('dealer_rollups_hourly', ancient.getTime()));
    expect(await rollupDays('dealer_rollups_hourly')).toContain(dayName('dealer_rollups_hourly', old.getTime()));
    // Every day left ends after its table's cutoff.
    for (const [table, cutoff] of [['event_rollups_hourly', detailHourlyCutoff(now)], ['dealer_rollups_hourly', hourlyRollupCutoff(now)]] as const) {
      for (const name of await rollupDays(table)) {
        const m = /_(\d{4})(\d{2})(\d{2})$/.exec(name)!;
        expect(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY).toBeGreaterThan(cutoff.getTime());
      }
    }
    expect(await storedIn('dealer_rollups_hourly', old)).toEqual([dayName('dealer_rollups_hourly', old.getTime())]);
    expect(await screens()).toEqual(before);
  });
});

describe.runIf(process.env.TEST_DB_DRIVER === 'postgres')('concurrent writers', () => {
  it('two processes writing the same retried beacons at once store each impression, click and conversion once', async () => {
    const now = new Date();
    const log = pino({ level: 'silent' });
    // Two writers on their own connections of the pool, as two server processes are.
    const writers = [0, 1].map(() => new EventIngestor(t.database.db, log, { durableCommits: false }));
    const pvs = Array.from({ length: 40 }, (_, i) => `pv-race-${i}`);
    const beacons = pvs.flatMap((pv) => [ev('impression', now, pv), ev('click', new Date(now.getTime() + 1), pv), ev('conversion', new Date(now.getTime() + 2), pv, { slotType: null })]);
    for (const w of writers) for (const e of beacons) expect(w.enqueue(e)).toBe(true);
    await Promise.all(writers.map((w) => w.flush()));
    for (const w of writers) expect(w.stats()).toMatchObject({ pending: 0, failures: 0 });

    const rows = (await db().execute(sql`
      SELECT event, count(*)::int AS n, count(DISTINCT page_view)::int AS views FROM events WHERE page_view LIKE 'pv-race-%' GROUP BY 1 ORDER BY event::text`)) as unknown as {
      rows: Array<{ event: string; n: number; views: number }>;
    };
    expect(rows.rows).toEqual([
      { event: 'click', n: 40, views: 40 },
      { event: 'conversion', n: 40, views: 40 },
      { event: 'impression', n: 40, views: 40 },
    ]);
    const [a, b] = writers.map((w) => w.stats());
    expect(a!.impressionsIgnored + b!.impressionsIgnored).toBe(40);
    await Promise.all(writers.map((w) => w.close()));
  });
});
