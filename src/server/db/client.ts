/**
 * Database client: embedded PGlite (Postgres in WASM, files in DATA_DIR) by default, or a
 * PostgreSQL server through node-postgres when a connection string is given. Both run the same
 * SQL migrations (src/server/db/migrations) and the same Drizzle queries.
 *
 * DECISIONS 1.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import * as schema from './schema';
import { databaseConnectError } from './availability';
import { acquireDataDirLock } from './data-dir-lock';
import { StorageGuard, failSafePglite } from './disk-guard';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction handle; same query API as Db. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  driver: 'pglite' | 'postgres';
  /** Runs all pending migrations. */
  migrate(): Promise<void>;
  /**
   * Runs `fn` (migrations, seeding) while no other server process does: on PostgreSQL
   * under a session advisory lock per schema (STARTUP_LOCK_KEY), which a second process waits for,
   * then finds the migrations applied and the data seeded; on PGlite directly (its data directory
   * already belongs to one process).
   */
  withStartupLock<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * How many migrations of MIGRATIONS_FOLDER the database has not applied (0 when up to date), for
   * GET /readyz. @throws the database error (unreachable, or the journal table missing).
   */
  pendingMigrations(): Promise<number>;
  close(): Promise<void>;
  /**
   * PGlite with a data directory only: its free-space guard and fail-safe (see
   * disk-guard.ts); hand it to buildApp, which checks it periodically and exposes `app.storage`.
   */
  storage?: StorageGuard;
  /**
   * PostgreSQL only: where connection-loss warnings go. Until it is called they are kept (the
   * last POOL_LOG_BACKLOG) and written when it is, so main.ts can hand over the app's logger.
   */
  setLogger?(log: DatabaseLogger): void;
  /**
   * Opens a connection that LISTENs on `channel` (PostgreSQL: a dedicated connection outside the
   * pool, announced as LISTENER_APPLICATION_NAME; PGlite: its listen API on the one in-process
   * connection). `onNotify` gets each notification's payload; `onLost` is called once when the
   * connection fails or the server closes it (never after `close()`), after which the listener is
   * dead and a new one must be opened. Used by dealer-sites/listener.ts.
   * @throws the connection error when the connection or the LISTEN fails (nothing stays open).
   */
  listen(channel: string, onNotify: (payload: string) => void, onLost: (err: Error) => void): Promise<ChannelListener>;
}

/** A connection listening on one channel (Database.listen). */
export interface ChannelListener {
  /** The schema the connection resolves unqualified tables in (current_schema()): the one the app's triggers notify for. */
  schema: string;
  /** PostgreSQL: the listening backend's process id (pg_stat_activity.pid); null on PGlite. */
  pid: number | null;
  /**
   * Checks the connection with a round trip (PostgreSQL: `SELECT 1`); a connection that does not
   * answer within `timeoutMs` is closed and reported lost (`onLost`). No-op on PGlite.
   */
  ping(timeoutMs: number): Promise<void>;
  /** Stops listening and closes the connection. */
  close(): Promise<void>;
}

/** The part of a pino / Fastify logger the database uses. */
export interface DatabaseLogger {
  warn(obj: object, msg: string): void;
}

/**
 * The SQL migrations: beside this file in the sources (src/server/db/migrations); the compiled
 * server (dist/server/main.js, one bundle) has its copy beside it (dist/server/migrations).
 */
export const MIGRATIONS_FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** First key of the PostgreSQL advisory lock taken for migrations and seeding (the second is the schema's hash). */
export const STARTUP_LOCK_KEY = 0x64636200; // 'dcb\0'

/** The bundled migrations' timestamps (drizzle's folderMillis, recorded as created_at when applied), read once per process. */
let migrationFiles: number[] | undefined;
function migrationTimes(): number[] {
  migrationFiles ??= readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m) => m.folderMillis);
  return migrationFiles;
}

/**
 * Pending migrations given drizzle's journal table: the migrations newer than the newest one applied
 * (drizzle applies in order and records each one's folderMillis as created_at).
 */
async function countPending(db: Db, journalSchema: string): Promise<number> {
  const result = await db.execute(sql`select max(created_at) as last from ${sql.identifier(journalSchema)}.__drizzle_migrations`);
  const rows = ((result as { rows?: unknown[] }).rows ?? (result as unknown as unknown[])) as Array<{ last: string | number | null }>;
  const last = Number(rows[0]?.last ?? 0);
  return migrationTimes().filter((when) => when > last).length;
}

export interface OpenOptions {
  /** PostgreSQL connection string; when absent PGlite is used. */
  databaseUrl?: string;
  /** PGlite data directory; absent = in memory. Locked for this process while open (data-dir-lock.ts). */
  dataDir?: string;
  /** With dataDir: DATA_MIN_FREE_MB, the free space below which changes are refused (default 0). */
  dataMinFreeMb?: number;
  /** PostgreSQL schema to use (tables and migration journal); used by tests to isolate runs. */
  schemaName?: string;
  /**
   * In-memory PGlite only (no dataDir): start from this PGlite `dumpDataDir()` tarball instead of
   * an empty cluster; used by tests to open a migrated database without migrating (test-snapshot.ts).
   */
  loadDataDir?: Blob;
  /**
   * In-memory PGlite only (no dataDir): PostgreSQL settings for this instance, passed at start-up
   * (`-c name=value`) after PGlite's own; used by tests to start a smaller server (test-app.ts).
   */
  settings?: Record<string, string>;
}

