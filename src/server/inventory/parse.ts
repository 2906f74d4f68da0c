/**
 * Inventory parsing shared by manual upload and the automatic feed (spec 02 §3, §5 Inventory
 * upload, §9; DECISIONS 21, 25): JSON in the accepted shapes or CSV through csv-parse, field
 * aliases, skipping used vehicles and vehicles without a model, per-row problems reported
 * without failing the good rows, and the InventoryData with per-model breakdown and priority score.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type { FieldMapping, InventoryData, ModelBreakdown, Vehicle } from '../../domain/schemas';
import { AGED_DAYS, INVENTORY_TEXT, MAX_INVENTORY_BYTES, MAX_VEHICLES } from '../../domain/constants';
import { canonicalModel } from '../../domain/model-keys';
import { priorityScore } from '../../domain/priority-score';
import { Invalid } from '../errors';
import { assertJsonDepth } from '../validation';

/** Aliases per field, compared case-insensitively with spaces, dashes and underscores ignored. */
const ALIASES = {
  model: ['model', 'modelname', 'vehiclemodel'],
  trim: ['trim', 'trimlevel', 'series'],
  year: ['year', 'modelyear'],
  daysOnLot: ['daysinsotck', 'daysinstock', 'daysonlot', 'age', 'agedays'],
  vin: ['vin', 'vinnumber'],
  stock: ['stocknumber', 'stock', 'stockno', 'stocknum'],
  make: ['make', 'brand', 'manufacturer'],
  exteriorColor: ['exteriorcolor', 'extcolor', 'exteriorcolour', 'color', 'colour'],
  interiorColor: ['interiorcolor', 'intcolor', 'interiorcolour'],
  bodyStyle: ['bodystyle', 'body', 'bodytype'],
  certified: ['iscertified', 'certified', 'cpo'],
  cityMPG: ['citympg', 'mpgcity'],
  hwyMPG: ['highwaympg', 'hwympg', 'mpghighway', 'mpghwy'],
  isNew: ['isnew', 'new', 'condition', 'type'],
} as const;
type Field = keyof typeof ALIASES;

const normKey = (k: string) => k.toLowerCase().replace(/[\s_-]+/g, '');

/** Unit counts of one model by trim, year, colour and body style; Maps, so any text is just a key. */
interface ModelCounts {
  trims: Map<string, number>;
  years: Map<string, number>;
  exterior: Map<string, number>;
  interior: Map<string, number>;
  bodyStyles: Map<string, number>;
}

export interface SkippedRow {
  /** 1-based row (CSV data row or array position). */
  row: number;
  /** CSV only: the file's line the record starts on (the header is line 1), as the dealer's editor numbers it (issue 15). */
  line?: number;
  reason: string;
}

export interface ParseResult {
  data: InventoryData;
  skipped: SkippedRow[];
  /** Rows read before filtering. */
  rowsRead: number;
}

export interface ParseOptions {
  /** Dealer model map, so breakdown keys are the dealer's canonical model names. */
  modelMap?: Record<string, string>;
  /** Feed field mapping: field -> source column name, tried before the aliases. */
  fieldMapping?: Partial<FieldMapping>;
  now?: Date;
}

/**
 * The values found where a JSON inventory document may hold its vehicles, in the accepted order
 * (spec 02 §5): the document itself when it is an array, else `Inventory.ListOfVehicles`,
 * `listOfVehicles`, `ListOfVehicles`, `vehicles`, `inventory` (those present, not yet checked to
 * be arrays). Shared by upload and feed, which word their errors differently.
 */
export function vehicleListCandidates(doc: unknown): unknown[] {
  if (Array.isArray(doc)) return [doc];
  if (!doc || typeof doc !== 'object') return [];
  const o = doc as Record<string, unknown>;
  const inv = o.Inventory as Record<string, unknown> | undefined;
  return [inv?.ListOfVehicles, o.listOfVehicles, o.ListOfVehicles, o.vehicles, o.inventory].filter((v) => v !== undefined);
}

