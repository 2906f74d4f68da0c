/**
 * Every read of the event counts (dealer analytics, creative performance, the CSV export, the
 * Admin Dashboard, Platform Analytics, the dealer list, the weekly report and alerts, the dealer
 * stats): one module, so each screen reads the smallest rollups that answer it exactly.
 *
 * What is stored (migrations 0015, 0017, 0024, 0025, 0026; written with each event batch, tracking/service.ts withRollup):
 * - event_rollups_hourly: dealer × UTC hour × model key × slot type × creative × device. Kept
 *   DETAIL_HOURLY_DAYS (the retention job prunes older hours): the hours of every detailed read
 *   (models, creatives, slots, per day and model) of a screen: the 24h period, today's partial
 *   day, the weekly report's dealer-local days (at most 9 UTC days back);
 * - dealer_rollups_hourly: dealer × UTC hour × device totals, kept HOURLY_ROLLUP_DAYS: the hours of every
 *   totals and series read, whose oldest is the previous window's partial day one period back (90
 *   days for the longest period, domain/periods.ts);
 * - event_rollups_daily: dealer × UTC day × model × slot × creative × device (the dealer's key and the rollup_details id of
 *   the three, migration 0026), kept DETAIL_DAILY_DAYS: the
 *   whole days of every detailed read, whose oldest is the first day of the 90-day period;
 * - dealer_rollups_daily: dealer × UTC day × device totals, kept for ever (the totals of any window);
 * - dealer_rollup_totals: each dealer's all-time totals (the dealer list, the dashboard);
 * - platform_rollups_hourly, platform_rollups_daily (migration 0029): every dealer's hourly and
 *   daily totals summed per hour or day and device, by triggers on the two dealer tables, kept as
 *   long as those: the platform's windows and series (Admin Dashboard, Platform Analytics' chart).
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
import { lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealerLastEvents, dealerRollupTotals, dealerRollupsDaily, dealerRollupsHourly, eventRollupsDaily, eventRollupsHourly, platformRollupsDaily, platformRollupsHourly, rollupDetails } from '../db/schema';
import type { DealerStats } from '../../domain/schemas';
import type { DeviceFilter } from '../../domain/enums';
import { BUCKET_SQL_FORMAT, bucketKeys, type PeriodUnit, type TimeWindow } from '../../domain/periods';
import { ctr } from '../../domain/metrics';
import { detailDailyCutoff, detailHourlyCutoff, hourlyRollupCutoff } from '../../domain/retention';
import { dropExpiredRollupPartitions } from '../maintenance/partitions';

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
 * A LEFT JOIN, which counts the same rows (every row's dealer exists: the foreign key to dealers.key
 * cascades) and which the planner drops when a read never uses `dealer_id` (the platform's series:
 * no join of every dealer day to dealers); a `dealer_id = ...` condition makes it an inner join again.
 */
const dealerHours = sql`(SELECT k.id AS dealer_id, r.hour, r.device, r.impressions, r.clicks, r.conversions FROM ${dh} r LEFT JOIN dealers k ON k.key = r.dealer_key) AS dealer_hours`;
const dealerDays = sql`(SELECT k.id AS dealer_id, r.day, r.device, r.impressions, r.clicks, r.conversions FROM ${dealerRollupsDaily} r LEFT JOIN dealers k ON k.key = r.dealer_key) AS dealer_days`;
/**
 * The platform's totals per hour and per day (migration 0029: every dealer's rows summed by
 * triggers, in a few shards per hour or day), with the columns of dealerHours and dealerDays
 * (dealer_id null): the platform's windows and series read these instead of a row per dealer.
 */
const platformHours = sql`(SELECT NULL::text AS dealer_id, hour, device, impressions, clicks, conversions FROM ${platformRollupsHourly}) AS platform_hours`;
const platformDays = sql`(SELECT NULL::text AS dealer_id, day, device, impressions, clicks, conversions FROM ${platformRollupsDaily}) AS platform_days`;
/** The hourly totals a scope's reads use: the platform's own for the platform, else the dealers'. */
const totalsHours = (scope: Scope) => (scope === 'platform' ? platformHours : dealerHours);
/**
 * The detailed days as read: keyed by the dealer's key and their details' id (migration 0026),
 * joined to dealers for the id and to rollup_details for the model, slot type and creative.
 */
