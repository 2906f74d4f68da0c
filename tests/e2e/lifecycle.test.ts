/**
 * Graceful lifecycle of the real server: SIGTERM while an inventory feed fetch is in
 * flight (a feed server that never answers, which would otherwise hold the fetch for its 15-second
 * timeout) aborts the fetch, records the run as interrupted with the feed due again, closes the
 * database and exits 0 within seconds, well inside SHUTDOWN_GRACE_MS.
 */
import { afterAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { startServer, apiSignIn, type RunningServer } from './harness';
import { openDatabase } from '../../src/server/db/client';
import { feedRuns, inventoryFeeds } from '../../src/server/db/schema';
import { DEMO_DEALER } from '../../src/server/db/seed';
import { INVENTORY_TEXT } from '../../src/domain/constants';

let server: RunningServer | undefined;
let feedServer: http.Server | undefined;

afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
  feedServer?.closeAllConnections();
  await new Promise((r) => (feedServer ? feedServer.close(r) : r(undefined)));
});

describe('graceful shutdown with a feed fetch in flight', () => {
  it('aborts the fetch, records the run as interrupted and exits 0 within seconds', { timeout: 60_000 }, async () => {
    let requests = 0;
    feedServer = http.createServer(() => void (requests += 1)); // never answers
    await new Promise<void>((r) => feedServer!.listen(0, '127.0.0.1', r));
    server = await startServer({ LOG_LEVEL: 'warn', FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32', FEED_SCHEDULER_INTERVAL_MS: '200' }, { keepData: true });
    const manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
    const port = (feedServer.address() as AddressInfo).port;
    const mapping = { model: 'Model', trim: 'Trim', year: 'Year', daysOnLot: 'DaysInStock', vin: 'VIN', stock: 'StockNumber' };
    const saved = await fetch(`${server.origin}/api/dealers/${DEMO_DEALER.id}/inventory/feed`, {
      method: 'PUT',
      headers: { cookie: manager, 'content-type': 'application/json' },
      body: JSON.stringify({ feedUrl: `http://127.0.0.1:${port}/feed.json`, updateFrequency: 'daily', fieldMapping: mapping }),
    });
    expect(saved.status).toBe(200);
    await expect.poll(() => requests, { timeout: 30_000, interval: 50 }).toBe(1);

    const started = Date.now();
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.output()).not.toContain('killed by timeout');

    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      const runs = await database.db.select().from(feedRuns).where(eq(feedRuns.dealerId, DEMO_DEALER.id));
      expect(runs.map((r) => [r.status, r.error])).toEqual([['error', INVENTORY_TEXT.runInterrupted]]);
      const [feed] = await database.db.select().from(inventoryFeeds).where(eq(inventoryFeeds.dealerId, DEMO_DEALER.id));
      expect(feed!.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now());
    } finally {
      await database.close();
    }
  });
});
