/**
 * WORKERS=2 on PostgreSQL with REDIS_URL: the real server (`src/server/main.ts`, the
 * cluster primary) migrates and seeds once and forks two workers that both answer on one port;
 * a per-IP limit counts once across them (client error reports: 10 a minute in total, not 10 per
 * worker; sign-in 20; the tracking per-IP budget likewise); a due feed runs once and the hourly
 * retention job runs once; /metrics sums both workers; a worker killed with -9 under load is
 * replaced by the standby worker at once and loses at most one window of acknowledged beacons
 * (docs/OPERATIONS.md "What a crash can lose"); SIGTERM
 * stops both gracefully and the primary exits 0. Needs
 * TEST_DATABASE_URL and TEST_REDIS_URL (CI sets both); its own schema and Redis key prefix.
 * WORKERS=2 without DATABASE_URL is refused at start (always runs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { serverArgs, startServer, apiSignIn, patchDealerSettings, freePort, saveFeedAndWatchRuns, DESKTOP_UA, DEALER_SITE_ORIGIN, type RunningServer } from './harness';
import { onOneConnection, pidOf, request } from './connections';
import { parsePrometheus, sampleSum } from './prometheus';
import { startJsonFeed, type LocalServer } from '../fixtures/http-server';
import { DEMO_DEALER } from '../../src/server/db/seed';
import { LOGIN_IP_LIMIT_PER_MINUTE } from '../../src/domain/login-throttle';
import { MAX_REQUESTS_PER_MINUTE, RATE_LIMIT_NAT_FACTOR } from '../../src/domain/constants';
import { CLIENT_ERRORS_PER_MINUTE } from '../../src/server/admin/client-errors';
import { MAX_UNSECURED_MS } from '../../src/domain/constants';
import { mostAcksInWindow, type Ack } from './crash-window';
import { dropSchemas } from '../../src/server/db/drop-schemas';

const url = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const schema = `e2e_workers_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const TOKEN = `metrics-${randomUUID()}`;

describe.skipIf(!url || !redisUrl)('WORKERS=2 on PostgreSQL with a shared Redis', () => {
  let server: RunningServer;
  let feed: LocalServer;
  let metricsPort: number;
  const healthz = { path: '/healthz' };
  const SCRIPT_PATH = `/scripts/dc-banners-${DEMO_DEALER.id}.js`;

  /**
   * Waits until each worker serves the dealer's script with another ETag than `before` (the script
   * carries the dealer's version): both have then read the settings change, however long the
   * change notification took to reach the other worker on a busy machine.
   */
  async function bothWorkersSee(before: string): Promise<void> {
    const fresh = new Set<number>();
    await expect
      .poll(
        async () => {
          const [script, health] = await onOneConnection(server.origin, [{ path: SCRIPT_PATH }, healthz]);
          if (script!.headers.etag !== before) fresh.add(pidOf(health!));
          return fresh.size;
        },
        { timeout: 60_000 },
      )
      .toBe(2);
  }
  /** /metrics through the shared port (a worker asks the primary), or the primary's METRICS_PORT. */
  const metrics = async (origin = server.origin) => {
    const res = await request(origin, { path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return parsePrometheus(res.body);
  };

  beforeAll(async () => {
    feed = await startJsonFeed('tests/fixtures/inventory/inventory-listofvehicles.json');
    metricsPort = await freePort();
    server = await startServer({
      WORKERS: '2',
      EVENT_MAX_UNSECURED_MS: String(MAX_UNSECURED_MS), // the product's bound: the kill -9 test measures it
      DATABASE_URL: url!,
      DATABASE_SCHEMA: schema,
      REDIS_URL: redisUrl!,
      REDIS_KEY_PREFIX: `dcb-e2e-${randomUUID()}:`,
      // A late Redis answer on a busy machine would switch a worker to its in-memory count (right in
      // production, not what the shared-budget test measures).
      REDIS_COMMAND_TIMEOUT_MS: '5000',
      METRICS_TOKEN: TOKEN,
      METRICS_PORT: String(metricsPort),
      // One proxy hop in front (the test): per-IP limits count the X-Forwarded-For address.
      TRUST_PROXY: '1',
      LOG_LEVEL: 'info',
      FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32',
      FEED_SCHEDULER_INTERVAL_MS: '200',
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await feed?.close();
    await dropSchemas(url!, schema);
  });

  it('answers from two worker processes, each ready', async () => {
    // The harness returns once one worker answers; the other may still be starting.
    const pids = new Set<number>();
    for (const deadline = Date.now() + 30_000; pids.size < 2 && Date.now() < deadline; ) {
      const [health, ready] = await onOneConnection(server.origin, [healthz, { path: '/readyz' }]);
      expect(health!.status).toBe(200);
      expect(ready!.status).toBe(200);
      expect(JSON.parse(ready!.body)).toMatchObject({ status: 'ok', pid: pidOf(health!), checks: { database: 'ok', migrations: 'ok', eventBuffer: 'ok' } });
      pids.add(pidOf(health!));
    }
    expect(pids.size).toBe(2);
    expect(pids.has(server.process.pid!)).toBe(false); // the primary serves nothing
    // Migrations and the demo data: once, by the primary.
    expect(server.output().match(/"seeded":true/g)).toHaveLength(1);
  });

  it(`allows ${CLIENT_ERRORS_PER_MINUTE.anonymous} error reports a minute per IP in total across both workers, not ${CLIENT_ERRORS_PER_MINUTE.anonymous} each`, async () => {
    const limit = CLIENT_ERRORS_PER_MINUTE.anonymous;
    const reports: Array<{ status: number; pid: number }> = [];
    for (let i = 0; i < limit * 2; i++) {
      const [report, health] = await onOneConnection(server.origin, [
        {
          method: 'POST',
          path: '/api/client-errors',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.40' },
          body: JSON.stringify({ message: `Something went wrong ${i}`, url: `${server.origin}/` }),
        },
        healthz,
      ]);
      reports.push({ status: report!.status, pid: pidOf(health!) });
    }
    expect(reports.map((r) => r.status)).toEqual([...Array(limit).fill(204), ...Array(limit).fill(429)]);
    // Both workers took reports, and both refused once the shared count was reached.
    expect(new Set(reports.slice(0, limit).map((r) => r.pid)).size).toBe(2);
    expect(new Set(reports.slice(limit).map((r) => r.pid)).size).toBe(2);
  });

  it(`allows ${LOGIN_IP_LIMIT_PER_MINUTE} sign-in attempts a minute per IP in total across both workers, not ${LOGIN_IP_LIMIT_PER_MINUTE} each`, async () => {
    // All at once: the limit is counted when a request arrives, and one after another the attempts
    // (each a password hash check) can outlast the one-minute window on a busy machine.
    const attempts = await Promise.all(
      Array.from({ length: LOGIN_IP_LIMIT_PER_MINUTE + 10 }, async (_, i) => {
        const [login, health] = await onOneConnection(server.origin, [
          {
            method: 'POST',
            path: '/api/auth/login',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.50' },
            body: JSON.stringify({ email: `nobody-${i}@example.com`, password: 'wrong-password' }),
          },
          healthz,
        ]);
        return { status: login!.status, pid: pidOf(health!) };
      }),
    );
    expect(attempts.filter((a) => a.status === 401)).toHaveLength(LOGIN_IP_LIMIT_PER_MINUTE);
    expect(attempts.filter((a) => a.status === 429)).toHaveLength(10);
    // Both workers took attempts: 20 in all, not 20 each.
    expect(new Set(attempts.map((a) => a.pid)).size).toBe(2);
  });

  it("counts tracking's per-IP budget once across both workers", async () => {
    const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
    const dealer = (await (await fetch(`${server.origin}/api/dealers/${DEMO_DEALER.id}`, { headers: { cookie: admin } })).json()).dealer;
    const before = (await request(server.origin, { path: SCRIPT_PATH })).headers.etag!;
    const saved = await fetch(`${server.origin}/api/admin/dealers/${DEMO_DEALER.id}/settings`, {
      method: 'PUT',
      headers: { cookie: admin, 'content-type': 'application/json' },
      body: JSON.stringify({ security: { ...dealer.security, rateLimitEnabled: true, maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.min } }),
    });
    expect(saved.status).toBe(200);
    await bothWorkersSee(before);
    const budget = MAX_REQUESTS_PER_MINUTE.min * RATE_LIMIT_NAT_FACTOR;
    const statuses: number[] = [];
    for (let i = 0; i < budget + 10; i++) {
      const res = await request(server.origin, {
        method: 'POST',
        path: '/api/analytics/track',
        headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN, 'x-forwarded-for': '198.51.100.60' },
        body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${DEALER_SITE_ORIGIN}/new-inventory`, pv: `pv-workers-${i}` }),
      });
      statuses.push(res.status);
    }
    // Within the budget every beacon is taken (204) or, while the event writer pushes back on a busy
    // machine, refused after it was counted (503, which the script asks again); then 429s only.
    expect(statuses.slice(0, budget).filter((s) => s !== 204 && s !== 503), statuses.join(' ')).toEqual([]);
    expect(statuses.slice(budget)).toEqual(Array(10).fill(429));
  });

  it('runs a due feed once, and the retention job once, although both workers schedule them', async () => {
    const runs = await saveFeedAndWatchRuns(server.origin, server.origin, DEMO_DEALER.id, `${feed.origin}/feed.json`);
    expect(runs.length).toBe(1);
    expect(feed.hits).toHaveLength(1);
    expect(server.output().match(/retention pruning done/g)).toHaveLength(1);
    await expect.poll(async () => sampleSum(await metrics(), 'dcb_feed_runs_total', { result: 'success' }), { timeout: 30_000 }).toBe(1);
  });

  it('serves /metrics as the sum over both workers, on the shared port and on METRICS_PORT', async () => {
    const route = { route: '/healthz', status_code: '200' };
    const internal = `http://127.0.0.1:${metricsPort}`;
    const before = sampleSum(await metrics(), 'http_request_duration_seconds_count', route);
    const pids = new Set<number>();
    for (let i = 0; i < 10; i++) pids.add(pidOf(await request(server.origin, healthz)));
    expect(pids.size).toBe(2);
    await expect.poll(async () => sampleSum(await metrics(), 'http_request_duration_seconds_count', route) - before, { timeout: 30_000 }).toBe(10);
    expect(sampleSum(await metrics(internal), 'http_request_duration_seconds_count', route) - before).toBe(10);
  });

  it('replaces a worker killed with -9 under load by the standby at once, losing at most one window of acknowledged beacons', async () => {
    // Beacons from many addresses with the dealer's limits off: the load, not the limits, is measured.
    await patchDealerSettings(server.origin, DEMO_DEALER.id, { rateLimitEnabled: false });
    const pids = async () => {
      const seen = new Set<number>();
      for (let i = 0; i < 10; i++) seen.add(pidOf(await request(server.origin, healthz)));
      return seen;
    };
    const [victim] = [...(await pids())];

    const acks: Ack[] = [];
    let n = 0;
    let stop = false;
    const client = async () => {
      while (!stop) {
        const pv = `pv-kill-${++n}`;
        const sent = Date.now();
        try {
          // A connection the primary handed to the worker as it died is never answered: give up on it.
          const res = await fetch(`${server.origin}/api/analytics/track`, {
            method: 'POST',
            headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN, 'x-forwarded-for': `198.51.100.${n % 200}` },
            body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${DEALER_SITE_ORIGIN}/new-inventory`, pv }),
            signal: AbortSignal.timeout(5000),
          });
          await res.arrayBuffer();
          if (res.status === 204) acks.push({ pv, sent, answered: Date.now() });
        } catch {
          /* a connection of the killed worker: not acknowledged */
        }
      }
    };
    const clients = Array.from({ length: 12 }, client);
    await expect.poll(() => acks.length, { timeout: 30_000 }).toBeGreaterThan(200);
    const killedAt = Date.now();
    process.kill(victim!, 'SIGKILL');
    await expect.poll(() => server.output(), { timeout: 30_000 }).toContain('worker exited; replacing it');
    // The standby listens at once; both workers answer again, the victim not among them.
    await expect
      .poll(async () => {
        const seen = await pids();
        return seen.size === 2 && !seen.has(victim!);
      }, { timeout: 20_000, interval: 100 })
      .toBe(true);
    const replacedAt = Date.now();
    stop = true;
    await Promise.all(clients);
    expect(server.output()).toContain('standby worker took over');

    // Every acknowledged beacon the killed worker had not written is lost; the others are written within 100 ms.
    const stored = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const rows = await c.query<{ page_view: string }>(`SELECT page_view FROM "${schema}".events WHERE page_view LIKE 'pv-kill-%'`);
        return new Set(rows.rows.map((r) => r.page_view));
      } finally {
        await c.end();
      }
    };
    // Written once two reads half a second apart agree.
    let pvs = await stored();
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 500));
      const again = await stored();
      if (again.size === pvs.size) break;
      pvs = again;
    }
    const lost = acks.filter((a) => !pvs.has(a.pv)).length;
    const bound = mostAcksInWindow(acks, MAX_UNSECURED_MS);
    // The primary's own times: the death seen, and the standby listening.
    const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { time: number; msg: string; worker?: number; standby?: number });
    const exited = lines.find((l) => l.msg === 'worker exited; replacing it');
    const listening = lines.find((l) => l.msg === 'worker listening' && l.worker === exited?.standby);
    process.stdout.write(
      `worker kill -9: the standby listened ${listening && exited ? listening.time - exited.time : '?'} ms after the primary saw the death, both workers answered ${replacedAt - killedAt} ms after the kill as the client saw it; ${acks.length} acknowledged, ${lost} lost, one window holds at most ${bound}\n`,
    );
    expect(lost).toBeLessThanOrEqual(bound);
  });

  it('stops both workers gracefully on SIGTERM and exits 0', async () => {
    const code = await server.stop('SIGTERM');
    // On a failure, the end of the server's log names the worker that did not stop and what it waited for.
    expect(code, server.output().slice(-4000)).toBe(0);
    expect(server.output()).toContain('all workers stopped');
    expect(server.output()).not.toContain('killed by timeout');
  });
});

describe('WORKERS on PGlite', () => {
  it('refuses to start, naming DATABASE_URL', async () => {
    const { DATABASE_URL: _url, ...env } = process.env;
    const child = spawn(process.execPath, serverArgs(), { env: { ...env, WORKERS: '2', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(out).toContain('WORKERS=2 needs PostgreSQL (DATABASE_URL): the embedded PGlite database in DATA_DIR belongs to one process');
  });
});
