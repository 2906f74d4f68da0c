/**
 * `npm run seed:volume -- --dealers N --events M --days D [--reset]`: fills the server's database
 * (DATABASE_URL and DATABASE_SCHEMA, else PGlite in DATA_DIR, default ./data; src/server/config.ts)
 * with N generated dealers and about M tracking events over the last D days, with their hourly
 * rollups (src/server/db/volume.ts). Migrates and seeds like the server first (the demo data into
 * an empty database when SEED_DEMO allows, else the catalogue). `--reset` first deletes the dealers
 * of earlier runs (ids starting with `volume-`) with their events and rollups. Prints one progress
 * line per chunk (events/s) to stderr and a JSON summary to stdout. Stop the server first when on
 * PGlite: its data directory belongs to one process.
 * Defaults: --dealers 1000 --events 1000000 --days 365.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/server/config';
import { openDatabase } from '../src/server/db/client';
import { seedCatalogue, seedDemoData } from '../src/server/db/seed';
import { assertVolumeOptions, deleteVolumeDealers, generateVolume } from '../src/server/db/volume';

const { values } = parseArgs({
  options: {
    dealers: { type: 'string', default: '1000' },
    events: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '365' },
    reset: { type: 'boolean', default: false },
  },
  strict: true,
});
const opts = { dealers: Number(values.dealers), events: Number(values.events), days: Number(values.days) };
try {
  assertVolumeOptions(opts);
} catch (e) {
  process.stderr.write(`seed:volume: --${(e as Error).message}\n`);
  process.exit(2);
}

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schemaName: config.databaseSchema });
try {
  await database.withStartupLock(async () => {
    await database.migrate();
    if (!(config.seedDemo && (await seedDemoData(database.db)))) await seedCatalogue(database.db);
  });
  if (values.reset) process.stderr.write(`seed:volume: deleted ${await deleteVolumeDealers(database.db)} generated dealers\n`);
  const where = config.databaseUrl ? `PostgreSQL${config.databaseSchema ? ` (schema ${config.databaseSchema})` : ''}` : `PGlite in ${config.dataDir}`;
  process.stderr.write(`seed:volume: ${opts.dealers} dealers, about ${opts.events} events over ${opts.days} days into ${where}\n`);
  const result = await generateVolume(database.db, {
    ...opts,
    onProgress: (p) =>
      process.stderr.write(
        `seed:volume: ${p.events} events (${Math.round((100 * p.pageViewsDone) / Math.max(1, p.pageViews))} % of page views), ${Math.round(p.events / Math.max(p.seconds, 1e-3))} events/s\n`,
      ),
  });
  const biggest = result.dealers[0];
  process.stdout.write(
    `${JSON.stringify({
      run: result.run,
      dealers: result.dealers.length,
      biggest: biggest?.id,
      median: result.dealers[Math.floor(result.dealers.length / 2)]?.id,
      events: result.events,
      rollupRows: result.rollupRows,
      dealerSeconds: Number(result.dealerSeconds.toFixed(1)),
      eventSeconds: Number(result.eventSeconds.toFixed(1)),
      eventsPerSecond: Math.round(result.events.total / Math.max(result.eventSeconds, 1e-3)),
    })}\n`,
  );
} finally {
  await database.close();
}
