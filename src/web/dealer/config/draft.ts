/**
 * Local editing state of the configuration forms (spec 02 §4 Config editing): key/value rows that
 * become records on save (renaming a key drops the old one, an empty key is not stored) and the
 * standard models offered by the selects. Unset weights are not filled in here: the server and
 * delivery treat a missing weight as neutral.
 */
export interface Row {
  id: number;
  key: string;
  value: string;
}

let nextId = 1;

/** Rows of a record, sorted by key (the database does not keep key order). */
export function toRows(rec: Record<string, string>): Row[] {
  return Object.entries(rec)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => ({ id: nextId++, key, value }));
}

/** An empty row (Add Mapping / Add Rule). */
export function emptyRow(): Row {
  return { id: nextId++, key: '', value: '' };
}

/**
 * The record the rows stand for: trimmed keys and values; rows with an empty key or value are not
 * stored; a later row wins over an earlier one with the same key. Any key, "__proto__" included,
 * becomes an own property.
 */
export function toRecord(rows: Row[]): Record<string, string> {
  return Object.fromEntries(rows.map((r) => [r.key.trim(), r.value.trim()] as const).filter(([key, value]) => key && value));
}

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
