/**
 * Graceful lifecycle of the real server: SIGTERM while an inventory feed fetch is in
 * flight (a feed server that never answers, which would otherwise hold the fetch for its 15-second
 * timeout) aborts the fetch, records the run as interrupted with the feed due again, closes the
 * database and exits 0 within seconds, well inside SHUTDOWN_GRACE_MS. A client holding a request
 * open (headers never finished) is cut after a third of the grace, and the beacons acknowledged
 * before the signal are still written.
 */
import { afterAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { startServer, apiSignIn, DESKTOP_UA, DEALER_SITE_ORIGIN, type RunningServer } from './harness';
import { openDatabase } from '../../src/server/db/client';
import { events, feedRuns, inventoryFeeds } from '../../src/server/db/schema';
import { DEMO_DEALER } from '../../src/server/db/seed';
import { INVENTORY_TEXT } from '../../src/domain/constants';

let server: RunningServer | undefined;
let feedServer: http.Server | undefined;
let drained: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
  await drained?.stop();
  if (drained) rmSync(drained.dataDir, { recursive: true, force: true });
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

describe('graceful shutdown with a request that never finishes', () => {
  it('cuts the connection after a third of the grace, writes the acknowledged beacons and exits 0', { timeout: 60_000 }, async () => {
    drained = await startServer({ LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '6000' }, { keepData: true });
    const beacon = await fetch(`${drained.origin}/api/analytics/track`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN },
      body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${DEALER_SITE_ORIGIN}/new-inventory`, pv: 'pv-drain' }),
    });
    expect(beacon.status).toBe(204);
    // A request whose headers never end: the server cannot answer it, only cut it.
    const { port } = new URL(drained.origin);
    const stalled = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write('POST /api/analytics/track HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n');
    const cut = new Promise((resolve) => stalled.once('close', resolve));
    stalled.on('error', () => undefined);

    expect(await drained.stop('SIGTERM'), drained.output()).toBe(0);
    await cut;
    expect(drained.output()).toContain('closing connections still open after the drain');
    expect(drained.output()).not.toContain('killed by timeout');
    const database = await openDatabase({ dataDir: drained.dataDir });
    try {
      const rows = await database.db.select().from(events).where(eq(events.pageView, 'pv-drain'));
      expect(rows.map((r) => [r.event, r.slotType])).toEqual([['impression', 'header']]);
    } finally {
      await database.close();
    }
  });
});
