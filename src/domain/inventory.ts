/**
 * What the Inventory screen shows of an InventoryData (spec 02 §2 Inventory "preview (totals,
 * per-model breakdown, priority groups, marketing insights)", §3, §9): per-model rows without the
 * vehicle lists, the models grouped by priority score, and two marketing insights. Pure functions,
 * shared by the server (which builds the views) and the web app (which only reads the types).
 */
import { DEEP_TRIM_UNITS, PRIORITY_GROUPS } from './constants';
import type { InventoryData, ModelBreakdown, UpdateFrequency, FieldMapping } from './schemas';

/** One model of the breakdown without its vehicles; `key` is the normalised model key (DECISIONS 25). */
export type InventoryModelView = Omit<ModelBreakdown, 'vehicles'> & { key: string };

export interface InventorySummaryView {
  totalUnits: number;
  modelCount: number;
  agedUnits: number;
  avgDaysOnLot: number;
  /** ISO timestamp of the data. */
  lastUpdated: string;
}

export interface PriorityGroup {
  label: (typeof PRIORITY_GROUPS)[number]['label'];
  min: number;
  max: number;
  /** Model keys, highest score first. */
  models: string[];
}

export interface MarketingInsights {
  /** Aged-inventory models to push: models with aged units (60+ days), largest aged share first. */
  agedModels: Array<{ key: string; model: string; agedUnits: number; totalUnits: number; agedShare: number }>;
  /** Models with deep trim stock (two or more trims with >= 5 units): candidates for trim upsells. */
  deepTrimModels: Array<{ key: string; model: string; trims: Array<{ trim: string; units: number }> }>;
}

/** The inventory as the screens show it. */
export interface InventoryView {
  summary: InventorySummaryView;
  /** Highest priority score first, then most units. */
  models: InventoryModelView[];
  priorityGroups: PriorityGroup[];
  insights: MarketingInsights;
  /** Inventory-optimised upsell rules (spec 01 §9): source model -> target (source = target is 'Higher Trim'). */
  upsellRules: Record<string, string>;
}

/** A parsed file before it is applied: the view plus what was skipped. */
export interface InventoryPreview extends InventoryView {
  /** Data rows read from the file (before skipping). */
  rowsRead: number;
  /**
   * Rows not counted, with the reason (at most 100 listed; skippedCount has them all): `row` is the
   * vehicle's position (1-based data row); for CSV files `line` is the file's own line number.
   */
  skipped: Array<{ row: number; line?: number; reason: string }>;
  skippedCount: number;
}

/** The dealer's stored inventory (GET /api/dealers/:dealerId/inventory). */
export interface StoredInventory extends InventoryView {
  source: 'upload' | 'feed';
  updatedAt: string;
}

export interface FeedRunView {
  id: number;
  startedAt: string;
  finishedAt: string | null;
  status: 'running' | 'success' | 'error';
  vehicleCount: number | null;
  error: string | null;
}

export interface FeedView {
  feedUrl: string;
  updateFrequency: UpdateFrequency;
  isActive: boolean;
  fieldMapping: FieldMapping;
  /** Last successful run, ISO, or null. */
  lastUpdated: string | null;
  nextRunAt: string | null;
}

/** Result of Test Feed: what the feed holds now; nothing is stored. */
export interface FeedTestResult {
  vehicleCount: number;
  modelCount: number;
  agedUnits: number;
  skippedCount: number;
  models: Array<{ key: string; model: string; totalUnits: number }>;
}

/** Per-model rows of an inventory, highest priority score first, then most units. */
export function modelViews(data: InventoryData): InventoryModelView[] {
  return Object.entries(data.modelBreakdown)
    .map(([key, { vehicles: _vehicles, ...b }]) => ({ key, ...b }))
    .sort((a, b) => b.priorityScore - a.priorityScore || b.totalUnits - a.totalUnits || a.key.localeCompare(b.key));
}

/** Models grouped High (8-10), Normal (4-7), Low (1-3) by priority score (DECISIONS 22 labels). */
export function priorityGroups(models: InventoryModelView[]): PriorityGroup[] {
  return PRIORITY_GROUPS.map((g) => ({
    ...g,
    models: models.filter((m) => m.priorityScore >= g.min && m.priorityScore <= g.max).map((m) => m.key),
  }));
}

/** The two marketing insights of the preview; see MarketingInsights. */
export function marketingInsights(models: InventoryModelView[]): MarketingInsights {
  const agedModels = models
    .filter((m) => m.agedUnits > 0)
    .map((m) => ({ key: m.key, model: m.model, agedUnits: m.agedUnits, totalUnits: m.totalUnits, agedShare: m.agedUnits / m.totalUnits }))
    .sort((a, b) => b.agedShare - a.agedShare || b.agedUnits - a.agedUnits);
  const deepTrimModels = models
    .map((m) => ({
      key: m.key,
      model: m.model,
      trims: Object.entries(m.trims)
        .filter(([, n]) => n >= DEEP_TRIM_UNITS)
        .map(([trim, units]) => ({ trim, units }))
        .sort((a, b) => b.units - a.units),
    }))
    .filter((m) => m.trims.length >= 2);
  return { agedModels, deepTrimModels };
}

/** Builds the InventoryView of `data` with its generated upsell rules. */
export function inventoryView(data: InventoryData, upsellRules: Record<string, string>): InventoryView {
  const { modelBreakdown: _b, ...summary } = data;
  const models = modelViews(data);
  return { summary, models, priorityGroups: priorityGroups(models), insights: marketingInsights(models), upsellRules };
}