const detailDays = sql`(SELECT k.id AS dealer_id, r.day, x.model, x.slot_type, x.creative, r.device, r.impressions, r.clicks, r.conversions
  FROM ${eventRollupsDaily} r JOIN dealers k ON k.key = r.dealer_key JOIN ${rollupDetails} x ON x.id = r.detail_id) AS detail_days`;

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
 * The rows of a window with their UTC day (a date: readers group by it, then format the groups, not
 * every row), one derived table of columns dealer_id, day,
 * [model, slot_type, creative,] impressions, clicks, conversions: whole days from the daily
 * rollups, the other hours from the hourly ones. `detail` keeps the model, slot and creative
 * columns (event_rollups_daily, event_rollups_hourly); without it the dealer totals are read
 * (dealer_rollups_daily, dealer_rollups_hourly).
 */
function windowRows(scope: Scope, window: TimeWindow, detail: boolean, dealerIds?: string[]): SQL {
  const parts = readParts(window);
  const keys = sql.raw(detail ? 'model, slot_type, creative, ' : '');
  const who = scopeSql(scope, dealerIds);
  // The whole platform's totals: its own rollups; some dealers' (dealerIds) or details: the dealers' rows.
  const platformWide = scope === 'platform' && !dealerIds && !detail;
  const daily = detail ? detailDays : platformWide ? platformDays : dealerDays;
  const hourly = detail ? sql`${h}` : platformWide ? platformHours : dealerHours;
  const dayRows = parts.days
    ? sql`SELECT dealer_id, day, ${keys}impressions::bigint AS impressions, clicks::bigint AS clicks, conversions::bigint AS conversions
        FROM ${daily} WHERE ${who} AND day >= ${parts.days.from}::date AND day < ${parts.days.to}::date`
    : null;
  const hourRows = parts.hours.length
    ? sql`SELECT dealer_id, (hour AT TIME ZONE 'UTC')::date AS day, ${keys}impressions::bigint, clicks::bigint, conversions::bigint
        FROM ${hourly} WHERE ${who} AND (${hoursSql(parts.hours)})`
    : null;
  if (dayRows && hourRows) return sql`${dayRows} UNION ALL ${hourRows}`;
  if (dayRows) return dayRows;
  if (hourRows) return hourRows;
  return sql`SELECT ''::text AS dealer_id, NULL::date AS day, ${sql.raw(detail ? "''::text AS model, ''::text AS slot_type, ''::text AS creative, " : '')}0::bigint AS impressions, 0::bigint AS clicks, 0::bigint AS conversions WHERE false`;
}

/**
 * Every dealer's totals in a window, summed by the dealer's key before the one join to dealers for
 * its id (the dealer days of a 90-day window are about 90 rows per dealer and device), as a derived
 * table of columns dealer_id, impressions, clicks, conversions (bigint; dealers without counts absent).
 */
