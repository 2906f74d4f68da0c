/**
 * Server entry point (`npm start` runs its compiled form, dist/server/main.js; `npm run dev` and
 * the e2e harness run the sources through tsx): reads the configuration, then either
 * - WORKERS=1 (default): opens the database, migrates and seeds the demo data into an empty
 *   database when SEED_DEMO is on (under the startup lock), builds the app and listens;
 * - WORKERS=N on PostgreSQL: the cluster primary (cluster.ts) migrates and seeds once and forks N
 *   workers, each of which runs this file as a worker: the app on the shared port, no migrations;
 *   and one standby worker, which builds the app and listens only when told (a worker died).
 * Lifecycle (close-with-grace): on SIGTERM/SIGINT (or the primary's shutdown message) the
 * process stops accepting, aborts running feed fetches, finishes in-flight requests (cutting
 * those still open after a third of the grace), flushes buffered events, closes the database
 * and exits 0, or exits 1 after SHUTDOWN_GRACE_MS; an uncaught exception or unhandled rejection
 * is logged and shuts down the same way with exit 1.
 */
import cluster from 'node:cluster';
import type http from 'node:http';
import closeWithGrace from 'close-with-grace';
import { loadConfig, type Config } from './config';
import { openDatabase } from './db/client';
import { seedCatalogue, seedDemoData } from './db/seed';
import { buildApp } from './app';
import { DataDirInUse } from './db/data-dir-lock';
import { runPrimary, SHUTDOWN_MESSAGE, STANDBY_LISTEN_MESSAGE, STANDBY_READY_MESSAGE, WORKER_ROLE_ENV } from './cluster';
import { metricsListener } from './observability/health';
import { fileClock } from './test-clock';

/** Runs one server process: the only one (WORKERS=1) or a cluster worker (see module doc). */
async function runServer(config: Config): Promise<void> {
  const worker = cluster.isWorker;
  const database = await openDatabase({ databaseUrl: config.databaseUrl, schemaName: config.databaseSchema, dataDir: config.dataDir, dataMinFreeMb: config.dataMinFreeMb });
  // Workers start after the primary migrated and seeded.
  const seeded = worker
    ? false
    : await database.withStartupLock(async () => {
        await database.migrate();
        return config.seedDemo ? seedDemoData(database.db) : (await seedCatalogue(database.db), false);
      });
  const app = await buildApp({
    config,
    db: database.db,
    storage: database.storage,
    pendingMigrations: () => database.pendingMigrations(),
    listen: database.listen, // dealer changes heard from the database (dealer-sites/listener.ts)
    // TEST_CLOCK_FILE (e2e tests only, refused in production): app.now from a file.
    now: config.testClockFile ? fileClock(config.testClockFile) : undefined,
  });
  database.setLogger?.(app.log); // PostgreSQL connection-loss warnings
  app.log.info({ driver: database.driver, seeded, ...(worker ? { worker: cluster.worker!.id } : {}) }, 'database ready');

  let metricsServer: http.Server | null = null;
  let closing = false;
  // Timers need the event loop: a PGlite spinning in its WASM would block this one too, which is
  // why db/disk-guard.ts keeps statements away from a PGlite that reported a PANIC.
  const grace = closeWithGrace(
    {
      delay: config.shutdownGraceMs,
      logger: { error: (m: unknown) => app.log.error(m instanceof Error ? { err: m } : { detail: String(m) }, 'shutdown') },
    },
    async ({ signal, err, manual }) => {
      closing = true;
      if (err) app.log.fatal({ err }, 'fatal error; shutting down');
      else app.log.info({ signal: signal ?? (manual ? SHUTDOWN_MESSAGE : 'exit') }, 'shutting down');
      metricsServer?.close();
      const drain = drainConnections(app, Math.floor(config.shutdownGraceMs / 3));
      await app.close(); // stops accepting, aborts feed fetches, waits for in-flight requests, flushes events (onClose)
      clearTimeout(drain);
      await database.close();
    },
  );
  // The cluster primary's shutdown request (a signal sent to the whole group may have started it already).
  if (worker) process.on('message', (m: { type?: string }) => m?.type === SHUTDOWN_MESSAGE && !closing && grace.close());

  if (worker && process.env[WORKER_ROLE_ENV] === 'standby') {
    // The cluster's standby (cluster.ts): built, and listening only once a serving worker died.
    await app.ready();
    const told = new Promise<void>((resolve) => process.on('message', (m: { type?: string }) => m?.type === STANDBY_LISTEN_MESSAGE && resolve()));
    process.send!({ type: STANDBY_READY_MESSAGE });
    await told;
    if (closing) return;
    await app.listen({ port: config.port, host: config.host });
    app.log.info('standby worker took over');
    await app.events.recover(); // the dead worker's event journal
    return;
  }
  await app.listen({ port: config.port, host: config.host });
  if (config.metricsPort !== undefined && !worker) {
    metricsServer = await metricsListener({
      host: config.metricsHost,
      port: config.metricsPort,
      token: config.metricsToken,
      text: () => app.metrics.text(),
      contentType: app.metrics.contentType,
    });
  }
}

/**
 * The shutdown's connection drain: requests still open `afterMs` after the close began (a client
 * that never finishes sending its request, a stalled proxy connection) would hold the server's
 * close, and every onClose hook behind it (the event buffer's write), until the grace runs out.
 * They are cut then, and the log names how many and what else the process still waits on.
 * Returns the timer, to clear once the app has closed.
 */
function drainConnections(app: Awaited<ReturnType<typeof buildApp>>, afterMs: number): NodeJS.Timeout {
  return setTimeout(() => {
    app.server.getConnections((_err, connections) => {
      app.log.warn({ connections, waitingOn: process.getActiveResourcesInfo(), afterMs }, 'closing connections still open after the drain');
      app.server.closeAllConnections();
    });
  }, afterMs).unref();
}

async function main() {
  const config = loadConfig();
  if (config.workers > 1 && cluster.isPrimary) await runPrimary(config);
  else await runServer(config);
}

main().catch((err) => {
  // The logger may not exist yet when configuration or the database fails. An expected refusal
  // (DATA_DIR held by another process) is one line, without a stack.
  const detail = err instanceof DataDirInUse ? err.message : err instanceof Error ? err.stack ?? err.message : String(err);
  process.stderr.write(`dc-banners failed to start: ${detail}\n`);
  process.exit(1);
});
