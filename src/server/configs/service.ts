/**
 * Dealer configuration (spec 02 §2 Configuration manager and Upsell rules, §4 Config editing and
 * Upsell strategy, §5 Configuration; DECISIONS 2, 14, 22-23): read and save the editable configs
 * and banner sizes all-or-nothing, the manufacturer defaults for 'Reset', the active upsell rules
 * per strategy, the banner preview through the delivery choice, and dashboard trends.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { assets, dealerInventory, dealers, manufacturers } from '../db/schema';
import {
  bannerSizesSchema,
  dealerConfigsSchema,
  type BannerSizes,
  type DealerConfigs,
  type Variant,
} from '../../domain/schemas';
import { copySizes, DEFAULT_WEIGHT, defaultDealerConfigs, weightLabel } from '../../domain/defaults';
import { priorityLabel, raisedPriority, PRIORITY_MAX } from '../../domain/priority-scale';
import { TEXT } from '../../domain/constants';
import { SLOT_TYPES, SLOTS } from '../../domain/slots';
import { activeUpsellRules } from '../../domain/upsell';
import { trendPercent } from '../../domain/metrics';
import { previousWindow, spanWindow } from '../../domain/periods';
import { Conflict, Invalid, NotFound } from '../errors';
import { parseWindowInput, WINDOW_FORMAT_MESSAGE } from '../../domain/schedule';
import { windowTimeZone } from '../assets/service';
import { assertValid } from '../validation';
import type { ConfigsUpdate, ConfigsView, CoverageAnswer, EditableConfigs, RaisedPriority, StatsWithTrend } from '../../domain/contracts/configs';
import type { PreviewSlot, UpsellRulesView } from '../../domain/configs';
import type { InventorySummaryView } from '../../domain/inventory';
import { resolveBanner, type DeliveryContext } from '../delivery/service';
import type { DealerDelivery, DealerSites } from '../dealer-sites';
import { regenerateInventoryRules } from '../inventory/service';
import { shapeMismatch } from '../../domain/asset-choice';
import { modelKey } from '../../domain/model-keys';
import type { CdnProber } from '../delivery/cdn-probe';
import { dealerStats } from '../reporting/service';
import { dealerWithManufacturer } from '../dealers/service';

// Shapes of the routes: src/domain/contracts/configs.ts.
export type { ConfigsUpdate, ConfigsView, EditableConfigs, StatsWithTrend } from '../../domain/contracts/configs';

function pick(configs: DealerConfigs, bannerSizes: BannerSizes): EditableConfigs {
  return {
    modelMap: configs.modelMap,
    upsellMap: configs.upsellMap,
    trimPatterns: configs.trimPatterns,
    inventoryWeights: configs.inventoryWeights,
    customUpsellLogic: configs.customUpsellLogic,
    customUpsellRules: configs.customUpsellRules,
    bannerSizes,
    // Rows stored before these settings existed read as their defaults.
    dataLayerEvents: configs.dataLayerEvents !== false,
    emptySlots: configs.emptySlots === 'hide' ? 'hide' : 'placeholder',
  };
}

/** The dealer's settings with its manufacturer's defaults. @throws NotFound('Dealer not found'). */
function loadRow(db: Db, dealerId: string) {
  return dealerWithManufacturer(db, dealerId, {
    configs: dealers.configs,
    storage: dealers.assetStorage,
    version: dealers.version,
    provider: dealers.provider,
    manufacturerId: manufacturers.id,
    manufacturerName: manufacturers.name,
    defaultModelMappings: manufacturers.defaultModelMappings,
    defaultUpsellRules: manufacturers.defaultUpsellRules,
    defaultTrimPatterns: manufacturers.defaultTrimPatterns,
  });
}

/** The dealer's editable configs and banner sizes (GET /api/dealers/:dealerId/configs). @throws NotFound('Dealer not found'). */
export async function getConfigs(db: Db, dealerId: string): Promise<ConfigsView> {
  const row = await loadRow(db, dealerId);
  return {
    ...pick(row.configs, row.storage.bannerSizes),
    manufacturer: { id: row.manufacturerId, name: row.manufacturerName },
    version: row.version,
  };
}

/**
 * Saves the given config fields in ONE transaction holding the dealer row lock: the body is already
 * validated by the route's configsUpdateSchema; the merged configs and sizes are validated again whole, so an
 * invalid value anywhere leaves every saved value unchanged. The database bumps dealers.version
 * (migration 0007: delivery caches).
 * @throws NotFound('Dealer not found'), Invalid naming the field of the merged configs.
 */
