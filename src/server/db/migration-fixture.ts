/**
 * Test fixture for the tests of one migration on a database that already holds data: a fresh
 * database (in-memory PGlite, or its own schema on TEST_DATABASE_URL when TEST_DB_DRIVER=postgres)
 * migrated up to, not including, a given migration and seeded with the demo data as of that schema.
 * The test then writes its rows and calls `database.migrate()` to run the migration under test and
 * every later one; databaseBeforeHooks does that around a test file, and writeHourlyRollups and
 * countsText are the rollup writes and reads the reporting migrations' tests share.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { getTableColumns, getTableName, sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { MIGRATIONS_FOLDER, openDatabase, type Database } from './client';
import { seedDemoData } from './seed';
import { dealers, manufacturers, users } from './schema';
import { dropSchemas } from './drop-schemas';

/** A database as of before one migration (see module doc). */
export interface DatabaseBefore {
  database: Database;
  /** The rows of a raw query, as both drivers return them. */
  rows<T>(query: ReturnType<typeof sql>): Promise<T[]>;
  /** Closes the database and removes what the fixture made (the migrations copy, the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/** A copy of the migrations folder whose journal holds only the migrations before `tag`. */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at < 0) throw new Error(`migration ${tag} is not in the journal`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

/**
 * Opens a fresh database migrated up to, not including, migration `tag` (e.g.
 * '0015_reporting_rollups') and seeds the demo data into it. The seed inserts through today's
 * table definitions, which name every column of the latest schema, so columns added by later
 * migrations are added for the seed as nullable text and dropped again, leaving the older schema.
 * @throws when `tag` is not in the migrations journal, or the database cannot be opened.
 */
export async function openDatabaseBefore(tag: string): Promise<DatabaseBefore> {
  const pgUrl = process.env.TEST_DB_DRIVER === 'postgres' ? process.env.TEST_DATABASE_URL : undefined;
  const folder = migrationsBefore(tag);
  const schemaName = pgUrl ? `t_${randomUUID().replace(/-/g, '').slice(0, 16)}` : '';
  const database = pgUrl ? await openDatabase({ databaseUrl: pgUrl, schemaName }) : await openDatabase({});
  if (pgUrl) await migratePg(database.db as never, { migrationsFolder: folder, migrationsSchema: schemaName });
  else await migratePglite(database.db as never, { migrationsFolder: folder });
  const rows = async <T>(query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;

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

  return {
    database,
    rows,
    dispose: async () => {
      await database.close();
      rmSync(folder, { recursive: true, force: true });
      if (pgUrl) {
        await dropSchemas(pgUrl, schemaName);
      }
    },
  };
}

/** What a migration's test file reads and writes through (databaseBeforeHooks). */
export interface DatabaseUnderTest {
  /** The database; open from the file's beforeAll on. */
  readonly database: Database;
  /** The rows of a raw query, as both drivers return them. */
  rows<T>(query: ReturnType<typeof sql>): Promise<T[]>;
}

/**
 * Registers the vitest hooks of one migration's test file: before its tests, a database as of
 * before migration `tag` (openDatabaseBefore) and, when `prepare` is given, `prepare` writing the
 * rows the migration finds, then the migration under test and every later one (without `prepare`
 * each test writes its rows and migrates itself); after them, the database is disposed. The
 * handle throws when read before the hook opened the database.
 */
export function databaseBeforeHooks(tag: string, prepare?: (database: Database) => Promise<void>): DatabaseUnderTest {
  let before: DatabaseBefore | undefined;
  const opened = (): DatabaseBefore => {
    if (!before) throw new Error(`the database before ${tag} is open only inside the tests`);
    return before;
  };
  beforeAll(async () => {
    before = await openDatabaseBefore(tag);
    if (prepare) {
      await prepare(before.database);
      await before.database.migrate();
    }
  });
  afterAll(() => before?.dispose());
  return {
    get database() {
      return opened().database;
    },
    rows: (query) => opened().rows(query),
  };
}

/**
 * Writes hourly rollups into event_rollups_hourly: `columns` names them ('dealer_id, hour, model,
 * slot_type, creative, impressions, clicks, conversions'), `values` are SQL tuples, one a row. With
 * `upsert` (the schema from migration 0024 on) a row already stored for the same dealer, hour,
 * model, slot type, creative and device is raised by the new counts in the same statement, as the
 * ingestion's upsert does (tracking/service.ts), so the rollup triggers see an ON CONFLICT update.
 */
export async function writeHourlyRollups(database: Database, columns: string, values: string[], { upsert = false } = {}): Promise<void> {
  const conflict = upsert
    ? `ON CONFLICT (dealer_id, hour, model, slot_type, creative, device) DO UPDATE SET impressions = r.impressions + excluded.impressions,
        clicks = r.clicks + excluded.clicks, conversions = r.conversions + excluded.conversions`
    : '';
  await database.db.execute(sql.raw(`INSERT INTO event_rollups_hourly AS r (${columns}) VALUES ${values.join(',\n')} ${conflict}`));
}

/** A rollup row's counts as 'impressions/clicks/conversions' ('10/2/1'), from a raw query's row. */
export const countsText = (x: Record<string, unknown>): string => `${Number(x.impressions)}/${Number(x.clicks)}/${Number(x.conversions)}`;
