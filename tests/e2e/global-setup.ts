/**
 * vitest globalSetup of the e2e project: one PGlite data directory, migrated and seeded with the
 * demo data the way `src/server/main.ts` does on its first start, built once per run from the
 * migrations present: the seeded dump of the server tests' snapshot (src/server/test-snapshot.ts,
 * built once per run by whichever project sets up first) loaded into a directory. `startServer`
 * (harness.ts) copies it into each server's new DATA_DIR, so a server starts on an existing database (migrations up to date, seed skipped) instead of creating
 * a cluster, migrating and hashing the demo passwords every time. A first start on an empty
 * directory is still proved where it matters: compiled-start, pglite-ownership and
 * `startServer(env, { fresh: true })`.
 * It also decides once how the servers start (harness serverArgs): compiled from dist/ when the
 * build stamp matches the sources present (as right after `npm run build` in `npm test`), else
 * (or with DCB_E2E_SERVER_ENTRY=tsx in the environment) through tsx.
 * Returns the teardown that removes the directory (and the snapshot when this set-up built it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import setupSnapshot, { pgliteSnapshot } from '../../src/server/test-snapshot';
import { E2E_SERVER_ENTRY_ENV, loadBuildStamp } from './harness';

/** Environment variable naming the template data directory (inherited by the test workers). */
export const E2E_DATA_TEMPLATE_ENV = 'DCB_E2E_DATA_TEMPLATE';

export default async function setup(): Promise<() => void> {
  // DCB_E2E_SERVER_ENTRY=tsx set by hand runs the sources even when dist/ is up to date.
  const decision = process.env[E2E_SERVER_ENTRY_ENV] === 'tsx' ? { build: true, reason: `${E2E_SERVER_ENTRY_ENV}=tsx` } : (await loadBuildStamp()).buildDecision();
  process.env[E2E_SERVER_ENTRY_ENV] = decision.build ? 'tsx' : 'dist';
  process.stdout.write(`e2e servers: ${decision.build ? `src/server/main.ts through tsx (${decision.reason})` : `dist/server/main.js (${decision.reason})`}\n`);
  const removeSnapshot = await setupSnapshot();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-e2e-template-'));
  const client = new PGlite(dir, { loadDataDir: pgliteSnapshot(true) });
  await client.waitReady;
  await client.close();
  process.env[E2E_DATA_TEMPLATE_ENV] = dir;
  return () => {
    delete process.env[E2E_DATA_TEMPLATE_ENV];
    delete process.env[E2E_SERVER_ENTRY_ENV];
    rmSync(dir, { recursive: true, force: true });
    removeSnapshot();
  };
}
