/**
 * The clean-up of test, e2e and benchmark runs on PostgreSQL, which each work in a schema (or, for
 * the server tests, a database) of their own: statements run over a connection of their own, and
 * the drop of those schemas with everything in them.
 */
import pg from 'pg';

/**
 * Runs `statements` one by one on the PostgreSQL database at `url` (a connection string), over a
 * connection of its own that it closes again. @throws the connection or query error.
 */
export async function onServer(url: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Drops the schemas `names` of the PostgreSQL database at `url`, with all they hold; a schema
 * that does not exist is passed over. @throws the connection or query error.
 */
export function dropSchemas(url: string, ...names: string[]): Promise<void> {
  return onServer(url, ...names.map((name) => `DROP SCHEMA IF EXISTS "${name}" CASCADE`));
}