function dealerWindowSums(window: TimeWindow): SQL {
  const parts = readParts(window);
  const rows = [
    parts.days && sql`SELECT dealer_key, impressions, clicks, conversions FROM ${dealerRollupsDaily} WHERE day >= ${parts.days.from}::date AND day < ${parts.days.to}::date`,
    parts.hours.length > 0 && sql`SELECT dealer_key, impressions, clicks, conversions FROM ${dh} WHERE ${hoursSql(parts.hours)}`,
  ].filter((x): x is SQL => !!x);
  if (rows.length === 0) return sql`SELECT ''::text AS dealer_id, 0::bigint AS impressions, 0::bigint AS clicks, 0::bigint AS conversions WHERE false`;
  return sql`SELECT k.id AS dealer_id, s.impressions, s.clicks, s.conversions
    FROM (SELECT dealer_key, sum(impressions)::bigint AS impressions, sum(clicks)::bigint AS clicks, sum(conversions)::bigint AS conversions
      FROM (${sql.join(rows, sql` UNION ALL `)}) u GROUP BY dealer_key) s
    JOIN dealers k ON k.key = s.dealer_key`;
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
          FROM ${totalsHours(scope)} WHERE ${scopeSql(scope)} AND (${hoursSql([window])})
          GROUP BY 1`)
      : await rowsOf(db, sql`
          SELECT to_char(s.day, 'YYYY-MM-DD') AS bucket, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
          FROM (${windowRows(scope, window, false)}) s GROUP BY s.day`);
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
    SELECT to_char(s.day, 'YYYY-MM-DD') AS day, CASE WHEN model IN (SELECT model FROM top) THEN model END AS model,
      sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
    FROM s GROUP BY s.day, 2 ORDER BY s.day, 3 DESC, 4 DESC, 5 DESC, 2 NULLS LAST`);
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
      : ids
        ? await rowsOf(db, sql`
            SELECT dealer_id, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions
            FROM (${windowRows('platform', window, false, ids)}) s GROUP BY 1`)
        : await rowsOf(db, dealerWindowSums(window));
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
  return dealerWindowSums(window);
}

/**
 * When the dealer's newest recorded event arrived ('Last updated': 11:35, not the 11:00 of its
 * hourly rollup), or null before any: the time ingestion wrote with its events (dealer_last_events,
 * migration 0030). Where that row is missing or older than the dealer's newest rollup hour
 * (dealer_rollups_hourly's primary key starts with the dealer's key and hour; events stored before
 * the migration, or rollups written by hand), the dealer's newest raw event (by its key) within
 * that hour: events carry only a BRIN index on occurred_at (migration 0014), which with the
 * partition of that week narrows the read to about an hour of rows. For events already removed by
 * retention, the rollup hour, or day once the hours are pruned (dealer_rollups_daily); the newest
 * of these wins. Read on the dealer's row (primary key), so an unknown dealer answers null too.
 */
export async function lastEventAt(db: Db, dealerId: string): Promise<Date | null> {
  return (await lastEventsAt(db, [dealerId])).get(dealerId) ?? null;
}

/**
 * lastEventAt of several dealers: dealer id to time; dealers without events (or unknown) are absent.
 * Two statements: the newest rollup hour and day and the ingested time of each dealer, then (only
 * for dealers whose ingested time is missing or older than that hour) the raw events of those hours
 * with the hours as constants. One statement with the hour as a lateral parameter could not prune the
 * events partitions when planned: its estimated cost summed a scan of every weekly partition, grew
 * with the platform's events and crossed PostgreSQL's JIT thresholds (jit_above_cost), so each call
 * compiled code for every partition (about 65 ms at 5M events, over a second at 20M) to read one.
 * The newest hour is looked for in the newest day only (the triggers write a dealer's hour and its
 * day together, and the hours of a day the hourly table still keeps are all there): the day's
 * bounds prune dealer_rollups_hourly's daily partitions (migration 0028) when the statement runs,
 * so one day's index is read instead of every day's.
 */
