/**
 * Retention pruning and interrupted feed runs, on PGlite and PostgreSQL:
 * old raw events (whole weekly partitions, partitions.test.ts), expired event keys, dead letters and expired sessions go while new ones and the hourly rollups stay;
 * feed runs are cut to the newest 50 per dealer, sparing a live 'running' run; surplus client
 * errors go; one claim per interval across "processes"; a run left 'running' past its lease shows
 * as failed on the feed card and the feed runs again normally. Aged rows are inserted directly and
 * every clock is injected, so nothing sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerKeyOf } from '../db/dealer-row';
import { startLocalServer, type LocalServer } from '../../../tests/fixtures/http-server';
import { clientErrors, eventDeadLetters, eventKeys, eventRollupsDaily, eventRollupsHourly, rollupDetails, dealerRollupsDaily, dealerRollupsHourly, events, feedRuns, inventoryFeeds, jobLeases, loginThrottles, sessions, users } from '../db/schema';
import { CLIENT_ERROR_LOG_LIMIT, FEED_LEASE_MS, FEED_RUNS_KEPT, INVENTORY_TEXT } from '../../domain/constants';
import type { FeedRunView, FeedView } from '../../domain/inventory';
import { claimDueFeeds } from '../inventory/feeds';
import { claimJob, pruneExpired, RETENTION_INTERVAL_MS, RETENTION_JOB, runRetentionJob } from './retention';
import { DROP_PARTITIONS_PER_STATEMENT, ensureEventPartitions, eventPartitions, EVENT_KEY_TTL_MS, partitionName, weekStart } from './partitions';
import { detailDailyCutoff, detailHourlyCutoff, hourlyRollupCutoff } from '../../domain/retention';

const A = DEMO_DEALER.id;
const DAY = 86_400_000;
const sample = readFileSync(path.resolve('tests/fixtures/inventory/inventory-listofvehicles.json'));
const mapping = { model: 'Model', trim: 'Trim', year: 'Year', daysOnLot: 'DaysInStock', vin: 'VIN', stock: 'StockNumber' };

let t: TestApp;
let cookie: string;
let feedHost: LocalServer;
/** Each test's clock: a fresh hour past the last job claim, so the hourly job is always due. */
let clock = Date.now();
const nextHour = () => new Date((clock += RETENTION_INTERVAL_MS + 60_000));

beforeAll(async () => {
  feedHost = await startLocalServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(sample));
  // Signing in prunes expired sessions itself: sign in before any aged session is inserted.
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' } }));
});
afterAll(async () => {
  await t.close();
  await feedHost.close();
});

const db = () => t.database.db;
const rows = async (table: PgTable) =>
  (await db().select({ n: count() }).from(table))[0]!.n;
