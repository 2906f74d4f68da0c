/**
 * Dealer inventory (spec 02 §2 Inventory, §3 InventoryData, §4 Manual inventory; spec 01 §9
 * "Optimal upsell rule selection"): preview a parsed file, apply it (store the data and regenerate
 * the inventory-optimised upsell rules in one transaction), and read what is stored.
 */
import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { dealerInventory, dealers, inventoryFeeds, manufacturers } from '../db/schema';
import type { InventoryData } from '../../domain/schemas';
import { TEXT } from '../../domain/constants';
import { activeUpsellRules, optimalUpsellRules } from '../../domain/upsell';
import { inventoryView, type InventoryPreview, type StoredInventory } from '../../domain/inventory';
import { NotFound } from '../errors';
import { parseInventoryFile, type ParseOptions, type ParseResult } from './parse';

const MAX_LISTED_SKIPS = 100;

/** What rule generation and parsing need of a dealer: its model map and its manufacturer's catalogue. */
async function dealerContext(db: Db | Tx, dealerId: string) {
  const [row] = await db
    .select({
      configs: dealers.configs,
      models: manufacturers.models,
      defaultUpsellRules: manufacturers.defaultUpsellRules,
    })
    .from(dealers)
    .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
    .where(eq(dealers.id, dealerId));
  if (!row) throw new NotFound(TEXT.dealerNotFound);
  return row;
}

type DealerContext = Awaited<ReturnType<typeof dealerContext>>;

/**
 * The inventory-optimised rules for `data` (spec 01 §9): candidates are the catalogue models'
 * upsell targets, ranked by the dealer's inventory weights (issue 12); the "existing mapping" is the
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
 * Regenerates the stored inventory-optimised rules from the stored inventory data, inside the
 * caller's transaction (the dealer's configs changed: weights and the manufacturer-strategy rules
 * are inputs of the selection, issue 12). No-op without inventory data.
 */
export async function regenerateInventoryRules(tx: Tx, dealerId: string): Promise<void> {
  const [row] = await tx.select({ data: dealerInventory.data }).from(dealerInventory).where(eq(dealerInventory.dealerId, dealerId));
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
 * Parses an uploaded file for the preview; nothing is stored.
 * @throws NotFound('Dealer not found'); Invalid with the parser's messages (spec 02 §5).
 */
export async function previewInventory(db: Db, dealerId: string, filename: string, bytes: Buffer): Promise<InventoryPreview> {
  const ctx = await dealerContext(db, dealerId);
  const parsed = parseInventoryFile(filename, bytes, { modelMap: ctx.configs.modelMap });
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
 * Stores `data` as the dealer's inventory and its regenerated inventory-optimised upsell rules, in
 * one transaction; the database bumps the dealer version (migration 0007: delivery caches). Returns the stored view.
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
    await tx
      .insert(dealerInventory)
      .values({ dealerId, data, upsellRules, source, updatedAt })
      .onConflictDoUpdate({ target: dealerInventory.dealerId, set: { data, upsellRules, source, updatedAt } });
    await inTransaction?.(tx);
    return upsellRules;
  });
  return { ...inventoryView(data, rules), source, updatedAt: updatedAt.toISOString() };
}

/**
 * Parses an uploaded file and applies it (POST /inventory). With `pauseFeed`, the dealer's active
 * feed is paused in the same transaction (issue 15: its next run would replace the upload), and
 * `feedPaused` says whether there was an active feed to pause. @throws as previewInventory;
 * nothing changes on error.
 */
export async function uploadInventory(
  db: Db,
  dealerId: string,
  filename: string,
  bytes: Buffer,
  opts: { pauseFeed?: boolean } = {},
): Promise<{ inventory: StoredInventory; feedPaused: boolean }> {
  const options = await parseOptionsFor(db, dealerId);
  const parsed = parseInventoryFile(filename, bytes, options);
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
  const [row] = await db.select().from(dealerInventory).where(eq(dealerInventory.dealerId, dealerId));
  if (!row) return null;
  return {
    ...inventoryView(row.data, row.upsellRules),
    source: row.source === 'feed' ? 'feed' : 'upload',
    updatedAt: row.updatedAt.toISOString(),
  };
}
