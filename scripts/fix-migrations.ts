/**
 * Post-processes drizzle-kit's generated SQL: removes the `"public".` schema qualifier so that the
 * same migrations create tables in whatever schema is first on the search_path (the PostgreSQL
 * test run gives each test file its own schema). Run by `npm run db:generate`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve('src/server/db/migrations');
for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
  const full = path.join(dir, file);
  const sql = readFileSync(full, 'utf8');
  const fixed = sql.replaceAll('"public".', '');
  if (fixed !== sql) {
    writeFileSync(full, fixed);
    process.stdout.write(`fixed ${file}\n`);
  }
}
