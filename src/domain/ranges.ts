/**
 * Date ranges of the Analytics screen beyond the fixed periods of domain/periods.ts: a custom range
 * of whole days in the dealer's time zone, the period it is compared with (the same number of days
 * just before, or the same dates one year earlier), day texts and the labels the screen, the API
 * and the CSV export share. Pure functions of explicit inputs (no clock, no process time zone), so
 * the web app and the server compute the same windows.
 *
 * A custom range is the days `from`..`to` inclusive ('YYYY-MM-DD', local to `timeZone`): the window
 * [local midnight of `from`, local midnight of the day after `to`). The rollups count whole UTC
 * hours (server/reporting), so in a zone whose offset is not a whole number of hours the window
 * holds the hour buckets starting inside it.
 */
import { TZDate } from '@date-fns/tz';
import { addDays, differenceInCalendarDays, subYears } from 'date-fns';
import { utc } from '@date-fns/utc';
import type { TimeWindow } from './periods';

/** Longest custom range, in days (a year and a leap day). */
export const MAX_RANGE_DAYS = 366;

/** What a range is compared with: the same length just before, or the same dates a year earlier. */
export const COMPARISONS = ['previous', 'year'] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** Days 'YYYY-MM-DD' .. 'YYYY-MM-DD', both included. */
export interface DayRange {
  from: string;
  to: string;
}

/** True for a real calendar day written 'YYYY-MM-DD'. */
export function isDayText(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const d = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === day;
}

const utcDay = (day: string) => new Date(`${day}T00:00:00Z`);
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** `day` moved by `n` calendar days ('2026-03-01', -1 -> '2026-02-28'). */
export function shiftDay(day: string, n: number): string {
  return dayOf(addDays(utcDay(day), n, { in: utc }));
}

/** Days in a range, both ends included (1 for from = to). */
export function rangeDays(r: DayRange): number {
  return differenceInCalendarDays(utcDay(r.to), utcDay(r.from), { in: utc }) + 1;
}

/** Every day of a range in order. */
export function rangeDayList(r: DayRange): string[] {
  return Array.from({ length: Math.max(0, rangeDays(r)) }, (_, i) => shiftDay(r.from, i));
}

/** The instant local midnight starts `day` in `timeZone` (IANA name). */
export function zonedDayStart(day: string, timeZone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(new TZDate(y, m - 1, d, timeZone).getTime());
}

/** The local calendar day ('YYYY-MM-DD') of the instant `at` in `timeZone`. */
export function zonedDay(at: Date, timeZone: string): string {
  const p = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (t: string) => p.find((x) => x.type === t)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The window of a day range in `timeZone`: [local midnight of `from`, local midnight after `to`). */
export function zonedRangeWindow(r: DayRange, timeZone: string): TimeWindow {
  return { from: zonedDayStart(r.from, timeZone), to: zonedDayStart(shiftDay(r.to, 1), timeZone) };
}

/** The window of a day range read as UTC days (used where hourly rollups are no longer kept). */
export function utcRangeWindow(r: DayRange): TimeWindow {
  return { from: utcDay(r.from), to: utcDay(shiftDay(r.to, 1)) };
}

/**
 * The range a custom range is compared with: 'previous' -> the same number of days ending the day
 * before `from`; 'year' -> the same dates one year earlier (29 Feb becomes 28 Feb).
 */
export function comparisonRange(r: DayRange, compare: Comparison): DayRange {
  if (compare === 'previous') {
    const n = rangeDays(r);
    return { from: shiftDay(r.from, -n), to: shiftDay(r.from, -1) };
  }
  const back = (day: string) => dayOf(subYears(utcDay(day), 1, { in: utc }));
  return { from: back(r.from), to: back(r.to) };
}

/** A UTC window moved back one calendar year (the fixed periods' 'same period last year'). */
export function yearEarlier(w: TimeWindow): TimeWindow {
  return { from: new Date(subYears(w.from, 1, { in: utc }).getTime()), to: new Date(subYears(w.to, 1, { in: utc }).getTime()) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const short = (day: string) => `${MONTHS[Number(day.slice(5, 7)) - 1]} ${Number(day.slice(8, 10))}`;

/** 'Mar 1 – Mar 10, 2026', 'Dec 28, 2025 – Jan 3, 2026', or 'Mar 10, 2026' for one day. */
export function rangeLabel(r: DayRange): string {
  if (r.from === r.to) return `${short(r.from)}, ${r.from.slice(0, 4)}`;
  if (r.from.slice(0, 4) === r.to.slice(0, 4)) return `${short(r.from)} – ${short(r.to)}, ${r.to.slice(0, 4)}`;
  return `${short(r.from)}, ${r.from.slice(0, 4)} – ${short(r.to)}, ${r.to.slice(0, 4)}`;
}

/** What a comparison is labelled: 'vs previous 10 days' or 'vs same period last year'. */
export function comparisonLabel(compare: Comparison, days: number): string {
  return compare === 'year' ? 'vs same period last year' : `vs previous ${days} ${days === 1 ? 'day' : 'days'}`;
}

/**
 * The quick ranges of the range picker as day ranges ending `today` (the dealer's local day):
 * Today, Yesterday, This month, Last month.
 */
export function quickRanges(today: string): Array<{ label: string; range: DayRange }> {
  const monthStart = `${today.slice(0, 8)}01`;
  const lastMonthEnd = shiftDay(monthStart, -1);
  return [
    { label: 'Today', range: { from: today, to: today } },
    { label: 'Yesterday', range: { from: shiftDay(today, -1), to: shiftDay(today, -1) } },
    { label: 'This month', range: { from: monthStart, to: today } },
    { label: 'Last month', range: { from: `${lastMonthEnd.slice(0, 8)}01`, to: lastMonthEnd } },
  ];
}

/** The 'Raise upsell priority' step: domain/priority-scale.ts raisedPriority. */
export { raisedPriority as raisedWeight } from './priority-scale';
