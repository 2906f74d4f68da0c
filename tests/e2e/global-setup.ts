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
 * It starts the Chromium that files share (`launchServer`, its WebSocket endpoint in
 * E2E_BROWSER_WS_ENV, harness launchBrowser) and makes the directory (E2E_SHARED_DIR_ENV) where
 * the shared product servers, which the first file to ask starts (harness sharedServer), leave
 * their state.
 * Returns the teardown that stops those and removes the directories (and the snapshot when this
 * set-up built it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { chromium } from 'playwright-core';
import setupSnapshot, { pgliteSnapshot, TEST_PGLITE_SETTINGS } from '../../src/server/test-snapshot';
import { CHROMIUM_ARGS, CHROMIUM_PATH, E2E_BROWSER_WS_ENV, E2E_SERVER_ENTRY_ENV, E2E_SHARED_DIR_ENV, loadBuildStamp, stopSharedServers } from './harness';

/** Environment variable naming the template data directory (inherited by the test workers). */
export const E2E_DATA_TEMPLATE_ENV = 'DCB_E2E_DATA_TEMPLATE';

export default async function setup(): Promise<() => Promise<void>> {
  // DCB_E2E_SERVER_ENTRY=tsx set by hand runs the sources even when dist/ is up to date.
  const decision = process.env[E2E_SERVER_ENTRY_ENV] === 'tsx' ? { build: true, reason: `${E2E_SERVER_ENTRY_ENV}=tsx` } : (await loadBuildStamp()).buildDecision();
  process.env[E2E_SERVER_ENTRY_ENV] = decision.build ? 'tsx' : 'dist';
  process.stdout.write(`e2e servers: ${decision.build ? `src/server/main.ts through tsx (${decision.reason})` : `dist/server/main.js (${decision.reason})`}\n`);
  const removeSnapshot = await setupSnapshot();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-e2e-template-'));
  const client = new PGlite(dir, { loadDataDir: pgliteSnapshot(true) });
  await client.waitReady;
  // The test databases' settings (TEST_PGLITE_SETTINGS) in the template's postgresql.auto.conf,
  // which PGlite reads at each start: every server started on a copy runs with them (the server
  // passes no setting of its own). Servers started on an empty directory (`fresh`) keep PGlite's
  // defaults, as a real first start does.
  for (const [name, value] of Object.entries(TEST_PGLITE_SETTINGS)) await client.exec(`ALTER SYSTEM SET ${name} = '${value}'`);
  await client.close();
  process.env[E2E_DATA_TEMPLATE_ENV] = dir;

  const browser = await chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  process.env[E2E_BROWSER_WS_ENV] = browser.wsEndpoint();
  const sharedDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-e2e-shared-'));
  process.env[E2E_SHARED_DIR_ENV] = sharedDir;

  return async () => {
    await stopSharedServers(sharedDir);
    await browser.close();
    for (const env of [E2E_DATA_TEMPLATE_ENV, E2E_SERVER_ENTRY_ENV, E2E_BROWSER_WS_ENV, E2E_SHARED_DIR_ENV]) delete process.env[env];
    rmSync(sharedDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    await removeSnapshot();
  };
}
