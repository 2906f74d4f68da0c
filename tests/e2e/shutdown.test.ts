/**
 * Graceful shutdown under load (issue 6 Proof, DECISIONS 17): the real server process receives
 * tracking events from 16 concurrent clients, is stopped with SIGTERM in the middle of it, exits
 * 0, and every event it acknowledged with 204 is in the database afterwards. No browser needed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { startServer, type RunningServer, apiSignIn, DEALER_SITE_ORIGIN } from './harness';
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
  it('stores every 204-acknowledged event when stopped with SIGTERM mid-load', { timeout: 60_000 }, async () => {
    server = await startServer({ LOG_LEVEL: 'error' }, { keepData: true });
    const { origin } = server;
    // The demo dealer's tracking limits (100/min per page view, 20 × that per client IP) would refuse most of this load.
    const cookie = await apiSignIn(origin, 'admin@dc-banners.com', 'admin123');
    const dealer = (await (await fetch(`${origin}/api/dealers/${DEMO_DEALER.id}`, { headers: { cookie } })).json()).dealer;
    const off = await fetch(`${origin}/api/admin/dealers/${DEMO_DEALER.id}/settings`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ security: { ...dealer.security, rateLimitEnabled: false } }),
    });
    expect(off.status).toBe(200);

    let acknowledged = 0;
    let stopped = false;
    // A new page view per beacon: the same page view and slot counts once (issue 13).
    let views = 0;
    const body = () => JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: `view-test-${++views}` });
    const client = async () => {
      while (!stopped) {
        try {
          const res = await fetch(`${origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': UA, origin: DEALER_SITE_ORIGIN }, body: body() });
          if (res.status === 204) acknowledged += 1;
          await res.arrayBuffer();
        } catch {
          stopped = true; // connection refused: the server is gone
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);
    await new Promise((r) => setTimeout(r, 1500));
    const before = acknowledged;
    const exitCode = await server.stop('SIGTERM');
    stopped = true;
    await Promise.all(clients);
    expect(exitCode).toBe(0);
    expect(before).toBeGreaterThan(100);

    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      expect(await database.db.$count(events)).toBe(acknowledged);
    } finally {
      await database.close();
    }
  });
});