export async function saveConfigs(db: Db, dealerId: string, update: ConfigsUpdate): Promise<ConfigsView> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ configs: dealers.configs, storage: dealers.assetStorage })
      .from(dealers)
      .where(eq(dealers.id, dealerId))
      .for('update');
    if (!row) throw new NotFound(TEXT.dealerNotFound);
    const { bannerSizes, ...configFields } = update;
    const configs = assertValid(dealerConfigsSchema, { ...row.configs, ...configFields });
    const storage = { ...row.storage, bannerSizes: assertValid(bannerSizesSchema, bannerSizes ?? row.storage.bannerSizes) };
    await tx.update(dealers).set({ configs, assetStorage: storage }).where(eq(dealers.id, dealerId));
    await regenerateInventoryRules(tx, dealerId); // weights and rules feed the inventory strategy's choice
  });
  return getConfigs(db, dealerId);
}

/**
 * 'Raise upsell priority' (Analytics, Inventory; domain/priority-scale.ts raisedPriority): in ONE
 * transaction holding the dealer row lock, moves the model's upsell priority (its inventoryWeights
 * entry; DEFAULT_WEIGHT when unset) up one band and stores it, so two raises never overwrite each
 * other and the server alone computes the step. `model` is matched by modelKey against the stored
 * priorities, then the standard models of the mappings; the answer names it as stored.
 * @throws NotFound('Dealer not found'), NotFound when the dealer has no such standard model,
 * Conflict when the priority is already the highest (10).
 */
export async function raiseUpsellPriority(db: Db, dealerId: string, model: string): Promise<RaisedPriority> {
  const done = await db.transaction(async (tx) => {
    const [row] = await tx.select({ configs: dealers.configs }).from(dealers).where(eq(dealers.id, dealerId)).for('update');
    if (!row) throw new NotFound(TEXT.dealerNotFound);
    const key = modelKey(model);
    const weights = row.configs.inventoryWeights;
    const name =
      Object.keys(weights).find((k) => modelKey(k) === key) ?? [...new Set(Object.values(row.configs.modelMap))].find((m) => modelKey(m) === key);
    if (name === undefined) throw new NotFound(`Model '${model}' is not one of this dealer's standard models`);
    const from = Object.hasOwn(weights, name) ? weights[name]! : DEFAULT_WEIGHT;
    const priority = raisedPriority(from);
    if (priority === null) throw new Conflict(`${name} already has the highest upsell priority (${PRIORITY_MAX})`);
    const configs = assertValid(dealerConfigsSchema, { ...row.configs, inventoryWeights: { ...weights, [name]: priority } });
    await tx.update(dealers).set({ configs }).where(eq(dealers.id, dealerId));
    await regenerateInventoryRules(tx, dealerId); // weights feed the inventory strategy's choice
    return { model: name, from, priority };
  });
  return { ...done, label: priorityLabel(done.priority), configs: await getConfigs(db, dealerId) };
}

/**
 * 'Reset to {manufacturer} Defaults' data (spec 02 §4): the manufacturer's default mappings, upsell
 * rules and trim patterns, weight 5 for every canonical model of those mappings, the standard banner
 * sizes. Nothing is stored; the UI still needs Save. @throws NotFound('Dealer not found').
 */
export async function manufacturerDefaults(db: Db, dealerId: string): Promise<Omit<EditableConfigs, 'customUpsellLogic' | 'customUpsellRules' | 'dataLayerEvents' | 'emptySlots'>> {
  const row = await loadRow(db, dealerId);
  const d = defaultDealerConfigs(
    { defaultModelMappings: row.defaultModelMappings, defaultUpsellRules: row.defaultUpsellRules, defaultTrimPatterns: row.defaultTrimPatterns },
    row.configs.providerConfig.type,
  );
  return {
    modelMap: d.modelMap,
    upsellMap: d.upsellMap,
    trimPatterns: d.trimPatterns,
    inventoryWeights: d.inventoryWeights,
    bannerSizes: copySizes(),
  };
}

/** The dealer's inventory summary and inventory-optimised upsell rules, or null without inventory data. */
export async function inventoryRules(db: Db, dealerId: string): Promise<{ summary: InventorySummaryView; rules: Record<string, string> } | null> {
  const [row] = await db
    .select({
      // Only the totals: the model breakdown (with every vehicle) is not read.
      summary: sql<InventorySummaryView>`(${dealerInventory.data} - 'modelBreakdown')`,
      rules: dealerInventory.upsellRules,
    })
    .from(dealerInventory)
    .where(eq(dealerInventory.dealerId, dealerId));
  if (!row) return null;
  const s = typeof row.summary === 'string' ? (JSON.parse(row.summary) as InventorySummaryView) : row.summary;
  return {
    summary: {
      totalUnits: Number(s.totalUnits ?? 0),
      modelCount: Number(s.modelCount ?? 0),
      agedUnits: Number(s.agedUnits ?? 0),
      avgDaysOnLot: Number(s.avgDaysOnLot ?? 0),
      lastUpdated: String(s.lastUpdated ?? ''),
    },
    rules: row.rules,
  };
}

