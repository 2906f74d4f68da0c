/**
 * The Analytics screen's report (spec 02 §2 Analytics, DECISIONS 15, 18-19, 22), read through
 * server/reporting: a fixed period (domain/periods.ts, UTC) or a custom range of days in the
 * dealer's time zone (domain/ranges.ts), compared with the previous period of the same length or
 * the same dates last year; the series of both; and the tables the screen shows — per model with
 * the model's inventory (units, aged share, median days on lot, inventory priority score) and its
 * upsell weight, per slot, per creative — plus the CSV of any of those tables for the same window
 * and rows. Every impression counted is a viewable impression (the embed script reports only those).
 */
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/client';
import type { Dealer } from '../../domain/schemas';
import type { AnalyticsReport, AnalyticsReportQuery, ReportTable } from '../../domain/contracts/analytics';
import { PERIOD_SPANS, bucketKeys, periodLabel, periodWindow, previousWindow, type TimeWindow } from '../../domain/periods';
import { comparisonLabel, comparisonRange, rangeDayList, rangeDays, rangeLabel, utcRangeWindow, yearEarlier, zonedRangeWindow, type DayRange } from '../../domain/ranges';
import { conversionRate, ctr, trendPercent } from '../../domain/metrics';
import { canonicalModel, modelKey, OTHER_MODELS, UNKNOWN_MODEL_KEY } from '../../domain/model-keys';
import { DEFAULT_WEIGHT } from '../../domain/defaults';
import { MAX_ANALYTICS_MODELS } from '../../domain/constants';
import { DETAIL_DAILY_DAYS, detailDailyCutoff, detailHourlyCutoff, hourlyRollupCutoff } from '../../domain/retention';
import { lastEventAt, ranked, series as seriesOf, totals, zonedDaySeries, type Counts, type DealerScope, type SeriesPoint } from '../reporting/service';
import { inventoryModelFigures } from '../inventory/service';
import { creativePerformance } from './service';
import { Invalid } from '../errors';

/** Slot types a dealer can have, with room to spare: the per-slot table is never capped in practice. */
const MAX_SLOT_ROWS = 20;

const withRates = (c: Counts) => ({ ...c, ctr: ctr(c.clicks, c.impressions), conversionRate: conversionRate(c.conversions, c.clicks) });
const trendOf = (a: number | null, b: number | null) => (a === null || b === null ? null : trendPercent(a, b));

/** One side of the report (current or comparison): its window, days and how it is read. */
interface Side {
  window: TimeWindow;
  /** Series bucket keys; for a custom range its days. */
  keys: string[];
  unit: 'hour' | 'day';
  utcDays: boolean;
  /** Local-day series in this time zone (custom ranges within the hourly rollups), else null. */
  zone: string | null;
}

/**
 * A custom range as a side: local days in `timeZone` while the hours it needs are kept, else whole
 * UTC days. The current side also fills the model, slot and creative tables, whose partial-day
 * edges come from the detailed hours (kept DETAIL_HOURLY_DAYS); the comparison side reads totals
 * and series only, from the dealer hours (kept HOURLY_ROLLUP_DAYS).
 */
function customSide(r: DayRange, timeZone: string, now: Date, detailed: boolean): Side {
  const zoned = zonedRangeWindow(r, timeZone);
  const utcDays = zoned.from < (detailed ? detailHourlyCutoff(now) : hourlyRollupCutoff(now));
  return { window: utcDays ? utcRangeWindow(r) : zoned, keys: rangeDayList(r), unit: 'day', utcDays, zone: utcDays ? null : timeZone };
}

async function sideSeries(db: Db, scope: DealerScope, side: Side): Promise<SeriesPoint[]> {
  if (side.zone) return zonedDaySeries(db, scope, side.window, side.zone, side.keys);
  return seriesOf(db, scope, side.window, side.unit);
}

/**
 * The report of a dealer for a query at `now` (the request time). Fixed periods keep their UTC
 * windows (DECISIONS 18-19, as the other dealer screens); a custom range is days in the dealer's
 * time zone. Every figure but 'Last updated' and the inventory counts the events of `q.device`
 * only ('all': every device, those of unknown device included). Bounded whatever is stored: at most MAX_ANALYTICS_MODELS event models (plus an
 * '(other)' row) and the inventory's models, the creatives of creativePerformance, one series entry
 * per bucket.
 */