/** Database.listen on a PGlite: its own listen API (notifications of the same session are delivered too). */
function listenPglite(client: PGlite): Database['listen'] {
  return async (channel, onNotify) => {
    const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
    const unlisten = await client.listen(channel, onNotify);
    return {
      schema: rows[0]!.schema,
      pid: null,
      ping: async () => undefined,
      // A PGlite already closed (database closed before the app) has nothing left to unlisten.
      close: () => unlisten().catch(() => undefined),
    };
  };
}

/**
 * Opens the database.
 * @throws when PostgreSQL cannot be reached or the PGlite directory cannot be created;
 *   DataDirInUse when another live process holds the PGlite data directory.
 */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.schemaName);
  if (!opts.dataDir) {
    const startParams = opts.settings ? [...PGlite.defaultStartParams, ...Object.entries(opts.settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])] : undefined;
    const client = new PGlite({ ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}), ...(startParams ? { startParams } : {}) });
    await client.waitReady;
    return pgliteDatabase(client, { close: () => client.close() });
  }
  // One process per data directory: lock before PGlite touches a file, release after it closed.
  const lock = await acquireDataDirLock(opts.dataDir);
  let client: PGlite;
  try {
    client = new PGlite(lock.dataDir);
    await client.waitReady;
  } catch (err) {
    lock.release();
    throw err;
  }
  const storage = new StorageGuard(lock.dataDir, (opts.dataMinFreeMb ?? 0) * 1024 * 1024);
  failSafePglite(client, storage);
  return pgliteDatabase(client, {
    storage,
    close: async () => {
      try {
        // A stopped PGlite would spin in its own shutdown (a checkpoint): leave it, WAL replay recovers.
        if (!storage.stopped) await client.close();
      } finally {
        lock.release();
      }
    },
  });
}

/**
 * The Database over a ready PGlite `client` (in memory or on a data directory): migrations from
 * MIGRATIONS_FOLDER, no startup lock (one process owns the client), listening in-process;
 * `parts.close` ends it, `parts.storage` watches its disk.
 */
function pgliteDatabase(client: PGlite, parts: Pick<Database, 'close' | 'storage'>): Database {
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    driver: 'pglite',
    migrate: () => migratePglite(db as never, { migrationsFolder: MIGRATIONS_FOLDER }),
    withStartupLock: (fn) => fn(),
    pendingMigrations: () => countPending(db, 'drizzle'),
    listen: listenPglite(client),
    ...parts,
  };
}

/** Pool settings: fail a request within this long when no connection can be made, instead of hanging. */
export const POOL_CONNECT_TIMEOUT_MS = 5000;
/** The application_name pooled connections announce (pg_stat_activity), unless the connection string sets one. */
export const POOL_APPLICATION_NAME = 'dc-banners';
/** The application_name of the dedicated listening connection (Database.listen), unless the connection string sets one. */
export const LISTENER_APPLICATION_NAME = 'dc-banners-listener';
/** Connection-loss warnings kept until a logger is set. */
export const POOL_LOG_BACKLOG = 20;

/**
 * Opens a node-postgres pool that survives PostgreSQL coming and going:
 * - an idle connection the server closes (pg_terminate_backend, restart, failover, proxy timeout)
 *   is reported by the pool's 'error' event, logged as a warning and dropped; the next query
 *   opens a new connection. Without a listener that event would end the process.
 * - a connection lost while checked out (a transaction) is logged and handed back to the pool
 *   at once, so it cannot leak: Drizzle's transaction() does not release its client when its
 *   BEGIN fails, and ten leaked clients would leave every later request waiting forever.
 * - connecting gives up after POOL_CONNECT_TIMEOUT_MS, so requests during an outage fail fast
 *   (the error handler answers 503, see availability.ts); TCP keepalive finds dead idle sockets.
 * - JIT compilation is off for its connections (`jit=off`): the planner's cost of a read over the
 *   partitioned events table adds up every partition it cannot exclude at plan time, so a read of
 *   one hour crossed jit_above_cost once the table held a few million events and spent 65 of its
 *   68 ms compiling code; none of this product's reads runs long enough to gain from JIT.
 * @param databaseUrl the PostgreSQL connection string.
 * @param schemaName DATABASE_SCHEMA: put first on the search_path and created if missing (only here, at start-up).
 * @throws Error `Cannot connect to PostgreSQL at host:port (database "name"): cause` when the first connection fails.
 */
