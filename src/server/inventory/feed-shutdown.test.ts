/**
 * A shutdown does not wait out a feed fetch: stopping the feed scheduler aborts the
 * running fetch (a feed server that never answers would otherwise hold it for the 15-second
 * timeout), records the run as interrupted and leaves the feed due at once for another process or
 * the next start; feed runs are reported (metrics) by result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { feedRuns, inventoryFeeds } from '../db/schema';
import { FeedScheduler, saveFeed } from './feeds';
import { INVENTORY_TEXT } from '../../domain/constants';
import type { FeedRunView } from '../../domain/inventory';

let t: TestApp;
let server: http.Server;
let requests = 0;

beforeAll(async () => {
  t = await createTestApp();
  // Accepts the request and never answers.
  server = http.createServer(() => void (requests += 1));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await t.close();
});

describe('feed scheduler shutdown', () => {
  it('aborts a running fetch at once, records the run as interrupted and leaves the feed due', async () => {
    const port = (server.address() as AddressInfo).port;
    const mapping = { model: 'Model', trim: 'Trim', year: 'Year', daysOnLot: 'DaysInStock', vin: 'VIN', stock: 'StockNumber' };
    await saveFeed(t.database.db, DEMO_DEALER.id, { feedUrl: `http://127.0.0.1:${port}/feed.json`, updateFrequency: 'daily', fieldMapping: mapping });
    const runs: FeedRunView[] = [];
    const scheduler = new FeedScheduler(t.database.db, { allowPrivateHosts: true }, undefined, (run) => runs.push(run));
    const pass = scheduler.tick();
    await expect.poll(() => requests, { timeout: 5000, interval: 50 }).toBe(1);

    const started = Date.now();
    await scheduler.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    await pass;

    expect(runs.map((r) => [r.status, r.error])).toEqual([['error', INVENTORY_TEXT.runInterrupted]]);
    const [row] = await t.database.db.select().from(feedRuns).where(eq(feedRuns.dealerId, DEMO_DEALER.id));
    expect(row).toMatchObject({ status: 'error', error: INVENTORY_TEXT.runInterrupted });
    const [feed] = await t.database.db.select().from(inventoryFeeds).where(eq(inventoryFeeds.dealerId, DEMO_DEALER.id));
    expect(feed!.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(requests).toBe(1);
  });
});
