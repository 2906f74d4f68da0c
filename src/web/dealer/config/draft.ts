/**
 * Local editing state of the configuration forms (spec 02 §4 Config editing): key/value rows
 * (components/rows.ts) and the standard models offered by the selects. Unset weights are not filled in here: the server and
 * delivery treat a missing weight as neutral.
 */
export { emptyRow, toRecord, toRows, type Row } from '../../components/rows';

/**
 * The value `rec` holds for `key` itself, or undefined: never one inherited from Object.prototype,
 * so a model named "constructor" has no weight until one is set.
 */
export function ownValue<T>(rec: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

/** Distinct standardized models of a model map (its values), sorted; the only models the selects offer (spec 02 §2). */
export function standardModels(modelMap: Record<string, string>): string[] {
  return [...new Set(Object.values(modelMap).map((m) => m.trim()).filter(Boolean))].sort((a, b) => a.localeCompare(b));
}
