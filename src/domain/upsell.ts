/**
 * Upsell rules: the active rule set per strategy and the inventory-optimised selection
 * (spec 01 §9 "Optimal upsell rule selection", spec 02 §2 Upsell rules, §4 Upsell strategy).
 */
import type { UpsellStrategy } from './schemas';
import { modelKey } from './model-keys';
import { DEFAULT_WEIGHT } from './defaults';

/** Minimum units for a trim or a candidate model to count as "in depth" (spec 01 §9). */
export const UPSELL_MIN_UNITS = 5;
/** Minimum distinct trims of a candidate model (spec 01 §9). */
export const UPSELL_MIN_TRIMS = 2;
/** A candidate is refused when this share (or more) of its units is aged (spec 01 §9: "under 60%"). */
export const UPSELL_MAX_AGED_SHARE = 0.6;

/** One model's inventory as the upsell selection reads it (spec 02 §3 ModelBreakdown). */
export interface UpsellBreakdown {
  totalUnits: number;
  agedUnits: number;
  /** trim -> units, in the order the trims were first seen in the inventory. */
  trims: Record<string, number>;
  /** Inventory priority score 1..10 (spec 02 §9); breaks ties between equally weighted candidates. */
  priorityScore?: number;
}

/** The value of `rec` whose key has the same modelKey as `model`, if any. */
function byModel<T>(rec: Record<string, T>, model: string): T | undefined {
  const key = modelKey(model);
  for (const [k, v] of Object.entries(rec)) if (modelKey(k) === key) return v;
  return undefined;
}

/**
 * Orders upsell candidates: the higher inventory weight first
 * (so a Low Priority model, weight 1-3, is never chosen while a Normal or High one is a candidate);
 * on equal weight the first candidate when `ruleFirst` (it is the strategy's own rule: the dealer's
 * explicit choice), then the higher inventory priority score, then the given (catalogue) order.
 * Returns a new array; `weights`/`scores` are keyed by standard model name (matched by modelKey).
 */
export function rankCandidates(candidates: string[], weights: Record<string, number>, scores: Record<string, number>, ruleFirst = false): string[] {
  const weight = (m: string) => byModel(weights, m) ?? DEFAULT_WEIGHT;
  const score = (m: string) => byModel(scores, m) ?? 0;
  return candidates
    .map((m, i) => ({ m, i }))
    .sort((a, b) => weight(b.m) - weight(a.m) || (ruleFirst ? Number(b.i === 0) - Number(a.i === 0) : 0) || score(b.m) - score(a.m) || a.i - b.i)
    .map((x) => x.m);
}

/**
 * Inventory-optimised upsell rules (spec 01 §9 "Optimal upsell rule selection").
 * Input: `breakdown` model -> inventory; `candidates` model -> upsell candidates, best first (the
 * catalogue's upsellTargets); `existing` model -> current target. Model names in all three are
 * matched by modelKey. Output: source model (the breakdown's key) -> target; models matching no
 * step get no rule. Per model of the breakdown, the first step that applies:
 * 1. Trim-based: more than one trim, at least two trims with >= 5 units, and the top trim (highest
 *    count; on a tie the one listed first) is not the first trim listed -> model -> model itself
 *    (shown as 'Higher Trim').
 * 2. Among the candidates (other than the model itself) whose own breakdown has >= 5 total units,
 *    >= 2 distinct trims and agedUnits / totalUnits < 0.6, the best by rankCandidates (higher
 *    `weights` first, then higher priority score, then the order of `candidates`) ->
 *    model -> candidate (as written in `candidates`). A candidate absent from the breakdown does
 *    not qualify.
 * 3. The existing rule's target, when that target is in stock (its breakdown has totalUnits > 0;
 *    a 'Higher Trim' rule counts when the model itself is in stock).
 * Reading of ambiguities: "first trim" is the first key of `trims` in insertion order (the first
 * trim seen in the inventory; note JS lists integer-like keys such as "1500" first), not the
 * catalogue's entry trim; "in stock" is judged on the target model, not the source.
 * Any model name is a key of the result, "__proto__" and "constructor" included (own properties).
 */
export function optimalUpsellRules(input: {
  breakdown: Record<string, UpsellBreakdown>;
  candidates: Record<string, string[]>;
  existing: Record<string, string>;
  /** Model -> inventory weight 1..10: qualifying candidates are ranked by rankCandidates. */
  weights?: Record<string, number>;
}): Record<string, string> {
  const scores = Object.fromEntries(Object.entries(input.breakdown).flatMap(([m, b]) => (b.priorityScore === undefined ? [] : [[m, b.priorityScore]])));
  const rules = new Map<string, string>();
  for (const [model, b] of Object.entries(input.breakdown)) {
    const trims = Object.entries(b.trims);
    const deep = trims.filter(([, n]) => n >= UPSELL_MIN_UNITS);
    let top = trims[0];
    for (const t of trims) if (top && t[1] > top[1]) top = t;
    if (trims.length > 1 && deep.length >= 2 && top !== trims[0]) {
      rules.set(model, model);
      continue;
    }
    const qualifying = (byModel(input.candidates, model) ?? []).filter((c) => {
      if (modelKey(c) === modelKey(model)) return false;
      const cb = byModel(input.breakdown, c);
      return (
        cb !== undefined &&
        cb.totalUnits >= UPSELL_MIN_UNITS &&
        Object.keys(cb.trims).length >= UPSELL_MIN_TRIMS &&
        cb.agedUnits / cb.totalUnits < UPSELL_MAX_AGED_SHARE
      );
    });
    const candidate = rankCandidates(qualifying, input.weights ?? {}, scores)[0];
    if (candidate) {
      rules.set(model, candidate);
      continue;
    }
    const current = byModel(input.existing, model);
    if (current && (byModel(input.breakdown, current)?.totalUnits ?? 0) > 0) rules.set(model, current);
  }
  return Object.fromEntries(rules);
}

/**
 * The rules in force for a dealer's upsell strategy (spec 02 §2 Upsell rules, §4): 'manufacturer'
 * -> the dealer's copy of the manufacturer rules (`dealerUpsellMap`), or `manufacturerRules` when
 * that copy is empty; 'custom' -> `customRules`; 'inventory' -> `inventoryRules`, or {} when there
 * is no inventory data (null). Returns one of the given objects, not a copy.
 */
export function activeUpsellRules(
  strategy: UpsellStrategy,
  src: {
    manufacturerRules: Record<string, string>;
    dealerUpsellMap: Record<string, string>;
    customRules: Record<string, string>;
    inventoryRules: Record<string, string> | null;
  },
): Record<string, string> {
  if (strategy === 'custom') return src.customRules;
  if (strategy === 'inventory') return src.inventoryRules ?? {};
  return Object.keys(src.dealerUpsellMap).length > 0 ? src.dealerUpsellMap : src.manufacturerRules;
}

/** True for a 'Higher Trim' rule: source and target are the same model by modelKey (spec 02 §2). */
export function isHigherTrimRule(source: string, target: string): boolean {
  return modelKey(source) === modelKey(target);
}