export async function analyticsReport(db: Db, dealer: Pick<Dealer, 'id' | 'timeZone' | 'configs'>, q: AnalyticsReportQuery, now: Date): Promise<AnalyticsReport> {
  const dealerId = dealer.id;
  const scope: DealerScope = { dealerId, device: q.device };
  const tz = dealer.timeZone;
  let current: Side;
  let compared: Side;
  let range: AnalyticsReport['range'];
  let compareLabel: string;
  if (q.from && q.to) {
    const r = { from: q.from, to: q.to };
    // The model, slot and creative tables read the detailed days, kept DETAIL_DAILY_DAYS; the
    // comparison side reads totals only, which are kept for ever.
    if (q.from < detailDailyCutoff(now)) {
      throw Invalid.field('from', `model, slot and creative figures are kept ${DETAIL_DAILY_DAYS} days: choose a start on or after ${detailDailyCutoff(now)}`, 'too_small');
    }
    current = customSide(r, tz, now, true);
    compared = customSide(comparisonRange(r, q.compare), tz, now, false);
    range = { period: null, from: r.from, to: r.to, label: rangeLabel(r), timeZone: tz, unit: 'day', utcDays: current.utcDays };
    compareLabel = comparisonLabel(q.compare, rangeDays(r));
  } else {
    const period = q.period ?? '7d';
    const span = PERIOD_SPANS[period];
    const window = periodWindow(period, now);
    const back = q.compare === 'year' ? yearEarlier(window) : previousWindow(window, span);
    current = { window, keys: bucketKeys(window, span.unit), unit: span.unit, utcDays: true, zone: null };
    compared = { window: back, keys: bucketKeys(back, span.unit), unit: span.unit, utcDays: true, zone: null };
    const last = new Date(window.to.getTime() - 1).toISOString().slice(0, 10);
    range = { period, from: window.from.toISOString().slice(0, 10), to: last, label: periodLabel(period), timeZone: 'UTC', unit: span.unit, utcDays: true };
    compareLabel = q.compare === 'year' ? comparisonLabel('year', span.count) : `vs previous ${span.count} ${span.unit === 'hour' ? 'hours' : 'days'}`;
  }

  const [now0, prev0, series, previousSeries, modelRows, slotRows, inventory, creativeFigures, last] = await Promise.all([
    totals(db, scope, current.window),
    totals(db, scope, compared.window),
    sideSeries(db, scope, current),
    sideSeries(db, scope, compared),
    ranked(db, scope, ['model'], current.window, MAX_ANALYTICS_MODELS),
    ranked(db, scope, ['slot_type'], current.window, MAX_SLOT_ROWS),
    inventoryModelFigures(db, dealerId),
    creativePerformance(db, dealerId, current.window.from, current.window.to, dealer.configs.modelMap, now, q.device),
    lastEventAt(db, dealerId),
  ]);
  const cur = withRates(now0);
  const prev = withRates(prev0);

  return {
    device: q.device,
    range,
    window: { from: current.window.from.toISOString(), to: current.window.to.toISOString() },
    comparison: { compare: q.compare, label: compareLabel, from: compared.window.from.toISOString(), to: compared.window.to.toISOString(), utcDays: compared.utcDays },
    current: cur,
    previous: prev,
    trends: {
      impressions: trendPercent(cur.impressions, prev.impressions),
      clicks: trendPercent(cur.clicks, prev.clicks),
      conversions: trendPercent(cur.conversions, prev.conversions),
      ctr: trendOf(cur.ctr, prev.ctr),
      conversionRate: trendOf(cur.conversionRate, prev.conversionRate),
    },
    series,
    previousSeries,
    models: modelTable(modelRows, inventory, dealer.configs.modelMap, dealer.configs.inventoryWeights),
    slots: slotRows.map((s) => ({ slot: s.rest ? OTHER_MODELS : s.slot_type || '(none)', ...withRates(s) })),
    ...creativeFigures,
    lastUpdated: last ? last.toISOString() : null,
  };
}

/**
 * The per-model table: each event model (by the dealer's canonical names; keys that map to the
 * same name are summed) and each inventory model without events, with the model's inventory and
 * its upsell weight. Ordered by viewable impressions, then clicks, conversions, inventory units,
 * name; the '(other)' row (models beyond the cap) last.
 */
