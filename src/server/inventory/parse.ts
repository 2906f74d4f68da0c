/**
 * Inventory parsing shared by manual upload and the automatic feed (spec 02 §3, §5 Inventory
 * upload, §9; DECISIONS 21, 25): JSON in the accepted shapes or CSV through csv-parse, field
 * aliases, skipping used vehicles and vehicles without a model, per-row problems reported
 * without failing the good rows, and the InventoryData with per-model breakdown and priority score.
 *
 * Files are read as they arrive and refused at the first limit crossed (size, rows, columns, cell
 * and line length: constants.ts), never held as a whole list of rows; the work is done in slices
 * with the event loop let run between them, so the server keeps answering while a file is parsed.
 */
import { parse as csvParser } from 'csv-parse';
import type { FieldMapping, InventoryData, ModelBreakdown, Vehicle } from '../../domain/schemas';
import {
  AGED_DAYS,
  INVENTORY_LIMIT_TEXT,
  INVENTORY_TEXT,
  JSON_TOO_DEEP,
  MAX_INVENTORY_BYTES,
  MAX_INVENTORY_CELL_CHARS,
  MAX_INVENTORY_COLUMNS,
  MAX_INVENTORY_LINE_BYTES,
  MAX_INVENTORY_MODEL_CHARS,
  MAX_JSON_DEPTH,
  MAX_VEHICLES,
} from '../../domain/constants';
import { canonicalModel } from '../../domain/model-keys';
import { priorityScore } from '../../domain/priority-score';
import { Invalid, OverLimit, PayloadTooLarge } from '../errors';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../json-chars';

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
  /** CSV only: the file's line the record starts on (the header is line 1), as the dealer's editor numbers it. */
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

/** Bytes of a file parsed between two turns of the event loop: at most 4,096 rows of one character, a few ms of work. */
export const PARSE_SLICE_BYTES = 8 * 1024;
/** Vehicle records built between two turns of the event loop. */
export const BUILD_SLICE_ROWS = 1_000;

/** Lets the event loop run (other requests, timers, I/O) before the caller goes on. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Where an inventory comes from: an uploaded file or a feed response (the limits' messages say which). */
export type InventorySource = 'file' | 'feed';

/** The bytes of a file as they arrive: a multipart file stream, a response body, or `[buffer]`. */
export type ByteSource = AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>;

/** `source`'s bytes in slices of at most `size` bytes, read only as fast as the caller asks. */
async function* slices(source: ByteSource, size = PARSE_SLICE_BYTES): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
  }
}

/**
 * Parses an inventory file by its name (.json or .csv) while reading it from `source`, in slices of
 * PARSE_SLICE_BYTES with the event loop let run between them, and stops reading at the first limit
 * crossed (the rest of the file is never read or built): MAX_INVENTORY_BYTES, MAX_VEHICLES rows,
 * MAX_INVENTORY_COLUMNS, MAX_INVENTORY_CELL_CHARS, MAX_INVENTORY_LINE_BYTES. A vehicle whose model
 * name is longer than MAX_INVENTORY_MODEL_CHARS is skipped with that reason.
 * @throws PayloadTooLarge (size), OverLimit (rows, vehicles, columns, cell, line) with
 * INVENTORY_LIMIT_TEXT; Invalid with the spec's texts, among them
 * 'Failed to process file: JSON nested too deeply (limit 64 levels)'.
 */
export async function parseInventoryStream(filename: string, source: ByteSource, opts: ParseOptions = {}): Promise<ParseResult> {
  const name = filename.toLowerCase();
  if (name.endsWith('.json')) {
    const text = await readJsonText(source, 'file', (tooDeep) => {
      if (tooDeep) throw new Invalid(`${INVENTORY_TEXT.failed}: ${JSON_TOO_DEEP}`);
    });
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new Invalid(`${INVENTORY_TEXT.failed}: the JSON is malformed (${(e as Error).message})`);
    }
    return buildInventory(vehicleArray(doc), opts, 'file');
  }
  if (name.endsWith('.csv')) return parseCsvStream(source, opts);
  throw new Invalid(INVENTORY_TEXT.unsupported);
}

/** parseInventoryStream over bytes already in memory (tests, scripts). */
export function parseInventoryFile(filename: string, bytes: Buffer, opts: ParseOptions = {}): Promise<ParseResult> {
  return parseInventoryStream(filename, [bytes], opts);
}

/**
 * Reads a JSON inventory document's text from `source` (BOM dropped), slice by slice with the event
 * loop let run between them, through a JsonShapeScanner: more than MAX_INVENTORY_BYTES or an array
 * of more than MAX_VEHICLES items where a vehicle list may be stops the read at once.
 * `afterSlice(tooDeep)` is called after each slice; it throws the caller's wording of a document
 * nested deeper than MAX_JSON_DEPTH.
 * @throws PayloadTooLarge(INVENTORY_LIMIT_TEXT.bytes), OverLimit(INVENTORY_LIMIT_TEXT.vehicles), what afterSlice throws.
 */
