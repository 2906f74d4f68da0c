/**
 * Test fixtures built once per test run instead of once per test file (vitest globalSetup of the
 * api and api-postgres projects, see vitest.config.ts):
 * - two PGlite data directories dumped as tarballs (PGlite `dumpDataDir`): the migrated, empty
 *   database and the same one seeded with the demo data. Creating a PGlite cluster (initdb) and
 *   running every migration costs seconds per file; loading a dump costs well under one.
 * - argon2id hashes of the demo passwords and of the test users' password, so test seeding and
 *   `userCookie` do not hash again in every file (sign-in still verifies them with argon2).
 * Both are made from the migrations and seed present at run time (never checked in), in a
 * temporary directory named by TEST_SNAPSHOT_DIR_ENV and removed at the end of the run.
 * Migrations are still applied from scratch here, and by the db/client, dedup-migration and
 * observability tests on a fresh database.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from './db/client';
import { seedDemoData } from './db/seed';
import { hashPassword } from './auth/password';
import { DEMO_ACCOUNTS } from '../domain/demo';

/** Environment variable naming the directory with the snapshot files (set by the globalSetup, inherited by the test workers). */
export const TEST_SNAPSHOT_DIR_ENV = 'DCB_TEST_SNAPSHOT_DIR';
/** The password of the users `TestApp.userCookie` creates. */
export const TEST_USER_PASSWORD = 'password123';

const UNSEEDED = 'unseeded.tar';
const SEEDED = 'seeded.tar';
const HASHES = 'password-hashes.json';

/** Where the snapshot files are, or undefined outside a test run that built them. */
function snapshotDir(): string | undefined {
  const dir = process.env[TEST_SNAPSHOT_DIR_ENV];
  return dir && existsSync(path.join(dir, HASHES)) ? dir : undefined;
}

const passwordHashes = new Map<string, Promise<string>>();

/**
 * An argon2id hash of `password`: the run's precomputed one when there is one, else hashed once
 * per process and reused. Tests only: every call for a password gives the same hash (same salt).
 */
export function testPasswordHash(password: string): Promise<string> {
  let hash = passwordHashes.get(password);
  if (!hash) {
    const dir = snapshotDir();
    const known = dir ? (JSON.parse(readFileSync(path.join(dir, HASHES), 'utf8')) as Record<string, string>)[password] : undefined;
    hash = known ? Promise.resolve(known) : hashPassword(password);
    passwordHashes.set(password, hash);
  }
  return hash;
}

/**
 * The run's PGlite dump (`seeded` with the demo data, else only migrated) as a Blob for
 * `new PGlite({ loadDataDir })`, or undefined when this run built none (then the caller migrates
 * a fresh database itself). Read from disk per call and not kept, so the tens of MB it holds are
 * garbage once PGlite has loaded it.
 */
export function pgliteSnapshot(seeded: boolean): Blob | undefined {
  const dir = snapshotDir();
  return dir ? new Blob([readFileSync(path.join(dir, seeded ? SEEDED : UNSEEDED))]) : undefined;
}

/**
 * vitest globalSetup: migrates a fresh PGlite, dumps it, seeds it (with precomputed hashes), dumps
 * it again, and publishes the directory in TEST_SNAPSHOT_DIR_ENV. Returns the teardown that
 * removes the directory. A second project's call reuses the first one's directory.
 * @throws when a migration or the seed fails (so the run stops at once, naming the error).
 */
export default async function setup(): Promise<() => void> {
  if (snapshotDir()) return () => undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-test-snapshot-'));
  const passwords = [...new Set([...DEMO_ACCOUNTS.map((a) => a.password), TEST_USER_PASSWORD])];
  const hashes = Object.fromEntries(await Promise.all(passwords.map(async (p) => [p, await hashPassword(p)] as const)));
  writeFileSync(path.join(dir, HASHES), JSON.stringify(hashes));
  const database = await openDatabase({});
  try {
    await database.migrate();
    const client = (database.db as unknown as { $client: PGlite }).$client;
    writeFileSync(path.join(dir, UNSEEDED), Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()));
    await seedDemoData(database.db, { hashPassword: (p) => (hashes[p] ? Promise.resolve(hashes[p]) : hashPassword(p)) });
    writeFileSync(path.join(dir, SEEDED), Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await database.close();
  }
  process.env[TEST_SNAPSHOT_DIR_ENV] = dir;
  return () => {
    delete process.env[TEST_SNAPSHOT_DIR_ENV];
    rmSync(dir, { recursive: true, force: true });
  };
}
