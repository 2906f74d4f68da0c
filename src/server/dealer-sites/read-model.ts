/**
 * The dealer read model: what a dealer site's requests need to know about a dealer (its delivery
 * settings, catalogue, page plans and promotion-window boundaries), read in one query. Banner
 * delivery, tracking beacons, the embed script, the asset checks and Preview all work from this
 * one object (`DealerDelivery`); it is cached per app by `DealerCache` (cache.ts) and kept current
 * by the database's version triggers and change notifications (listener.ts).
 *
 * Every column `dealerQuery` reads must raise `dealers.version` when it changes (the triggers of
 * migration 0007), or other processes would keep a stale copy: read-model.test.ts compares the
 * query's SQL with the triggers in the database catalogue.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { assets, campaigns, dealerInventory, dealers, manufacturers } from '../db/schema';
import type { AssetStorage, BannerSizes, Branding, DealerConfigs, FallbackAssets, Provider, Security } from '../../domain/schemas';
import { allPagePlans, beaconModels, type PagePlan, type SlotPlanContext } from '../../domain/slot-plan';
import { modelKey } from '../../domain/model-keys';

/** A dealer as its site's requests see it (one row of `dealerQuery`, with the page plans built from it). */
export interface DealerDelivery {
  id: string;
  version: number;
  security: Security;
  sizes: BannerSizes;
  storage: AssetStorage;
  fallbackAssets: FallbackAssets;
  configs: DealerConfigs;
  manufacturerName: string;
  /** modelKey -> the catalogue's display name ('highlander' -> 'Highlander'), for placeholders. */
  displayNames: Map<string, string>;
  /** Lower-case trim names of the catalogue and the dealer's trim ladders: the trims a choice is cached for. */
  knownTrims: Set<string>;
  /** Page model key -> what its slots show (slot-plan.ts); a key absent here hides the slots. */
  plans: Map<string, PagePlan>;
  /** The beacon model keys its pages can report (slot-plan.ts beaconModels): any other is counted as UNKNOWN_MODEL_KEY. */
  beaconModels: Set<string>;
  provider: Provider;
  branding: Branding;
  color: string;
  /**
   * Every distinct start and end instant (ms since the epoch) of the dealer's asset and campaign windows,
   * ascending: the moments a choice may change without a write. Read with the version, so a
   * window change (an asset write, which bumps it) reloads them.
   */
  boundaries: number[];
}

/** Reads a dealer's read model (one query, uncached: the cache's fetch, cache.ts). @returns null for an unknown dealer. */
export async function queryDealer(db: Db, dealerId: string): Promise<DealerDelivery | null> {
  const [row] = await dealerQuery(db, dealerId);
  if (!row) return null;
  return dealerDelivery(row);
}

/**
 * The one query queryDealer runs (a Drizzle select, not yet run). Every column it reads must raise
 * dealers.version when it changes (migration 0007's triggers), or other processes would keep a
 * stale copy: read-model.test.ts compares its SQL with the triggers in the catalogue.
 */
export function dealerQuery(db: Db, dealerId: string) {
  return db
    .select({
      id: dealers.id,
      version: dealers.version,
      security: dealers.security,
      storage: dealers.assetStorage,
      fallbackAssets: dealers.fallbackAssets,
      configs: dealers.configs,
      provider: dealers.provider,
      branding: dealers.branding,
      manufacturerName: manufacturers.name,
      manufacturerRules: manufacturers.defaultUpsellRules,
      color: manufacturers.primaryColor,
      models: manufacturers.models,
      inventoryRules: dealerInventory.upsellRules,
      // Only each model's priority score: the breakdowns themselves are not read.
      priorityScores: sql<Record<string, number> | string | null>`(select jsonb_object_agg(e.key, e.value->'priorityScore') from jsonb_each(${dealerInventory.data}->'modelBreakdown') e)`,
      // The promotion-window boundaries of the dealer's assets and campaigns, ms since the epoch.
      boundaries: sql<Array<number | string> | string | null>`(select json_agg(b.ms order by b.ms) from (
        select distinct (extract(epoch from w.at) * 1000)::bigint as ms from (
          select a.starts_at as at from ${assets} a where a.dealer_id = ${dealers.id} and a.starts_at is not null
          union all
          select a.ends_at from ${assets} a where a.dealer_id = ${dealers.id} and a.ends_at is not null
          union all
          select c.starts_at from ${campaigns} c where c.dealer_id = ${dealers.id}
          union all
          select c.ends_at from ${campaigns} c where c.dealer_id = ${dealers.id} and c.ends_at is not null
        ) w) b)`,
    })
    .from(dealers)
    .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
    .leftJoin(dealerInventory, eq(dealerInventory.dealerId, dealers.id))
    .where(eq(dealers.id, dealerId));
}

/** A DealerDelivery from a row of dealerQuery. */
function dealerDelivery(row: Awaited<ReturnType<typeof dealerQuery>>[number]): DealerDelivery {
  const { models, manufacturerRules, inventoryRules, priorityScores, boundaries: rawBoundaries, ...rest } = row;
  const boundaryList = (typeof rawBoundaries === 'string' ? (JSON.parse(rawBoundaries) as Array<number | string>) : (rawBoundaries ?? [])).map(Number);
  const displayNames = new Map(models.map((m) => [modelKey(m.name), m.displayName]));
  const knownTrims = new Set<string>();
  for (const m of models) for (const t of m.trims) knownTrims.add(t.name.trim().toLowerCase()).add(t.displayName.trim().toLowerCase());
  for (const ladder of Object.values(rest.configs.trimPatterns)) for (const t of ladder) knownTrims.add(t.trim().toLowerCase());
  const scores = typeof priorityScores === 'string' ? (JSON.parse(priorityScores) as Record<string, number>) : (priorityScores ?? {});
  const plans = allPagePlans(slotPlanContext({ ...rest.configs, models, manufacturerRules, inventoryRules, priorityScores: scores }));
  return { ...rest, provider: rest.provider as Provider, sizes: row.storage.bannerSizes, displayNames, knownTrims, plans, beaconModels: beaconModels(plans), boundaries: boundaryList };
}

/**
 * The slot-plan context of a dealer from its configs, catalogue, manufacturer rules, inventory
 * rules (null without inventory data) and priority scores: the one place the page plans of the
 * read model are built from.
 */
function slotPlanContext(d: {
  modelMap: Record<string, string>;
  upsellMap: Record<string, string>;
  customUpsellRules: Record<string, string>;
  customUpsellLogic: SlotPlanContext['strategy'];
  inventoryWeights: Record<string, number>;
  models: SlotPlanContext['catalogue'];
  manufacturerRules: Record<string, string>;
  inventoryRules: Record<string, string> | null;
  priorityScores: Record<string, number>;
}): SlotPlanContext {
  return {
    catalogue: d.models,
    modelMap: d.modelMap,
    strategy: d.customUpsellLogic,
    manufacturerRules: d.manufacturerRules,
    dealerUpsellMap: d.upsellMap,
    customRules: d.customUpsellRules,
    inventoryRules: d.inventoryRules,
    weights: d.inventoryWeights,
    priorityScores: d.priorityScores,
  };
}