/**
 * The active upsell rules per strategy (GET /api/dealers/:dealerId/upsell-rules; spec 02 §2 Upsell
 * rules, spec 01 §9): manufacturer -> the dealer's upsellMap (or the manufacturer's rules when empty),
 * inventory -> dealer_inventory.upsell_rules ({} without inventory data), custom -> customUpsellRules.
 * @throws NotFound('Dealer not found').
 */
export async function upsellRules(db: Db, dealerId: string): Promise<UpsellRulesView> {
  const row = await loadRow(db, dealerId);
  const inv = await inventoryRules(db, dealerId);
  const src = {
    manufacturerRules: row.defaultUpsellRules,
    dealerUpsellMap: row.configs.upsellMap,
    customRules: row.configs.customUpsellRules,
    inventoryRules: inv?.rules ?? null,
  };
  const rules = {
    manufacturer: activeUpsellRules('manufacturer', src),
    inventory: activeUpsellRules('inventory', src),
    custom: activeUpsellRules('custom', src),
  };
  const strategy = row.configs.customUpsellLogic;
  return { strategy, rules, active: rules[strategy], manufacturerDefaults: row.defaultUpsellRules, inventory: inv?.summary ?? null };
}

/**
 * The banner preview (GET /api/dealers/:dealerId/preview; spec 02 §2 Banner Preview, §4 "Preview asset
 * choice", DECISIONS 14): for header, primary and upsell, the server-side `resolveBanner` answer the
 * delivery endpoint gives for the same model, slot and device (`cdn`: the app's CDN prober,
 * app.cdnProbes). The upsell slot also lists the candidates weighed, best first, with their
 * weights and labels; each slot lists the creatives it rotates. @throws NotFound for an unknown dealer.
 */
export async function previewSlots(ctx: PreviewContext, dealerId: string, q: PreviewRequest, cdn: CdnProber): Promise<PreviewSlot[]> {
  const dealer = await ctx.dealerSites.find(dealerId);
  if (!dealer) throw new NotFound('Unknown dealer');
  return dealerPreviewSlots(ctx, dealer, q, cdn);
}

/** What Preview and the coverage matrix need: the delivery context and the dealer read models (the Fastify app is one). */
export type PreviewContext = DeliveryContext & { dealerSites: DealerSites };

/** One Preview request: the page model, trim and device; `asOf` true when it is for another moment than now (ctx.now is then that moment). */
type PreviewRequest = { model: string; trim?: string; variant: Variant; asOf?: boolean };

/**
 * The moment Preview and the coverage matrix choose for: `asOf` (a date-time, local ones in the
 * dealer's time zone) or else `ctx.now()`, with a context whose clock answers it, so the one
 * choice (delivery/service.ts resolveBanner) decides as it will at that moment.
 * @throws Invalid naming `asOf` for a text that is no real date-time; NotFound for an unknown dealer.
 */
export async function previewMoment(ctx: PreviewContext, dealerId: string, asOf: string | undefined): Promise<{ ctx: PreviewContext; at: Date; given: boolean }> {
  if (asOf === undefined || asOf === '') return { ctx, at: ctx.now(), given: false };
  const at = parseWindowInput(asOf, await windowTimeZone(ctx.db, dealerId));
  if (!at) throw Invalid.field('asOf', WINDOW_FORMAT_MESSAGE, 'invalid_format');
  return { ctx: { db: ctx.db, caches: ctx.caches, metrics: ctx.metrics, dealerSites: ctx.dealerSites, now: () => at }, at, given: true };
}

