/**
 * What a dealer-site slot shows, decided in one place (spec 02 §4 "Preview asset choice",
 * DECISIONS 14): the page model is resolved through the dealer's mappings and the catalogue, and the
 * upsell slot's model is chosen among its candidates by the dealer's inventory weights. The delivery
 * endpoint, the banner Preview, the embed script's per-page plan and the script page summary all
 * call these functions, so the image, the link, the alt text and every beacon of a slot name the
 * same model. Browser-safe (no Node APIs).
 */
import type { UpsellStrategy, VehicleModel } from './schemas';
import { beaconModelKey, MODEL_ALIASES, modelKey, UNKNOWN_MODEL_KEY } from './model-keys';
import { activeUpsellRules, rankCandidates } from './upsell';
import { DEFAULT_WEIGHT } from './defaults';

/** Everything the choice reads, per dealer version. Model names anywhere are matched by modelKey. */
export interface SlotPlanContext {
  /** The manufacturer's catalogue, in catalogue order. */
  catalogue: ReadonlyArray<Pick<VehicleModel, 'name' | 'displayName' | 'upsellTargets'>>;
  /** The dealer's model mappings: source model (as inventories and URLs write it) -> standard model. */
  modelMap: Record<string, string>;
  strategy: UpsellStrategy;
  manufacturerRules: Record<string, string>;
  /** The dealer's copy of the manufacturer rules (spec 02 §2), used instead of them when not empty. */
  dealerUpsellMap: Record<string, string>;
  customRules: Record<string, string>;
  /** The inventory-optimised rules (dealer_inventory.upsell_rules), null without inventory data. */
  inventoryRules: Record<string, string> | null;
  /** Standard model -> inventory weight 1..10 (DEFAULT_WEIGHT when absent). */
  weights: Record<string, number>;
  /** Standard model -> inventory priority score 1..10 (spec 02 §9), empty without inventory data. */
  priorityScores: Record<string, number>;
}

/** A model as a slot shows it. */
export interface PlannedModel {
  /** The standard model name ('cr-v'). */
  name: string;
  /** Its comparison key ('crv'): what X-Banner-Model answers and beacons are stored under. */
  key: string;
  /** The catalogue's display name ('CR-V'), else the standard name. */
  displayName: string;
}

/** One upsell candidate as it was ranked (what Preview explains). */
export interface RankedCandidate {
  model: PlannedModel;
  /** Its inventory weight 1..10 (DEFAULT_WEIGHT when the dealer set none). */
  weight: number;
  /** True for the active strategy's own rule target (it wins ties on weight). */
  rule: boolean;
}

/** The models the three slots of one page model show: header and primary the page's model, upsell its target. */
export interface PagePlan {
  model: PlannedModel;
  upsell: PlannedModel;
  /** The upsell candidates considered, best first (the first is `upsell`); empty when the upsell slot shows the model itself for want of any. */
  candidates: RankedCandidate[];
}

/** The entry of `rec` whose key has the comparison key `key`, if any (own keys only). */
function lookup<T>(rec: Record<string, T>, key: string): T | undefined {
  for (const [k, v] of Object.entries(rec)) if (modelKey(k) === key) return v;
  return undefined;
}

function planned(ctx: SlotPlanContext, name: string): PlannedModel {
  const key = modelKey(name);
  const entry = ctx.catalogue.find((m) => modelKey(m.name) === key || modelKey(m.displayName) === key);
  return { name: entry?.name ?? name, key: modelKey(entry?.name ?? name), displayName: entry?.displayName ?? name };
}

/**
 * The standard model a page's model is, or null when it maps to nothing: a mapping source with the
 * same key (the dealer's mappings win), else a catalogue model by name or display name, else a
 * mapping target. A null answer hides the page's slots (no placeholder, no impression).
 */
export function standardModelOf(pageModel: string, ctx: SlotPlanContext): PlannedModel | null {
  const key = modelKey(pageModel);
  if (!key) return null;
  const mapped = lookup(ctx.modelMap, key);
  if (mapped !== undefined && modelKey(mapped)) return planned(ctx, mapped);
  if (ctx.catalogue.some((m) => modelKey(m.name) === key || modelKey(m.displayName) === key)) return planned(ctx, pageModel);
  const target = Object.values(ctx.modelMap).find((v) => modelKey(v) === key);
  return target ? planned(ctx, target) : null;
}

