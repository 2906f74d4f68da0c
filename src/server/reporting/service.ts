/**
 * Every read of the event counts (dealer analytics, creative performance, the CSV export, the
 * Admin Dashboard, Platform Analytics, the dealer list, the weekly report and alerts, the dealer
 * stats): one module, so each screen reads the smallest rollups that answer it exactly.
 *
 * What is stored (migrations 0015, 0017, 0024; written with each event batch, tracking/service.ts withRollup):
 * - event_rollups_hourly: dealer × UTC hour × model key × slot type × creative × device. Kept
 *   DETAIL_HOURLY_DAYS (the retention job prunes older hours): the hours of every detailed read
 *   (models, creatives, slots, per day and model) of a screen: the 24h period, today's partial
 *   day, the weekly report's dealer-local days (at most 9 UTC days back);
 * - dealer_rollups_hourly: dealer × UTC hour × device totals, kept HOURLY_ROLLUP_DAYS: the hours of every
 *   totals and series read, whose oldest is the previous window's partial day one period back (90
 *   days for the longest period, domain/periods.ts);
 * - event_rollups_daily: dealer × UTC day × model × slot × creative × device, kept DETAIL_DAILY_DAYS: the
 *   whole days of every detailed read, whose oldest is the first day of the 90-day period;
 * - dealer_rollups_daily: dealer × UTC day × device totals, kept for ever (the totals of any window);
 * - dealer_rollup_totals: each dealer's all-time totals (the dealer list, the dashboard).
 * The four are kept equal to the hourly rows ever written by database triggers in the writer's
 * own statement (migrations 0015, 0017, 0024), so every figure equals the raw events counted, exactly.
 * Every table but the all-time totals carries the device (desktop, mobile, or unknown for events
 * stored before migration 0024), so a dealer's figures of any window narrow to one device
 * (DealerScope.device) by the same rows; without a device every device is summed.
 *
 * A window (domain/periods.ts TimeWindow) counts the hour buckets that start in [from, to) (the
 * hourly rollups' rule since the first screen): readParts splits it into the whole UTC days inside
 * it, read from the daily tables, and the hours before and after them, read from the hourly tables.
 * A window's partial-day edges older than HOURLY_ROLLUP_DAYS (DETAIL_HOURLY_DAYS for the detailed
 * reads: ranked, dailyByModel) are no longer stored hour by hour and count as empty, and so do the
 * days of a detailed read older than DETAIL_DAILY_DAYS; the windows of the screens never have such
 * edges or days.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealerRollupTotals, dealerRollupsDaily, dealerRollupsHourly, eventRollupsDaily, eventRollupsHourly } from '../db/schema';
import type { DealerStats } from '../../domain/schemas';
import type { DeviceFilter } from '../../domain/enums';
import { BUCKET_SQL_FORMAT, bucketKeys, type PeriodUnit, type TimeWindow } from '../../domain/periods';
import { ctr } from '../../domain/metrics';
import { detailDailyCutoff, detailHourlyCutoff, hourlyRollupCutoff } from '../../domain/retention';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Impressions, clicks and conversions. */
export interface Counts {
  impressions: number;
  clicks: number;
  conversions: number;
}

/**
 * One dealer's events: of every device (`device` absent or 'all', events of unknown device
 * included), or of one device class.
 */
export type DealerScope = { dealerId: string; device?: DeviceFilter };

/** Whose events: one dealer's (of one device or all), or every dealer's (the platform). */
export type Scope = DealerScope | 'platform';

const ZERO: Counts = { impressions: 0, clicks: 0, conversions: 0 };

/** A window as read from storage: whole UTC days ['YYYY-MM-DD', 'YYYY-MM-DD') and hour ranges [from, to). */
export interface WindowParts {
  days: { from: string; to: string } | null;
  hours: TimeWindow[];
}

const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;
const dayText = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * Splits the hour buckets starting in [from, to) into the whole UTC days they cover and the hours
 * left before and after those days. Empty when no hour starts in the window.
 */
export function readParts(window: TimeWindow): WindowParts {
  const fromH = ceilTo(window.from.getTime(), HOUR_MS);
  const toH = ceilTo(window.to.getTime(), HOUR_MS); // the hours h < to are those h < toH
  if (toH <= fromH) return { days: null, hours: [] };
  const dFrom = ceilTo(fromH, DAY_MS);
  const dTo = Math.floor(toH / DAY_MS) * DAY_MS;
  if (dFrom >= dTo) return { days: null, hours: [{ from: new Date(fromH), to: new Date(toH) }] };
  const hours: TimeWindow[] = [];
  if (fromH < dFrom) hours.push({ from: new Date(fromH), to: new Date(dFrom) });
  if (dTo < toH) hours.push({ from: new Date(dTo), to: new Date(toH) });
  return { days: { from: dayText(dFrom), to: dayText(dTo) }, hours };
}

