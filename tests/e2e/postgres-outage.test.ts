/**
 * PostgreSQL that comes and goes: the real server (`src/server/main.ts`) on
 * PostgreSQL keeps running when the server closes its connections (pg_terminate_backend), answers
 * 503 with Retry-After while PostgreSQL is unreachable or its schema is missing, and serves again
 * without a restart once it is back; beacons sent after a disconnection are counted. The server
 * reaches PostgreSQL through a TCP proxy in this test, so "PostgreSQL goes away" (every connection
 * dropped, new ones refused, then accepted again, as in a restart) needs no control of the real
 * server. Runs only when TEST_DATABASE_URL is set; its own schema, dropped afterwards.
 * The start-up test (no PostgreSQL at the given port) always runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { serverArgs, startServer, apiSignIn, DESKTOP_UA, DEALER_SITE_ORIGIN, type RunningServer } from './harness';
import { proxiedDatabase, type PgProxy } from './pg-proxy';
import { DEMO_DEALER } from '../../src/server/db/seed';

const url = process.env.TEST_DATABASE_URL;
const id = randomUUID().replace(/-/g, '').slice(0, 12);
const schema = `e2e_outage_${id}`;
const appName = `dcb_outage_${id}`;

describe.skipIf(!url)('the server on a PostgreSQL that comes and goes', () => {
  let proxy: PgProxy;
  let server: RunningServer;
  let admin: pg.Client;
  let manager: string;

  const get = (path: string) => fetch(`${server.origin}${path}`, { headers: { cookie: manager } });
  const analytics = () => get(`/api/dealers/${DEMO_DEALER.id}/analytics?period=24h`);
  let views = 0; // a new page view per beacon: the same page view and slot counts once
  const beacon = () =>
    fetch(`${server.origin}/api/analytics/track`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN },
      body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory', pv: `view-test-${++views}` }),
    });
  const alive = () => server.process.exitCode === null && server.process.signalCode === null;

  beforeAll(async () => {
    // Through the proxy, with this run's own application_name (the connection string's wins over the default).
    let viaProxy: URL;
    ({ proxy, url: viaProxy } = await proxiedDatabase(url!));
    viaProxy.searchParams.set('application_name', appName);
    server = await startServer({ DATABASE_URL: viaProxy.toString(), DATABASE_SCHEMA: schema, LOG_LEVEL: 'warn', FEED_SCHEDULER_INTERVAL_MS: '0' });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}_away" CASCADE`);
    await admin?.end();
  });

  it('stays up when PostgreSQL closes its connections, and counts beacons sent afterwards', async () => {
    expect((await analytics()).status).toBe(200);
    const terminated = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1',
      [appName],
    );
    expect(terminated.rowCount).toBeGreaterThan(0);
    await expect.poll(() => server.output(), { timeout: 30_000 }).toContain('PostgreSQL closed an idle connection');
    expect(alive()).toBe(true);

    expect((await get('/api/auth/me')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await beacon()).status).toBe(204);
    await expect
      .poll(async () => ((await (await analytics()).json()) as { current: { impressions: number } }).current.impressions, { timeout: 30_000 })
      .toBe(3);
  });

  it('answers 503 with Retry-After while PostgreSQL is unreachable (a beacon is still accepted), and serves again once it is back', async () => {
    await proxy.down(); // every connection dropped, new ones refused: what a restart looks like from here
    const down = await get('/api/auth/me');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(await down.json()).toEqual({ error: { code: 'UNAVAILABLE', message: 'Database unavailable, please retry shortly' } });
    expect((await analytics()).status).toBe(503);
    expect(alive()).toBe(true);
    expect(server.output()).not.toContain('unhandled error');
    // A beacon naming a banner request whose creative is not cached yet: the creative cannot be
    // worked out without the database, the event is still accepted (buffered) with it unknown.
    const named = await fetch(`${server.origin}/api/analytics/track`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN },
      body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'ridgeline', url: 'https://www.hondaofdemo.com/new-inventory', pv: `view-test-${++views}`, asset: `${server.origin}/api/scripts/${DEMO_DEALER.id}/asset?model=ridgeline&type=header&variant=desktop&v=1&r=7` }),
    });
    expect(named.status).toBe(204);

    await proxy.up();
    await expect.poll(async () => (await get('/api/auth/me')).status, { timeout: 10_000 }).toBe(200);
    expect((await analytics()).status).toBe(200);
    // Stored once the database is back, its creative unknown.
    await expect
      .poll(async () => ((await (await analytics()).json()) as { creatives: Array<{ model: string; kind: string; impressions: number }> }).creatives.find((c) => c.model === 'ridgeline'), { timeout: 30_000 })
      .toMatchObject({ kind: 'unknown', impressions: 1 });
  });

  it('answers 503 naming the missing schema while it is renamed away, and 200 once it is back', async () => {
    await admin.query(`ALTER SCHEMA "${schema}" RENAME TO "${schema}_away"`);
    try {
      const gone = await analytics();
      expect(gone.status).toBe(503);
      expect(gone.headers.get('retry-after')).toBe('5');
      expect(await gone.json()).toEqual({
        error: { code: 'UNAVAILABLE', message: `Database schema "${schema}" unavailable: relation "sessions" does not exist; please retry shortly` },
      });
    } finally {
      await admin.query(`ALTER SCHEMA "${schema}_away" RENAME TO "${schema}"`);
    }
    await expect.poll(async () => (await analytics()).status, { timeout: 30_000 }).toBe(200);
    expect(alive()).toBe(true);
  });

  it('serves a schema that was dropped and then recreated by another process\'s migrations, without a restart', async () => {
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    const gone = await analytics();
    expect(gone.status).toBe(503);
    expect(((await gone.json()) as { error: { message: string } }).error.message).toContain(`Database schema "${schema}" unavailable`);
    // Nothing recreated it meanwhile.
    expect((await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount).toBe(0);

    const other = await startServer({ DATABASE_URL: url!, DATABASE_SCHEMA: schema, LOG_LEVEL: 'warn', FEED_SCHEDULER_INTERVAL_MS: '0' }); // migrates and seeds
    try {
      manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123'); // sessions went with the schema
      expect((await analytics()).status).toBe(200);
    } finally {
      await other.stop();
    }
    expect(alive()).toBe(true);
  });
});

describe('start-up without PostgreSQL', () => {
  it('exits non-zero naming host, port and the refusal (never the password)', async () => {
    const { DATABASE_SCHEMA: _schema, ...env } = process.env;
    const child = spawn(process.execPath, serverArgs(), {
      env: { ...env, DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/test', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(out).toContain('Cannot connect to PostgreSQL at 127.0.0.1:1 (database "test"): connect ECONNREFUSED 127.0.0.1:1');
    expect(out).not.toContain('s3cret');
  });
});
