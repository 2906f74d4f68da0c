/**
 * Test fixtures built once per test run instead of once per test file (vitest globalSetup of the
 * api and api-postgres projects, see vitest.config.ts):
 * - two PGlite data directories dumped as tarballs (PGlite `dumpDataDir`): the migrated, empty
 *   database and the same one seeded with the demo data. Creating a PGlite cluster (initdb) and
 *   running every migration costs seconds per file; loading a dump costs well under one.
 * - argon2id hashes of the demo passwords and of the test users' password, so test seeding and
 *   `userCookie` do not hash again in every file. They are made with the smallest argon2 cost
 *   (testPasswordHash): sign-in verifies them with argon2 as it verifies any hash, by the
 *   parameters the hash names, in about 2 ms instead of the 200-400 ms CPU the production
 *   parameters cost, which the suite's hundreds of sign-ins paid on a 2-core machine. Hashes the
 *   server makes itself (invitations, new users, password changes, the unknown-email dummy) keep
 *   the production parameters.
 * - with TEST_DATABASE_URL, two PostgreSQL template databases (migrated; migrated and seeded) from
 *   which each PostgreSQL test file's database is copied (`CREATE DATABASE ... TEMPLATE`, about
 *   0.2 s) instead of migrating and seeding a schema of its own (about 1.5 s quiet, 6 s on a busy
 *   machine, per file).
 * Both are made from the migrations and seed present at run time (never checked in), in a
 * temporary directory named by TEST_SNAPSHOT_DIR_ENV and removed at the end of the run (the
 * template databases are dropped then too).
 * Migrations are still applied from scratch here, and by the db/client, dedup-migration and
 * observability tests on a fresh database.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from './db/client';
import { seedDemoData } from './db/seed';
import { onServer } from './db/drop-schemas';
import argon2 from 'argon2';
import { randomUUID } from 'node:crypto';
import { DEMO_ACCOUNTS } from '../domain/demo';

/** Environment variable naming the directory with the snapshot files (set by the globalSetup, inherited by the test workers). */
export const TEST_SNAPSHOT_DIR_ENV = 'DCB_TEST_SNAPSHOT_DIR';
/** The password of the users `TestApp.userCookie` creates. */
export const TEST_USER_PASSWORD = 'password123';

const UNSEEDED = 'unseeded.tar';
const SEEDED = 'seeded.tar';
const HASHES = 'password-hashes.json';
const POSTGRES_TEMPLATES = 'postgres-templates.json';

/**
 * The run's PostgreSQL template databases on TEST_DATABASE_URL's server: their names, and the schema
 * their tables are in (the schema every copy's connections put on their search_path).
 */
export interface PostgresTemplates {
  migrated: string;
  seeded: string;
  schema: string;
}

/** Where the snapshot files are, or undefined outside a test run that built them. */
function snapshotDir(): string | undefined {
  const dir = process.env[TEST_SNAPSHOT_DIR_ENV];
  return dir && existsSync(path.join(dir, HASHES)) ? dir : undefined;
}

const passwordHashes = new Map<string, Promise<string>>();

/**
 * PostgreSQL settings of the test runs' PGlite databases: the api test files' in-memory ones
 * (test-app.ts) and the e2e servers' data directories (tests/e2e/global-setup.ts).
 * shared_buffers: PGlite's default (128MB) makes every start allocate and zero 145 MB of shared
 * memory, about a third of the CPU of opening a test database (0.7 s of 2.3). 32MB holds all of a test file's data (the
 * seeded database's files are 12 MB, mostly catalogue), and only a table above a quarter of it
 * (8 MB, which no test comes near) would be scanned differently (bulk-read ring, synchronized
 * scans).
 */
export const TEST_PGLITE_SETTINGS = { shared_buffers: '32MB' };

/** argon2id at its smallest cost (1 MiB, one pass, one lane): for the test accounts only. */
const cheapHash = (password: string) => argon2.hash(password, { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 });

/** Seeds with the run's precomputed `hashes` of the demo passwords (cheapHash for any other). */
const seedWith = (hashes: Record<string, string>) => (p: string) => (hashes[p] ? Promise.resolve(hashes[p]) : cheapHash(p));

/**
 * An argon2id hash of `password` at the smallest cost: the run's precomputed one when there is
 * one, else hashed once per process and reused. Tests only: every call for a password gives the
 * same hash (same salt).
 */
export function testPasswordHash(password: string): Promise<string> {
  let hash = passwordHashes.get(password);
  if (!hash) {
    const dir = snapshotDir();
    const known = dir ? (JSON.parse(readFileSync(path.join(dir, HASHES), 'utf8')) as Record<string, string>)[password] : undefined;
    hash = known ? Promise.resolve(known) : cheapHash(password);
    passwordHashes.set(password, hash);
  }
  return hash;
}

const snapshots = new Map<string, ArrayBuffer>();

/**
 * A Blob over bytes already in memory whose arrayBuffer() hands over that very ArrayBuffer, every
 * time, without a copy. PGlite reads a loadDataDir once with arrayBuffer() and only reads those
 * bytes (it copies each file out into the new database's own in-memory file system), so one buffer
 * serves every database a process opens; a Node Blob would copy the bytes in and read them back in
 * chunks. Should a PGlite ever take the buffer over (transfer it), the next load fails at once on
 * the detached buffer rather than reading other bytes.
 */