const h = eventRollupsHourly;
const dh = dealerRollupsHourly;
/**
 * The dealer totals tables as read: carrying the dealer's key (migration 0025), joined to dealers
 * for its id, so every read keeps its `dealer_id` and `device` columns and scope conditions (the
 * planner pushes a `dealer_id = ...` down to the dealer's row, then the table's primary key on its key).
 */
const dealerHours = sql`(SELECT k.id AS dealer_id, r.hour, r.device, r.impressions, r.clicks, r.conversions FROM ${dh} r JOIN dealers k ON k.key = r.dealer_key) AS dealer_hours`;
const dealerDays = sql`(SELECT k.id AS dealer_id, r.day, r.device, r.impressions, r.clicks, r.conversions FROM ${dealerRollupsDaily} r JOIN dealers k ON k.key = r.dealer_key) AS dealer_days`;

/** SQL condition on `dealer_id` (and `device`) for a scope, optionally narrowed to some dealers. */
function scopeSql(scope: Scope, dealerIds?: string[]): SQL {
  if (scope !== 'platform') {
    const device = scope.device ?? 'all';
    return device === 'all' ? sql`dealer_id = ${scope.dealerId}` : sql`dealer_id = ${scope.dealerId} AND device = ${device}::device_class`;
  }
  if (!dealerIds) return sql`true`;
  return sql`dealer_id IN (${sql.join(dealerIds.map((id) => sql`${id}`), sql`, `)})`;
}

/** SQL condition of the hourly rows (column `hour` of either hourly table) of `hours` (false when none). */
function hoursSql(hours: TimeWindow[]): SQL {
  if (hours.length === 0) return sql`false`;
  return sql.join(
    hours.map((w) => sql`(hour >= ${w.from.toISOString()}::timestamptz AND hour < ${w.to.toISOString()}::timestamptz)`),
    sql` OR `,
  );
}

/**
 * The rows of a window with their UTC day as text, one derived table of columns dealer_id, day,
 * [model, slot_type, creative,] impressions, clicks, conversions: whole days from the daily
 * rollups, the other hours from the hourly ones. `detail` keeps the model, slot and creative
 * columns (event_rollups_daily, event_rollups_hourly); without it the dealer totals are read
 * (dealer_rollups_daily, dealer_rollups_hourly).
 */
function windowRows(scope: Scope, window: TimeWindow, detail: boolean, dealerIds?: string[]): SQL {
  const parts = readParts(window);
  const keys = sql.raw(detail ? 'model, slot_type, creative, ' : '');
  const who = scopeSql(scope, dealerIds);
  const daily = detail ? sql`${eventRollupsDaily}` : dealerDays;
  const hourly = detail ? sql`${h}` : dealerHours;
  const dayRows = parts.days
    ? sql`SELECT dealer_id, to_char(day, 'YYYY-MM-DD') AS day, ${keys}impressions::bigint AS impressions, clicks::bigint AS clicks, conversions::bigint AS conversions
        FROM ${daily} WHERE ${who} AND day >= ${parts.days.from}::date AND day < ${parts.days.to}::date`
    : null;
  const hourRows = parts.hours.length
    ? sql`SELECT dealer_id, to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${keys}impressions::bigint, clicks::bigint, conversions::bigint
        FROM ${hourly} WHERE ${who} AND (${hoursSql(parts.hours)})`
    : null;
  if (dayRows && hourRows) return sql`${dayRows} UNION ALL ${hourRows}`;
  if (dayRows) return dayRows;
  if (hourRows) return hourRows;
  return sql`SELECT ''::text AS dealer_id, ''::text AS day, ${sql.raw(detail ? "''::text AS model, ''::text AS slot_type, ''::text AS creative, " : '')}0::bigint AS impressions, 0::bigint AS clicks, 0::bigint AS conversions WHERE false`;
}

type Row = Record<string, unknown>;
const rowsOf = async (db: Db, query: SQL): Promise<Row[]> => ((await db.execute(query)) as unknown as { rows: Row[] }).rows;
const countsOf = (row: Row | undefined): Counts => ({
  impressions: Number(row?.impressions ?? 0),
  clicks: Number(row?.clicks ?? 0),
  conversions: Number(row?.conversions ?? 0),
});

