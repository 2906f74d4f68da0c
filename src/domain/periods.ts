/**
 * The one time module: which hours a reporting period covers, the previous period it is
 * compared with, the chart buckets, and the labels that say which period a figure covers.
 * Everything is computed from an explicit `now` and in UTC (the hourly rollups are UTC hours:
 * DECISIONS 18-19), whatever the process time zone, so the result never depends on the clock or
 * the machine.
 *
 * A period (spec 02 §2 Analytics selector: 24h, 7d, 30d, 90d; spec 01 §2 Platform Analytics and
 * the Admin Dashboard's month-over-month trend; spec 02 §2 Dashboard) is `count` buckets of one
 * unit ending with the bucket that holds `now`:
 * - 24h: the current UTC hour and the 23 before (24 hour buckets);
 * - 7d, 30d, 90d: today (UTC) and the 6, 29 or 89 days before (7, 30 or 90 day buckets).
 * The window ends at the end of the current UTC hour (nothing later is recorded yet) and starts at
 * the first bucket's start, so a chart always has exactly `count` buckets, at 23:30 as at 00:30.
 * The previous window is the same window shifted back by the period (DECISIONS 18: "the previous
 * period of the same length"): equal length, and today's partial day is compared with the same
 * hours of the day one period earlier.
 */
import { utc } from '@date-fns/utc';
import { addDays, addHours, startOfDay, startOfHour, subDays, subHours } from 'date-fns';
import type { AnalyticsPeriod } from './schemas';
import { PERIOD_LABELS } from './constants';

/** The unit of a period's buckets. */
export type PeriodUnit = 'hour' | 'day';

/** A period as `count` buckets of `unit` ending with the current one. */
export interface PeriodSpan {
  unit: PeriodUnit;
  count: number;
}

/** Half-open interval [from, to) of UTC instants. */
export interface TimeWindow {
  from: Date;
  to: Date;
}

/** The span of each analytics period (spec 02 §2 Analytics: Last 24 Hours ... Last 90 Days). */
export const PERIOD_SPANS: Record<AnalyticsPeriod, PeriodSpan> = {
  '24h': { unit: 'hour', count: 24 },
  '7d': { unit: 'day', count: 7 },
  '30d': { unit: 'day', count: 30 },
  '90d': { unit: 'day', count: 90 },
};

/** The period of the Admin Dashboard's trends: "month over month" (spec 01 §2, DECISIONS 18). */
export const ADMIN_TREND_PERIOD: AnalyticsPeriod = '30d';

/** date-fns's `in` option for UTC calendar maths (startOfDay, addDays...) in any process time zone. */
const utcIn = { in: utc };
const plain = (d: Date) => new Date(d.getTime());

/** Start of the UTC bucket (hour or day) holding `at`. */
export function bucketStart(at: Date, unit: PeriodUnit): Date {
  return plain(unit === 'hour' ? startOfHour(at, utcIn) : startOfDay(at, utcIn));
}

/** `at` moved by `n` units (negative: back); a UTC day is always 24 hours. */
function shift(at: Date, unit: PeriodUnit, n: number): Date {
  return plain(unit === 'hour' ? addHours(at, n, utcIn) : addDays(at, n, utcIn));
}

/**
 * The window of the last `span.count` units ending with the one holding `now`: from the first
 * bucket's start to the end of `now`'s UTC hour (module doc). E.g. 7 days at 2026-03-10T23:30Z is
 * [2026-03-04T00:00Z, 2026-03-11T00:00Z); at 2026-03-10T00:30Z it is [2026-03-04T00:00Z, 2026-03-10T01:00Z).
 */
export function spanWindow(span: PeriodSpan, now: Date): TimeWindow {
  const first = shift(bucketStart(now, span.unit), span.unit, -(span.count - 1));
  return { from: first, to: plain(addHours(startOfHour(now, utcIn), 1)) };
}