function bytesBlob(bytes: ArrayBuffer): Blob {
  return Object.assign(new Blob([]), { arrayBuffer: () => Promise.resolve(bytes) });
}

/**
 * The run's PGlite dump (`seeded` with the demo data, else only migrated) as a Blob for
 * `new PGlite({ loadDataDir })`, or undefined when this run built none (then the caller migrates
 * a fresh database itself). Read from disk once per process and kept (about 44 MB each): the
 * test files of a project share one process, and reading the file again for each of them cost
 * about 0.2 s of CPU each time.
 */
export function pgliteSnapshot(seeded: boolean): Blob | undefined {
  const dir = snapshotDir();
  if (!dir) return undefined;
  const file = path.join(dir, seeded ? SEEDED : UNSEEDED);
  let bytes = snapshots.get(file);
  if (!bytes) {
    const read = readFileSync(file);
    const whole = read.byteOffset === 0 && read.byteLength === read.buffer.byteLength;
    bytes = (whole ? read.buffer : read.buffer.slice(read.byteOffset, read.byteOffset + read.byteLength)) as ArrayBuffer;
    snapshots.set(file, bytes);
  }
  return bytesBlob(bytes);
}

/**
 * `client`'s data directory as a dump, after a checkpoint: a database loaded from the dump then
 * starts at that checkpoint instead of replaying, and writing out again, the WAL of every
 * migration (and of the seed) at each load, about 0.3 s of CPU per load. The dump holds the same
 * data either way.
 */
async function dumpCheckpointed(client: PGlite): Promise<Buffer> {
  await client.exec('CHECKPOINT');
  return Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
}

/** The run's PostgreSQL template databases, or undefined when this run made none (no TEST_DATABASE_URL, or outside a test run). */
export function postgresTemplates(): PostgresTemplates | undefined {
  const dir = snapshotDir();
  const file = dir && path.join(dir, POSTGRES_TEMPLATES);
  return file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PostgresTemplates) : undefined;
}

/** `url` (a PostgreSQL connection string) naming the database `name` instead of its own. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Makes the run's two template databases on the server of `url`: one migrated, then a copy of it
 * seeded with `hashes` for the demo passwords. Their tables live in one schema named like a test
 * schema, so the copies behave as the schema-per-file databases did.
 */
async function makePostgresTemplates(url: string, hashes: Record<string, string>): Promise<PostgresTemplates> {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const t: PostgresTemplates = { migrated: `dcb_tpl_${id}_migrated`, seeded: `dcb_tpl_${id}_seeded`, schema: `t_${id}` };
  await onServer(url, `CREATE DATABASE "${t.migrated}"`);
  const migrated = await openDatabase({ databaseUrl: withDatabase(url, t.migrated), schemaName: t.schema });
  try {
    await migrated.migrate();
  } finally {
    await migrated.close();
  }
  await onServer(url, `CREATE DATABASE "${t.seeded}" TEMPLATE "${t.migrated}"`);
  const seeded = await openDatabase({ databaseUrl: withDatabase(url, t.seeded), schemaName: t.schema });
  try {
    await seedDemoData(seeded.db, { hashPassword: seedWith(hashes) });
  } finally {
    await seeded.close();
  }
  return t;
}

/**
 * vitest globalSetup: migrates a fresh PGlite, dumps it, seeds it (with precomputed hashes), dumps
 * it again, makes the PostgreSQL template databases when TEST_DATABASE_URL is set, and publishes
 * the directory in TEST_SNAPSHOT_DIR_ENV. Returns the teardown that removes the directory and drops
 * the template databases. A second project's call reuses the first one's directory.
 * @throws when a migration or the seed fails (so the run stops at once, naming the error).
 */
export default async function setup(): Promise<() => void | Promise<void>> {
  if (snapshotDir()) return () => undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-test-snapshot-'));
  const passwords = [...new Set([...DEMO_ACCOUNTS.map((a) => a.password), TEST_USER_PASSWORD])];
  const hashes = Object.fromEntries(await Promise.all(passwords.map(async (p) => [p, await cheapHash(p)] as const)));
  writeFileSync(path.join(dir, HASHES), JSON.stringify(hashes));
  const database = await openDatabase({});
  try {
    await database.migrate();
    const client = (database.db as unknown as { $client: PGlite }).$client;
    writeFileSync(path.join(dir, UNSEEDED), await dumpCheckpointed(client));
    await seedDemoData(database.db, { hashPassword: seedWith(hashes) });
    writeFileSync(path.join(dir, SEEDED), await dumpCheckpointed(client));
  } finally {
    await database.close();
  }
  const url = process.env.TEST_DATABASE_URL;
  const templates = url ? await makePostgresTemplates(url, hashes) : undefined;
  if (templates) writeFileSync(path.join(dir, POSTGRES_TEMPLATES), JSON.stringify(templates));
  process.env[TEST_SNAPSHOT_DIR_ENV] = dir;
  return async () => {
    delete process.env[TEST_SNAPSHOT_DIR_ENV];
    rmSync(dir, { recursive: true, force: true });
    if (url && templates) await onServer(url, `DROP DATABASE IF EXISTS "${templates.seeded}" WITH (FORCE)`, `DROP DATABASE IF EXISTS "${templates.migrated}" WITH (FORCE)`);
  };
}