/**
 * Upsell candidates of a standard model, best first before weighting: the active strategy's rule
 * target; under the manufacturer strategy also the catalogue model's upsellTargets (the inventory
 * strategy's candidates were weighed when its rules were generated, optimalUpsellRules; custom
 * rules are the dealer's exact choice). The model itself is not a candidate unless a rule says so
 * ('Higher Trim'). `fromRule` says the first candidate is the strategy's rule target.
 */
export function upsellCandidates(model: PlannedModel, ctx: SlotPlanContext): { list: string[]; fromRule: boolean } {
  const rules = activeUpsellRules(ctx.strategy, {
    manufacturerRules: ctx.manufacturerRules,
    dealerUpsellMap: ctx.dealerUpsellMap,
    customRules: ctx.customRules,
    inventoryRules: ctx.inventoryRules,
  });
  const out: string[] = [];
  const rule = lookup(rules, model.key);
  if (rule !== undefined && modelKey(rule)) out.push(rule);
  if (ctx.strategy === 'manufacturer') {
    const entry = ctx.catalogue.find((m) => modelKey(m.name) === model.key);
    for (const t of entry?.upsellTargets ?? []) if (modelKey(t) !== model.key && !out.some((o) => modelKey(o) === modelKey(t))) out.push(t);
  }
  return { list: out, fromRule: rule !== undefined && modelKey(rule) !== '' };
}

/**
 * The plan of one page model: what header/primary and upsell show, or null when the page model
 * maps to nothing (the slots are hidden). The upsell slot shows the best-ranked candidate, or the
 * page's model itself when it has none (spec 02 §4: "the upsell target of the model (or the model
 * itself)"). `candidates` keeps the ranking with each candidate's weight, so Preview can say why.
 */
export function pagePlan(pageModel: string, ctx: SlotPlanContext): PagePlan | null {
  const model = standardModelOf(pageModel, ctx);
  if (!model) return null;
  const candidates = upsellCandidates(model, ctx);
  const rule = candidates.fromRule ? candidates.list[0] : undefined;
  const ranked = rankCandidates(candidates.list, ctx.weights, ctx.priorityScores, candidates.fromRule).map((name) => ({
    model: planned(ctx, name),
    weight: lookup(ctx.weights, modelKey(name)) ?? DEFAULT_WEIGHT,
    rule: name === rule,
  }));
  return { model, upsell: ranked[0]?.model ?? model, candidates: ranked };
}

/**
 * Every page model key a dealer's pages can carry (mapping sources and targets, catalogue names
 * and display names) with its plan: what the embed script is given, so it needs no round trip to
 * know a slot's model. Keys are modelKey values.
 */
export function allPagePlans(ctx: SlotPlanContext): Map<string, PagePlan> {
  const names = [...Object.keys(ctx.modelMap), ...Object.values(ctx.modelMap), ...ctx.catalogue.flatMap((m) => [m.name, m.displayName])];
  const out = new Map<string, PagePlan>();
  for (const n of names) {
    const key = modelKey(n);
    if (!key || out.has(key)) continue;
    const plan = pagePlan(n, ctx);
    if (plan) out.set(key, plan);
  }
  return out;
}

/**
 * The beacon model keys (beaconModelKey) a dealer's pages can report, from its page plans
 * (allPagePlans): every page model key (mapping sources and targets, catalogue names and display
 * names) and every model a slot shows (header/primary and the upsell target). Its size is bounded
 * by the dealer's mappings and catalogue, whatever beacons arrive.
 */
export function beaconModels(plans: ReadonlyMap<string, PagePlan>): Set<string> {
  const out = new Set<string>();
  const add = (name: string) => {
    const key = beaconModelKey(name);
    if (key) out.add(key);
  };
  for (const [key, plan] of plans) {
    add(key);
    add(plan.model.key);
    add(plan.upsell.key);
  }
  return out;
}

/**
 * The key a beacon's model (`key`, a beaconModelKey) is counted under: itself when the dealer's
 * pages know it (`known`, beaconModels), else the known model its alias names (MODEL_ALIASES:
 * 'silverado1500' -> 'silverado'), else UNKNOWN_MODEL_KEY.
 */
export function countedModelKey(known: ReadonlySet<string>, key: string): string {
  if (known.has(key)) return key;
  const alias = Object.hasOwn(MODEL_ALIASES, key) ? beaconModelKey(MODEL_ALIASES[key]!) : '';
  return alias && known.has(alias) ? alias : UNKNOWN_MODEL_KEY;
}
