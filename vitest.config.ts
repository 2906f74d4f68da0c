/**
 * Test projects:
 * - unit: pure domain rules and the embed script's helpers (no I/O).
 * - api: server tests through fastify.inject on a fresh in-memory PGlite per file, loaded from a
 *   migrated (or migrated and seeded) dump that the globalSetup builds once per run from the
 *   migrations present (src/server/test-snapshot.ts), with the test passwords hashed once per run.
 * - api-postgres: the same server tests again on PostgreSQL, only when TEST_DATABASE_URL is set
 *   (each test file gets its own schema, migrated and then seeded with the run's password hashes,
 *   dropped afterwards).
 * - e2e: Playwright (playwright-core + Debian Chromium) against a real listening server; needs `npm run build` first.
 *   Its expect.poll waits up to 30 s by default (not vitest's 1 s): a poll waits for something the
 *   server or the page does eventually, which a busy machine (the suite beside a CPU hog) delays.
 */
import { defineConfig } from 'vitest/config';

const serverTests = ['src/server/**/*.test.ts'];
const serverSetup = ['src/server/test-snapshot.ts'];
const projects = [
  { test: { name: 'unit', include: ['src/domain/**/*.test.ts', 'src/embed/**/*.test.ts'] } },
  { test: { name: 'api', include: serverTests, globalSetup: serverSetup, testTimeout: 30_000, hookTimeout: 60_000 } },
  ...(process.env.TEST_DATABASE_URL
    ? [{
        test: {
          name: 'api-postgres',
          include: serverTests,
          globalSetup: serverSetup,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env: { TEST_DB_DRIVER: 'postgres' },
        },
      }]
    : []),
  {
    test: {
      name: 'e2e',
      include: ['tests/e2e/**/*.test.ts'],
      // One migrated, seeded PGlite directory per run that startServer copies (tests/e2e/global-setup.ts).
      globalSetup: ['tests/e2e/global-setup.ts'],
      testTimeout: 120_000,
      // A server's cold start in beforeAll takes minutes on a busy machine (harness startServer).
      hookTimeout: 240_000,
      expect: { poll: { timeout: 30_000 } },
      fileParallelism: false,
    },
  },
];

export default defineConfig({ test: { projects } });
