/**
 * Graceful shutdown under load: the real server process receives
 * tracking events from 16 concurrent clients, is stopped with SIGTERM in the middle of it, exits
 * 0, and the contract holds: every event it acknowledged with 204 is in the database afterwards
 * (at least those: an event whose answer the shutdown cut off may be stored too), none twice, and
 * none that was not sent. Each beacon has its own page view, the events' unique key here. No
 * browser needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { startServer, type RunningServer, patchDealerSettings, DEALER_SITE_ORIGIN } from './harness';
import { openDatabase } from '../../src/server/db/client';
import { events } from '../../src/server/db/schema';
import { DEMO_DEALER } from '../../src/server/db/seed';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const CLIENTS = 16;
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

describe('graceful shutdown', () => {
  let origin: string;
  // Started in a hook, whose limit allows a busy machine's slow start.
  beforeAll(async () => {
    server = await startServer({ LOG_LEVEL: 'error' }, { keepData: true });
    origin = server.origin;
    // The demo dealer's tracking limits (100/min per page view, 20 × that per client IP) would refuse most of this load.
    await patchDealerSettings(origin, DEMO_DEALER.id, { rateLimitEnabled: false });
  });

  it('stores every 204-acknowledged event, none twice, when stopped with SIGTERM mid-load', async () => {
    if (!server) throw new Error('server not started');
    const acknowledged = new Set<string>();
    const sent = new Set<string>();
    let stopped = false;
    // A new page view per beacon: the same page view and slot counts once.
    let views = 0;
    const body = (pv: string) => JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv });
    const client = async () => {
      while (!stopped) {
        const pv = `view-test-${++views}`;
        sent.add(pv);
        try {
          const res = await fetch(`${origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': UA, origin: DEALER_SITE_ORIGIN }, body: body(pv) });
          if (res.status === 204) acknowledged.add(pv);
          await res.arrayBuffer();
        } catch {
          stopped = true; // connection refused: the server is gone
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);
    // Mid-load: once a good number of events are acknowledged (however slow the machine is).
    await expect.poll(() => acknowledged.size, { timeout: 30_000, interval: 50 }).toBeGreaterThan(100);
    const exitCode = await server.stop('SIGTERM');
    stopped = true;
    await Promise.all(clients);
    expect(exitCode).toBe(0);

    const database = await openDatabase({ dataDir: server.dataDir });
    let stored: Array<string | null>;
    try {
      stored = (await database.db.select({ pageView: events.pageView }).from(events)).map((e) => e.pageView);
    } finally {
      await database.close();
    }
    const storedViews = new Set(stored);
    expect(stored.length).toBe(storedViews.size); // none twice
    expect([...acknowledged].filter((pv) => !storedViews.has(pv))).toEqual([]); // every acknowledged one
    expect([...storedViews].filter((pv) => !sent.has(pv!))).toEqual([]); // only what was sent
    expect(stored.length).toBeGreaterThanOrEqual(acknowledged.size);
  });
});
