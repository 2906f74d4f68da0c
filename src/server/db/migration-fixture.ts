/**
 * Test fixture for the tests of one migration on a database that already holds data: a fresh
 * database (in-memory PGlite, or its own schema on TEST_DATABASE_URL when TEST_DB_DRIVER=postgres)
 * migrated up to, not including, a given migration and seeded with the demo data as of that schema.
 * The test then writes its rows and calls `database.migrate()` to run the migration under test and
 * every later one.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
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
