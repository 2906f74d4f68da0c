/**
 * Upsell rules: the active rule set per strategy and the inventory-optimised selection
 * (spec 01 §9 "Optimal upsell rule selection", spec 02 §2 Upsell rules).
 */
import type { UpsellStrategy } from './schemas';
import { modelKey } from './model-keys';

/** Minimum units for a trim or a candidate model to count as "in depth" (spec 01 §9). */
export const UPSELL_MIN_UNITS = 5;
/** Minimum distinct trims of a candidate model (spec 01 §9). */
export const UPSELL_MIN_TRIMS = 2;
/** Candidate refused when this share (or more) of its units is aged (spec 01 §9). */
export const UPSELL_MAX_AGED_SHARE = 0.6;

export interface UpsellBreakdown {
  totalUnits: number;
  agedUnits: number;
  /** trim -> units, in the order the trims were first seen. */
  trims: Record<string, number>;
}

/**
 * Inventory-optimised rules, per model of the breakdown (keys compared by modelKey):
 * (1) the model has more than one trim, two or more trims with >= 5 units, and its best-stocked
 *     trim is not its first trim -> a trim upsell (model -> itself, shown as 'Higher Trim');
 * (2) otherwise the first candidate with >= 5 units, >= 2 trims and an aged share under 60 %;
 * (3) otherwise the existing mapping when its target is in stock.
 * Models matching none get no rule.
 */
export function optimalUpsellRules(input: {
  breakdown: Record<string, UpsellBreakdown>;
  candidates: Record<string, string[]>;
  existing: Record<string, string>;
}): Record<string, string> {
  const byKey = new Map(Object.entries(input.breakdown).map(([k, v]) => [modelKey(k), v]));
  const lookup = <T>(rec: Record<string, T>, model: string): T | undefined =>
    Object.entries(rec).find(([k]) => modelKey(k) === modelKey(model))?.[1];
  const rules: Record<string, string> = {};
  for (const [model, b] of Object.entries(input.breakdown)) {
    const trims = Object.entries(b.trims);
    const deep = trims.filter(([, n]) => n >= UPSELL_MIN_UNITS);
    const top = [...trims].sort((x, y) => y[1] - x[1])[0];
    if (trims.length > 1 && deep.length >= 2 && top && top[0] !== trims[0]![0]) {
      rules[model] = model;
      continue;
    }
    const candidate = (lookup(input.candidates, model) ?? []).find((c) => {
      const cb = byKey.get(modelKey(c));
      return (
        cb !== undefined &&
        cb.totalUnits >= UPSELL_MIN_UNITS &&
        Object.keys(cb.trims).length >= UPSELL_MIN_TRIMS &&
        cb.agedUnits / cb.totalUnits < UPSELL_MAX_AGED_SHARE
      );
    });
    if (candidate) {
      rules[model] = candidate;
      continue;
    }
    const current = lookup(input.existing, model);
    if (current && (byKey.get(modelKey(current))?.totalUnits ?? 0) > 0) rules[model] = current;
  }
  return rules;
}

/**
 * The rules in force for a dealer's strategy: 'manufacturer' -> the dealer's copy of the
 * manufacturer rules (the catalogue's when the copy is empty); 'custom' -> the dealer's own rules;
 * 'inventory' -> the rules generated from its inventory ({} without inventory data).
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

/** The upsell target of a model under a rule set (keys compared by modelKey), else the model itself. */
export function upsellTarget(model: string, rules: Record<string, string>): string {
  const key = modelKey(model);
  for (const [from, to] of Object.entries(rules)) if (modelKey(from) === key) return to;
  return model;
}

/** A rule whose source and target are the same model is a 'Higher Trim' upsell. */
export function isHigherTrimRule(source: string, target: string): boolean {
  return modelKey(source) === modelKey(target);
}

