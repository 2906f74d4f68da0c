/**
 * The server side of `npm run bench`, run as its own process so the load generator does not share
 * its event loop. Modes (env BENCH_MODE):
 * - `baseline`: a bare Fastify app with one route answering 204, the ceiling one Node process
 *   reaches here;
 * - `app` (default): the real app on PGlite (BENCH_DATA_DIR) or PostgreSQL (BENCH_DATABASE_URL, in
 *   schema BENCH_SCHEMA), migrated and seeded, with the demo dealer's rate limit off and one civic
 *   header banner uploaded.
 * The app logs as in production (LOG_LEVEL info, public routes unsampled: LOG_PUBLIC_SAMPLE_RATE 0)
 * into /dev/null, so the bench pays for logging what a production server pays for.
 * With BENCH_SPREAD_DEALERS=N (> 0), N copies of the demo dealer (ids SPREAD_DEALER_PREFIX + 0..N−1)
 * with copies of its assets are inserted straight into the database in one transaction, for the
 * bench's spread-dealers rows. With BENCH_NO_LISTEN=1 the app does not listen for dealer changes
 * (dealer settings re-read every second, as before the listener: the "before" figure).
 * With BENCH_HOT_PATHS=0 every request goes through Fastify (buildApp's `hotPaths: false`).
 * BANNER_WARM_UP is passed to the app (the cold-restart rows turn the start-up warm-up off with 0).
 * With BENCH_PROFILE=path, writes a CPU profile of the steady state (listening to SIGTERM) there.
 * Listens on BENCH_PORT (0 = any). Prints one JSON line `{ "origin": "http://127.0.0.1:PORT" }` when listening; SIGTERM closes
 * the app (flushing buffered events) and the database, then exits 0.
 */
import path from 'node:path';
import inspector from 'node:inspector';
import { createWriteStream, writeFileSync } from 'node:fs';
import Fastify from 'fastify';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../src/server/config';
import { openDatabase } from '../src/server/db/client';
import { seedDemoData, DEMO_ACCOUNTS, DEMO_DEALER } from '../src/server/db/seed';
import { buildApp } from '../src/server/app';
import { dealers } from '../src/server/db/schema';
import { copyDemoDealer } from './bench-spread';
import { makeBanner, multipartBody } from '../tests/fixtures/images';

/** With BENCH_PROFILE=file.cpuprofile, profiles from "listening" to SIGTERM (startup excluded). */
const profiler = process.env.BENCH_PROFILE ? new inspector.Session() : null;
async function ready(origin: string) {
  if (profiler) {
    profiler.connect();
    await new Promise((r) => profiler.post('Profiler.enable', () => profiler.post('Profiler.start', r)));
  }
  process.stdout.write(`${JSON.stringify({ origin })}\n`);
}
function saveProfile(): Promise<void> {
  if (!profiler) return Promise.resolve();
  return new Promise((resolve) =>
    profiler.post('Profiler.stop', (_err, res) => {
      writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify(res.profile));
      resolve();
    }),
  );
}

if (process.env.BENCH_MODE === 'baseline') {
  const app = Fastify({ logger: false });
  app.post('/204', async (_req, reply) => reply.status(204).send());
  app.get('/204', async (_req, reply) => reply.status(204).send());
  await ready(await app.listen({ host: '127.0.0.1', port: 0 }));
  process.once('SIGTERM', () => void saveProfile().then(() => app.close()).then(() => process.exit(0)));
} else {
  const database = await openDatabase(
    process.env.BENCH_DATABASE_URL
      ? { databaseUrl: process.env.BENCH_DATABASE_URL, schemaName: process.env.BENCH_SCHEMA }
      : { dataDir: process.env.BENCH_DATA_DIR },
  );
  await database.migrate();
  await seedDemoData(database.db);
  const [d] = await database.db.select().from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
  await database.db.update(dealers).set({ security: { ...d!.security, rateLimitEnabled: false } }).where(eq(dealers.id, DEMO_DEALER.id));
  const port = Number(process.env.BENCH_PORT ?? 0);
  const config = loadConfig({
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    LOG_LEVEL: 'info',
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    FEED_SCHEDULER_INTERVAL_MS: '0',
    METRICS_TOKEN: 'bench-metrics-token-0123456789', // /metrics for the cold-restart row (scripts/bench.ts)
    // The cold-restart rows run with and without the start-up banner warm-up (delivery/warm-up.ts).
    ...(process.env.BANNER_WARM_UP ? { BANNER_WARM_UP: process.env.BANNER_WARM_UP } : {}),
    WEB_DIST_DIR: path.resolve('dist/web'),
    EMBED_DIST_FILE: path.resolve('dist/embed/dc-banners.js'),
  });
  const listen = process.env.BENCH_NO_LISTEN === '1' ? undefined : database.listen;
  const app = await buildApp({ config, db: database.db, logger: { level: config.logLevel, stream: createWriteStream('/dev/null') }, listen, hotPaths: process.env.BENCH_HOT_PATHS !== '0' });
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: DEMO_ACCOUNTS[1]!.email, password: DEMO_ACCOUNTS[1]!.password } });
  const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const upload = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
  await app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: upload.body, headers: { cookie, 'content-type': upload.contentType } });
  const spread = Number(process.env.BENCH_SPREAD_DEALERS ?? 0);
  if (spread > 0) await copyDemoDealer(database.db, spread);
  await ready(await app.listen({ host: '127.0.0.1', port }));
  process.once('SIGTERM', () => {
    void (async () => {
      await saveProfile();
      await app.close(); // flushes buffered events
      await database.close();
      process.exit(0);
    })();
  });
}
