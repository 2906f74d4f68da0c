/**
 * Test harness: a fresh, migrated database per call (in-memory PGlite, or, when the test run
 * sets TEST_DB_DRIVER=postgres, its own database on TEST_DATABASE_URL's server, dropped on close)
 * and an app built on it, with helpers to sign in. Used by every server test file.
 * In a vitest run the PGlite databases are loaded from the run's migrated (and seeded) dumps, the
 * PostgreSQL ones copied from the run's template databases, and passwords are hashed once per run
 * (test-snapshot.ts); outside one (scripts) a PostgreSQL test database is a schema of its own on
 * TEST_DATABASE_URL, and everything is migrated, seeded and hashed here.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from './config';
import { openDatabase, type Database, type Db } from './db/client';
import { seedDemoData, DEMO_ACCOUNTS, DEMO_DEALER } from './db/seed';
import { buildApp } from './app';
import type { LogStream } from './observability/request-log';
import { dealers, users } from './db/schema';
import { pgliteSnapshot, postgresTemplates, testPasswordHash, TEST_PGLITE_SETTINGS, TEST_USER_PASSWORD, withDatabase } from './test-snapshot';
import type { Role, Security } from '../domain/schemas';
import { dropSchemas, onServer } from './db/drop-schemas';

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  config: Config;
  /** Signs in and returns the Cookie header value. */
  login(email: string, password: string): Promise<string>;
  /** Creates a user (password 'password123') and returns its Cookie header value. */
  userCookie(role: Role, dealerId: string | null): Promise<string>;
  /** Changes a dealer's security settings in the database (no validation) and forgets its cached delivery settings. */
  patchSecurity(patch: Partial<Security>, dealerId?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a fresh, migrated database for a test file; see module doc. With `seeded` it also holds
 * the demo data (seedDemoData, with the run's precomputed password hashes).
 */
export async function openTestDatabase(opts: { seeded?: boolean } = {}): Promise<Database & { dispose(): Promise<void> }> {
  const seed = async (database: Database) => {
    if (opts.seeded) await seedDemoData(database.db, { hashPassword: testPasswordHash });
  };
  if (process.env.TEST_DB_DRIVER === 'postgres') {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TEST_DB_DRIVER=postgres needs TEST_DATABASE_URL');
    const templates = postgresTemplates();
    if (templates) {
      // A copy of the run's template database (test-snapshot.ts): already migrated (and seeded).
      const name = `dcb_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
      await onServer(url, `CREATE DATABASE "${name}" TEMPLATE "${opts.seeded ? templates.seeded : templates.migrated}"`);
      const database = await openDatabase({ databaseUrl: withDatabase(url, name), schemaName: templates.schema });
      return {
        ...database,
        dispose: async () => {
          await database.close();
          await onServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        },
      };
    }
    const schemaName = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const database = await openDatabase({ databaseUrl: url, schemaName });
    await database.migrate();
    await seed(database);
    return {
      ...database,
      dispose: async () => {
        await database.close();
        await dropSchemas(url, schemaName);
      },
    };
  }
  const snapshot = pgliteSnapshot(opts.seeded === true);
  const database = await openDatabase({ loadDataDir: snapshot, settings: TEST_PGLITE_SETTINGS });
  if (!snapshot) {
    await database.migrate();
    await seed(database);
  }
  return { ...database, dispose: () => database.close() };
}

/**
 * The config of a test that builds its own app (buildApp) on a test database: no feed scheduler,
 * no load shedding and no crash-loss back-pressure (test files share busy CPUs; as createTestApp),
 * the built web app and embed script; `env` on top.
 */
export function testAppConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    FEED_SCHEDULER_INTERVAL_MS: '0',
    PUBLIC_ORIGIN: 'http://localhost:3000',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    EVENT_MAX_UNSECURED_MS: '0',
    WEB_DIST_DIR: path.resolve('dist/web'),
    EMBED_DIST_FILE: path.resolve('dist/embed/dc-banners.js'),
    ...env,
  });
}

/**
 * Builds an app on a fresh database, seeded with the demo data unless `seed` is false. `now` pins
 * the clock routes use for reporting windows (app.now); default the real clock. With
 * `logStream` the app logs at info there (else it is silent).
 */
export async function createTestApp(opts: { seed?: boolean; env?: Record<string, string>; now?: () => Date; logStream?: LogStream } = {}): Promise<TestApp> {
  const database = await openTestDatabase({ seeded: opts.seed !== false });
  const config = loadConfig({
    FEED_SCHEDULER_INTERVAL_MS: '0',
    NOTIFICATION_INTERVAL_MS: '0',
    PUBLIC_ORIGIN: 'http://localhost:3000',
    // No load shedding unless a test asks for it: test files share busy CPUs, and one long PGlite
    // statement would shed the requests of the next second.
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // No crash-loss back-pressure either: a burst of injected beacons outruns the writer by design
    // (tracking/ingest.test.ts tests the bound on the ingestor itself).
    EVENT_MAX_UNSECURED_MS: '0',
    // No banner warm-up at start-up unless a test asks for it: a test counts the encodings it causes.
    BANNER_WARM_UP: '0',
    ...opts.env,
    LOG_LEVEL: 'silent',
    WEB_DIST_DIR: path.resolve('dist/web'),
    EMBED_DIST_FILE: path.resolve('dist/embed/dc-banners.js'),
  });
  const app = await buildApp({ config, db: database.db, logger: opts.logStream ? { level: 'info', stream: opts.logStream } : false, pendingMigrations: () => database.pendingMigrations(), now: opts.now, listen: database.listen });
  const login = async (email: string, password: string) => {
    const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
    if (res.statusCode !== 200) throw new Error(`login ${email} failed: ${res.statusCode} ${res.body}`);
    return cookieHeader(res);
  };
  return {
    app,
    database,
    config,
    login,
    userCookie: async (role, dealerId) => {
      const email = `${role}-${randomUUID().slice(0, 8)}@example.com`;
      await database.db.insert(users).values({
        id: randomUUID(),
        email,
        name: `Test ${role}`,
        role,
        dealerId,
        passwordHash: await testPasswordHash(TEST_USER_PASSWORD),
      });
      return login(email, TEST_USER_PASSWORD);
    },
    patchSecurity: async (patch, dealerId = DEMO_DEALER.id) => {
      const [d] = await database.db.select({ security: dealers.security }).from(dealers).where(eq(dealers.id, dealerId));
      const heard = app.dealerListener?.notifications ?? 0;
      const security = { ...d!.security, ...patch };
      await database.db.update(dealers).set({ security }).where(eq(dealers.id, dealerId));
      app.dealerSites.forget(dealerId);
      // On PostgreSQL the change's notification comes over another connection and forgets the
      // dealer again when it arrives: wait for it, so it cannot drop a copy the test reads next.
      const changed = JSON.stringify(security) !== JSON.stringify(d!.security);
      if (changed && app.dealerListener?.connected) await waitFor(() => app.dealerListener!.notifications > heard);
    },
    close: async () => {
      await app.close();
      await database.dispose();
    },
  };
}

/**
 * createTestApp (same `opts`), then signs in as the seeded demo account of `role` (DEMO_ACCOUNTS:
 * one each for admin, dealer-manager and viewer), as most API test files start. Resolves to the
 * app and that session's Cookie header value. @throws if the sign-in does not answer 200.
 */
export async function createSignedInTestApp(role: Role, opts: Parameters<typeof createTestApp>[0] = {}): Promise<{ t: TestApp; cookie: string }> {
  const account = DEMO_ACCOUNTS.find((a) => a.role === role)!;
  const t = await createTestApp(opts);
  try {
    return { t, cookie: await t.login(account.email, account.password) };
  } catch (err) {
    await t.close();
    throw err;
  }
}

/**
 * Adds a dealer as an admin does on Add Dealer (POST /api/admin/dealers) with the admin session
 * `adminCookie`: `manufacturer` 'honda' and provider 'mxs' unless given. Resolves to the answer
 * (201 with `{ dealer }` when added, 409 when a dealer of that name's id exists).
 */
export function addDealerAsAdmin(t: TestApp, adminCookie: string, dealer: { name: string; websiteUrl: string; manufacturer?: string }): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url: '/api/admin/dealers', headers: { cookie: adminCookie }, payload: { manufacturer: 'honda', provider: 'mxs', ...dealer } });
}

/**
 * `db` whose every call (select, insert, transaction, execute, …) throws what `failure()` returns
 * while it returns an error, like a pool that cannot connect; `db` itself answers otherwise.
 */
export function failingDb(db: Db, failure: () => Error | null): Db {
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const error = failure();
        if (error) throw error;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Resolves once `done()` is true, checked every 5 ms (timers, not Date: tests may stop the clock). @throws after 2,000 checks. */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; !done(); i++) {
    if (i >= 2000) throw new Error('waited 10 s for a dealer change notification');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie request header. */
export function cookieHeader(res: LightMyRequestResponse): string {
  return res.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}
