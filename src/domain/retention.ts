/**
 * How long the event rollups keep their detail, in UTC days before today: one home for the numbers
 * the server's retention job prunes by (server/reporting/service.ts, server/maintenance/retention.ts)
 * and the screens explain (the Analytics screen's custom-range hint). Pure: every cutoff is computed
 * from an explicit `now`. The windows follow from the reporting periods (spec 02 §2 Analytics:
 * 24h, 7d, 30d, 90d; domain/periods.ts) and the weekly report's days.
 */

const DAY_MS = 86_400_000;

/**
 * How many UTC days of hourly dealer totals (dealer_rollups_hourly) are kept before today: the
 * previous window of the longest period (90 days) ends in the partial day 90 days back, plus a day
 * of margin.
 */
export const HOURLY_ROLLUP_DAYS = 92;

/**
 * How many UTC days of detailed hourly rollups (event_rollups_hourly: model, slot, creative) are
 * kept before today: the weekly report reads the models and creatives of the 7 dealer-local days
 * before the Monday it is sent on, which start at most 8 UTC days and some hours back (time zones
 * up to UTC-12), plus a day of margin. The 24h period and today's partial day are within the last
 * two days. A custom range starting earlier is read by whole UTC days.
 */
export const DETAIL_HOURLY_DAYS = 10;

/**
 * How many UTC days of detailed daily rollups (event_rollups_daily: model, slot, creative) are kept
 * before today: the longest detailed read is the 90-day period's models, creatives and CSV export
 * (today and the 89 days before), plus two days of margin. Older days keep their dealer totals
 * (dealer_rollups_daily, dealer_rollup_totals) for ever.
 */
export const DETAIL_DAILY_DAYS = 92;

/** The start of the UTC day `days` days before the UTC day of `now`. */
function utcDaysBack(now: Date, days: number): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - days * DAY_MS);
}

/** The first UTC day ('YYYY-MM-DD') event_rollups_daily keeps at `now`: DETAIL_DAILY_DAYS before today. */
export function detailDailyCutoff(now: Date): string {
  return utcDaysBack(now, DETAIL_DAILY_DAYS).toISOString().slice(0, 10);
}

/** The first hour dealer_rollups_hourly keeps at `now`: the start of the UTC day HOURLY_ROLLUP_DAYS before today. */
export function hourlyRollupCutoff(now: Date): Date {
  return utcDaysBack(now, HOURLY_ROLLUP_DAYS);
}

/** The first hour event_rollups_hourly keeps at `now`: the start of the UTC day DETAIL_HOURLY_DAYS before today. */
export function detailHourlyCutoff(now: Date): Date {
  return utcDaysBack(now, DETAIL_HOURLY_DAYS);
}
