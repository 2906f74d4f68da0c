/**
 * Test projects:
 * - unit: pure domain rules and the embed script's helpers (no I/O).
 * - web: the web app's logic-bearing components and hooks in jsdom with Testing Library, the API
 *   answered at the fetch layer by MSW (src/web/test/setup.ts); no server, no browser. Its files
 *   share one process and one jsdom (oneProcess below): React, Mantine and the app's modules
 *   imported once instead of per file (their import and jsdom's set-up were over half the
 *   project's time); each test unmounts what it rendered and its MSW handlers go after it.
 * - api: server tests through fastify.inject on a fresh in-memory PGlite per file, loaded from a
 *   migrated (or migrated and seeded) dump that the globalSetup builds once per run from the
 *   migrations present (src/server/test-snapshot.ts), with the test passwords hashed once per run at
 *   argon2's smallest cost (sign-in verifies them in about 2 ms; the hashes the server makes keep
 *   the production cost).
 * - api-postgres: the driver-sensitive server tests again on PostgreSQL (POSTGRES_TESTS below),
 *   only when TEST_DATABASE_URL is set (each test database a database of its own, copied from
 *   the run's migrated or seeded template database and dropped afterwards: test-snapshot.ts;
 *   migrating a schema per file cost seconds each). The other server files test
 *   routing, validation, headers, images and policies above the database, where PGlite and
 *   PostgreSQL cannot differ; running them twice proved nothing new and cost minutes per landing.
 * - e2e: Playwright (playwright-core + Debian Chromium) against a real listening server; needs `npm run build` first.
 *   Its expect.poll waits up to 30 s by default (not vitest's 1 s): a poll waits for something the
 *   server or the page does eventually, which a busy machine (the suite beside a CPU hog) delays.
 *   Its files share one Chromium and, where their data cannot collide, a named product server
 *   (tests/e2e/global-setup.ts, harness launchBrowser and sharedServer; README, Tests).
 */
import { defineConfig } from 'vitest/config';

const serverTests = ['src/server/**/*.test.ts'];
/**
 * The server files whose outcome can depend on the database engine or its driver, by why:
 * - SQL the engines may plan or collate differently (aggregations, sorts, ILIKE, set-based
 *   generation, jsonb): analytics, creatives, reporting, dealer list, volume generator, configs,
 *   banner warm-up (its hot-slot query);
 * - concurrency: transactions, row locks, ON CONFLICT under two writers, SKIP LOCKED leases,
 *   DDL locks (partitions, retention), advisory start-up lock: ingestion, dedup, feeds, inventory
 *   apply, notifications, login throttle, imports, asset replacement;
 * - the driver itself: pool, LISTEN/NOTIFY, connection loss and outages, error codes, bytea,
 *   timestamps: db/*, dealer read model and its cache (two apps on one database), observability (pool
 *   metrics), config (DATABASE_URL), admin-create (its own connection).
 */
const postgresTests = [
  'src/server/db/{availability,client,startup-lock,volume}.test.ts',
  'src/server/tracking/{ingest,dedup-migration,tracking,forged-models,tag-health}.test.ts',
  'src/server/reporting/*.test.ts',
  'src/server/maintenance/*.test.ts',
  'src/server/analytics/{analytics,creatives,report,device}.test.ts',
  'src/server/admin/{admin,admin-create,dealer-list,import-guards,portfolio-tag-health}.test.ts',
  'src/server/notifications/*.test.ts',
  'src/server/delivery/{negative-cache,encode-once,warm-up}.test.ts',
  'src/server/dealer-sites/{read-model,cache}.test.ts',
  'src/server/inventory/{feeds,limits,inventory}.test.ts',
  'src/server/auth/login-throttle.test.ts',
  'src/server/assets/{assets,replace}.test.ts',
  // Campaigns: statement-level version triggers with transition tables, row locks, jsonb lists, timestamps.
  'src/server/campaigns/*.test.ts',
  'src/server/configs/configs.test.ts',
  'src/server/{config,hot-paths}.test.ts',
  'src/server/observability/observability.test.ts',
];
const serverSetup = ['src/server/test-snapshot.ts'];
/**
 * A project's files one after another in one child process that keeps its module cache between
 * them: the server's module graph is imported and PGlite's WebAssembly compiled once per project,
 * not once per file (that was about five of every ten seconds a server file took). What a file
 * changes must not reach the next one: the apps a file builds are closed in its afterAll, clocks
 * and environment are injected per app, and no server or web file uses vi.mock (which would
 * leak); a web file's set-up runs again before it in the same jsdom (src/web/test/setup.ts).
 */
const oneProcess = { poolOptions: { forks: { singleFork: true, isolate: false } } };
const projects = [
  { test: { name: 'unit', include: ['src/domain/**/*.test.ts', 'src/embed/**/*.test.ts'], ...oneProcess } },
  {
    esbuild: { jsx: 'automatic' as const },
    // 60 s: a form test that types and clicks through jsdom took 22.6 s in a CI run at load 11
    // (the file's other tests 1-15 s in that run); the limit bounds a hang, it measures nothing.
    test: { name: 'web', include: ['src/web/**/*.test.{ts,tsx}'], environment: 'jsdom', setupFiles: ['src/web/test/setup.ts'], testTimeout: 60_000, ...oneProcess },
  },
  { test: { name: 'api', include: serverTests, globalSetup: serverSetup, testTimeout: 30_000, hookTimeout: 60_000, ...oneProcess } },
  ...(process.env.TEST_DATABASE_URL
    ? [{
        test: {
          name: 'api-postgres',
          include: postgresTests,
          globalSetup: serverSetup,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env: { TEST_DB_DRIVER: 'postgres' },
          ...oneProcess,
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
      // Its own pool (worker threads: its files only drive child processes and a browser), so
      // the server files run beside it in the forks pool; two e2e files at a time (below).
      pool: 'threads' as const,
    },
  },
];

/**
 * Three lanes at once on the 2-core CI machine: the unit, web, api and api-postgres files one after
 * another in the forks pool (each project in one process, oneProcess above), and the e2e files two
 * at a time in the threads pool. An e2e file mostly waits on its server and browser processes, so a
 * second one beside it uses time the first leaves idle; the files that time paint or count frames
 * (page-speed, long-tasks, slot-consistency at 4x CPU) assert what holds on a busy machine, and
 * the suite stays green beside a CPU hog. Vitest's default of one worker per core but one ran all
 * files in a single queue on the 2-core machine.
 */
export default defineConfig({
  test: {
    projects,
    poolOptions: { forks: { minForks: 1, maxForks: 1 }, threads: { minThreads: 1, maxThreads: 2 } },
  },
});
