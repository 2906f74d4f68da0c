/**
 * Health, readiness, load shedding, metrics and request logs, through app.inject:
 * /healthz always 200; /readyz 200 with its checks, 503 naming the database, pending migrations or
 * a full event buffer; every request but /healthz, /metrics and the web app's files shed with 503
 * while the event loop lags; /metrics only with METRICS_TOKEN, Prometheus text whose counters move with traffic; one
 * log line per request with the X-Request-Id it answered, public delivery requests sampled, cookies
 * and authorization redacted.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createTestApp, failingDb, openTestDatabase, testAppConfig, type TestApp } from '../test-app';
import { buildApp } from '../app';
import { seedDemoData, DEMO_DEALER } from '../db/seed';
import { parsePrometheus, sampleSum } from '../../../tests/e2e/prometheus';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const ORIGIN = 'https://www.hondaofdemo.com';
const TOKEN = 'metrics-token-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let views = 0;
const beacon = (app: FastifyInstance) =>
  app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${ORIGIN}/new-inventory`, pv: `pv-observability-${++views}` }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN },
  });

describe('health and readiness', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  it('answers /healthz with the process id', async () => {
    const res = await t.app.inject('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', pid: process.pid, worker: null });
  });

  it('answers /readyz 200 with its checks when the database answers, migrations are applied and the buffer is low', async () => {
    const res = await t.app.inject('/readyz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', pid: process.pid, worker: null, checks: { database: 'ok', migrations: 'ok', eventBuffer: 'ok' } });
  });

  it('answers /readyz 503 while the event buffer is at its high-water mark, /healthz still 200', async () => {
    const real = t.app.events.stats();
    vi.spyOn(t.app.events, 'stats').mockReturnValue({ ...real, pending: t.app.events.highWater });
    const res = await t.app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatchObject({
      code: 'UNAVAILABLE',
      message: `Not ready: eventBuffer: ${t.app.events.highWater} events buffered (high-water mark ${t.app.events.highWater})`,
      checks: { database: 'ok', migrations: 'ok' },
    });
    expect((await t.app.inject('/healthz')).statusCode).toBe(200);
    vi.restoreAllMocks();
    expect((await t.app.inject('/readyz')).statusCode).toBe(200);
  });
});

describe('readiness of a database that fails or lags behind its migrations', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let failure: Error | null = null;
  let pending = 0;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await openTestDatabase({ seeded: true });
    const db = failingDb(database.db, () => failure);
    app = await buildApp({ config: testAppConfig(), db, logger: false, pendingMigrations: async () => pending });
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });

  it('answers 503 naming the connection failure, and 200 once the database answers again', async () => {
    failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const down = await app.inject('/readyz');
    failure = null;
    expect(down.statusCode).toBe(503);
    expect(down.json().error).toEqual({
      code: 'UNAVAILABLE',
      message: 'Not ready: database: connection: connect ECONNREFUSED 127.0.0.1:5432; migrations: unknown (database not answering)',
      checks: { database: 'connection: connect ECONNREFUSED 127.0.0.1:5432', migrations: 'unknown (database not answering)', eventBuffer: 'ok' },
    });
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  });

  it('answers 503 while migrations are not applied', async () => {
    pending = 2;
    const res = await app.inject('/readyz');
    pending = 0;
    expect(res.statusCode).toBe(503);
    expect(res.json().error.message).toBe('Not ready: migrations: 2 migration(s) not applied');
  });
});

describe('Database.pendingMigrations', () => {
  // The test database is the run's migrated one (test-snapshot.ts: every migration applied by
  // Database.migrate), so it shows the journal as migrating leaves it.
  it('is 0 after migrating and counts a migration the journal does not have', async () => {
    const database = await openTestDatabase();
    try {
      expect(await database.pendingMigrations()).toBe(0);
      // drizzle's journal: in the test schema on PostgreSQL (the connections' search_path), in `drizzle` on PGlite.
      const journal = database.driver === 'postgres' ? sql`__drizzle_migrations` : sql`drizzle.__drizzle_migrations`;
      await database.db.execute(sql`delete from ${journal} where created_at = (select max(created_at) from ${journal})`);
      expect(await database.pendingMigrations()).toBe(1);
    } finally {
      await database.dispose();
    }
  });
});

describe('load shedding', () => {
  let app: FastifyInstance;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let webDist: string;
  beforeAll(async () => {
    // A built web app of its own: index.html and one JavaScript chunk under /assets/.
    webDist = mkdtempSync(path.join(os.tmpdir(), 'dcb-web-'));
    mkdirSync(path.join(webDist, 'assets'));
    writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>dc-banners</title><div id="root"></div>');
    writeFileSync(path.join(webDist, 'assets', 'AnalyticsPage-Bq3x9.js'), 'export const AnalyticsPage = () => null;');
    database = await openTestDatabase({ seeded: true });
    app = await buildApp({ config: testAppConfig({ MAX_EVENT_LOOP_DELAY_MS: '50', METRICS_TOKEN: TOKEN, WEB_DIST_DIR: webDist }), db: database.db, logger: false });
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
    rmSync(webDist, { recursive: true, force: true });
  });

  it("answers 503 with Retry-After while the event loop lags, except /healthz, /metrics and the web app's files, and serves again after", async () => {
    // Keep the loop busy for 300 ms out of every 310 for 2.5 s: a mean delay far above 50 ms.
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      const spin = Date.now() + 300;
      while (Date.now() < spin) {
        /* busy */
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const shed = await app.inject('/api/auth/demo-accounts');
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['retry-after']).toBe('5');
    expect(shed.json()).toEqual({ error: { code: 'UNAVAILABLE', message: 'Server overloaded, please retry shortly' } });
    expect((await app.inject(`/scripts/dc-banners-${DEMO_DEALER.id}.js`)).statusCode).toBe(503); // the embed script is shed like the API
    expect((await app.inject('/readyz')).statusCode).toBe(503);
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    expect((await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(200);
    // The web app keeps loading: its chunks, index.html and a client-side route (index.html again).
    const chunk = await app.inject('/assets/AnalyticsPage-Bq3x9.js');
    expect(chunk.statusCode).toBe(200);
    expect(chunk.body).toBe('export const AnalyticsPage = () => null;');
    expect((await app.inject({ method: 'HEAD', url: '/assets/AnalyticsPage-Bq3x9.js' })).statusCode).toBe(200);
    for (const url of ['/index.html', '/dealer/analytics?range=30d']) {
      const page = await app.inject(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).toContain('<div id="root">');
    }
    expect((await app.inject('/assets/missing-chunk.js')).statusCode).toBe(404); // not shed, and not found
    expect((await app.inject({ method: 'POST', url: '/dealer/analytics' })).statusCode).toBe(503);
    await expect.poll(async () => (await app.inject('/api/auth/demo-accounts')).statusCode, { timeout: 5000, interval: 250 }).toBe(200);
  });
});

