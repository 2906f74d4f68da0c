/**
 * Promotion schedules: an asset may carry an optional start and
 * end instant; it is shown only inside [startsAt, endsAt) (start inclusive, end exclusive).
 * Instants are stored in UTC; a dealer enters local date-times in the dealer's IANA time zone
 * (the `timeZone` dealer setting), converted here with `Intl` only (no Node or DOM globals), so
 * server and web convert the same way.
 *
 * Every function takes the current time explicitly (`now`, ms or Date), as domain/periods.ts does:
 * nothing here reads the clock.
 */

/** Where an asset's window stands at a moment: before it, inside it, after it. */
export type ScheduleStatus = 'scheduled' | 'live' | 'expired';
export const SCHEDULE_STATUSES = ['scheduled', 'live', 'expired'] as const satisfies readonly ScheduleStatus[];

/** An instant as the stores give it: a Date (database rows), an ISO string (API answers), or absent. */
export type Instant = Date | string | null | undefined;

/** The window fields of an asset (rows and API shapes both satisfy it). */
export interface Scheduled {
  startsAt?: Instant;
  endsAt?: Instant;
}

/** Milliseconds since the epoch of an instant, or null when absent. */
export function instantMs(v: Instant): number | null {
  if (v === null || v === undefined) return null;
  const ms = typeof v === 'string' ? Date.parse(v) : v.getTime();
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The status of a window at `now` (ms or Date): 'scheduled' before startsAt, 'expired' from endsAt
 * on, else 'live' (no window at all is always live).
 */
export function scheduleStatus(a: Scheduled, now: number | Date): ScheduleStatus {
  const t = typeof now === 'number' ? now : now.getTime();
  const start = instantMs(a.startsAt);
  const end = instantMs(a.endsAt);
  if (end !== null && t >= end) return 'expired';
  if (start !== null && t < start) return 'scheduled';
  return 'live';
}

/**
 * True when an asset may be shown at `now`: active and inside its window. Delivery,
 * Preview and Free up space all decide what shows with this.
 */
export function isLive(a: Scheduled & { isActive: boolean }, now: number | Date): boolean {
  return a.isActive && scheduleStatus(a, now) === 'live';
}

/**
 * The earliest boundary (ms) strictly after `now` among `boundaries` (any order; every start and
 * end instant of a dealer's assets), or null when none is ahead. A choice made at `now` stays right
 * until then: the delivery caches key choices by it (delivery/service.ts) and cap browser caching at it.
 */
export function nextBoundary(boundaries: readonly number[], now: number): number | null {
  let next: number | null = null;
  for (const b of boundaries) if (b > now && (next === null || b < next)) next = b;
  return next;
}

// ---------------------------------------------------------------------------------------------
// Time zones and local date-times

/** `YYYY-MM-DDTHH:mm`, optional `:ss` and fraction, optional `Z` or `±HH:mm`: what the window fields accept. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than formatting with it (a pass over thousands of dealers). */
const formatters = new Map<string, Intl.DateTimeFormat>();
/**
 * A cached formatter giving the wall-clock fields of an instant in IANA zone `timeZone`, for
 * `formatToParts`: year, 2-digit month and day, short English weekday ('Mon'), 2-digit hour
 * (00-23), minute and second. @throws RangeError for an unknown zone.
 */
export function wallClock(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    // Bounded: zones are validated names (a few hundred), and an unknown one threw above.
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock fields of instant `ms` in `timeZone`. */
function wallFields(ms: number, timeZone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts: Record<string, number> = {};
  for (const p of wallClock(timeZone).formatToParts(ms)) if (p.type !== 'literal' && p.type !== 'weekday') parts[p.type] = Number(p.value);
  return { y: parts.year!, mo: parts.month!, d: parts.day!, h: parts.hour! % 24, mi: parts.minute!, s: parts.second! };
}

/** The zone's offset from UTC at instant `ms`, in ms (New York in winter: -5 h). */
function zoneOffset(ms: number, timeZone: string): number {
  const w = wallFields(ms, timeZone);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000;
}

/**
 * True for an IANA time-zone name this runtime knows ('America/New_York', 'UTC'); offsets
 * ('+05:00') and abbreviations other than UTC are refused.
 */
export function isValidTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(tz) || tz.length > 64) return false;
  try {
    wallClock(tz);
    return true;
  } catch {
    return false;
  }
}

// The dealer `timeZone` setting's schema (timeZoneSchema) is in schemas.ts: this module does not
// import zod, so the web screens that show promotion windows do not download it.

/**
 * The UTC instant of a wall-clock date-time (`YYYY-MM-DDTHH:mm[:ss]`, no offset) in `timeZone`.
 * A time skipped by a daylight-saving change (02:30 on a spring-forward night) is read with the
 * offset before the change (so 03:30 daylight time); a time that occurs twice (fall back) is the
 * earlier one. Returns null for text that is not such a date-time or names no real date.
 * @throws RangeError for an unknown time zone (check with isValidTimeZone first).
 */
export function zonedLocalToUtc(local: string, timeZone: string): Date | null {
  const m = DATE_TIME.exec(local);
  if (!m || m[7]) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(asUtc);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  const day = 24 * 3600 * 1000;
  const before = zoneOffset(asUtc - day, timeZone);
  const after = zoneOffset(asUtc + day, timeZone);
  const valid = [...new Set([before, after])].map((o) => asUtc - o).filter((t) => zoneOffset(t, timeZone) === asUtc - t);
  return new Date(valid.length ? Math.min(...valid) : asUtc - before);
}

/** The wall-clock date-time (`YYYY-MM-DDTHH:mm`) of an instant in `timeZone`, as `<input type="datetime-local">` takes it. */
export function utcToZonedLocal(instant: Date | string, timeZone: string): string {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  const w = wallFields(ms, timeZone);
  const p = (n: number, len = 2) => String(n).padStart(len, '0');
  return `${p(w.y, 4)}-${p(w.mo)}-${p(w.d)}T${p(w.h)}:${p(w.mi)}`;
}

/**
 * A window field as the API takes it (PATCH body, upload fields): an ISO 8601 instant with `Z` or
 * an offset, or a local date-time without one, read in the dealer's time zone. Returns the UTC
 * instant, or null when the text is neither (the caller names the field in its 400).
 */
export function parseWindowInput(text: string, timeZone: string): Date | null {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return null;
  if (!m[7]) return zonedLocalToUtc(text.trim(), timeZone);
  const local = zonedLocalToUtc(text.trim().slice(0, -m[7].length), 'UTC'); // checks the calendar date
  if (!local) return null;
  const ms = Date.parse(text.trim());
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** The message of a window field that is not a date-time (the 400 names the field before it). */
export const WINDOW_FORMAT_MESSAGE = 'must be a date-time such as 2026-07-04T09:00 (the dealer\'s time zone) or 2026-07-04T13:00:00Z';
/** The message when the end is not after the start (the 400 names `endsAt`). */
export const WINDOW_ORDER_MESSAGE = 'must be after startsAt';

/** True when `text` has the form of a window field (see parseWindowInput); the calendar date is checked when it is read. */
export const isWindowText = (text: string): boolean => DATE_TIME.test(text.trim());
