/**
 * Migrations and seeding run once when several server processes start together on one PostgreSQL
 *: Database.withStartupLock holds a session advisory lock per schema, so the second
 * process waits, then finds every migration applied and the demo data seeded. Runs in the
 * api-postgres project only (TEST_DB_DRIVER=postgres); its own schema, dropped afterwards.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from './client';
import { seedDemoData } from './seed';
import { dropSchemas } from './drop-schemas';

const url = process.env.TEST_DATABASE_URL;
const onPostgres = process.env.TEST_DB_DRIVER === 'postgres' && !!url;
const schema = `t_lock_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const opened: Database[] = [];

afterAll(async () => {
  await Promise.all(opened.map((d) => d.close()));
  if (!onPostgres) return;
  await dropSchemas(url, schema);
});

describe.skipIf(!onPostgres)('startup lock on PostgreSQL', () => {
  it('runs two processes\' migrations and seeding one after the other: one seeds, both find the schema complete', async () => {
    const [a, b] = await Promise.all([openDatabase({ databaseUrl: url, schemaName: schema }), openDatabase({ databaseUrl: url, schemaName: schema })]);
    opened.push(a!, b!);
    const spans: Array<[number, number]> = [];
    const start = (d: Database) =>
      d.withStartupLock(async () => {
        const entered = performance.now();
        await d.migrate();
        const seeded = await seedDemoData(d.db);
        spans.push([entered, performance.now()]);
        return seeded;
      });
    const seeded = await Promise.all([start(a!), start(b!)]);
    expect(seeded.sort()).toEqual([false, true]);
    const [first, second] = spans.sort((x, y) => x[0] - y[0]);
    expect(second![0]).toBeGreaterThanOrEqual(first![1]); // never inside the lock together
    expect(await a!.pendingMigrations()).toBe(0);
    expect(await b!.pendingMigrations()).toBe(0);
  });
});
