/**
 * Dealer inventory (spec 02 §2 Inventory, §3 InventoryData, §4 Manual inventory; spec 01 §9
 * "Optimal upsell rule selection"): preview a parsed file, apply it (store the data and regenerate
 * the inventory-optimised upsell rules in one transaction), and read what is stored.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { dealerInventory, dealers, inventoryFeeds, manufacturers } from '../db/schema';
import type { InventoryData } from '../../domain/schemas';
import { activeUpsellRules, optimalUpsellRules } from '../../domain/upsell';
import { inventoryView, type InventoryPreview, type StoredInventory } from '../../domain/inventory';
import { dealerWithManufacturer } from '../dealers/service';
import { parseInventoryStream, yieldToEventLoop, type ByteSource, type ParseOptions, type ParseResult } from './parse';

const MAX_LISTED_SKIPS = 100;

/** What rule generation and parsing need of a dealer: its model map and its manufacturer's catalogue. */
function dealerContext(db: Db | Tx, dealerId: string) {
  return dealerWithManufacturer(db, dealerId, { configs: dealers.configs, models: manufacturers.models, defaultUpsellRules: manufacturers.defaultUpsellRules });
}

type DealerContext = Awaited<ReturnType<typeof dealerContext>>;

/**
 * The inventory-optimised rules for `data` (spec 01 §9): candidates are the catalogue models'
 * upsell targets, ranked by the dealer's inventory weights; the "existing mapping" is the
 * dealer's manufacturer-strategy rule set.
 */
function generateRules(ctx: DealerContext, data: InventoryData): Record<string, string> {
  const candidates = Object.fromEntries(ctx.models.map((m) => [m.name, m.upsellTargets]));
  const existing = activeUpsellRules('manufacturer', {
    manufacturerRules: ctx.defaultUpsellRules,
    dealerUpsellMap: ctx.configs.upsellMap,
    customRules: ctx.configs.customUpsellRules,
    inventoryRules: null,
  });
  return optimalUpsellRules({ breakdown: data.modelBreakdown, candidates, existing, weights: ctx.configs.inventoryWeights });
}

/**
 * The stored inventory document without the models' vehicle lists (nothing reads them but the
 * data itself; at 50,000 vehicles they are 12 MB the database would send and the process parse).
 */
const dataWithoutVehicles = sql<InventoryData>`(${dealerInventory.data} - 'modelBreakdown') || jsonb_build_object('modelBreakdown', (
  select coalesce(jsonb_object_agg(e.key, e.value - 'vehicles'), '{}'::jsonb) from jsonb_each(${dealerInventory.data} -> 'modelBreakdown') e))`;

/**
 * Regenerates the stored inventory-optimised rules from the stored inventory data, inside the
 * caller's transaction (the dealer's configs changed: weights and the manufacturer-strategy rules
 * are inputs of the selection). No-op without inventory data.
 */
export async function regenerateInventoryRules(tx: Tx, dealerId: string): Promise<void> {
  const [row] = await tx.select({ data: dataWithoutVehicles }).from(dealerInventory).where(eq(dealerInventory.dealerId, dealerId));
  if (!row) return;
  const upsellRules = generateRules(await dealerContext(tx, dealerId), row.data);
  await tx.update(dealerInventory).set({ upsellRules }).where(eq(dealerInventory.dealerId, dealerId));
}

/** Parse options for a dealer: breakdown keys follow its model map. */
export async function parseOptionsFor(db: Db, dealerId: string): Promise<ParseOptions> {
  const ctx = await dealerContext(db, dealerId);
  return { modelMap: ctx.configs.modelMap };
}

/**
 * Parses an uploaded file, read from `file` as it arrives, for the preview; nothing is stored.
 * @throws NotFound('Dealer not found'); Invalid with the parser's messages (spec 02 §5);
 * PayloadTooLarge / OverLimit naming the limit crossed (parseInventoryStream).
 */
export async function previewInventory(db: Db, dealerId: string, filename: string, file: ByteSource): Promise<InventoryPreview> {
  const ctx = await dealerContext(db, dealerId);
  const parsed = await parseInventoryStream(filename, file, { modelMap: ctx.configs.modelMap });
  return previewOf(parsed, generateRules(ctx, parsed.data));
}

