/**
 * Readiness while PostgreSQL comes and goes: the real server on PostgreSQL (through a
 * TCP proxy, tests/e2e/pg-proxy.ts) answers GET /readyz 200 while the database answers, 503 naming
 * the database while PostgreSQL refuses connections (GET /healthz stays 200: the process is alive),
 * and 200 again once PostgreSQL is back, without a restart. Runs only when TEST_DATABASE_URL is
 * set; its own schema, dropped afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startServer, type RunningServer } from './harness';
import { proxiedDatabase, type PgProxy } from './pg-proxy';
import { dropSchemas } from '../../src/server/db/drop-schemas';

const url = process.env.TEST_DATABASE_URL;
const schema = `e2e_ready_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

describe.skipIf(!url)('/readyz on a PostgreSQL that comes and goes', () => {
  let proxy: PgProxy;
  let server: RunningServer;
  const readyz = () => fetch(`${server.origin}/readyz`);

  beforeAll(async () => {
    let viaProxy: URL;
    ({ proxy, url: viaProxy } = await proxiedDatabase(url!));
    server = await startServer({ DATABASE_URL: viaProxy.toString(), DATABASE_SCHEMA: schema, LOG_LEVEL: 'warn', FEED_SCHEDULER_INTERVAL_MS: '0' });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await dropSchemas(url!, schema);
  });

  it('answers 200, then 503 naming the database while PostgreSQL refuses connections, then 200 again', async () => {
    const up = await readyz();
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ status: 'ok', checks: { database: 'ok', migrations: 'ok', eventBuffer: 'ok' } });

    await proxy.down();
    const down = await readyz();
    expect(down.status).toBe(503);
    const body = (await down.json()) as { error: { code: string; message: string; checks: Record<string, string> } };
    expect(body.error.code).toBe('UNAVAILABLE');
    expect(body.error.checks.database).toMatch(/^connection: /);
    expect(body.error.message).toMatch(/^Not ready: database: connection: /);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    await expect.poll(() => server.output(), { timeout: 30_000 }).toContain('"msg":"not ready"');

    await proxy.up();
    await expect.poll(async () => (await readyz()).status, { timeout: 10_000, interval: 250 }).toBe(200);
    expect(server.process.exitCode).toBeNull();
  });
});