async function openPostgres(databaseUrl: string, schemaName: string | undefined): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: databaseUrl, // its own application_name, if any, wins over the one below
    application_name: POOL_APPLICATION_NAME,
    max: 10,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: ['-c jit=off', ...(schemaName ? [`-c search_path=${schemaName}`] : [])].join(' '),
  });

  let logger: DatabaseLogger | undefined;
  const backlog: Array<{ obj: object; msg: string }> = [];
  const warn = (obj: object, msg: string) => {
    if (logger) return logger.warn(obj, msg);
    if (backlog.length >= POOL_LOG_BACKLOG) backlog.shift();
    backlog.push({ obj, msg });
  };
  const errInfo = (err: Error & { code?: string }) => ({ code: err.code, reason: err.message });

  // An idle client failed: pg-pool has already removed it.
  pool.on('error', (err) => warn({ db: errInfo(err) }, 'PostgreSQL closed an idle connection; it will be reopened on the next query'));
  // A checked-out client failed: pg-pool has no listener on it then, so without this one the
  // process would exit. Release it with the error (the pool discards it) and make the owner's
  // own later release() a no-op.
  const inUse = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => inUse.add(client));
  pool.on('release', (_err, client) => inUse.delete(client));
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      if (!inUse.has(client)) return; // idle: reported by the pool's 'error' event above
      inUse.delete(client);
      warn({ db: errInfo(err) }, 'PostgreSQL connection lost while in use; it is discarded');
      const release = client.release;
      client.release = () => undefined;
      release.call(client, err);
    });
  });

  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw databaseConnectError(databaseUrl, err);
  }
  try {
    // IF NOT EXISTS is not safe against a concurrent CREATE: a process starting beside this one may
    // win the race (unique violation or duplicate schema), which leaves the schema there all the same.
    if (schemaName) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schemaName}"`).catch((err: { code?: string }) => {
      if (err.code !== '23505' && err.code !== '42P06') throw err;
    });
  } catch (err) {
    client.release();
    await pool.end().catch(() => undefined);
    throw err; // connected, then refused (e.g. no CREATE permission): the server's own words
  }
  client.release();

  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    driver: 'postgres',
    migrate: () =>
      migratePg(db as never, {
        migrationsFolder: MIGRATIONS_FOLDER,
        ...(schemaName ? { migrationsSchema: schemaName } : {}),
      }),
    withStartupLock: async (fn) => {
      // One connection holds the session lock for the whole of fn; fn's queries use the pool's others.
      const lockClient = await pool.connect();
      const key = [STARTUP_LOCK_KEY, schemaName ?? ''];
      try {
        await lockClient.query('SELECT pg_advisory_lock($1, hashtext($2))', key);
        try {
          return await fn();
        } finally {
          await lockClient.query('SELECT pg_advisory_unlock($1, hashtext($2))', key);
        }
      } finally {
        lockClient.release();
      }
    },
    pendingMigrations: () => countPending(db, schemaName ?? 'drizzle'),
    listen: (channel, onNotify, onLost) => listenPostgres({ databaseUrl, schemaName }, channel, onNotify, onLost),
    close: () => pool.end(),
    setLogger: (log) => {
      logger = log;
      for (const { obj, msg } of backlog.splice(0)) log.warn(obj, msg);
    },
  };
}

/**
 * Database.listen on PostgreSQL: a dedicated `pg.Client` (LISTEN holds its session, so it cannot be
 * a pooled connection), with the pool's connect timeout, keepalive and search_path.
 */
async function listenPostgres(
  target: { databaseUrl: string; schemaName: string | undefined },
  channel: string,
  onNotify: (payload: string) => void,
  onLost: (err: Error) => void,
): Promise<ChannelListener> {
  const client = new pg.Client({
    connectionString: target.databaseUrl,
    application_name: LISTENER_APPLICATION_NAME,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(target.schemaName ? { options: `-c search_path=${target.schemaName}` } : {}),
  });
  let done = false; // closed by us, or lost and reported
  const lost = (err: Error) => {
    if (done) return;
    done = true;
    client.end().catch(() => undefined);
    onLost(err);
  };
  client.on('error', lost);
  client.on('end', () => lost(new Error('PostgreSQL closed the listening connection')));
  client.on('notification', (message) => {
    if (!done && message.channel === channel) onNotify(message.payload ?? '');
  });
  let schema: string;
  try {
    await client.connect();
    const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
    schema = rows[0]!.schema;
    await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
  } catch (err) {
    done = true;
    await client.end().catch(() => undefined);
    throw databaseConnectError(target.databaseUrl, err);
  }
  return {
    schema,
    pid: (client as unknown as { processID: number | null }).processID,
    ping: async (timeoutMs) => {
      if (done) return;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          client.query('SELECT 1'),
          new Promise((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error(`the listening connection did not answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (err) {
        lost(err instanceof Error ? err : new Error(String(err)));
      } finally {
        clearTimeout(timer);
      }
    },
    close: async () => {
      if (done) return;
      done = true;
      await client.end().catch(() => undefined);
    },
  };
}
