/**
 * Filling a manufacturer's default model mappings from its catalogue at once (the manufacturer
 * form's 'Fill from models'): each model's inventory model name is made from a pattern with the
 * model's name, display name or comparison key filled in, and mapped to the model (spec 01 §3
 * defaultModelMappings: inventory model name -> standard model). The plan is shown before it is
 * applied, and applying never removes or changes a row the admin typed: it adds rows, or fills the
 * key of a row that names the model but has no key yet. Keys are compared as delivery compares
 * them (domain/model-keys.ts modelKey, DECISIONS 25), so 'CR-V' and 'crv' are the same key.
 */
import { modelKey } from '../../domain/model-keys';
import { emptyRow, type Row } from '../components/rows';

/** The placeholders a pattern may hold. */
export const FILL_PLACEHOLDERS = ['{name}', '{display}', '{key}'] as const;

/** The default pattern: each model's own name. */
export const DEFAULT_FILL_PATTERN = '{name}';

/** Which models a fill is for: those no row maps to yet, or every model. */
export type FillScope = 'unmapped' | 'all';

/** A catalogue model as the fill reads it. */
export interface FillModel {
  name: string;
  displayName: string;
}

/**
 * What applying does for one model: 'add' a row, 'fill' the empty key of the row naming it, or
 * nothing: 'present' (that row already exists), 'conflict' (the key maps to `other`), 'mapped' (the
 * model has a mapping and only unmapped models are filled), 'duplicate' (an earlier model of this
 * fill gets the same key), 'empty' (the pattern gives no name for it).
 */
export interface FillStep {
  model: string;
  key: string;
  action: 'add' | 'fill' | 'present' | 'conflict' | 'mapped' | 'duplicate' | 'empty';
  /** The model an existing row maps `key` to ('conflict'). */
  other?: string;
}

/** The pattern's problem in the admin's words, or null: it must name the model through a placeholder. */
export function patternProblem(pattern: string): string | null {
  return FILL_PLACEHOLDERS.some((p) => pattern.includes(p)) ? null : `Include ${FILL_PLACEHOLDERS.join(', ')} so each model gets its own name`;
}

/** The inventory model name `pattern` gives `model`: placeholders filled in, spaces trimmed and collapsed. */
export function fillKey(pattern: string, model: FillModel): string {
  return pattern
    .replaceAll('{name}', model.name.trim())
    .replaceAll('{display}', (model.displayName.trim() || model.name).trim())
    .replaceAll('{key}', modelKey(model.name))
    .trim()
    .replace(/\s+/g, ' ');
}

/** The plan of a fill: one step per named model, in catalogue order. Pure; `rows` are not changed. */
export function planFill(rows: Row[], models: FillModel[], pattern: string, scope: FillScope): FillStep[] {
  const taken = new Set<string>();
  return models
    .filter((m) => m.name.trim())
    .map((m): FillStep => {
      const model = m.name.trim();
      const key = fillKey(pattern, m);
      const k = modelKey(key);
      if (!k) return { model, key, action: 'empty' };
      if (taken.has(k)) return { model, key, action: 'duplicate' };
      taken.add(k);
      const same = rows.find((r) => r.key.trim() && modelKey(r.key) === k);
      if (same) return same.value.trim() === model ? { model, key, action: 'present' } : { model, key, action: 'conflict', other: same.value.trim() };
      const naming = rows.filter((r) => r.value.trim() === model);
      if (naming.some((r) => !r.key.trim())) return { model, key, action: 'fill' };
      if (scope === 'unmapped' && naming.length > 0) return { model, key, action: 'mapped' };
      return { model, key, action: 'add' };
    });
}

/** The rows after applying `plan`: every row kept as it was, empty keys filled, new rows added at the end. */
export function applyFill(rows: Row[], plan: FillStep[]): Row[] {
  const fills = new Map(plan.filter((s) => s.action === 'fill').map((s) => [s.model, s.key]));
  const next = rows.map((r) => {
    const key = !r.key.trim() ? fills.get(r.value.trim()) : undefined;
    if (key === undefined) return r;
    fills.delete(r.value.trim());
    return { ...r, key };
  });
  return [...next, ...plan.filter((s) => s.action === 'add').map((s) => ({ ...emptyRow(), key: s.key, value: s.model }))];
}

/** How many rows applying `plan` adds or fills. */
export const changesOf = (plan: FillStep[]) => plan.filter((s) => s.action === 'add' || s.action === 'fill').length;