/** The window of an analytics period at `now` (spec 02 §2 Analytics; module doc). */
export function periodWindow(period: AnalyticsPeriod, now: Date): TimeWindow {
  return spanWindow(PERIOD_SPANS[period], now);
}

/** The window one period before `window` (same length, shifted back by `span`; DECISIONS 18). */
export function previousWindow(window: TimeWindow, span: PeriodSpan): TimeWindow {
  const back = (d: Date) => plain(span.unit === 'hour' ? subHours(d, span.count) : subDays(d, span.count, utcIn));
  return { from: back(window.from), to: back(window.to) };
}

/**
 * A bucket's key, as the charts, the CSV export and the API use it: 'YYYY-MM-DD' for a UTC day,
 * 'YYYY-MM-DDTHH:00' for a UTC hour. The same strings as the SQL `bucketFormat` below.
 */
export function bucketKey(at: Date, unit: PeriodUnit): string {
  const iso = bucketStart(at, unit).toISOString();
  return unit === 'hour' ? `${iso.slice(0, 13)}:00` : iso.slice(0, 10);
}

/** PostgreSQL `to_char` pattern giving bucketKey's strings for a UTC timestamp. */
export const BUCKET_SQL_FORMAT: Record<PeriodUnit, string> = { hour: 'YYYY-MM-DD"T"HH24:00', day: 'YYYY-MM-DD' };

/** The keys of every bucket of `window` in order (each unit start in [from, to)). */
export function bucketKeys(window: TimeWindow, unit: PeriodUnit): string[] {
  const keys: string[] = [];
  for (let t = bucketStart(window.from, unit); t < window.to; t = shift(t, unit, 1)) keys.push(bucketKey(t, unit));
  return keys;
}

// ---------------------------------------------------------------------------------------------
// Labels: what every admin and dealer figure says about its period. One place.

/** What a figure covers: all recorded time, or an analytics period. */
export type FigurePeriod = AnalyticsPeriod | 'all';

/** The label of all-time figures (dealer cards, the Admin Dashboard's totals). */
export const ALL_TIME_LABEL = 'All Time';
/** The label of a count as it is now (the Admin Dashboard's Active Dealers). */
export const NOW_LABEL = 'Now';

/** 'Last 7 Days' for 7 day buckets, 'Last 24 Hours' for 24 hours, 'Today' for one day (the spec's selector wording). */
export function spanLabel(span: PeriodSpan): string {
  if (span.unit === 'day' && span.count === 1) return 'Today';
  return `Last ${span.count} ${span.unit === 'hour' ? 'Hours' : 'Days'}`;
}

/** The label of a figure's period: 'All Time', or the selector's text ('Last 30 Days', spec 02 §2 Analytics). */
export function periodLabel(period: FigurePeriod): string {
  return period === 'all' ? ALL_TIME_LABEL : PERIOD_LABELS[period];
}

/** What a trend compares with: 'vs previous 30 days', 'vs previous 24 hours' (DECISIONS 18). */
export function previousLabel(span: PeriodSpan): string {
  return `vs previous ${span.count} ${span.unit === 'hour' ? 'hours' : 'days'}`;
}

/** What a count-now trend compares with: 'vs 30 days ago' (the Admin Dashboard's Active Dealers). */
export function agoLabel(span: PeriodSpan): string {
  return `vs ${span.count} ${span.unit === 'hour' ? 'hours' : 'days'} ago`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A chart's label of a bucket key (bucketKey): 'Mar 10' for a UTC day, 'Mar 10, 23:00 UTC' for a UTC
 * hour, so every viewer sees the same buckets as the API and the CSV export.
 */
export function bucketLabel(key: string): string {
  const day = `${MONTHS[Number(key.slice(5, 7)) - 1]} ${Number(key.slice(8, 10))}`;
  return key.length > 10 ? `${day}, ${key.slice(11, 16)} UTC` : day;
}
