/**
 * The first-admin command, `npm run admin:create` (scripts/admin-create.ts), through its command
 * line on an empty database: a PGlite DATA_DIR of its own, or (api-postgres) a fresh schema on
 * TEST_DATABASE_URL through DATABASE_SCHEMA. It migrates the database, refuses a weak password, a
 * missing one and an existing email with a non-zero exit, never prints the password, and the admin
 * it creates signs in through the API of an app on the same database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { openDatabase } from '../db/client';
import { dropSchemas } from '../db/drop-schemas';

const run = promisify(execFile);
const postgresUrl = process.env.TEST_DB_DRIVER === 'postgres' ? process.env.TEST_DATABASE_URL : undefined;
const PASSWORD = `first-admin-${randomUUID().slice(0, 8)}`;

/** Where the command's database is: DATABASE_URL + DATABASE_SCHEMA, or DATA_DIR. */
let dbEnv: Record<string, string>;
let dataDir = '';
beforeAll(async () => {
  if (postgresUrl) {
    dbEnv = { DATABASE_URL: postgresUrl, DATABASE_SCHEMA: `t_admin_${randomUUID().replace(/-/g, '').slice(0, 12)}` };
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), 'dcb-admin-create-'));
    dbEnv = { DATA_DIR: dataDir };
  }
});
afterAll(async () => {
  if (postgresUrl) {
    await dropSchemas(postgresUrl, dbEnv.DATABASE_SCHEMA!);
  } else if (dataDir) {
    await rm(dataDir, { recursive: true, force: true });
  }
});

/**
 * How the command runs: compiled, `node dist/server/admin-create.js` (the form an install without
 * tsx runs), when dist/ was built from exactly the sources present (the build stamp `npm start`
 * trusts, scripts/build-stamp.mjs), else scripts/admin-create.ts through tsx. The compiled form
 * starts in a fraction of the time: tsx transforms the server's sources on each of the file's runs.
 */
const command = import(pathToFileURL(path.resolve('scripts/build-stamp.mjs')).href).then((stamp: { buildDecision(): { build: boolean } }) =>
  stamp.buildDecision().build ? ['--import', 'tsx', 'scripts/admin-create.ts'] : ['dist/server/admin-create.js'],
);

/**
 * Runs the command with `args` and `env` on the test's database, stdin not a terminal, as in
 * production (NODE_ENV=production). @returns its exit code and output.
 */
async function adminCreate(args: string[], env: Record<string, string> = {}) {
  const childEnv: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40), ...dbEnv, ...env };
  try {
    const { stdout, stderr } = await run(process.execPath, [...(await command), ...args], { env: childEnv, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('npm run admin:create', () => {
  it('creates the first admin on an empty database, who then signs in through the API', { timeout: 240_000 }, async () => {
    const weak = await adminCreate(['--email', 'first@example.com'], { ADMIN_PASSWORD: 'short' });
    expect(weak.code).toBe(1);
    expect(weak.stderr).toBe('admin:create: refused: password: must be at least 8 characters\n');

    const noPassword = await adminCreate(['--email', 'first@example.com']);
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toMatch(/no password: set ADMIN_PASSWORD/);

    const created = await adminCreate(['--email', 'first@example.com', '--name', 'Sam First'], { ADMIN_PASSWORD: PASSWORD });
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^Admin first@example.com created/);

    const again = await adminCreate(['--email', 'FIRST@example.com'], { ADMIN_PASSWORD: `${PASSWORD}-2` });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('admin:create: refused: A user with this email already exists\n');
    for (const r of [weak, created, again]) expect(`${r.stdout}${r.stderr}`).not.toContain(PASSWORD);

    const database = await openDatabase(postgresUrl ? { databaseUrl: postgresUrl, schemaName: dbEnv.DATABASE_SCHEMA } : { dataDir });
    const config = loadConfig({ FEED_SCHEDULER_INTERVAL_MS: '0', NOTIFICATION_INTERVAL_MS: '0', PUBLIC_ORIGIN: 'http://localhost:3000', MAX_EVENT_LOOP_DELAY_MS: '0', SEED_DEMO: 'false', WEB_DIST_DIR: path.resolve('dist/web') });
    const app = await buildApp({ config, db: database.db, logger: false });
    try {
      expect(await database.pendingMigrations()).toBe(0);
      const signIn = (password: string) => app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'first@example.com', password } });
      expect((await signIn(`${PASSWORD}-2`)).statusCode).toBe(401);
      const ok = await signIn(PASSWORD);
      expect(ok.statusCode).toBe(200);
      expect(ok.json().user).toMatchObject({ email: 'first@example.com', name: 'Sam First', role: 'admin', dealerId: null });
      const cookie = String(ok.headers['set-cookie']).split(';')[0]!;
      const users = await app.inject({ method: 'GET', url: '/api/admin/users', headers: { cookie } });
      expect(users.statusCode).toBe(200);
      expect(users.json().users.map((u: { email: string }) => u.email)).toEqual(['first@example.com']);
    } finally {
      await app.close();
      await database.close();
    }
  });

  it('refuses a call without --email with the usage (exit 2)', async () => {
    const r = await adminCreate([], { ADMIN_PASSWORD: PASSWORD });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--email is required\nusage: npm run admin:create -- --email/);
  });
});
