/**
 * Two server processes on one PostgreSQL (cache invalidation across processes;
 * one feed run at a time): a banner uploaded through process A is served by process B within a
 * second (dealers.version in every cache key), and B's settings change reaches A the same way; a
 * change written straight to the database (as a scheduled feed or SQL by hand) reaches both. Both
 * listen for dealer changes (dealer-sites/listener.ts), so their cached dealer settings live for
 * minutes: the database's notification, not a short lifetime, carries each change. Runs only when TEST_DATABASE_URL points at a PostgreSQL server (CI sets
 * it); each run uses its own schema, dropped afterwards. No browser needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startServer, type RunningServer, apiSignIn, saveFeedAndWatchRuns } from './harness';
import { makeBanner, multipartBody } from '../fixtures/images';
import { startJsonFeed, type LocalServer } from '../fixtures/http-server';
import { DEMO_DEALER } from '../../src/server/db/seed';
import { dropSchemas } from '../../src/server/db/drop-schemas';

const url = process.env.TEST_DATABASE_URL;
const METRICS_TOKEN = 'two-processes-metrics';
const schema = `e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
let a: RunningServer;
let b: RunningServer;
let feed: LocalServer;

const banner = (origin: string) => fetch(`${origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`, { headers: { 'user-agent': 'Mozilla/5.0 Chrome/156.0' } });

describe.skipIf(!url)('two server processes on one PostgreSQL', () => {
  beforeAll(async () => {
    feed = await startJsonFeed('tests/fixtures/inventory/inventory-listofvehicles.json');
    // Both schedulers look for due feeds every 200 ms.
    const env = { DATABASE_URL: url!, DATABASE_SCHEMA: schema, LOG_LEVEL: 'error', FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32', FEED_SCHEDULER_INTERVAL_MS: '200', METRICS_TOKEN };
    a = await startServer(env); // migrates and seeds
    b = await startServer(env);
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await feed?.close();
    await dropSchemas(url!, schema);
  });

  /** Whether the process listens for dealer changes (its cached dealer settings then live for minutes). */
  const listening = async (origin: string) => {
    const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    return /^dcb_dealer_listener_connected 1$/m.test(text);
  };

  it('serves a banner uploaded through the other process, and applies its settings change', async () => {
    expect(await listening(a.origin)).toBe(true);
    expect(await listening(b.origin)).toBe(true);
    // B has answered (and cached) the placeholder before the upload.
    expect((await banner(b.origin)).headers.get('x-banner-source')).toBe('placeholder');

    const manager = await apiSignIn(a.origin, 'manager@hondaofdemo.com', 'manager123');
    const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
    const up = await fetch(`${a.origin}/api/dealers/${DEMO_DEALER.id}/assets`, { method: 'POST', headers: { cookie: manager, 'content-type': contentType }, body: new Uint8Array(body) });
    expect((await up.json()).results[0].ok).toBe(true);
    await expect.poll(async () => (await banner(b.origin)).headers.get('x-banner-source'), { timeout: 3000, interval: 200 }).toBe('asset');

    // Requiring an allowed domain through B: A refuses beacons from other origins within the same
    // bound (images stay public: the same page still gets the banner).
    let views = 0;
    const fromOther = () =>
      fetch(`${a.origin}/api/analytics/track`, {
        method: 'POST',
        headers: { origin: 'http://127.0.0.1:9', 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 Chrome/156.0' },
        body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', pv: `view-two-processes-${(views += 1)}` }),
      });
    expect((await fromOther()).status).toBe(204); // this machine is one of the demo dealer's domains
    const admin = await apiSignIn(b.origin, 'admin@dc-banners.com', 'admin123');
    const dealer = (await (await fetch(`${b.origin}/api/dealers/${DEMO_DEALER.id}`, { headers: { cookie: admin } })).json()).dealer;
    const saved = await fetch(`${b.origin}/api/admin/dealers/${DEMO_DEALER.id}/settings`, {
      method: 'PUT',
      headers: { cookie: admin, 'content-type': 'application/json' },
      body: JSON.stringify({ security: { ...dealer.security, allowedDomains: ['www.hondaofdemo.com'] } }),
    });
    expect(saved.status).toBe(200);
    await expect.poll(async () => (await fromOther()).status, { timeout: 3000, interval: 200 }).toBe(403);
    const image = await fetch(`${a.origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header`, { headers: { origin: 'http://127.0.0.1:9', 'user-agent': 'Mozilla/5.0 Chrome/156.0' } });
    expect(image.status).toBe(200);
  });

  it('applies a change written straight to the database in both processes', async () => {
    // Beacons from the dealer's own site: refused once its allowed domains no longer name it.
    let views = 0;
    const fromSite = (origin: string) =>
      fetch(`${origin}/api/analytics/track`, {
        method: 'POST',
        headers: { origin: 'https://www.hondaofdemo.com', 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 Chrome/156.0' },
        body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', pv: `view-straight-${(views += 1)}` }),
      });
    expect((await fromSite(a.origin)).status).toBe(204);
    expect((await fromSite(b.origin)).status).toBe(204);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`UPDATE "${schema}".dealers SET security = jsonb_set(security, '{allowedDomains}', '["www.other-dealer.com"]') WHERE id = $1`, [DEMO_DEALER.id]);
    } finally {
      await c.end();
    }
    // Well inside the 5 minutes a copy is trusted while listening: only the notification explains it.
    await expect.poll(async () => (await fromSite(a.origin)).status, { timeout: 10_000, interval: 200 }).toBe(403);
    await expect.poll(async () => (await fromSite(b.origin)).status, { timeout: 10_000, interval: 200 }).toBe(403);
  });

  it('runs a due feed once although both processes schedule feeds', async () => {
    const runs = await saveFeedAndWatchRuns(b.origin, a.origin, DEMO_DEALER.id, `${feed.origin}/feed.json`);
    expect(runs.length).toBe(1);
    expect(feed.hits).toHaveLength(1);
  });
});