/** Impressions, clicks and conversions of a scope in a window (hour buckets starting in [from, to)). */
export async function totals(db: Db, scope: Scope, window: TimeWindow): Promise<Counts> {
  const [row] = await rowsOf(db, sql`
    SELECT coalesce(sum(impressions), 0) AS impressions, coalesce(sum(clicks), 0) AS clicks, coalesce(sum(conversions), 0) AS conversions
    FROM (${windowRows(scope, window, false)}) s`);
  return countsOf(row);
}

/**
 * A dealer's totals with CTR (the DealerStats of the dealer screens) for the hour buckets
 * starting in [from, to); `from` is rounded down to its hour. Every device unless `device` names one.
 */
export async function dealerStats(db: Db, dealerId: string, from: Date, to: Date, device: DeviceFilter = 'all'): Promise<DealerStats> {
  const fromHour = new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS);
  const c = await totals(db, { dealerId, device }, { from: fromHour, to });
  return { ...c, ctr: ctr(c.clicks, c.impressions) };
}

/** One bucket of a series: its key (domain/periods.ts bucketKey) and counts. */
export type SeriesPoint = Counts & { bucket: string };

/**
 * The counts of a scope per bucket of `unit` (UTC hour or day) over a window: one entry per
 * bucket of bucketKeys(window, unit), in order, zero where nothing was counted.
 */
export async function series(db: Db, scope: Scope, window: TimeWindow, unit: PeriodUnit): Promise<SeriesPoint[]> {
  const rows =
    unit === 'hour'
      ? await rowsOf(db, sql`
          SELECT to_char(hour AT TIME ZONE 'UTC', '${sql.raw(BUCKET_SQL_FORMAT.hour)}') AS bucket,
            sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
          FROM ${dealerHours} WHERE ${scopeSql(scope)} AND (${hoursSql([window])})
          GROUP BY 1`)
      : await rowsOf(db, sql`
          SELECT day AS bucket, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
          FROM (${windowRows(scope, window, false)}) s GROUP BY 1`);
  const byBucket = new Map(rows.map((r) => [String(r.bucket), countsOf(r)]));
  return bucketKeys(window, unit).map((bucket) => ({ bucket, ...(byBucket.get(bucket) ?? ZERO) }));
}

/** Columns `ranked` groups by. */
export type RankColumn = 'model' | 'creative' | 'slot_type';
/** One group of `ranked`: its columns, or '' in the remainder row (`rest`). */
export type RankedRow<C extends RankColumn> = Record<C, string> & Counts & { rest: boolean };

/**
 * A dealer's counts in a window per `columns` (model, creative, slot type), at most `limit`
 * groups: those with the most impressions (then clicks, conversions, then by name byte-wise, so
 * the choice is stable), plus, when more groups exist, one row with `rest` true (its columns '')
 * summing all the others. The database ranks, so at most `limit` + 1 rows reach the process
 * however many keys are stored; the rows add up to the window's totals.
 */
export async function ranked<C extends RankColumn>(db: Db, scope: DealerScope, columns: C[], window: TimeWindow, limit: number): Promise<Array<RankedRow<C>>> {
  const cols = sql.raw(columns.join(', '));
  // Ties broken byte-wise: a locale-aware sort of thousands of keys costs far more (PGlite).
  const byName = sql.raw(columns.map((c) => `${c} COLLATE "C"`).join(', '));
  const blanks = sql.raw(columns.map((c) => `'' AS ${c}`).join(', '));
  // The top groups by a bounded (top-N) sort; the rest as the total minus them, so no full sort of every group.
  const rows = await rowsOf(db, sql`
    WITH g AS (
      SELECT ${cols}, sum(impressions) AS i, sum(clicks) AS c, sum(conversions) AS v
      FROM (${windowRows(scope, window, true)}) s GROUP BY ${cols}),
    top AS (SELECT * FROM g ORDER BY i DESC, c DESC, v DESC, ${byName} LIMIT ${limit})
    SELECT false AS rest, ${cols}, i::bigint AS impressions, c::bigint AS clicks, v::bigint AS conversions FROM top
    UNION ALL
    SELECT true, ${blanks},
      ((SELECT sum(i) FROM g) - (SELECT coalesce(sum(i), 0) FROM top))::bigint,
      ((SELECT sum(c) FROM g) - (SELECT coalesce(sum(c), 0) FROM top))::bigint,
      ((SELECT sum(v) FROM g) - (SELECT coalesce(sum(v), 0) FROM top))::bigint
    WHERE (SELECT count(*) FROM g) > ${limit}`);
  return rows.map((row) => {
    const out: Record<string, unknown> = { rest: row.rest === true || row.rest === 't', ...countsOf(row) };
    for (const c of columns) out[c] = String(row[c] ?? '');
    return out as RankedRow<C>;
  });
}

