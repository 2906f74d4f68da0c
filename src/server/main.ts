/**
 * Server entry point: reads the configuration, opens and migrates the database, seeds the demo
 * data into an empty database when SEED_DEMO is on, listens, and shuts down gracefully on
 * SIGTERM/SIGINT (stop accepting, finish in-flight requests, flush buffered events, close the DB).
 */
import { loadConfig } from './config';
import { openDatabase } from './db/client';
import { seedCatalogue, seedDemoData } from './db/seed';
import { buildApp } from './app';
import { DataDirInUse } from './db/data-dir-lock';

async function main() {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, schemaName: config.databaseSchema, dataDir: config.dataDir, dataMinFreeMb: config.dataMinFreeMb });
  await database.migrate();
  const seeded = config.seedDemo ? await seedDemoData(database.db) : (await seedCatalogue(database.db), false);
  const app = await buildApp({ config, db: database.db, storage: database.storage });
  database.setLogger?.(app.log); // PostgreSQL connection-loss warnings (issue 10)
  app.log.info({ driver: database.driver, seeded }, 'database ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // Timers need the event loop: a PGlite spinning in its WASM would block this one too, which is
    // why db/disk-guard.ts keeps statements away from a PGlite that reported a PANIC (issue 10).
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await app.close(); // stops accepting, waits for in-flight requests, flushes events (onClose)
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((err) => {
  // The logger may not exist yet when configuration or the database fails. An expected refusal
  // (DATA_DIR held by another process, issue 10) is one line, without a stack.
  const detail = err instanceof DataDirInUse ? err.message : err instanceof Error ? err.stack ?? err.message : String(err);
  process.stderr.write(`dc-banners failed to start: ${detail}\n`);
  process.exit(1);
});