/** The vehicle records of a parsed JSON document in one of the accepted shapes. @throws Invalid. */
export function vehicleArray(doc: unknown): unknown[] {
  const list = vehicleListCandidates(doc).find(Array.isArray);
  if (list) return list;
  throw new Invalid(INVENTORY_TEXT.badStructure);
}

/**
 * Parses an uploaded file by its name (.json or .csv). @throws Invalid with the spec's texts or the
 * limits, among them 'Failed to process file: JSON nested too deeply (limit 64 levels)'.
 */
export function parseInventoryFile(filename: string, bytes: Buffer, opts: ParseOptions = {}): ParseResult {
  if (bytes.length > MAX_INVENTORY_BYTES) {
    throw new Invalid(`Inventory file is larger than 20 MB (${MAX_INVENTORY_BYTES} bytes)`);
  }
  const name = filename.toLowerCase();
  if (name.endsWith('.json')) {
    const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
    assertJsonDepth(text, `${INVENTORY_TEXT.failed}: `);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new Invalid(`${INVENTORY_TEXT.failed}: the JSON is malformed (${(e as Error).message})`);
    }
    return buildInventory(vehicleArray(doc), opts);
  }
  if (name.endsWith('.csv')) return parseCsvInventory(bytes, opts);
  throw new Invalid(INVENTORY_TEXT.unsupported);
}

/**
 * CSV through csv-parse (DECISIONS 21): header row, quoted fields with commas and newlines, BOM,
 * CRLF; empty rows dropped. A row whose field count differs from the header's is reported in
 * `skipped` (numbered as data rows, 1 = first row after the header, with the file's line the record
 * starts on) and the rest still count.
 */
function parseCsvInventory(bytes: Buffer, opts: ParseOptions): ParseResult {
  let rows: Array<{ record: string[]; info: { bytes: number } }>;
  try {
    rows = parseCsv(bytes, { bom: true, skip_empty_lines: true, skip_records_with_empty_values: true, relax_column_count: true, info: true }) as unknown as typeof rows;
  } catch (e) {
    throw new Invalid(`${INVENTORY_TEXT.failed}: the CSV is malformed (${(e as Error).message})`);
  }
  const [header, ...data] = rows;
  if (!header) throw new Invalid(`${INVENTORY_TEXT.failed}: the CSV file is empty`);
  const columns = header.record.map((c) => c.trim());
  const lines = recordStartLines(bytes, rows).slice(1);
  const records: unknown[] = [];
  const badRows: SkippedRow[] = [];
  data.forEach(({ record }, i) => {
    if (record.length !== columns.length) {
      badRows.push({ row: i + 1, reason: `line ${lines[i]} has ${record.length} fields, the header has ${columns.length}` });
    } else {
      records.push(Object.fromEntries(columns.map((c, j) => [c, record[j]?.trim() ?? ''])));
    }
  });
  const result = buildInventory(records, opts, badRows.map((b) => b.row));
  result.skipped = [...result.skipped, ...badRows].sort((a, b) => a.row - b.row).map((s) => ({ row: s.row, line: lines[s.row - 1], reason: s.reason }));
  result.rowsRead = data.length;
  return result;
}

/** Line breaks in `text`: CRLF, LF or a lone CR each count once. */
const lineBreaks = (text: string) => text.match(/\r\n|\r|\n/g)?.length ?? 0;

/**
 * The file line (1-based, as an editor numbers it) each parsed CSV record starts on (issue 15).
 * csv-parse's own `info.lines` is the line a record ends on and counts a CRLF inside a quoted
 * field twice, so the lines are counted here from the record's end offset in the file
 * (`info.bytes`, BOM included) minus the line breaks inside its fields. One pass over the file.
 */