/** previewSlots for a dealer already looked up. */
async function dealerPreviewSlots(ctx: DeliveryContext, dealer: DealerDelivery, q: PreviewRequest, cdn: CdnProber): Promise<PreviewSlot[]> {
  const dealerId = dealer.id;
  const out: PreviewSlot[] = [];
  for (const slot of SLOT_TYPES) {
    const r = await resolveBanner(ctx, dealer, { model: q.model, type: slot, variant: q.variant, trim: q.trim }, cdn);
    const params = new URLSearchParams({ model: q.model, type: slot, variant: q.variant });
    if (q.trim) params.set('trim', q.trim);
    params.set('v', String(r.version));
    const live = (p: URLSearchParams) => `/api/scripts/${encodeURIComponent(dealerId)}/asset?${p.toString()}`;
    // As of another moment the public endpoint (which chooses for now) may show something else:
    // the chosen asset's own image, the placeholder itself, or the CDN or fallback URL instead.
    const assetImage = (id: string) => `/api/dealers/${encodeURIComponent(dealerId)}/assets/${id}/image`;
    const url = (p: URLSearchParams, assetId: string | null = r.assetId) => {
      if (!q.asOf) return live(p);
      if (assetId) return assetImage(assetId);
      if (r.url) return r.url;
      p.set('placeholder', '1');
      return live(p);
    };
    out.push({
      rotation: r.rotation.map((a, i) => ({ assetId: a.id, assetName: null, imageUrl: url(new URLSearchParams([...params, ['r', String(i)]]), a.id) })),
      slot,
      model: r.displayName,
      modelKey: r.modelKey,
      status: r.source === 'placeholder' ? 'Missing' : r.creative && shapeMismatch(r.creative, r) ? 'mismatch' : 'found',
      creative: r.creative,
      source: r.source,
      assetId: r.assetId,
      assetName: null,
      width: r.width,
      height: r.height,
      imageUrl: url(params),
      // The upsell choice explained: the candidates weighed, best first, with their weights.
      ...(SLOTS[slot].shows === 'upsell' && {
        candidates: (r.dealer.plans.get(modelKey(q.model))?.candidates ?? []).map((c) => ({ model: c.model.displayName, weight: c.weight, label: weightLabel(c.weight), rule: c.rule })),
      }),
    });
  }
  const ids = [...new Set(out.flatMap((s) => [...(s.assetId ? [s.assetId] : []), ...s.rotation.map((a) => a.assetId)]))];
  if (ids.length > 0) {
    const names = await ctx.db
      .select({ id: assets.id, name: assets.name })
      .from(assets)
      .where(and(eq(assets.dealerId, dealerId), inArray(assets.id, ids)));
    const nameOf = (id: string | null) => names.find((n) => n.id === id)?.name ?? null;
    for (const s of out) {
      s.assetName = nameOf(s.assetId);
      for (const a of s.rotation) a.assetName = nameOf(a.assetId);
    }
  }
  return out;
}

/**
 * The coverage matrix (GET /api/dealers/:dealerId/coverage): for every standard model of
 * the dealer (a page plan whose key is the model's own, by display name), `previewSlots` on desktop
 * and on mobile, so each cell is what delivery answers for that model, slot and device (at
 * `ctx.now()`: `asOf` true when that is another moment than now, previewMoment).
 * @throws NotFound for an unknown dealer.
 */
export async function coverage(ctx: PreviewContext, dealerId: string, cdn: CdnProber, asOf = false): Promise<CoverageAnswer['models']> {
  const dealer = await ctx.dealerSites.find(dealerId);
  if (!dealer) throw new NotFound(TEXT.dealerNotFound);
  const out: CoverageAnswer['models'] = [];
  for (const [key, plan] of dealer.plans) {
    if (plan.model.key !== key) continue; // an alias of a standard model (civicsedan -> Civic)
    const [desktop, mobile] = await Promise.all([dealerPreviewSlots(ctx, dealer, { model: key, variant: 'desktop', asOf }, cdn), dealerPreviewSlots(ctx, dealer, { model: key, variant: 'mobile', asOf }, cdn)]);
    out.push({ model: key, displayName: plan.model.displayName, desktop, mobile });
  }
  return out.sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/**
 * Totals of the last `days` days at `now` (the request time) and of the `days` before them, by the
 * windows of domain/periods.ts (spec 02 §2 Dashboard, DECISIONS 18).
 */
export async function statsWithTrend(db: Db, dealerId: string, days: number, now: Date): Promise<StatsWithTrend> {
  const span = { unit: 'day' as const, count: days };
  const window = spanWindow(span, now);
  const prev = previousWindow(window, span);
  const [current, previous] = await Promise.all([dealerStats(db, dealerId, window.from, window.to), dealerStats(db, dealerId, prev.from, prev.to)]);
  return {
    ...current,
    days,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    previous,
    trend: {
      impressions: trendPercent(current.impressions, previous.impressions),
      clicks: trendPercent(current.clicks, previous.clicks),
      ctr: current.ctr !== null && previous.ctr !== null ? trendPercent(current.ctr, previous.ctr) : null,
      conversions: trendPercent(current.conversions, previous.conversions),
    },
  };
}
