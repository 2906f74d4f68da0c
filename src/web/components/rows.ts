/**
 * Key -> value rows: the editing state of a record in a form (a dealer's model mapping and upsell
 * rules, a manufacturer's default mappings and rules), edited by `RowsEditor`. Rows become a
 * record on save: renaming a key drops the old one, an empty key or value is not stored.
 */
export interface Row {
  /** Stable across edits, so React keeps each row's inputs while rows are removed. */
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

/** An empty row (Add Mapping / Add Rule / Add Row). */
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