function modelTable(
  rows: Awaited<ReturnType<typeof ranked<'model'>>>,
  inventory: Awaited<ReturnType<typeof inventoryModelFigures>>,
  modelMap: Record<string, string>,
  weights: Record<string, number>,
): AnalyticsReport['models'] {
  const byKey = new Map<string, { model: string; counts: Counts; named: boolean }>();
  let other: Counts | null = null;
  for (const r of rows) {
    if (r.rest) {
      other = { impressions: r.impressions, clicks: r.clicks, conversions: r.conversions };
      continue;
    }
    const named = r.model !== '' && r.model !== UNKNOWN_MODEL_KEY;
    const model = !r.model ? '(none)' : named ? canonicalModel(r.model, modelMap) : r.model;
    const key = named ? modelKey(model) : model;
    const e = byKey.get(key) ?? { model, counts: { impressions: 0, clicks: 0, conversions: 0 }, named };
    e.counts.impressions += r.impressions;
    e.counts.clicks += r.clicks;
    e.counts.conversions += r.conversions;
    byKey.set(key, e);
  }
  for (const m of inventory) {
    const key = modelKey(m.key);
    if (!byKey.has(key)) byKey.set(key, { model: m.key, counts: { impressions: 0, clicks: 0, conversions: 0 }, named: true });
  }
  const invByKey = new Map(inventory.map((m) => [modelKey(m.key), m]));
  const weightByKey = new Map(Object.entries(weights).map(([name, w]) => [modelKey(name), { name, w }]));
  const out: AnalyticsReport['models'] = [...byKey.entries()].map(([key, e]) => {
    const inv = e.named ? invByKey.get(key) : undefined;
    const weight = e.named ? weightByKey.get(key) : undefined;
    return {
      model: e.model,
      ...withRates(e.counts),
      weightKey: e.named ? (weight?.name ?? e.model) : null,
      upsellWeight: e.named ? (weight?.w ?? DEFAULT_WEIGHT) : null,
      inventory: inv
        ? { units: inv.units, agedUnits: inv.agedUnits, agedShare: inv.units > 0 ? (100 * inv.agedUnits) / inv.units : null, medianDaysOnLot: inv.medianDaysOnLot, priorityScore: inv.priorityScore }
        : null,
    };
  });
  out.sort(
    (a, b) =>
      b.impressions - a.impressions ||
      b.clicks - a.clicks ||
      b.conversions - a.conversions ||
      (b.inventory?.units ?? 0) - (a.inventory?.units ?? 0) ||
      (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
  );
  if (other) out.push({ model: OTHER_MODELS, ...withRates(other), weightKey: null, upsellWeight: null, inventory: null });
  return out;
}

const pct = (v: number | null, digits = 2) => (v === null ? '' : v.toFixed(digits));

/** The CSV file name of a report table: dc-banners-{dealer}-{table}-{from}_{to}.csv, with -{device} before .csv when one device is shown. */
export function reportCsvName(dealerId: string, report: AnalyticsReport, table: ReportTable): string {
  const device = report.device === 'all' ? '' : `-${report.device}`;
  return `dc-banners-${dealerId}-${table}-${report.range.from}_${report.range.to}${device}.csv`;
}

/**
 * One table of the report as CSV, the same rows the screen shows: 'models', 'slots', 'creatives'
 * or 'days' (each bucket with the comparison's bucket beside it). Impression columns are named
 * viewable_impressions (DECISIONS 15); percentages have two decimals, empty when undefined. Text
 * cells starting with =, +, -, @, tab or CR are prefixed with a quote (OWASP CSV injection).
 */
export function reportCsv(report: AnalyticsReport, table: ReportTable): string {
  const opts = { header: true, escape_formulas: true };
  switch (table) {
    case 'models':
      return stringify(
        report.models.map((m) => [
          m.model,
          m.impressions,
          m.clicks,
          pct(m.ctr),
          m.conversions,
          pct(m.conversionRate),
          m.inventory?.units ?? '',
          m.inventory ? pct(m.inventory.agedShare, 1) : '',
          m.inventory?.medianDaysOnLot ?? '',
          m.inventory?.priorityScore ?? '',
          m.upsellWeight ?? '',
        ]),
        { ...opts, columns: ['model', 'viewable_impressions', 'clicks', 'ctr', 'conversions', 'conversion_rate', 'units', 'aged_share', 'median_days_on_lot', 'inventory_priority', 'upsell_weight'] },
      );
    case 'slots':
      return stringify(
        report.slots.map((s) => [s.slot, s.impressions, s.clicks, pct(s.ctr), s.conversions]),
        { ...opts, columns: ['slot', 'viewable_impressions', 'clicks', 'ctr', 'conversions'] },
      );
    case 'creatives':
      return stringify(
        report.creatives.map((c) => [c.name ?? c.kind, c.kind, c.model, c.slot, c.width && c.height ? `${c.width}x${c.height}` : '', c.status ?? '', c.impressions, c.clicks, pct(c.ctr), c.conversions]),
        { ...opts, columns: ['creative', 'kind', 'model', 'slot', 'size', 'status', 'viewable_impressions', 'clicks', 'ctr', 'conversions'] },
      );
    case 'days':
      return stringify(
        report.series.map((p, i) => {
          const q = report.previousSeries[i];
          return [p.bucket, p.impressions, p.clicks, pct(ctr(p.clicks, p.impressions)), p.conversions, q?.bucket ?? '', q?.impressions ?? '', q?.clicks ?? '', q?.conversions ?? ''];
        }),
        {
          ...opts,
          columns: ['bucket', 'viewable_impressions', 'clicks', 'ctr', 'conversions', 'comparison_bucket', 'comparison_viewable_impressions', 'comparison_clicks', 'comparison_conversions'],
        },
      );
  }
}
