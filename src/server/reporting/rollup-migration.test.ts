/**
 * Migration 0015_reporting_rollups on a database that already holds hourly rollups: the daily
 * rollups, the per-dealer days and the all-time totals are backfilled from them, and from then on
 * the triggers keep them equal to the hourly rows written (an insert adds, an ON CONFLICT update
 * adds its difference, a corrective delete subtracts, the retention's pruning keeps them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { getTableColumns, getTableName, sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { MIGRATIONS_FOLDER, openDatabase, type Database } from '../db/client';
import { seedDemoData, DEMO_DEALER } from '../db/seed';
import { dealers, manufacturers, users } from '../db/schema';
import { pruneHourlyRollups } from './service';

const MIGRATION = '0015_reporting_rollups';
const pgUrl = process.env.TEST_DB_DRIVER === 'postgres' ? process.env.TEST_DATABASE_URL : undefined;
let database: Database;
let schemaName = '';
let folder = '';

/** A copy of the migrations folder holding only the migrations before MIGRATION. */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === tag));
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

const rows = async <T,>(query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
const migrate = (migrationsFolder: string) =>
  pgUrl ? migratePg(database.db as never, { migrationsFolder, migrationsSchema: schemaName }) : migratePglite(database.db as never, { migrationsFolder });

/** seedDemoData at the older schema: columns added later are added as nullable text for the seed and dropped again. */
async function seedAtThisVersion() {
  const added: Array<[string, string]> = [];
  for (const table of [manufacturers, dealers, users]) {
    const name = getTableName(table);
    const existing = new Set((await rows<{ column_name: string }>(sql`SELECT column_name FROM information_schema.columns WHERE table_name = ${name} AND table_schema = current_schema()`)).map((r) => r.column_name));
    for (const column of Object.values(getTableColumns(table))) {
      if (existing.has(column.name)) continue;
      await database.db.execute(sql.raw(`ALTER TABLE "${name}" ADD COLUMN "${column.name}" text`));
      added.push([name, column.name]);
    }
  }
  await seedDemoData(database.db);
  for (const [table, column] of added) await database.db.execute(sql.raw(`ALTER TABLE "${table}" DROP COLUMN "${column}"`));
}

beforeAll(async () => {
  folder = migrationsBefore(MIGRATION);
  if (pgUrl) {
    schemaName = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    database = await openDatabase({ databaseUrl: pgUrl, schemaName });
  } else {
    database = await openDatabase({});
  }
  await migrate(folder);
  await seedAtThisVersion();
  const d = DEMO_DEALER.id;
  await database.db.execute(
    sql.raw(`INSERT INTO event_rollups_hourly (dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions) VALUES
      ('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', '', 10, 2, 1),
      ('${d}', '2026-03-01T23:00:00Z', 'civic', 'header', '', 5, 1, 0),
      ('${d}', '2026-03-01T23:00:00Z', 'civic', 'header', 'cdn', 7, 0, 0),
      ('${d}', '2026-03-02T00:00:00Z', 'accord', 'primary', 'placeholder', 4, 1, 1)`),
  );
  await migrate(MIGRATIONS_FOLDER);
});
afterAll(async () => {
  await database?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
  if (pgUrl && schemaName) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schemaName}" CASCADE`);
    await c.end();
  }
});

const daily = () =>
  rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, model, slot_type, creative, impressions, clicks, conversions FROM event_rollups_daily ORDER BY 1, 2, 4`).then((r) =>
    r.map((x) => `${String(x.day)} ${String(x.model)}/${String(x.slot_type)}/${String(x.creative)} ${Number(x.impressions)}/${Number(x.clicks)}/${Number(x.conversions)}`),
  );
const perDay = () =>
  rows<Record<string, unknown>>(sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, impressions, clicks, conversions FROM dealer_rollups_daily ORDER BY 1`).then((r) =>
    r.map((x) => `${String(x.day)} ${Number(x.impressions)}/${Number(x.clicks)}/${Number(x.conversions)}`),
  );
const allTime = () => rows<Record<string, unknown>>(sql`SELECT impressions, clicks, conversions FROM dealer_rollup_totals`).then((r) => r.map((x) => `${Number(x.impressions)}/${Number(x.clicks)}/${Number(x.conversions)}`));

describe('migration 0015 reporting rollups', () => {
  it('backfills the daily rollups, the dealer days and the all-time totals from the hourly rollups by UTC day', async () => {
    expect(await daily()).toEqual(['2026-03-01 civic/header/ 15/3/1', '2026-03-01 civic/header/cdn 7/0/0', '2026-03-02 accord/primary/placeholder 4/1/1']);
    expect(await perDay()).toEqual(['2026-03-01 22/3/1', '2026-03-02 4/1/1']);
    expect(await allTime()).toEqual(['26/4/2']);
  });

  it('keeps them equal to the hourly rows written afterwards; pruning old hours keeps the days', async () => {
    const d = DEMO_DEALER.id;
    // The ingestion's upsert: one new row and one existing row raised, in one statement.
    await database.db.execute(
      sql.raw(`INSERT INTO event_rollups_hourly AS r (dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions) VALUES
        ('${d}', '2026-03-01T23:00:00Z', 'civic', 'header', '', 3, 1, 1),
        ('${d}', '2026-03-02T05:00:00Z', 'accord', 'primary', 'placeholder', 2, 0, 0)
        ON CONFLICT (dealer_id, hour, model, slot_type, creative) DO UPDATE SET impressions = r.impressions + excluded.impressions,
          clicks = r.clicks + excluded.clicks, conversions = r.conversions + excluded.conversions`),
    );
    expect(await daily()).toEqual(['2026-03-01 civic/header/ 18/4/2', '2026-03-01 civic/header/cdn 7/0/0', '2026-03-02 accord/primary/placeholder 6/1/1']);
    expect(await perDay()).toEqual(['2026-03-01 25/4/2', '2026-03-02 6/1/1']);
    expect(await allTime()).toEqual(['31/5/3']);

    // A corrective delete subtracts.
    await database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE creative = 'cdn'`));
    expect(await daily()).toContain('2026-03-01 civic/header/cdn 0/0/0');
    expect(await perDay()).toEqual(['2026-03-01 18/4/2', '2026-03-02 6/1/1']);
    expect(await allTime()).toEqual(['24/5/3']);

    // The retention's pruning (every hour here is far older than the hours kept) leaves the days alone.
    expect(await pruneHourlyRollups(database.db, new Date('2026-11-01T00:00:00Z'), 100)).toBe(4);
    expect(await rows(sql`SELECT 1 FROM event_rollups_hourly`)).toEqual([]);
    expect(await perDay()).toEqual(['2026-03-01 18/4/2', '2026-03-02 6/1/1']);
    expect(await allTime()).toEqual(['24/5/3']);
  });
});
