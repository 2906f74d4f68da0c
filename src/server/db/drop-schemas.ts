/**
 * The clean-up of test, e2e and benchmark runs on PostgreSQL, which each work in a schema of their
 * own (DATABASE_SCHEMA): drops those schemas with everything in them.
 */
import pg from 'pg';

/**
 * Drops the schemas `names` of the PostgreSQL database at `url` (a connection string), with all
 * they hold, over a connection of its own that it closes again; a schema that does not exist is
 * passed over. @throws the connection or query error.
 */
export async function dropSchemas(url: string, ...names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } finally {
    await client.end();
  }
}
