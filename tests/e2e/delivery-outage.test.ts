/**
 * Delivery through a PostgreSQL outage (stale-if-error, docs/OPERATIONS.md "PostgreSQL that comes
 * and goes"): the real server (`src/server/main.ts`) reaches PostgreSQL through a TCP proxy
 * (pg-proxy.ts) that is cut for OUTAGE_MS (a minute, sixty times the 1 s dealer-cache TTL), so the
 * cached dealer's copy expires and fails to refresh about sixty times while the test sends requests. The
 * dealer's banner and script keep answering 200 from the last good copy, its beacons 204 (buffered,
 * spilled to the local journal); once the proxy is back every acknowledged beacon is stored,
 * counted exactly through the analytics API. The 24 h bound on the stale copy
 * (DELIVERY_MAX_STALE_MS) is checked in src/server/dealer-sites/cache.test.ts with a moved clock.
 * Runs only when TEST_DATABASE_URL is set; its own schema, dropped afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startServer, apiSignIn, DESKTOP_UA, DEALER_SITE_ORIGIN, type RunningServer } from './harness';
import { proxiedDatabase, type PgProxy } from './pg-proxy';
import { DEMO_DEALER } from '../../src/server/db/seed';
import { dropSchemas } from '../../src/server/db/drop-schemas';

const url = process.env.TEST_DATABASE_URL;
const schema = `e2e_stale_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
/** How long PostgreSQL is away: a minute, sixty dealer-cache TTLs, each one a failed refresh. */
const OUTAGE_MS = 60_000;

describe.skipIf(!url)('delivery while PostgreSQL is away (stale-if-error)', () => {
  let proxy: PgProxy;
  let server: RunningServer;
  let manager: string;
  let views = 0;

  const banner = () => fetch(`${server.origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`, { headers: { origin: DEALER_SITE_ORIGIN, 'user-agent': DESKTOP_UA } });
  const script = () => fetch(`${server.origin}/scripts/dc-banners-${DEMO_DEALER.id}.js`);
  /**
   * One page view's impression beacon, sent as the embed script sends it: a 503 (the writer behind
   * its crash-loss bound for a moment) is retried up to twice after its Retry-After. The last answer.
   */
  const beacon = async () => {
    const body = JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory', pv: `view-stale-${++views}` });
    for (let retries = 2; ; retries--) {
      const res = await fetch(`${server.origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN }, body });
      if (res.status !== 503 || retries === 0) return res;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
    }
  };
  const impressions = async () => {
    const res = await fetch(`${server.origin}/api/dealers/${DEMO_DEALER.id}/analytics?period=24h`, { headers: { cookie: manager } });
    return res.ok ? ((await res.json()) as { current: { impressions: number } }).current.impressions : -1;
  };

  beforeAll(async () => {
    let viaProxy: URL;
    ({ proxy, url: viaProxy } = await proxiedDatabase(url!));
    server = await startServer({ DATABASE_URL: viaProxy.toString(), DATABASE_SCHEMA: schema, LOG_LEVEL: 'warn', FEED_SCHEDULER_INTERVAL_MS: '0' });
    manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await dropSchemas(url!, schema);
  });

  it('serves the cached banner and script (200) and buffers beacons (204) through the outage; every acknowledged beacon is stored after it', { timeout: 300_000 }, async () => {
    // Warm the caches: the dealer, the banner choice and bytes, the built script.
    expect((await banner()).status).toBe(200);
    expect((await script()).status).toBe(200);
    expect((await beacon()).status).toBe(204);
    await expect.poll(impressions, { timeout: 30_000 }).toBe(1);

    await proxy.down();
    // Requests go on once the event writer knows the database is away (its first failed write):
    // acknowledged beacons then go to the journal.
    expect((await beacon()).status).toBe(204);
    await expect.poll(() => server.output(), { timeout: 30_000 }).toContain('event batch write failed');
    // An admin's save during the outage fails (503) and must not drop the copies delivery serves from.
    const save = await fetch(`${server.origin}/api/dealers/${DEMO_DEALER.id}/configs`, { method: 'PUT', headers: { cookie: manager, 'content-type': 'application/json', origin: server.origin }, body: '{}' });
    expect(save.status).toBe(503);
    const statuses = { banner: new Map<number, number>(), script: new Map<number, number>(), beacon: new Map<number, number>() };
    const note = (m: Map<number, number>, status: number) => m.set(status, (m.get(status) ?? 0) + 1);
    for (const end = Date.now() + OUTAGE_MS; Date.now() < end; ) {
      const [b, s, e] = await Promise.all([banner(), script(), beacon()]);
      await Promise.all([b.arrayBuffer(), s.arrayBuffer(), e.arrayBuffer()]);
      note(statuses.banner, b.status);
      note(statuses.script, s.status);
      note(statuses.beacon, e.status);
      await new Promise((r) => setTimeout(r, 50)); // about 15 page views a second, within the per-IP budget
    }
    expect([...statuses.banner.keys()]).toEqual([200]);
    expect([...statuses.script.keys()]).toEqual([200]);
    expect([...statuses.beacon.keys()]).toEqual([204]);
    // The copy outlived its TTL and its refreshes failed (the server says so).
    expect(server.output()).toContain('serving the last good copy');
    const acknowledged = statuses.beacon.get(204)!;
    expect(acknowledged).toBeGreaterThan(OUTAGE_MS / 1000); // requests kept coming for the whole outage

    await proxy.up();
    // While the outage's backlog is written, new beacons are acknowledged too (they go to the journal behind it).
    const after: number[] = [];
    for (let i = 0; i < 20; i++) after.push((await beacon()).status);
    expect(after).toEqual(Array(20).fill(204));
    await expect.poll(impressions, { timeout: 60_000 }).toBe(2 + acknowledged + 20);
    // Everything written: the journal files are gone.
    await expect.poll(() => readdirSync(path.join(server.dataDir, 'event-journal')), { timeout: 30_000 }).toEqual([]);
    expect((await banner()).status).toBe(200);
  });
});