export async function lastEventsAt(db: Db, dealerIds: string[]): Promise<Map<string, Date>> {
  if (dealerIds.length === 0) return new Map();
  // ISO text from the database itself, so PGlite and node-postgres answer alike (no driver date parsing).
  const iso = (col: string) => sql.raw(`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
  const newest = await rowsOf(db, sql`
    SELECT d.id AS dealer_id, d.key AS dealer_key, ${iso('hr.hour')} AS hour, ${iso('dd.day')} AS day, ${iso('le.at')} AS last
    FROM dealers d
    CROSS JOIN LATERAL (SELECT max(day)::timestamp AT TIME ZONE 'UTC' AS day FROM ${dealerRollupsDaily} WHERE dealer_key = d.key) dd
    CROSS JOIN LATERAL (SELECT max(hour) AS hour FROM ${dh} WHERE dealer_key = d.key AND hour >= dd.day AND hour < dd.day + interval '24 hours') hr
    LEFT JOIN ${dealerLastEvents} le ON le.dealer_key = d.key
    WHERE d.id IN (${sql.join(dealerIds.map((id) => sql`${id}`), sql`, `)})`);
  // The raw events only where the time ingestion wrote (dealer_last_events) does not reach the newest
  // hour: dealers without an event since migration 0030, or whose hourly rows were written otherwise.
  const withHour = newest.filter((r) => r.hour && !(r.last && String(r.last) >= String(r.hour)));
  // The newest event of each dealer's newest hour; bounds computed here so the planner reads only their partitions.
  const events = withHour.length === 0 ? [] : await rowsOf(db, sql`
    SELECT dealer_key, ${iso('max(occurred_at)')} AS at FROM events
    WHERE ${sql.join(
      withHour.map((r) => {
        const from = new Date(String(r.hour));
        return sql`(dealer_key = ${Number(r.dealer_key)} AND occurred_at >= ${from.toISOString()}::timestamptz AND occurred_at < ${new Date(from.getTime() + HOUR_MS).toISOString()}::timestamptz)`;
      }),
      sql` OR `,
    )}
    GROUP BY dealer_key`);
  const eventAt = new Map(events.map((r) => [Number(r.dealer_key), String(r.at)]));
  const out = new Map<string, Date>();
  for (const r of newest) {
    // The newest of the four (ISO texts of one format compare as times).
    const at = [eventAt.get(Number(r.dealer_key)), r.last, r.hour, r.day].filter((x): x is string => typeof x === 'string' && x !== '').sort().at(-1);
    if (at) out.set(String(r.dealer_id), new Date(at));
  }
  return out;
}

/** The longest hour range one pruning DELETE covers, ms (a month: the catch-up over old data grows to it). */
const MAX_PRUNE_SPAN_MS = 31 * 86_400_000;
/** Dealers per pruning DELETE of event_rollups_daily (each one an index range of its primary key). */
const PRUNE_DEALERS_PER_STATEMENT = 250;

/** The count of a `WITH gone AS (DELETE ... RETURNING 1) SELECT count(*) AS n FROM gone` statement. */
async function deletedCount(db: Db, statement: SQL): Promise<number> {
  return Number((await rowsOf(db, statement))[0]?.n ?? 0);
}

/**
 * Deletes every row of `table` (event_rollups_hourly or dealer_rollups_hourly) with hour before
 * `cutoff`, one index range of its hour index per statement: from the oldest hour stored, ranges
 * [a, b) sized so a statement deletes about `batchRows` rows (the next range scaled by what the
 * last one held, between an hour and MAX_PRUNE_SPAN_MS). Each row is visited once: no statement
 * reads the table beyond its range, nor the dead rows an earlier statement left. `each` runs one
 * statement (in its own transaction when the caller needs one). Stops early when `shouldStop`.
 */
async function pruneByHour(
  db: Db,
  table: typeof h | typeof dh,
  cutoff: Date,
  batchRows: number,
  shouldStop: () => boolean,
  each: (statement: SQL) => Promise<number>,
): Promise<number> {
  // The oldest hour through the hour index (its first entry); epoch milliseconds, null when none is older.
  const oldest = (await rowsOf(db, sql`SELECT (extract(epoch FROM min(hour)) * 1000)::float8 AS ms FROM ${table} WHERE hour < ${cutoff.toISOString()}::timestamptz`))[0]?.ms;
  if (oldest === null || oldest === undefined) return 0;
  let from = Math.floor(Number(oldest) / HOUR_MS) * HOUR_MS;
  let span = HOUR_MS;
  let total = 0;
  while (from < cutoff.getTime()) {
    const to = Math.min(from + span, cutoff.getTime());
    const n = await each(sql`
      WITH gone AS (DELETE FROM ${table} WHERE hour >= ${new Date(from).toISOString()}::timestamptz AND hour < ${new Date(to).toISOString()}::timestamptz RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    total += n;
    from = to;
    if (shouldStop()) break;
    // At most 4 times wider per step, so a gap of empty hours does not jump over a full month at once.
    const scale = Math.min(4, batchRows / Math.max(n, 1));
    span = Math.min(MAX_PRUNE_SPAN_MS, Math.max(HOUR_MS, Math.floor((span * scale) / HOUR_MS) * HOUR_MS));
  }
  return total;
}

/**
 * Deletes the rollup rows older than the screens read. The two hourly tables are partitioned by UTC
 * day (migration 0028) and their cutoffs are day starts: first their partitions entirely before the
 * cutoff are dropped whole (maintenance/partitions.ts dropExpiredRollupPartitions: no trigger
 * fires, their rows counted), then what is left before the cutoff (rows of the DEFAULT partition, a
 * partition whose drop did not get its lock, a table not partitioned yet) is deleted by rows,
 * bounded by index ranges (see pruneByHour):
 * every detailed hourly rollup of hours before detailHourlyCutoff(now), each statement in a
 * transaction that tells the rollup triggers it is pruning (dc_banners.rollup_prune, migrations
 * 0015, 0017: the daily tables and dealer_rollups_hourly keep those hours); every dealer_rollups_hourly
 * row of hours before hourlyRollupCutoff(now) (under dc_banners.rollup_prune too: migration 0029's
 * triggers leave the platform's hours, which are deleted by the same cutoff after them); every event_rollups_daily row of days before
 * detailDailyCutoff(now) (no triggers: dealer_rollups_daily and dealer_rollup_totals keep their
 * counts), PRUNE_DEALERS_PER_STATEMENT dealers per statement, each dealer's old days one range of
 * the primary key (dealer key, day, ...; the table has no day index, migration 0026: every row's
 * dealer exists, the foreign key cascades). `batchRows` sizes the hour ranges (about that many rows
 * per statement); `shouldStop` is checked between statements. Returns how many rows it deleted
 * from the three; 0 when nothing was older than the cutoffs. @throws the database error (earlier
 * statements stay committed).
 */
export async function pruneHourlyRollups(db: Db, now: Date, batchRows: number, shouldStop: () => boolean = () => false): Promise<number> {
  const inPruneTx = (statement: SQL) =>
    db.transaction(async (tx) => {
      await tx.execute(sql`SELECT set_config('dc_banners.rollup_prune', 'on', true)`);
      return deletedCount(tx as unknown as Db, statement);
    });
  const detailCutoff = detailHourlyCutoff(now);
  let total = (await dropExpiredRollupPartitions(db, 'event_rollups_hourly', detailCutoff, shouldStop)).rows;
  if (shouldStop()) return total;
  total += await pruneByHour(db, h, detailCutoff, batchRows, shouldStop, inPruneTx);
  if (shouldStop()) return total;
  const dealerCutoff = hourlyRollupCutoff(now);
  total += (await dropExpiredRollupPartitions(db, 'dealer_rollups_hourly', dealerCutoff, shouldStop)).rows;
  if (shouldStop()) return total;
  total += await pruneByHour(db, dh, dealerCutoff, batchRows, shouldStop, inPruneTx);
  if (shouldStop()) return total;
  // The platform's hours go with the dealers' (a few rows per hour: one statement; not counted, as
  // the dealers' rows they sum are).
  await db.delete(platformRollupsHourly).where(lt(platformRollupsHourly.hour, dealerCutoff));
  const dayCutoff = detailDailyCutoff(now);
  for (let after = -1; !shouldStop(); ) {
    const keys = (await rowsOf(db, sql`SELECT key FROM dealers WHERE key > ${after} ORDER BY key LIMIT ${PRUNE_DEALERS_PER_STATEMENT}`)).map((r) => Number(r.key));
    if (keys.length === 0) break;
    after = keys[keys.length - 1]!;
    total += await deletedCount(db, sql`
      WITH gone AS (
        DELETE FROM ${eventRollupsDaily} r USING (SELECT unnest(${`{${keys.join(',')}}`}::int[]) AS key) k
        WHERE r.dealer_key = k.key AND r.day < ${dayCutoff}::date RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
  }
  return total;
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
    FROM ${totalsHours(scope)} WHERE ${scopeSql(scope)} AND (${hoursSql([window])})
    GROUP BY 1`);
  const byBucket = new Map(rows.map((r) => [String(r.bucket), countsOf(r)]));
  return days.map((bucket) => ({ bucket, ...(byBucket.get(bucket) ?? ZERO) }));
}