export function recordStartLines(bytes: Buffer, rows: ReadonlyArray<{ record: string[]; info: { bytes: number } }>): number[] {
  let pos = 0;
  let breaks = 0;
  return rows.map(({ record, info }) => {
    let end = Math.min(info.bytes, bytes.length);
    // The record's own end: its terminating line break is the next record's business.
    while (end > pos && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end -= 1;
    for (; pos < end; pos += 1) {
      const b = bytes[pos];
      if (b === 0x0a || (b === 0x0d && bytes[pos + 1] !== 0x0a)) breaks += 1;
    }
    return breaks + 1 - record.reduce((n, field) => n + lineBreaks(field), 0);
  });
}

function numberOrNull(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v.replace(/,/g, ''));
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function truthy(v: unknown): boolean {
  return v === true || (typeof v === 'string' && /^(true|yes|y|1|certified)$/i.test(v.trim())) || v === 1;
}

/** False only when the record says the vehicle is not new (IsNew false, or condition/type used). */
function isNewVehicle(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (v === false || v === 0) return false;
  if (typeof v === 'string') return !/^(false|no|n|0|used|pre-?owned|certified pre-?owned|cpo)$/i.test(v.trim());
  return true;
}

/**
 * Builds InventoryData from vehicle records. Rows are reported in `skipped` (1-based positions)
 * when they are not objects, not new, have no model, or carry a non-numeric year or days on lot.
 * `skipRows` are positions already reported by the caller, so numbering stays the file's.
 * @throws Invalid when there are more than 50,000 vehicles or no new vehicle at all.
 */
export function buildInventory(records: unknown[], opts: ParseOptions = {}, skipRows: number[] = []): ParseResult {
  if (records.length > MAX_VEHICLES) throw new Invalid(`Inventory has more than ${MAX_VEHICLES} vehicles (${records.length})`);
  const now = opts.now ?? new Date();
  const currentYear = now.getFullYear();
  const mapped = new Map(
    Object.entries(opts.fieldMapping ?? {}).filter(([, v]) => typeof v === 'string' && v.trim() !== '').map(([k, v]) => [k, normKey(v as string)]),
  );
  const skipped: SkippedRow[] = [];
  const breakdown = new Map<string, { b: ModelBreakdown; days: number; counts: ModelCounts }>();
  const alreadySkipped = new Set(skipRows);
  let row = 0;
  for (const rec of records) {
    row += 1;
    while (alreadySkipped.has(row)) row += 1;
    if (!rec || typeof rec !== 'object' || Array.isArray(rec)) {
      skipped.push({ row, reason: 'not a vehicle object' });
      continue;
    }
    const byKey = new Map(Object.entries(rec as Record<string, unknown>).map(([k, v]) => [normKey(k), v]));
    const get = (f: Field): unknown => {
      const m = mapped.get(f);
      if (m && byKey.has(m)) return byKey.get(m);
      for (const a of ALIASES[f]) if (byKey.has(a)) return byKey.get(a);
      return undefined;
    };
    if (!isNewVehicle(get('isNew'))) {
      skipped.push({ row, reason: 'not a new vehicle (IsNew is false)' });
      continue;
    }
    const rawModel = String(get('model') ?? '').trim();
    if (!rawModel) {
      skipped.push({ row, reason: 'no model' });
      continue;
    }
    const yearRaw = get('year');
    const year = yearRaw === undefined || yearRaw === '' ? currentYear : numberOrNull(yearRaw);
    if (year === null) {
      skipped.push({ row, reason: `year "${String(yearRaw)}" is not a number` });
      continue;
    }
    const daysRaw = get('daysOnLot');
    const days = daysRaw === undefined || daysRaw === '' ? 0 : numberOrNull(daysRaw);
    if (days === null || days < 0) {
      skipped.push({ row, reason: `days on lot "${String(daysRaw)}" is not a number` });
      continue;
    }
    const vehicle: Vehicle = {
      vin: String(get('vin') ?? ''),
      stockNumber: String(get('stock') ?? ''),
      make: String(get('make') ?? ''),
      trim: String(get('trim') ?? '').trim() || 'Base',
      year: Math.round(year),
      daysOnLot: days,
      isAged: days >= AGED_DAYS,
      exteriorColor: String(get('exteriorColor') ?? ''),
      interiorColor: String(get('interiorColor') ?? ''),
      bodyStyle: String(get('bodyStyle') ?? ''),
      isCertified: truthy(get('certified')),
      cityMPG: numberOrNull(get('cityMPG')),
      hwyMPG: numberOrNull(get('hwyMPG')),
    };
    const key = canonicalModel(rawModel, opts.modelMap);
    let tally = breakdown.get(key);
    if (!tally) {
      const b: ModelBreakdown = {
        model: rawModel,
        totalUnits: 0,
        agedUnits: 0,
        avgDaysOnLot: 0,
        priorityScore: 5,
        trims: {},
        years: {},
        colors: { exterior: {}, interior: {} },
        bodyStyles: {},
        certified: 0,
        mpgRange: { city: { min: null, max: null }, hwy: { min: null, max: null } },
        vehicles: [],
      };
      const counts: ModelCounts = { trims: new Map(), years: new Map(), exterior: new Map(), interior: new Map(), bodyStyles: new Map() };
      tally = { b, days: 0, counts };
      breakdown.set(key, tally);
    }
    const { b, counts } = tally;
    const inc = (r: Map<string, number>, k: string) => {
      if (k) r.set(k, (r.get(k) ?? 0) + 1);
    };
    b.totalUnits += 1;
    if (vehicle.isAged) b.agedUnits += 1;
    tally.days += days;
    inc(counts.trims, vehicle.trim);
    inc(counts.years, String(vehicle.year));
    inc(counts.exterior, vehicle.exteriorColor);
    inc(counts.interior, vehicle.interiorColor);
    inc(counts.bodyStyles, vehicle.bodyStyle);
    if (vehicle.isCertified) b.certified += 1;
    for (const [range, value] of [[b.mpgRange.city, vehicle.cityMPG], [b.mpgRange.hwy, vehicle.hwyMPG]] as const) {
      if (value !== null) {
        range.min = range.min === null ? value : Math.min(range.min, value);
        range.max = range.max === null ? value : Math.max(range.max, value);
      }
    }
    b.vehicles.push(vehicle);
  }
  if (breakdown.size === 0) throw new Invalid(INVENTORY_TEXT.noNew);
  let totalUnits = 0;
  let agedUnits = 0;
  let totalDays = 0;
  for (const { b, days, counts } of breakdown.values()) {
    // Object.fromEntries defines own properties, so a trim named "__proto__" is counted like any other.
    b.trims = Object.fromEntries(counts.trims);
    b.years = Object.fromEntries(counts.years);
    b.colors = { exterior: Object.fromEntries(counts.exterior), interior: Object.fromEntries(counts.interior) };
    b.bodyStyles = Object.fromEntries(counts.bodyStyles);
    b.avgDaysOnLot = Math.round((days / b.totalUnits) * 10) / 10;
    b.priorityScore = priorityScore({
      totalUnits: b.totalUnits,
      agedUnits: b.agedUnits,
      avgDaysOnLot: days / b.totalUnits,
      trimCount: counts.trims.size,
      exteriorColorCount: counts.exterior.size,
      interiorColorCount: counts.interior.size,
      yearCount: counts.years.size,
    });
    totalUnits += b.totalUnits;
    agedUnits += b.agedUnits;
    totalDays += days;
  }
  const modelBreakdown = Object.fromEntries([...breakdown].map(([key, { b }]) => [key, b]));
  return {
    data: {
      totalUnits,
      modelCount: breakdown.size,
      agedUnits,
      avgDaysOnLot: Math.round((totalDays / totalUnits) * 10) / 10,
      lastUpdated: now.toISOString(),
      modelBreakdown,
    },
    skipped,
    rowsRead: records.length,
  };
}
