/**
 * PostgreSQL that comes and goes: the node-postgres pool behind openDatabase keeps
 * the process up and keeps working when the server closes its connections, idle or in use.
 * PostgreSQL only (api-postgres project, TEST_DATABASE_URL); each run uses its own schema,
 * dropped afterwards. An unhandled 'error' event would fail the run as an unhandled error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase, POOL_APPLICATION_NAME, type Database } from './client';
import { isDatabaseUnavailable } from './availability';

const url = process.env.TEST_DATABASE_URL;
const onPostgres = process.env.TEST_DB_DRIVER === 'postgres' && !!url;

describe.skipIf(!onPostgres)('PostgreSQL pool (openDatabase with a connection string)', () => {
  const schemaName = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const appName = `dcb_pool_${randomUUID().slice(0, 8)}`;
  let database: Database;
  let pool: pg.Pool;
  let admin: pg.Client;
  const warnings: string[] = [];

  /** The connection string with this run's own application_name, so only our connections are terminated. */
  const withAppName = () => {
    const u = new URL(url!);
    u.searchParams.set('application_name', appName);
    return u.toString();
  };
  /** The rows a statement returns (Db's execute result is driver-generic). */
  const rows = async (db: Database['db'], query: SQL) => ((await db.execute(query)) as unknown as { rows: unknown[] }).rows;
  const terminateOurs = async () =>
    (await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [appName]))
      .rowCount ?? 0;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    database = await openDatabase({ databaseUrl: withAppName(), schemaName });
    database.setLogger?.({ warn: (_obj, msg) => void warnings.push(msg) });
    pool = (database.db as unknown as { $client: pg.Pool }).$client;
  });
  afterAll(async () => {
    await database?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schemaName}" CASCADE`);
    await admin?.end();
  });

  it('announces the connection string\'s application_name, else "dc-banners"', async () => {
    expect(await rows(database.db, sql`SELECT current_setting('application_name') AS name, current_schema() AS schema`)).toEqual([
      { name: appName, schema: schemaName },
    ]);
    const plain = await openDatabase({ databaseUrl: url!, schemaName });
    try {
      expect(await rows(plain.db, sql`SELECT current_setting('application_name') AS name`)).toEqual([{ name: POOL_APPLICATION_NAME }]);
    } finally {
      await plain.close();
    }
  });

  it('keeps JIT compilation off on its connections, with its schema first on the search path', async () => {
    expect(await rows(database.db, sql`SELECT current_setting('jit') AS jit, current_setting('search_path') AS path`)).toEqual([{ jit: 'off', path: schemaName }]);
  });

  it('survives the server closing its idle connections, logs a warning, and reconnects on the next query', async () => {
    await Promise.all([1, 2, 3].map(() => database.db.execute(sql`SELECT pg_sleep(0.05)`)));
    expect(pool.idleCount).toBeGreaterThan(0);
    expect(await terminateOurs()).toBeGreaterThan(0);
    await expect.poll(() => pool.totalCount).toBe(0);
    expect(warnings.some((w) => w.startsWith('PostgreSQL closed an idle connection'))).toBe(true);
    expect(await rows(database.db, sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('discards a connection lost inside a transaction and serves the next query', async () => {
    const failed = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_terminate_backend(pg_backend_pid())`);
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isDatabaseUnavailable(failed)).toBe(true);
    await expect.poll(() => pool.totalCount - pool.idleCount).toBe(0);
    expect(await rows(database.db, sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('does not leak the client when a transaction\'s BEGIN fails on a dead connection (more times than the pool has clients)', async () => {
    const killOnAcquire = (client: pg.PoolClient) => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    for (let i = 0; i < 11; i++) {
      pool.once('acquire', killOnAcquire);
      const failed = await database.db.transaction(async () => undefined).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(failed)).toBe(true);
    }
    await expect.poll(() => pool.totalCount - pool.idleCount).toBe(0);
    expect(await rows(database.db, sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });
});