function previewOf(parsed: ParseResult, rules: Record<string, string>): InventoryPreview {
  return {
    ...inventoryView(parsed.data, rules),
    rowsRead: parsed.rowsRead,
    skipped: parsed.skipped.slice(0, MAX_LISTED_SKIPS),
    skippedCount: parsed.skipped.length,
  };
}

/**
 * Most characters of inventory JSON one statement of an apply writes (about 200 vehicles): on
 * PGlite a statement runs on the event loop, so a bounded statement is a bounded pause.
 */
export const APPLY_STATEMENT_CHARS = 64 * 1024;

/**
 * The JSON text of `data` in pieces of about APPLY_STATEMENT_CHARS characters (a piece may end
 * mid-document; their concatenation is the document), each serialised only when asked for, so
 * no single step serialises the whole inventory.
 */
export function* inventoryJsonPieces(data: InventoryData, chars = APPLY_STATEMENT_CHARS): Generator<string> {
  const { modelBreakdown, ...summary } = data;
  let piece = `${JSON.stringify(summary).slice(0, -1)},"modelBreakdown":{`;
  let first = true;
  for (const [key, { vehicles, ...model }] of Object.entries(modelBreakdown)) {
    piece += `${first ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(model).slice(0, -1)},"vehicles":[`;
    first = false;
    for (let i = 0; i < vehicles.length; i += 1) {
      piece += `${i > 0 ? ',' : ''}${JSON.stringify(vehicles[i])}`;
      if (piece.length >= chars) {
        yield piece;
        piece = '';
      }
    }
    piece += ']}';
  }
  yield `${piece}}}`;
}

/**
 * Writes the dealer's inventory row inside `tx` without one statement the size of the whole
 * inventory: the JSON text goes into a temporary table in statements of APPLY_STATEMENT_CHARS with
 * the event loop let run between them (PGlite runs statements on it), then one statement replaces
 * the row with the pieces joined and read as jsonb. The row is deleted and inserted rather than
 * updated, which spares the version trigger comparing the old and new documents; both statements
 * bump the dealer version (migration 0007). The temporary table is dropped at commit or rollback.
 */
async function writeInventoryRow(
  tx: Tx,
  row: { dealerId: string; data: InventoryData; upsellRules: Record<string, string>; source: 'upload' | 'feed'; updatedAt: Date },
): Promise<void> {
  await tx.execute(sql`create temporary table if not exists inventory_apply_pieces (i integer not null, piece text not null) on commit drop`);
  let i = 0;
  for (const piece of inventoryJsonPieces(row.data)) {
    if (i > 0) await yieldToEventLoop();
    await tx.execute(sql`insert into inventory_apply_pieces (i, piece) values (${i}, ${piece})`);
    i += 1;
  }
  await yieldToEventLoop();
  await tx.delete(dealerInventory).where(eq(dealerInventory.dealerId, row.dealerId));
  await tx.execute(sql`
    insert into ${dealerInventory} (dealer_id, data, upsell_rules, source, updated_at)
    select ${row.dealerId}, string_agg(piece, '' order by i)::jsonb, ${JSON.stringify(row.upsellRules)}::jsonb, ${row.source}, ${row.updatedAt.toISOString()}::timestamptz
    from inventory_apply_pieces`);
}

/**
 * Stores `data` as the dealer's inventory and its regenerated inventory-optimised upsell rules, in
 * one transaction, written in bounded statements (writeInventoryRow); the database bumps the dealer
 * version (migration 0007: delivery caches). Returns the stored view.
 * `inTransaction` runs last in the same transaction (pause the feed, check the feed is still
 * active); what it throws rolls everything back and is rethrown.
 * @throws NotFound('Dealer not found').
 */
