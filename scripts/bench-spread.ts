/**
 * The spread-dealers rows of `npm run bench`: the same hot banner and beacon load as the
 * one-dealer rows, spread evenly over N copies of the demo dealer (BENCH_DEALERS, 1000 by
 * default), so each dealer sees a thin share of the traffic, as real dealer sites do. Shows what
 * the per-dealer caches cost when they cannot stay warm by sheer request rate.
 *
 * The copies are made by scripts/bench-server.ts (BENCH_SPREAD_DEALERS) with copyDemoDealer:
 * direct inserts copying the demo dealer, its inventory and its assets (rows and bytes) in one
 * transaction, not through the API (a bench shortcut: 1000 dealers by the API would take minutes).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../src/server/db/client';
import { DEMO_DEALER } from '../src/server/db/seed';

/** Ids of the copies: this prefix and 0..N−1. */
export const SPREAD_DEALER_PREFIX = 'bench-spread-';

/**
 * The columns of `table` in the current schema that a copy writes, in order: not identity or
 * generated columns (dealers.key), which the copy gets anew.
 */
async function columnsOf(db: Db, table: string): Promise<string[]> {
  const result = await db.execute(
    sql`select column_name as c from information_schema.columns where table_schema = current_schema() and table_name = ${table} and is_identity = 'NO' and is_generated = 'NEVER' order by ordinal_position`,
  );
  const rows = ((result as { rows?: unknown[] }).rows ?? (result as unknown as unknown[])) as Array<{ c: string }>;
  return rows.map((r) => r.c);
}

/**
 * Inserts `count` copies of the demo dealer (ids SPREAD_DEALER_PREFIX + i) with its inventory and
 * assets (new asset ids, the same bytes), in one transaction. Columns are read from the catalogue,
 * so a column added later is copied too.
 */
export async function copyDemoDealer(db: Db, count: number): Promise<void> {
  const copy = async (tx: Db, table: string, replace: Record<string, string>, where: string) => {
    const cols = await columnsOf(tx, table);
    const list = cols.map((c) => `"${c}"`).join(', ');
    const values = cols.map((c) => replace[c] ?? `t."${c}"`).join(', ');
    await tx.execute(sql.raw(`insert into "${table}" (${list}) select ${values} from "${table}" t, generate_series(0, ${count - 1}) i where ${where}`));
  };
  const demo = `'${DEMO_DEALER.id}'`;
  const dealerId = `'${SPREAD_DEALER_PREFIX}' || i`;
  // The same new asset id for an asset and its bytes: derived from the original id and the copy number.
  const assetId = (col: string) => `md5(t."${col}"::text || '-' || i)::uuid`;
  await db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    await copy(t, 'dealers', { id: dealerId, name: `t.name || ' #' || i`, version: '1' }, `t.id = ${demo}`);
    await copy(t, 'dealer_inventory', { dealer_id: dealerId }, `t.dealer_id = ${demo}`);
    await copy(t, 'assets', { id: assetId('id'), dealer_id: dealerId }, `t.dealer_id = ${demo}`);
    await copy(t, 'asset_blobs', { asset_id: assetId('asset_id') }, `t.asset_id in (select id from assets where dealer_id = ${demo})`);
  });
}