export async function readJsonText(source: ByteSource, from: InventorySource, afterSlice: (tooDeep: boolean) => void): Promise<string> {
  const scanner = new JsonShapeScanner(MAX_VEHICLES, INVENTORY_LIMIT_TEXT.vehicles(from));
  const parts: Buffer[] = [];
  let size = 0;
  for await (const slice of slices(source)) {
    size += slice.length;
    if (size > MAX_INVENTORY_BYTES) throw new PayloadTooLarge(INVENTORY_LIMIT_TEXT.bytes(from));
    scanner.feed(slice);
    afterSlice(scanner.tooDeep);
    parts.push(slice);
    await yieldToEventLoop();
  }
  return Buffer.concat(parts).toString('utf8').replace(/^\uFEFF/, '');
}

/** Vehicle lists sit at most this deep: `{ "Inventory": { "ListOfVehicles": [ ... ] } }`. */
const VEHICLE_LIST_DEPTH = 3;

/**
 * Watches JSON bytes as they arrive, without parsing them, so an inventory bomb is refused before
 * JSON.parse builds millions of objects: an array opened at most VEHICLE_LIST_DEPTH levels deep
 * (where every accepted vehicle list is) with more than `maxItems` items throws
 * OverLimit(`message`), and `tooDeep` turns true once nesting passes MAX_JSON_DEPTH. Brackets and
 * commas inside strings do not count (also across slice boundaries); text that is not JSON is left
 * to JSON.parse.
 */
export class JsonShapeScanner {
  /** True once the text nested arrays and objects deeper than MAX_JSON_DEPTH. */
  tooDeep = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Commas seen in the open container at each depth up to VEHICLE_LIST_DEPTH; -1 for an object. */
  private readonly commas: number[] = [];

  constructor(
    private readonly maxItems: number,
    private readonly message: string,
  ) {}

  /** Scans the next bytes. @throws OverLimit(message) when an array passes maxItems items. */
  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i += 1) {
      const c = bytes[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        this.depth += 1;
        if (this.depth > MAX_JSON_DEPTH) this.tooDeep = true;
        if (this.depth <= VEHICLE_LIST_DEPTH) this.commas[this.depth] = c === OPEN_BRACKET ? 0 : -1;
      } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) this.depth -= 1;
      else if (c === COMMA && this.depth >= 1 && this.depth <= VEHICLE_LIST_DEPTH) {
        const n = this.commas[this.depth]!;
        // n commas separate n + 1 items.
        if (n >= 0 && (this.commas[this.depth] = n + 1) >= this.maxItems) throw new OverLimit(this.message);
      }
    }
  }
}

const LF = 0x0a;
const CR = 0x0d;
/** Bytes at the end of what was fed that CsvLines.settle leaves uncounted (look-ahead and a CRLF, with room to spare). */
const SETTLE_MARGIN = 64;

/**
 * Line bookkeeping of a CSV file read in slices: refuses a physical line longer than
 * MAX_INVENTORY_LINE_BYTES (CRLF, LF or a lone CR ends a line), and gives the file line (1-based,
 * as an editor numbers it) each parsed record starts on. csv-parse's own `info.lines` is
 * the line a record ends on and counts a CRLF inside a quoted field twice, so the lines are counted
 * here from the record's end offset in the file (`info.bytes`, BOM included) minus the line breaks
 * inside its fields. Keeps only the bytes not yet counted (one slice and a partial record).
 */
class CsvLines {
  /** Bytes from absolute offset `base` to the end of what was fed. */
  private pending = Buffer.alloc(0);
  private base = 0;
  private pos = 0;
  private breaks = 0;
  private lineBytes = 0;
  private physicalLine = 1;
  private lastWasCr = false;

  /** Takes the next slice. @throws OverLimit(INVENTORY_LIMIT_TEXT.line) naming the line. */
  feed(slice: Buffer): void {
    for (let i = 0; i < slice.length; i += 1) {
      const b = slice[i];
      if (b === LF || b === CR) {
        if (!(b === LF && this.lastWasCr)) this.physicalLine += 1;
        this.lineBytes = 0;
      } else if (++this.lineBytes > MAX_INVENTORY_LINE_BYTES) {
        throw new OverLimit(`${INVENTORY_LIMIT_TEXT.line} (line ${this.physicalLine})`);
      }
      this.lastWasCr = b === CR;
    }
    this.pending = Buffer.concat([this.pending.subarray(this.pos - this.base), slice]);
    this.base = this.pos;
  }