export async function applyInventory(
  db: Db,
  dealerId: string,
  data: InventoryData,
  source: 'upload' | 'feed',
  inTransaction?: (tx: Tx) => Promise<void>,
): Promise<StoredInventory> {
  const updatedAt = new Date();
  const rules = await db.transaction(async (tx) => {
    const ctx = await dealerContext(tx, dealerId);
    const upsellRules = generateRules(ctx, data);
    await writeInventoryRow(tx, { dealerId, data, upsellRules, source, updatedAt });
    await inTransaction?.(tx);
    return upsellRules;
  });
  return { ...inventoryView(data, rules), source, updatedAt: updatedAt.toISOString() };
}

/**
 * Parses an uploaded file, read from `file` as it arrives, and applies it (POST /inventory). With
 * `pauseFeed`, the dealer's active feed is paused in the same transaction (its next run
 * would replace the upload), and `feedPaused` says whether there was an active feed to pause.
 * @throws as previewInventory; nothing changes on error.
 */
export async function uploadInventory(
  db: Db,
  dealerId: string,
  filename: string,
  file: ByteSource,
  opts: { pauseFeed?: boolean } = {},
): Promise<{ inventory: StoredInventory; feedPaused: boolean }> {
  const options = await parseOptionsFor(db, dealerId);
  const parsed = await parseInventoryStream(filename, file, options);
  let feedPaused = false;
  const inventory = await applyInventory(db, dealerId, parsed.data, 'upload', async (tx) => {
    if (!opts.pauseFeed) return;
    const paused = await tx
      .update(inventoryFeeds)
      .set({ isActive: false, updatedAt: new Date() })
      .where(and(eq(inventoryFeeds.dealerId, dealerId), eq(inventoryFeeds.isActive, true)))
      .returning({ dealerId: inventoryFeeds.dealerId });
    feedPaused = paused.length > 0;
  });
  return { inventory, feedPaused };
}

/** The dealer's stored inventory, or null when none was applied. @throws NotFound('Dealer not found'). */
export async function getInventory(db: Db, dealerId: string): Promise<StoredInventory | null> {
  await dealerContext(db, dealerId);
  const [row] = await db
    .select({ data: dataWithoutVehicles, upsellRules: dealerInventory.upsellRules, source: dealerInventory.source, updatedAt: dealerInventory.updatedAt })
    .from(dealerInventory)
    .where(eq(dealerInventory.dealerId, dealerId));
  if (!row) return null;
  return {
    ...inventoryView(row.data, row.upsellRules),
    source: row.source === 'feed' ? 'feed' : 'upload',
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** One model of the stored inventory as Analytics shows it beside the model's event counts. */
export interface InventoryModelFigures {
  /** The breakdown key (canonical model name, DECISIONS 25). */
  key: string;
  units: number;
  agedUnits: number;
  /** Median days on lot of the model's vehicles; null without vehicle rows. */
  medianDaysOnLot: number | null;
  /** Inventory priority score 1..10 (spec 02 §9). */
  priorityScore: number;
}

/**
 * Per model of the dealer's stored inventory: units, aged units, median days on lot (computed by the
 * database from the stored vehicle rows, so the vehicle lists never reach the process) and the
 * priority score. Empty without inventory data.
 */
export async function inventoryModelFigures(db: Db, dealerId: string): Promise<InventoryModelFigures[]> {
  const res = (await db.execute(sql`
    SELECT e.key AS key, (e.value->>'totalUnits')::int AS units, (e.value->>'agedUnits')::int AS aged,
      (e.value->>'priorityScore')::int AS priority,
      (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY (v->>'daysOnLot')::float8)
         FROM jsonb_array_elements(coalesce(e.value->'vehicles', '[]'::jsonb)) v) AS median
    FROM ${dealerInventory} d CROSS JOIN LATERAL jsonb_each(d.data->'modelBreakdown') e
    WHERE d.dealer_id = ${dealerId}`)) as unknown as { rows: Array<Record<string, unknown>> };
  return res.rows.map((r) => ({
    key: String(r.key),
    units: Number(r.units ?? 0),
    agedUnits: Number(r.aged ?? 0),
    medianDaysOnLot: r.median === null || r.median === undefined ? null : Number(r.median),
    priorityScore: Number(r.priority ?? 1),
  }));
}