const feedCard = async () =>
  (await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/inventory/feed`, headers: { cookie } })).json() as {
    feed: FeedView | null;
    runs: FeedRunView[];
  };
/** `n` runs of `dealerId`, one minute apart, the newest `newest`; returns their ids oldest first. */
const insertRuns = async (dealerId: string, n: number, newest: Date, status = 'success') =>
  (
    await db()
      .insert(feedRuns)
      .values(
        Array.from({ length: n }, (_, i) => ({
          dealerId,
          status,
          startedAt: new Date(newest.getTime() - (n - 1 - i) * 60_000),
          finishedAt: new Date(newest.getTime() - (n - 1 - i) * 60_000 + 1_000),
          vehicleCount: 5,
        })),
      )
      .returning({ id: feedRuns.id })
  ).map((r) => r.id);

describe('retention job', () => {
  it('deletes old events, dead letters and expired sessions; keeps new ones and the rollups', async () => {
    const now = nextHour();
    // Events go by whole weekly partitions: `old` is in a week wholly past the 90 days, `recent` in one that is not.
    const old = new Date(now.getTime() - 100 * DAY);
    const recent = new Date(now.getTime() - 89 * DAY);
    const ev = (occurredAt: Date) => ({ dealerKey: dealerKeyOf(A), event: 'impression' as const, slotType: 'header', model: 'civic', occurredAt });
    await Promise.all([db().delete(events), db().delete(eventRollupsHourly), db().delete(dealerRollupsHourly), db().delete(eventDeadLetters)]);
    for (const at of [old, recent, now]) await ensureEventPartitions(db(), at, new Date(at.getTime() + 1));
    const sessionsBefore = await rows(sessions); // the test's own sign-in, valid for days
    await db().insert(events).values([ev(old), ev(old), ev(old), ev(recent), ev(now)]);
    await db().insert(eventRollupsHourly).values({ dealerId: A, hour: new Date(Math.floor(old.getTime() / 3_600_000) * 3_600_000), model: 'civic', slotType: 'header', impressions: 3 });
    // An hour older than the screens read: pruned, its day kept by the daily rollups.
    const ancient = new Date(Math.floor((now.getTime() - 120 * DAY) / 3_600_000) * 3_600_000);
    await db().insert(eventRollupsHourly).values({ dealerId: A, hour: ancient, model: 'accord', slotType: 'header', impressions: 5 });
    // An hour older than the screens read in detail, not older than their totals read: its detail
    // pruned, its dealer hour kept (a previous window's partial day).
    const weeksAgo = new Date(Math.floor((now.getTime() - 20 * DAY) / 3_600_000) * 3_600_000);
    await db().insert(eventRollupsHourly).values({ dealerId: A, hour: weeksAgo, model: 'pilot', slotType: 'upsell', impressions: 7 });
    await db().insert(eventDeadLetters).values([
      { dealerId: A, payload: '{}', error: 'boom', createdAt: old },
      { dealerId: A, payload: '{}', error: 'boom', createdAt: recent },
    ]);
    const [user] = await db().select({ id: users.id }).from(users).limit(1);
    await db().insert(sessions).values([
      { id: randomUUID(), userId: user!.id, expiresAt: new Date(now.getTime() - 1_000) },
      { id: randomUUID(), userId: user!.id, expiresAt: new Date(now.getTime() + DAY) },
    ]);

    // Sign-in throttles: forgotten 15 minutes after the last failure and the end of the lock.
    const minAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    await db().insert(loginThrottles).values([
      { emailLower: 'forgotten@example.com', failures: 3, lastFailureAt: minAgo(16), lockedUntil: null },
      { emailLower: 'lock-ended@example.com', failures: 9, lastFailureAt: minAgo(20), lockedUntil: minAgo(5) },
      { emailLower: 'recent@example.com', failures: 2, lastFailureAt: minAgo(1), lockedUntil: null },
    ]);

    const counts = await t.app.maintenance.tick(now);
    expect(counts).toEqual({ events: 3, eventPartitions: 1, eventKeys: 0, deadLetters: 1, sessions: 1, feedRuns: 0, clientErrors: 0, loginThrottles: 1, hourlyRollups: 7, tagHealth: 0 });
    expect((await db().select({ e: loginThrottles.emailLower }).from(loginThrottles)).map((r) => r.e).sort()).toEqual([
      'lock-ended@example.com',
      'recent@example.com',
    ]);

    const kept = await db().select({ occurredAt: events.occurredAt }).from(events).orderBy(asc(events.occurredAt));
    expect(kept.map((e) => e.occurredAt.getTime())).toEqual([recent.getTime(), now.getTime()]);
    // Both hours are older than the screens read by the hour: gone from the hourly rollups, their
    // counts kept in the daily rollups the screens read for whole days.
    expect(await db().select({ impressions: eventRollupsHourly.impressions }).from(eventRollupsHourly)).toEqual([]);
    expect(await db().select({ hour: dealerRollupsHourly.hour, impressions: dealerRollupsHourly.impressions }).from(dealerRollupsHourly)).toEqual([{ hour: weeksAgo, impressions: 7 }]);
    const dayOf = async (at: Date, model: string) =>
      db()
        .select({ impressions: eventRollupsDaily.impressions })
        .from(eventRollupsDaily)
        .innerJoin(rollupDetails, eq(rollupDetails.id, eventRollupsDaily.detailId))
        .where(and(eq(eventRollupsDaily.dealerKey, dealerKeyOf(A)), eq(eventRollupsDaily.day, at.toISOString().slice(0, 10)), eq(rollupDetails.model, model)));
    // Their models are past DETAIL_DAILY_DAYS too: the detailed days go, the dealer's day totals stay.
    expect(await dayOf(old, 'civic')).toEqual([]);
    expect(await dayOf(ancient, 'accord')).toEqual([]);
    const dealerDay = async (at: Date) =>
      db()
        .select({ impressions: dealerRollupsDaily.impressions })
        .from(dealerRollupsDaily)
        .where(and(eq(dealerRollupsDaily.dealerKey, dealerKeyOf(A)), eq(dealerRollupsDaily.day, at.toISOString().slice(0, 10))));
    expect(await dealerDay(old)).toEqual([{ impressions: 3 }]);
    expect(await dealerDay(ancient)).toEqual([{ impressions: 5 }]);
    expect(await dayOf(weeksAgo, 'pilot')).toEqual([{ impressions: 7 }]);
    expect((await db().select({ createdAt: eventDeadLetters.createdAt }).from(eventDeadLetters))[0]!.createdAt.getTime()).toBe(recent.getTime());
    expect(await rows(sessions)).toBe(sessionsBefore + 1);
    const [lease] = await db().select().from(jobLeases).where(eq(jobLeases.name, RETENTION_JOB));
    expect(lease).toMatchObject({ lastRunAt: now, nextRunAt: new Date(now.getTime() + RETENTION_INTERVAL_MS) });
    expect(lease!.lastResult).toBe('events 3 (1 partitions), event keys 0, dead letters 1, sessions 1, feed runs 0, client errors 0, login throttles 1, hourly rollups 7');
  });

  it('prunes the rollups by hour ranges up to each cutoff, across gaps, keeping the hours and days at the cutoffs', async () => {
    const now = nextHour();
    await db().delete(eventRollupsHourly);
    await Promise.all([db().delete(dealerRollupsHourly), db().delete(eventRollupsDaily)]);
    const detailCutoff = detailHourlyCutoff(now);
    const hourCutoff = hourlyRollupCutoff(now);
    const hoursBefore = (at: Date, h: number) => new Date(at.getTime() - h * 3_600_000);
    // Detailed hours (their dealer hours and days written by the rollup triggers): just before and at
    // each cutoff, and old ones apart by months, so the ranges grow over empty stretches.
    const hours = [
      { hour: detailCutoff, model: 'at-detail-cutoff' },
      { hour: hoursBefore(detailCutoff, 1), model: 'before-detail-cutoff' },
      { hour: hoursBefore(detailCutoff, 30 * 24 + 5), model: 'month-before' },
      { hour: hourCutoff, model: 'at-hour-cutoff' },
      { hour: hoursBefore(hourCutoff, 1), model: 'before-hour-cutoff' },
      { hour: hoursBefore(hourCutoff, 200 * 24 + 7), model: 'ancient' },
    ];
    await db().insert(eventRollupsHourly).values(hours.map(({ hour, model }) => ({ dealerId: A, hour, model, slotType: 'header', impressions: 1 })));

    // Two rows per statement: the ranges are sized from what the last one held; none is left behind.
    const counts = await pruneExpired(db(), { retentionDays: 90, now, batchRows: 2 });
    expect((await db().select({ model: eventRollupsHourly.model }).from(eventRollupsHourly)).map((r) => r.model)).toEqual(['at-detail-cutoff']);
    const dealerHours = await db().select({ hour: dealerRollupsHourly.hour }).from(dealerRollupsHourly).orderBy(asc(dealerRollupsHourly.hour));
    expect(dealerHours.map((r) => r.hour)).toEqual([hourCutoff, hoursBefore(detailCutoff, 30 * 24 + 5), hoursBefore(detailCutoff, 1), detailCutoff]);
    const days = await db()
      .select({ day: eventRollupsDaily.day, model: rollupDetails.model })
      .from(eventRollupsDaily)
      .innerJoin(rollupDetails, eq(rollupDetails.id, eventRollupsDaily.detailId))
      .orderBy(asc(eventRollupsDaily.day));
    // The day before the daily cutoff goes with its detail; the cutoff's own day stays.
    expect(days.map((r) => r.model).sort()).toEqual(['at-detail-cutoff', 'at-hour-cutoff', 'before-detail-cutoff', 'month-before']);
    expect(days[0]!.day).toBe(detailDailyCutoff(now));
    // Deleted: 5 detailed hours, 2 dealer hours, 2 detailed days.
    expect(counts.hourlyRollups).toBe(9);
    // The dealer's day totals keep the counts of the pruned hours and days.
    const ancientDay = hoursBefore(hourCutoff, 200 * 24 + 7).toISOString().slice(0, 10);
    expect(
      await db()
        .select({ impressions: dealerRollupsDaily.impressions })
        .from(dealerRollupsDaily)
        .where(and(eq(dealerRollupsDaily.dealerKey, dealerKeyOf(A)), eq(dealerRollupsDaily.day, ancientDay))),
    ).toEqual([{ impressions: 1 }]);
  });

  it('honours EVENT_RETENTION_DAYS and deletes expired event keys in bounded batches until none is left', async () => {
    const now = nextHour();
    await Promise.all([db().delete(events), db().delete(eventKeys)]);
    const ages = [15, 15, 6]; // days before now: the week of 15 days ago is wholly past 7 days, that of 6 is not
    for (const d of ages) await ensureEventPartitions(db(), new Date(now.getTime() - d * DAY), new Date(now.getTime() - d * DAY + 1));
    await db().insert(events).values(ages.map((d) => ({ dealerKey: dealerKeyOf(A), event: 'click' as const, occurredAt: new Date(now.getTime() - d * DAY) })));
    // Keys: five past EVENT_KEY_TTL_MS, a lead key as old (kept for the retention period), a fresh one.
    const key = (kind: string, k: string, ageMs: number) => ({ dealerId: A, kind, key: k, at: new Date(now.getTime() - ageMs) });
    await db().insert(eventKeys).values([
      ...Array.from({ length: 5 }, (_, i) => key('impression', `pv-${i}`, EVENT_KEY_TTL_MS + 60_000)),
      key('lead', 'lead-1', EVENT_KEY_TTL_MS + 60_000),
      key('impression', 'pv-fresh', 60_000),
    ]);
    // Two rows per statement: three statements for five keys, none left behind.
    const counts = await pruneExpired(db(), { retentionDays: 7, now, batchRows: 2 });
    expect(counts).toMatchObject({ events: 2, eventKeys: 5 });
    expect(await rows(events)).toBe(1);
    expect((await db().select({ key: eventKeys.key }).from(eventKeys)).map((k) => k.key).sort()).toEqual(['lead-1', 'pv-fresh']);
  });

  it('drops more expired weeks than one statement takes, counting analyzed ones from their statistics, and keeps the newer week', async () => {
    const now = nextHour();
    await db().delete(events);
    // Ten weeks wholly past 7 days (more than DROP_PARTITIONS_PER_STATEMENT), one event each, and this week's.
    const ages = [...Array.from({ length: 10 }, (_, i) => 14 + 7 * i), 0];
    for (const d of ages) await ensureEventPartitions(db(), new Date(now.getTime() - d * DAY), new Date(now.getTime() - d * DAY + 1));
    await db().insert(events).values(ages.map((d) => ({ dealerKey: dealerKeyOf(A), event: 'impression' as const, occurredAt: new Date(now.getTime() - d * DAY) })));
    const expired = ages.slice(0, 10).map((d) => partitionName(weekStart(now.getTime() - d * DAY)));
    // Half of them analyzed (as autovacuum does): counted from pg_class without reading them.
    for (const name of expired.slice(0, 5)) await db().execute(sql.raw(`ANALYZE "${name}"`));
    expect(DROP_PARTITIONS_PER_STATEMENT).toBeLessThan(expired.length);

    const counts = await pruneExpired(db(), { retentionDays: 7, now });
    expect(counts.events).toBe(10);
    const left = (await eventPartitions(db())).map((p) => p.name);
    for (const name of expired) expect(left).not.toContain(name);
    expect(left).toContain(partitionName(weekStart(now.getTime())));
    expect((await db().select({ occurredAt: events.occurredAt }).from(events)).map((e) => e.occurredAt)).toEqual([now]);
  });

  it(`keeps the newest ${FEED_RUNS_KEPT} feed runs per dealer`, async () => {
    const now = nextHour();
    await db().delete(feedRuns);
    const ids = await insertRuns(A, 55, new Date(now.getTime() - DAY));

    expect(await t.app.maintenance.tick(now)).toMatchObject({ feedRuns: 5 });
    const left = await db().select({ id: feedRuns.id }).from(feedRuns).orderBy(asc(feedRuns.id));
    expect(left.map((r) => r.id)).toEqual(ids.slice(5));
    const { runs } = await feedCard();
    expect(runs[0]!.id).toBe(ids[54]);
  });

  it('never deletes a run still running within its lease, even beyond the newest 50', async () => {
    const now = nextHour();
    await db().delete(feedRuns);
    // 60 runs, all within the lease; the oldest is still 'running': ranked past the newest 50, yet
    // kept, since its process may still be working on it.
    const [live] = await db()
      .insert(feedRuns)
      .values({ dealerId: A, status: 'running', startedAt: new Date(now.getTime() - FEED_LEASE_MS + 60_000) })
      .returning({ id: feedRuns.id });
    await db()
      .insert(feedRuns)
      .values(Array.from({ length: 59 }, (_, i) => ({ dealerId: A, status: 'success', startedAt: new Date(now.getTime() - 59_000 + i * 1_000) })));

    expect(await t.app.maintenance.tick(now)).toMatchObject({ feedRuns: 9 });
    expect(await rows(feedRuns)).toBe(51);
    expect(await db().select({ status: feedRuns.status }).from(feedRuns).where(eq(feedRuns.id, live!.id))).toEqual([{ status: 'running' }]);
  });

  it(`cuts the client error log to the newest ${CLIENT_ERROR_LOG_LIMIT}`, async () => {
    const now = nextHour();
    await db().delete(clientErrors);
    const inserted = await db()
      .insert(clientErrors)
      .values(Array.from({ length: CLIENT_ERROR_LOG_LIMIT + 3 }, (_, i) => ({ message: `error ${i}`, url: 'http://localhost/' })))
      .returning({ id: clientErrors.id });

    expect(await t.app.maintenance.tick(now)).toMatchObject({ clientErrors: 3 });
    const left = await db().select({ id: clientErrors.id }).from(clientErrors).orderBy(desc(clientErrors.id));
    expect(left.map((r) => r.id)).toEqual(inserted.slice(3).map((r) => r.id).reverse());
  });

  it('runs once per interval when several processes claim it at the same time', async () => {
    const now = nextHour();
    // Two "processes" claiming the same due job: only one wins; again only after the interval.
    expect([await claimJob(db(), 'test-job', 60_000, now), await claimJob(db(), 'test-job', 60_000, now)]).toEqual([true, false]);
    expect(await claimJob(db(), 'test-job', 60_000, new Date(now.getTime() + 59_999))).toBe(false);
    expect(await claimJob(db(), 'test-job', 60_000, new Date(now.getTime() + 60_000))).toBe(true);

    const results = await Promise.all([
      runRetentionJob(db(), { retentionDays: 90, now }),
      runRetentionJob(db(), { retentionDays: 90, now }),
      runRetentionJob(db(), { retentionDays: 90, now }),
    ]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await t.app.maintenance.tick(new Date(now.getTime() + RETENTION_INTERVAL_MS - 1))).toBeNull();
    expect(await t.app.maintenance.tick(new Date(now.getTime() + RETENTION_INTERVAL_MS))).not.toBeNull();
    clock = now.getTime() + RETENTION_INTERVAL_MS;
  });
});

describe('interrupted feed runs', () => {
  it("a run left 'running' by a crash is marked failed once its lease expires; the feed runs again normally", async () => {
    await db().delete(feedRuns);
    const save = await t.app.inject({
      method: 'PUT',
      url: `/api/dealers/${A}/inventory/feed`,
      headers: { cookie },
      payload: { feedUrl: `${feedHost.origin}/feed.json`, updateFrequency: 'hourly', fieldMapping: mapping },
    });
    expect(save.statusCode).toBe(200);
    // The feed was due ten minutes ago; a process claimed it, started its run and died.
    const crashAt = new Date(Date.now() - 10 * 60_000);
    await db().update(inventoryFeeds).set({ nextRunAt: crashAt }).where(eq(inventoryFeeds.dealerId, A));
    expect(await claimDueFeeds(db(), 5, crashAt)).toEqual([A]);
    const [dead] = await db().insert(feedRuns).values({ dealerId: A, status: 'running', startedAt: crashAt }).returning();
    expect((await feedCard()).runs).toMatchObject([{ id: dead!.id, status: 'running', finishedAt: null }]);

    // Within the lease: neither marked nor claimed again.
    await t.app.feeds.tick(new Date(crashAt.getTime() + FEED_LEASE_MS - 1_000));
    expect((await feedCard()).runs).toMatchObject([{ id: dead!.id, status: 'running' }]);

    // Lease over: the pass marks the dead run failed, then claims the feed and runs it.
    const now = new Date();
    await t.app.feeds.tick(now);
    const { feed, runs } = await feedCard();
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ status: 'success', vehicleCount: 5, error: null });
    expect(runs[1]).toMatchObject({ id: dead!.id, status: 'error', finishedAt: now.toISOString(), error: INVENTORY_TEXT.runInterrupted });
    // Next run one hour after the new run finished, as for any run.
    expect(new Date(feed!.nextRunAt!).getTime() - new Date(runs[0]!.finishedAt!).getTime()).toBe(3_600_000);
  });
});