  /**
   * Counts the line breaks of all but the last SETTLE_MARGIN bytes fed, once the records parsed so
   * far were numbered: the next record ends after them (the parser holds back only a few bytes of
   * look-ahead and a record's delimiter is at most CRLF), so their bytes need not be kept, however
   * many blank lines they hold.
   */
  settle(): void {
    const target = this.base + this.pending.length - SETTLE_MARGIN;
    for (; this.pos < target; this.pos += 1) {
      const b = this.at(this.pos);
      if (b === LF || (b === CR && this.at(this.pos + 1) !== LF)) this.breaks += 1;
    }
    this.pending = this.pending.subarray(this.pos - this.base);
    this.base = this.pos;
  }

  private at(offset: number): number | undefined {
    return this.pending[offset - this.base];
  }

  /** The line a record ending at file offset `endOffset` starts on; records come in file order. */
  startLine(record: string[], endOffset: number): number {
    let end = Math.min(endOffset, this.base + this.pending.length);
    // The record's own end: its terminating line break is the next record's business.
    while (end > this.pos && (this.at(end - 1) === LF || this.at(end - 1) === CR)) end -= 1;
    for (; this.pos < end; this.pos += 1) {
      const b = this.at(this.pos);
      if (b === LF || (b === CR && this.at(this.pos + 1) !== LF)) this.breaks += 1;
    }
    return this.breaks + 1 - record.reduce((n, field) => n + lineBreaks(field), 0);
  }
}

/** Line breaks in `text`: CRLF, LF or a lone CR each count once. */
const lineBreaks = (text: string) => text.match(/\r\n|\r|\n/g)?.length ?? 0;

/**
 * CSV through csv-parse's streaming parser (DECISIONS 21), fed PARSE_SLICE_BYTES at a time with the
 * event loop let run between slices: header row, quoted fields with commas and newlines, BOM, CRLF;
 * empty rows dropped. A row whose field count differs from the header's is reported in `skipped`
 * (numbered as data rows, 1 = first row after the header, with the file's line the record starts
 * on) and the rest still count. Each record is checked against the column and cell limits and
 * built into the inventory as it comes, so no list of all rows is ever held.
 * @throws as parseInventoryStream.
 */
