/**
 * vitest globalSetup of the e2e project: one PGlite data directory, migrated and seeded with the
 * demo data the way `src/server/main.ts` does on its first start, built once per run from the
 * migrations present. `startServer` (harness.ts) copies it into each server's new DATA_DIR, so a
 * server starts on an existing database (migrations up to date, seed skipped) instead of creating
 * a cluster, migrating and hashing the demo passwords every time. A first start on an empty
 * directory is still proved where it matters: compiled-start, pglite-ownership and
 * `startServer(env, { fresh: true })`.
 * Returns the teardown that removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/server/db/client';
import { seedDemoData } from '../../src/server/db/seed';

/** Environment variable naming the template data directory (inherited by the test workers). */
export const E2E_DATA_TEMPLATE_ENV = 'DCB_E2E_DATA_TEMPLATE';

export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-e2e-template-'));
  const database = await openDatabase({ dataDir: dir });
  try {
    await database.migrate();
    await seedDemoData(database.db);
  } finally {
    await database.close();
  }
  process.env[E2E_DATA_TEMPLATE_ENV] = dir;
  return () => {
    delete process.env[E2E_DATA_TEMPLATE_ENV];
    rmSync(dir, { recursive: true, force: true });
  };
}