/** One row of dailyByModel: a UTC day, a model key (null: the models outside the top) and counts. */
export type DayModelRow = Counts & { day: string; model: string | null };

/**
 * A dealer's counts in a window per UTC day and model key: the window's `limit` models with the
 * most impressions (then clicks, conversions, key) get rows of their own, the others are summed
 * per day into one row with model null. Ordered by day, then impressions descending.
 */
export async function dailyByModel(db: Db, scope: DealerScope, window: TimeWindow, limit: number): Promise<DayModelRow[]> {
  const rows = await rowsOf(db, sql`
    WITH s AS (${windowRows(scope, window, true)}),
    top AS (
      SELECT model FROM s GROUP BY model
      ORDER BY sum(impressions) DESC, sum(clicks) DESC, sum(conversions) DESC, model LIMIT ${limit})
    SELECT day, CASE WHEN model IN (SELECT model FROM top) THEN model END AS model,
      sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
    FROM s GROUP BY 1, 2 ORDER BY 1, 3 DESC, 4 DESC, 5 DESC, 2 NULLS LAST`);
  return rows.map((r) => ({ day: String(r.day), model: r.model === null || r.model === undefined ? null : String(r.model), ...countsOf(r) }));
}

/**
 * Totals per dealer: of `dealerIds` (every dealer with counts when 'all'), over a window or all
 * recorded time ('all', from dealer_rollup_totals). Dealers without counts are absent from the map.
 */
export async function dealerTotals(db: Db, dealerIds: string[] | 'all', window: TimeWindow | 'all'): Promise<Map<string, Counts>> {
  if (dealerIds !== 'all' && dealerIds.length === 0) return new Map();
  const ids = dealerIds === 'all' ? undefined : dealerIds;
  const rows =
    window === 'all'
      ? await rowsOf(db, sql`SELECT dealer_id, impressions, clicks, conversions FROM ${dealerRollupTotals} WHERE ${scopeSql('platform', ids)}`)
      : await rowsOf(db, sql`
          SELECT dealer_id, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
          FROM (${windowRows('platform', window, false, ids)}) s GROUP BY 1`);
  return new Map(rows.map((r) => [String(r.dealer_id), countsOf(r)]));
}

/** Every dealer's all-time counts summed (the Admin Dashboard's totals). */
export async function platformAllTime(db: Db): Promise<Counts> {
  const [row] = await rowsOf(db, sql`
    SELECT coalesce(sum(impressions), 0) AS impressions, coalesce(sum(clicks), 0) AS clicks, coalesce(sum(conversions), 0) AS conversions
    FROM ${dealerRollupTotals}`);
  return countsOf(row);
}

/**
 * Every dealer's impressions, clicks and conversions in a window, as one SQL derived table of
 * columns dealer_id, impressions, clicks, conversions (one row per dealer with counts; dealers
 * without are absent), to be joined by a listing that sorts dealers on their figures (the
 * portfolio table, admin/dealers.ts). Whole days read dealer_rollups_daily, the edges the hourly rollups.
 */
export function dealerWindowTotalsSql(window: TimeWindow): SQL {
  return sql`SELECT dealer_id, sum(impressions)::bigint AS impressions, sum(clicks)::bigint AS clicks, sum(conversions)::bigint AS conversions
    FROM (${windowRows('platform', window, false)}) s GROUP BY dealer_id`;
}

/**
 * When the dealer's newest recorded event arrived ('Last updated': 11:35, not the 11:00 of its
 * hourly rollup), or null before any. The newest rollup hour (dealer_rollups_hourly's primary key starts with
 * the dealer's key and hour), then the dealer's newest raw event (by its key) within that hour: events carry only a BRIN
 * index on occurred_at (migration 0014), which with the partition of that week narrows the read to
 * about an hour of rows. For events already removed by retention, the rollup hour, or day once the
 * hours are pruned (dealer_rollups_daily); GREATEST ignores a NULL. Read on the dealer's row (primary key), so an unknown
 * dealer answers null too.
 */
export async function lastEventAt(db: Db, dealerId: string): Promise<Date | null> {
  return (await lastEventsAt(db, [dealerId])).get(dealerId) ?? null;
}