async function parseCsvStream(source: ByteSource, opts: ParseOptions): Promise<ParseResult> {
  const builder = new InventoryBuilder(opts);
  const lines = new CsvLines();
  const parser = csvParser({
    bom: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    relax_column_count: true,
    // A quoted field may span many short lines: bound the record too.
    max_record_size: MAX_INVENTORY_LINE_BYTES,
  });
  const parsed: Array<{ record: string[]; end: number }> = [];
  let failure: Error | undefined;
  let ended = false;
  // The parser emits each record while it parses (synchronously), so its byte count is then the
  // record's end offset; csv-parse's `info: true` gives the same at the cost of a copy of its
  // state per record (a third of the parse).
  parser.on('data', (record: string[]) => parsed.push({ record, end: parser.info.bytes }));
  parser.on('error', (e: Error) => (failure = e));
  parser.on('end', () => (ended = true));
  let columns: string[] | undefined;
  let dataRows = 0;
  /** Checks and builds the records parsed so far. */
  const take = () => {
    if (failure) {
      if ((failure as { code?: string }).code === 'CSV_MAX_RECORD_SIZE') throw new OverLimit(INVENTORY_LIMIT_TEXT.line);
      throw new Invalid(`${INVENTORY_TEXT.failed}: the CSV is malformed (${failure.message})`);
    }
    for (const { record, end } of parsed.splice(0)) {
      const line = lines.startLine(record, end);
      if (record.length > MAX_INVENTORY_COLUMNS) throw new OverLimit(`${INVENTORY_LIMIT_TEXT.columns} (line ${line})`);
      if (record.some((field) => field.length > MAX_INVENTORY_CELL_CHARS)) throw new OverLimit(`${INVENTORY_LIMIT_TEXT.cell} (line ${line})`);
      if (!columns) {
        columns = record.map((c) => c.trim());
        continue;
      }
      dataRows += 1;
      if (dataRows > MAX_VEHICLES) throw new OverLimit(INVENTORY_LIMIT_TEXT.rows('file'));
      if (record.length !== columns.length) {
        builder.skip(dataRows, `line ${line} has ${record.length} fields, the header has ${columns.length}`, line);
      } else {
        builder.add(Object.fromEntries(columns.map((c, j) => [c, record[j]?.trim() ?? ''])), dataRows, line);
      }
    }
  };
  try {
    let size = 0;
    for await (const slice of slices(source)) {
      size += slice.length;
      if (size > MAX_INVENTORY_BYTES) throw new PayloadTooLarge(INVENTORY_LIMIT_TEXT.bytes('file'));
      lines.feed(slice);
      parser.write(slice);
      // The parser hands its records over before the next turn of the loop.
      await yieldToEventLoop();
      take();
      lines.settle();
    }
    parser.end();
    while (!ended && !failure) await yieldToEventLoop();
    take();
  } finally {
    parser.destroy();
  }
  if (!columns) throw new Invalid(`${INVENTORY_TEXT.failed}: the CSV file is empty`);
  return builder.finish(dataRows);
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
 * Builds InventoryData from vehicle records, in slices of BUILD_SLICE_ROWS with the event loop let
 * run between them. Rows are reported in `skipped` (1-based positions) as InventoryBuilder says.
 * @throws OverLimit(INVENTORY_LIMIT_TEXT.vehicles(from)) when there are more than 50,000 records;
 * Invalid(INVENTORY_TEXT.noNew) when no new vehicle is left.
 */
export async function buildInventory(records: unknown[], opts: ParseOptions = {}, from: InventorySource = 'file'): Promise<ParseResult> {
  if (records.length > MAX_VEHICLES) throw new OverLimit(INVENTORY_LIMIT_TEXT.vehicles(from));
  const builder = new InventoryBuilder(opts);
  for (let i = 0; i < records.length; i += 1) {
    if (i > 0 && i % BUILD_SLICE_ROWS === 0) await yieldToEventLoop();
    builder.add(records[i], i + 1);
  }
  return builder.finish(records.length);
}

/** One model's breakdown being built, with its day total and unit counts. */
interface Tally {
  b: ModelBreakdown;
  days: number;
  counts: ModelCounts;
}

/**
 * Builds InventoryData one vehicle record at a time. A record is skipped (with its row, and its
 * file line when given) when it is not an object, not new, has no model or a model name longer
 * than MAX_INVENTORY_MODEL_CHARS, or carries a non-numeric year or days on lot.
 */
export class InventoryBuilder {
  private readonly skipped: SkippedRow[] = [];
  private readonly breakdown = new Map<string, Tally>();
  private readonly mapped: Map<string, string>;
  private readonly now: Date;

  constructor(private readonly opts: ParseOptions = {}) {
    this.now = opts.now ?? new Date();
    this.mapped = new Map(
      Object.entries(opts.fieldMapping ?? {}).filter(([, v]) => typeof v === 'string' && v.trim() !== '').map(([k, v]) => [k, normKey(v as string)]),
    );
  }

  /** Reports row `row` (and file line `line`) as not counted, for `reason`. */
  skip(row: number, reason: string, line?: number): void {
    this.skipped.push(line === undefined ? { row, reason } : { row, line, reason });
  }

  /** Counts record `rec`, data row `row` (1-based), or skips it with the reason. */
  add(rec: unknown, row: number, line?: number): void {
    if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return this.skip(row, 'not a vehicle object', line);
    const byKey = new Map(Object.entries(rec as Record<string, unknown>).map(([k, v]) => [normKey(k), v]));
    const get = (f: Field): unknown => {
      const m = this.mapped.get(f);
      if (m && byKey.has(m)) return byKey.get(m);
      for (const a of ALIASES[f]) if (byKey.has(a)) return byKey.get(a);
      return undefined;
    };
    if (!isNewVehicle(get('isNew'))) return this.skip(row, 'not a new vehicle (IsNew is false)', line);
    const rawModel = String(get('model') ?? '').trim();
    if (!rawModel) return this.skip(row, 'no model', line);
    if (rawModel.length > MAX_INVENTORY_MODEL_CHARS) return this.skip(row, INVENTORY_LIMIT_TEXT.model, line);
    const yearRaw = get('year');
    const year = yearRaw === undefined || yearRaw === '' ? this.now.getFullYear() : numberOrNull(yearRaw);
    if (year === null) return this.skip(row, `year "${String(yearRaw)}" is not a number`, line);
    const daysRaw = get('daysOnLot');
    const days = daysRaw === undefined || daysRaw === '' ? 0 : numberOrNull(daysRaw);
    if (days === null || days < 0) return this.skip(row, `days on lot "${String(daysRaw)}" is not a number`, line);
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
    const key = canonicalModel(rawModel, this.opts.modelMap);
    let tally = this.breakdown.get(key);
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
      this.breakdown.set(key, tally);
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

  /**
   * The InventoryData of the records added, with the skipped rows in row order; `rowsRead` is the
   * count of data rows read. @throws Invalid(INVENTORY_TEXT.noNew) when no vehicle was counted.
   */
  finish(rowsRead: number): ParseResult {
    const { breakdown } = this;
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
        lastUpdated: this.now.toISOString(),
        modelBreakdown,
      },
      skipped: [...this.skipped].sort((a, b) => a.row - b.row),
      rowsRead,
    };
  }
}