describe('GET /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(res.body);
  };

  it('is not served without METRICS_TOKEN', async () => {
    const other = await createTestApp();
    try {
      expect((await other.app.inject('/metrics')).statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('refuses a missing or wrong token with 401', async () => {
    const none = await t.app.inject('/metrics');
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect((await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789' } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/metrics', headers: { authorization: TOKEN } })).statusCode).toBe(401);
  });

  it('is Prometheus text with the request, event, cache, feed and process metrics', async () => {
    const m = await scrape();
    for (const [name, type] of [
      ['http_request_duration_seconds', 'histogram'],
      ['dcb_event_buffer_depth', 'gauge'],
      ['dcb_event_buffer_high_water_mark', 'gauge'],
      ['dcb_event_batch_write_seconds', 'histogram'],
      ['dcb_events_accepted_total', 'counter'],
      ['dcb_events_stored_total', 'counter'],
      ['dcb_events_refused_total', 'counter'],
      ['dcb_events_dead_lettered_total', 'counter'],
      ['dcb_feed_runs_total', 'counter'],
      ['dcb_cache_lookups_total', 'counter'],
      ['dcb_image_processing_seconds', 'histogram'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
    ]) {
      expect(m.types.get(name!), name).toBe(type);
    }
    expect(sampleSum(m, 'dcb_event_buffer_high_water_mark')).toBe(t.app.events.highWater);
  });

  it('moves its counters with traffic', async () => {
    const before = await scrape();
    const track = { method: 'POST', route: '/api/analytics/track', status_code: '204' };
    for (let i = 0; i < 3; i++) expect((await beacon(t.app)).statusCode).toBe(204);
    for (let i = 0; i < 2; i++) {
      const image = await t.app.inject({ url: `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`, headers: { 'user-agent': UA } });
      expect(image.statusCode).toBe(200);
    }
    await t.app.events.flush();
    const after = await scrape();
    expect(sampleSum(after, 'http_request_duration_seconds_count', track) - sampleSum(before, 'http_request_duration_seconds_count', track)).toBe(3);
    expect(sampleSum(after, 'dcb_events_accepted_total') - sampleSum(before, 'dcb_events_accepted_total')).toBe(3);
    expect(sampleSum(after, 'dcb_events_stored_total') - sampleSum(before, 'dcb_events_stored_total')).toBe(3);
    expect(sampleSum(after, 'dcb_event_batch_write_seconds_count', { result: 'ok' })).toBeGreaterThan(sampleSum(before, 'dcb_event_batch_write_seconds_count', { result: 'ok' }));
    expect(sampleSum(after, 'dcb_cache_lookups_total', { cache: 'dealer' })).toBeGreaterThan(sampleSum(before, 'dcb_cache_lookups_total', { cache: 'dealer' }));
    // The second banner request was answered from the bytes cache.
    expect(sampleSum(after, 'dcb_cache_lookups_total', { cache: 'bytes', result: 'hit' })).toBeGreaterThan(sampleSum(before, 'dcb_cache_lookups_total', { cache: 'bytes', result: 'hit' }));
    const route = { route: '/api/scripts/:dealerId/asset', status_code: '200' };
    expect(sampleSum(after, 'http_request_duration_seconds_count', route) - sampleSum(before, 'http_request_duration_seconds_count', route)).toBe(2);
  });
});

describe('request logs and ids', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  const lines: Array<Record<string, unknown>> = [];
  const build = (env: Record<string, string> = {}) =>
    buildApp({ config: testAppConfig(env), db: database.db, logger: { level: 'info', stream: { write: (l) => void lines.push(JSON.parse(l)) } } });
  beforeAll(async () => {
    database = await openTestDatabase();
    await seedDemoData(database.db);
  });
  afterAll(() => database.dispose());
  afterEach(() => void lines.splice(0));

  const completed = () => lines.filter((l) => l.msg === 'request completed' || l.msg === 'request errored');

  it('writes one line per request with the UUID it returns in X-Request-Id, and no cookie or authorization', async () => {
    const app = await build();
    try {
      const res = await app.inject({ url: `/api/dealers/${DEMO_DEALER.id}`, headers: { cookie: 'dcb_session=s3cret-cookie', authorization: 'Bearer s3cret-token' } });
      expect(res.statusCode).toBe(401);
      const id = res.headers['x-request-id'] as string;
      expect(id).toMatch(UUID);
      expect(completed()).toEqual([
        expect.objectContaining({ level: 30, reqId: id, req: expect.objectContaining({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}` }), res: { statusCode: 401 } }),
      ]);
      expect(lines.filter((l) => l.reqId === id)).toHaveLength(1);
      // Whatever logs headers gets cookies and authorization redacted (the request serializer writes no headers at all).
      app.log.info({ req: { headers: { cookie: 'dcb_session=s3cret-cookie', authorization: 'Bearer s3cret-token' } } }, 'headers');
      app.log.info({ headers: { cookie: 'a=s3cret-cookie', 'set-cookie': 'b=s3cret-cookie', authorization: 'Basic s3cret' } }, 'headers');
      app.log.info({ upstream: { headers: { cookie: 'a=s3cret-cookie' } } }, 'headers');
      expect(JSON.stringify(lines)).not.toContain('s3cret');
      expect(lines.filter((l) => l.msg === 'headers').slice(1)).toEqual([
        expect.objectContaining({ headers: { cookie: '[redacted]', 'set-cookie': '[redacted]', authorization: '[redacted]' } }),
        expect.objectContaining({ upstream: { headers: { cookie: '[redacted]' } } }),
      ]);
    } finally {
      await app.close();
    }
  });

  it("keeps a caller's plain X-Request-Id and replaces anything else", async () => {
    const app = await build();
    try {
      const given = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'lb-7f3a9c.01:2' } });
      expect(given.headers['x-request-id']).toBe('lb-7f3a9c.01:2');
      const forged = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'x"\n{"level":60}' } });
      expect(forged.headers['x-request-id']).toMatch(UUID);
      expect((await app.inject({ url: '/healthz', headers: { 'x-request-id': 'a'.repeat(129) } })).headers['x-request-id']).toMatch(UUID);
      // Probes are not logged.
      expect(completed()).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('logs no beacon or banner request by default, and every one with LOG_PUBLIC_SAMPLE_RATE=1', async () => {
    const quiet = await build();
    try {
      expect((await beacon(quiet)).statusCode).toBe(204);
      expect((await quiet.inject({ url: `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`, headers: { 'user-agent': UA } })).statusCode).toBe(200);
      expect((await quiet.inject({ url: `/scripts/dc-banners-${DEMO_DEALER.id}.js` })).statusCode).toBe(200);
      expect(completed()).toEqual([]);
      expect((await quiet.inject('/api/auth/demo-accounts')).statusCode).toBe(200);
      expect(completed()).toHaveLength(1);
    } finally {
      await quiet.close();
    }
    lines.splice(0);
    const all = await build({ LOG_PUBLIC_SAMPLE_RATE: '1' });
    try {
      expect((await beacon(all)).statusCode).toBe(204);
      expect((await all.inject({ url: `/scripts/dc-banners-${DEMO_DEALER.id}.js` })).statusCode).toBe(200);
      expect(completed().map((l) => (l.req as { url: string }).url)).toEqual(['/api/analytics/track', `/scripts/dc-banners-${DEMO_DEALER.id}.js`]);
    } finally {
      await all.close();
    }
  });
});