/** lastEventAt of several dealers in one statement: dealer id to time; dealers without events (or unknown) are absent. */
export async function lastEventsAt(db: Db, dealerIds: string[]): Promise<Map<string, Date>> {
  if (dealerIds.length === 0) return new Map();
  // ISO text from the database itself, so PGlite and node-postgres answer alike (no driver date parsing).
  const rows = await rowsOf(db, sql`
    SELECT d.id AS dealer_id, to_char(greatest(ev.at, hr.hour, dd.day) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
    FROM dealers d
    CROSS JOIN LATERAL (SELECT max(hour) AS hour FROM ${dh} WHERE dealer_key = d.key) hr
    CROSS JOIN LATERAL (
      SELECT max(occurred_at) AS at FROM events
      WHERE dealer_key = d.key AND occurred_at >= hr.hour AND occurred_at < hr.hour + interval '1 hour') ev
    CROSS JOIN LATERAL (SELECT max(day)::timestamp AT TIME ZONE 'UTC' AS day FROM ${dealerRollupsDaily} WHERE dealer_key = d.key) dd
    WHERE d.id IN (${sql.join(dealerIds.map((id) => sql`${id}`), sql`, `)})`);
  const out = new Map<string, Date>();
  for (const r of rows) if (r.at) out.set(String(r.dealer_id), new Date(String(r.at)));
  return out;
}

/**
 * Deletes up to `batchRows` detailed hourly rollups of hours before detailHourlyCutoff(now), in one
 * transaction that tells the rollup triggers it is pruning (dc_banners.rollup_prune, migrations
 * 0015, 0017): the daily tables and dealer_rollups_hourly keep those hours; then up to `batchRows`
 * dealer_rollups_hourly rows of hours before hourlyRollupCutoff(now) and up to `batchRows`
 * event_rollups_daily rows of days before detailDailyCutoff(now) (no triggers: dealer_rollups_daily
 * and dealer_rollup_totals keep their counts). Returns how many rows it deleted from the three (the
 * retention job calls it until fewer than `batchRows`: then no table has more to prune).
 */
export async function pruneHourlyRollups(db: Db, now: Date, batchRows: number): Promise<number> {
  const detailCutoff = detailHourlyCutoff(now).toISOString();
  const cutoff = hourlyRollupCutoff(now).toISOString();
  const detail = await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('dc_banners.rollup_prune', 'on', true)`);
    const deleted = await rowsOf(tx as unknown as Db, sql`
      DELETE FROM ${h} WHERE (dealer_id, hour, model, slot_type, creative, device) IN (
        SELECT dealer_id, hour, model, slot_type, creative, device FROM ${h} WHERE hour < ${detailCutoff}::timestamptz LIMIT ${batchRows})
      RETURNING 1 AS x`);
    return deleted.length;
  });
  const totalsDeleted = await rowsOf(db, sql`
    DELETE FROM ${dh} WHERE (dealer_key, hour, device) IN (SELECT dealer_key, hour, device FROM ${dh} WHERE hour < ${cutoff}::timestamptz LIMIT ${batchRows})
    RETURNING 1 AS x`);
  const daysDeleted = await rowsOf(db, sql`
    DELETE FROM ${eventRollupsDaily} WHERE (dealer_id, day, model, slot_type, creative, device) IN (
      SELECT dealer_id, day, model, slot_type, creative, device FROM ${eventRollupsDaily} WHERE day < ${detailDailyCutoff(now)}::date LIMIT ${batchRows})
    RETURNING 1 AS x`);
  return detail + totalsDeleted.length + daysDeleted.length;
}

/**
 * The counts of a scope per local calendar day of `timeZone` (IANA name) over a window, read from
 * the dealer hourly totals (each UTC hour counted in the local day it starts in): one entry per key of
 * `days` in order, zero where nothing was counted. The window must lie within the hours kept
 * (hourlyRollupCutoff); older windows are read by UTC day with `series`.
 */
export async function zonedDaySeries(db: Db, scope: Scope, window: TimeWindow, timeZone: string, days: string[]): Promise<SeriesPoint[]> {
  const rows = await rowsOf(db, sql`
    SELECT to_char(hour AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS bucket,
      sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
    FROM ${dealerHours} WHERE ${scopeSql(scope)} AND (${hoursSql([window])})
    GROUP BY 1`);
  const byBucket = new Map(rows.map((r) => [String(r.bucket), countsOf(r)]));
  return days.map((bucket) => ({ bucket, ...(byBucket.get(bucket) ?? ZERO) }));
}
