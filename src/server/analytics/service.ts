/**
 * Dealer analytics from the hourly rollups (spec 02 §2 Analytics, DECISIONS 18-19): totals of a
 * period and of the previous period of the same length, trends, per-model performance, a time
 * series, and the CSV export per day and model. Windows from domain/periods.ts at the given `now`.
 */
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/client';
import { assets, dealers, eventRollupsHourly as r, events } from '../db/schema';
import type { AnalyticsPeriod, CreativePerformance, DealerAnalytics, DealerStats, ModelPerformance } from '../../domain/schemas';
import { scheduleStatus } from '../../domain/schedule';
import { BUCKET_SQL_FORMAT, PERIOD_SPANS, bucketKeys, periodWindow, previousWindow } from '../../domain/periods';
import { conversionRate, ctr, ctrBetter, trendPercent } from '../../domain/metrics';
import { canonicalModel, OTHER_MODELS, UNKNOWN_MODEL_KEY } from '../../domain/model-keys';
import { MAX_ANALYTICS_CREATIVES, MAX_ANALYTICS_MODELS } from '../../domain/constants';
import { dealerStats } from '../tracking/service';

const sums = {
  impressions: sql<number>`coalesce(sum(${r.impressions}), 0)`.mapWith(Number),
  clicks: sql<number>`coalesce(sum(${r.clicks}), 0)`.mapWith(Number),
  conversions: sql<number>`coalesce(sum(${r.conversions}), 0)`.mapWith(Number),
};

/** Rollup columns rankedSums groups by. */
type GroupColumn = 'model' | 'creative' | 'slot_type';
/** One group of rankedSums: its columns, or '' in the remainder row (`rest`). */
export type RankedRow<C extends GroupColumn> = Record<C, string> & { rest: boolean; impressions: number; clicks: number; conversions: number };

/**
 * The rollups matching `where`, summed per `columns`, at most `limit` groups: those with the most
 * impressions (then clicks, conversions, then by name, so the choice is stable), plus, when more
 * groups exist, one row with `rest` true (its columns '') summing all the others. The database
 * does the ranking, so at most `limit` + 1 rows reach the process however many keys are stored;
 * the rows' sums add up to the total of `where`.
 */
export async function rankedSums<C extends GroupColumn>(db: Db, columns: C[], where: SQL | undefined, limit: number): Promise<Array<RankedRow<C>>> {
  const cols = sql.raw(columns.join(', '));
  // Ties broken byte-wise: a locale-aware sort of thousands of keys costs far more (PGlite).
  const byName = sql.raw(columns.map((c) => `${c} COLLATE "C"`).join(', '));
  const blanks = sql.raw(columns.map((c) => `'' AS ${c}`).join(', '));
  // The top groups by a bounded (top-N) sort; the rest as the total minus them, so no full sort of every group.
  const result = (await db.execute(sql`
    WITH g AS (
      SELECT ${cols}, sum(${r.impressions}) AS i, sum(${r.clicks}) AS c, sum(${r.conversions}) AS v
      FROM ${r} WHERE ${where ?? sql`true`} GROUP BY ${cols}),
    top AS (SELECT * FROM g ORDER BY i DESC, c DESC, v DESC, ${byName} LIMIT ${limit})
    SELECT false AS rest, ${cols}, i::bigint AS impressions, c::bigint AS clicks, v::bigint AS conversions FROM top
    UNION ALL
    SELECT true, ${blanks},
      ((SELECT sum(i) FROM g) - (SELECT coalesce(sum(i), 0) FROM top))::bigint,
      ((SELECT sum(c) FROM g) - (SELECT coalesce(sum(c), 0) FROM top))::bigint,
      ((SELECT sum(v) FROM g) - (SELECT coalesce(sum(v), 0) FROM top))::bigint
    WHERE (SELECT count(*) FROM g) > ${limit}`)) as unknown as { rows: Array<Record<string, unknown>> };
  return result.rows.map((row) => {
    const out: Record<string, unknown> = { rest: row.rest === true || row.rest === 't', impressions: Number(row.impressions), clicks: Number(row.clicks), conversions: Number(row.conversions) };
    for (const c of columns) out[c] = String(row[c] ?? '');
    return out as RankedRow<C>;
  });
}

/**
 * How answers name a stored model key: UNKNOWN_MODEL_KEY as itself, '' as '(none)', any other by
 * the dealer's model mappings (canonicalModel).
 */
const modelName = (model: string, modelMap: Record<string, string>) =>
  model === UNKNOWN_MODEL_KEY ? UNKNOWN_MODEL_KEY : model ? canonicalModel(model, modelMap) : '(none)';

const rate = (s: DealerStats) => conversionRate(s.conversions, s.clicks);
const trendOf = (a: number | null, b: number | null) => (a === null || b === null ? null : trendPercent(a, b));

/**
 * When the dealer's newest recorded event arrived ('Last updated': 11:35, not the 11:00 of its
 * hourly rollup), or null before any. The newest rollup hour (the rollups' primary key starts with
 * dealer and hour), then the dealer's newest raw event within that hour: events carry only a BRIN
 * index on occurred_at (migration 0014), which with the partition of that week narrows the read to
 * about an hour of rows. For events already removed by retention, the rollup hour; GREATEST ignores
 * a NULL. Read on the dealer's row (primary key), so an unknown dealer answers null too.
 */
export async function lastEventAt(db: Db, dealerId: string): Promise<Date | null> {
  const result = (await db.execute(sql`
    SELECT to_char(greatest(e.at, h.hour) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
    FROM ${dealers} d
    CROSS JOIN LATERAL (SELECT max(${r.hour}) AS hour FROM ${r} WHERE ${r.dealerId} = d.id) h
    CROSS JOIN LATERAL (
      SELECT max(ev.occurred_at) AS at FROM ${events} ev
      WHERE ev.dealer_id = d.id AND ev.occurred_at >= h.hour AND ev.occurred_at < h.hour + interval '1 hour') e
    WHERE d.id = ${dealerId}`)) as unknown as { rows: Array<{ at: string | null }> };
  // ISO text from the database itself, so PGlite and node-postgres answer alike (no driver date parsing).
  const at = result.rows[0]?.at;
  return at ? new Date(at) : null;
}

/**
 * The analytics of one dealer for a period at `now` (the request time): the window and the previous
 * window of domain/periods.ts, one series bucket per hour (24h) or UTC day; model keys are shown as
 * the dealer's canonical names; with the creative analytics of the period. Bounded
 * whatever is stored: at most MAX_ANALYTICS_MODELS + 1 models and MAX_ANALYTICS_CREATIVES + 1
 * creatives (the rest summed into an OTHER_MODELS row), one series entry per bucket.
 */
export async function dealerAnalytics(db: Db, dealerId: string, period: AnalyticsPeriod, modelMap: Record<string, string>, now: Date): Promise<DealerAnalytics> {
  const span = PERIOD_SPANS[period];
  const { from, to } = periodWindow(period, now);
  const prev = previousWindow({ from, to }, span);
  const [current, previous] = await Promise.all([dealerStats(db, dealerId, from, to), dealerStats(db, dealerId, prev.from, prev.to)]);
  const inPeriod = and(eq(r.dealerId, dealerId), gte(r.hour, from), lt(r.hour, to));

  // At most MAX_ANALYTICS_MODELS keys (by impressions); the rest summed into one OTHER_MODELS row.
  const modelRows = await rankedSums(db, ['model'], inPeriod, MAX_ANALYTICS_MODELS);
  const merged = new Map<string, ModelPerformance>();
  for (const row of modelRows) {
    const name = row.rest ? OTHER_MODELS : modelName(row.model, modelMap);
    const m = merged.get(name) ?? { model: name, impressions: 0, clicks: 0, conversions: 0, ctr: null, conversionRate: null };
    m.impressions += row.impressions;
    m.clicks += row.clicks;
    m.conversions += row.conversions;
    merged.set(name, m);
  }
  const models = [...merged.values()]
    .map((m) => ({ ...m, ctr: ctr(m.clicks, m.impressions), conversionRate: conversionRate(m.conversions, m.clicks) }))
    .sort((a, b) => b.conversions - a.conversions || b.clicks - a.clicks || b.impressions - a.impressions);

  const unit = span.unit;
  // Constants inlined (not bound) so GROUP BY sees the same expression as SELECT.
  const bucketSql = sql<string>`to_char(date_trunc('${sql.raw(unit)}', ${r.hour} at time zone 'UTC'), '${sql.raw(BUCKET_SQL_FORMAT[unit])}')`;
  const seriesRows = await db.select({ bucket: bucketSql, ...sums }).from(r).where(inPeriod).groupBy(bucketSql);
  const byBucket = new Map(seriesRows.map((s) => [s.bucket, s]));
  const series: DealerAnalytics['series'] = bucketKeys({ from, to }, unit).map((bucket) => {
    const s = byBucket.get(bucket);
    return { bucket, impressions: s?.impressions ?? 0, clicks: s?.clicks ?? 0, conversions: s?.conversions ?? 0 };
  });

  const last = await lastEventAt(db, dealerId);
  const { creatives, placeholderShare, needBanner } = await creativeAnalytics(db, dealerId, inPeriod, modelMap, now);
  return {
    creatives,
    placeholderShare,
    needBanner,
    period,
    from: from.toISOString(),
    to: to.toISOString(),
    current,
    previous,
    trends: {
      impressions: trendPercent(current.impressions, previous.impressions),
      clicks: trendPercent(current.clicks, previous.clicks),
      ctr: trendOf(current.ctr, previous.ctr),
      conversionRate: trendOf(rate(current), rate(previous)),
    },
    models,
    series,
    lastUpdated: last ? last.toISOString() : null,
  };
}

const SOURCES = new Set(['cdn', 'fallback', 'placeholder']);

/** creativeAnalytics of the hours starting in [from, to) (the weekly report's top creatives, issue 15). */
export function creativePerformance(db: Db, dealerId: string, from: Date, to: Date, modelMap: Record<string, string>, now: Date) {
  return creativeAnalytics(db, dealerId, and(eq(r.dealerId, dealerId), gte(r.hour, from), lt(r.hour, to)), modelMap, now);
}

/**
 * The creative analytics of a period (issue 15): each creative's figures per slot type (assets with
 * their name, size and status now), the share of impressions that showed a placeholder and the
 * models that showed one, and the verdict of each A/B rotation (assets of the same model, slot and
 * size with impressions in the period; domain/metrics.ts ctrBetter). At most
 * MAX_ANALYTICS_CREATIVES rows, those with the most impressions, then one row (kind 'unknown',
 * model OTHER_MODELS) summing the rest.
 */
async function creativeAnalytics(
  db: Db,
  dealerId: string,
  inPeriod: SQL | undefined,
  modelMap: Record<string, string>,
  now: Date,
): Promise<Pick<DealerAnalytics, 'creatives' | 'placeholderShare' | 'needBanner'>> {
  const ranked = await rankedSums(db, ['creative', 'model', 'slot_type'], inPeriod, MAX_ANALYTICS_CREATIVES);
  const rest = ranked.find((x) => x.rest);
  const rows = ranked.filter((x) => !x.rest).map((x) => ({ ...x, slot: x.slot_type }));
  const ids = [...new Set(rows.map((x) => x.creative).filter((c) => c && !SOURCES.has(c)))];
  const found = ids.length === 0 ? [] : await db
    .select({ id: assets.id, name: assets.name, width: assets.width, height: assets.height, isActive: assets.isActive, startsAt: assets.startsAt, endsAt: assets.endsAt })
    .from(assets)
    .where(and(eq(assets.dealerId, dealerId), inArray(assets.id, ids)));
  const byId = new Map(found.map((a) => [a.id, a]));
  const creatives: CreativePerformance[] = rows.map((x) => {
    const a = byId.get(x.creative);
    const kind = !x.creative ? 'unknown' : SOURCES.has(x.creative) ? (x.creative as CreativePerformance['kind']) : 'asset';
    return {
      creative: x.creative,
      kind,
      name: a?.name ?? null,
      model: modelName(x.model, modelMap),
      slot: x.slot,
      width: a?.width ?? null,
      height: a?.height ?? null,
      status: kind !== 'asset' ? null : !a ? 'deleted' : !a.isActive ? 'inactive' : scheduleStatus(a, now),
      impressions: x.impressions,
      clicks: x.clicks,
      conversions: x.conversions,
      ctr: ctr(x.clicks, x.impressions),
      verdict: null,
    };
  });
  // A/B verdicts per rotation: the same model, slot and size.
  const rotations = new Map<string, CreativePerformance[]>();
  for (const c of creatives) {
    if (c.kind !== 'asset' || c.width === null || c.impressions === 0) continue;
    const key = `${c.model}|${c.slot}|${c.width}x${c.height}`;
    rotations.set(key, [...(rotations.get(key) ?? []), c]);
  }
  for (const group of rotations.values()) {
    if (group.length < 2) continue;
    group.sort((a, b) => (b.ctr ?? 0) - (a.ctr ?? 0) || b.impressions - a.impressions);
    const [top, next, ...rest] = group;
    if ((top!.ctr ?? 0) === (next!.ctr ?? 0)) {
      for (const c of group) c.verdict = 'even';
      continue;
    }
    top!.verdict = [next!, ...rest].every((o) => ctrBetter(top!, o)) ? 'best' : 'leading';
    for (const o of [next!, ...rest]) o.verdict = 'trailing';
  }
  creatives.sort((a, b) => b.impressions - a.impressions || b.clicks - a.clicks);
  if (rest) {
    const { impressions, clicks, conversions } = rest;
    creatives.push({ creative: '', kind: 'unknown', name: null, model: OTHER_MODELS, slot: '', width: null, height: null, status: null, impressions, clicks, conversions, ctr: ctr(clicks, impressions), verdict: null });
  }
  const total = creatives.reduce((n, c) => n + c.impressions, 0);
  const placeholders = creatives.filter((c) => c.kind === 'placeholder' && c.impressions > 0);
  const shown = placeholders.reduce((n, c) => n + c.impressions, 0);
  return {
    creatives,
    placeholderShare: total === 0 ? null : (100 * shown) / total,
    needBanner: placeholders.map((c) => ({ model: c.model, slot: c.slot, impressions: c.impressions })),
  };
}

/**
 * CSV of the period per day and model: date, model, impressions, clicks, ctr (percent, 2 decimals),
 * conversions; the period's MAX_ANALYTICS_MODELS models with the most impressions get rows of their
 * own, the others are summed per day into an OTHER_MODELS row (at most days × (cap + 1) rows,
 * whatever keys are stored). A text cell starting with =, +, -, @, tab or CR (a model name from a
 * dealer page) is prefixed with a single quote, so spreadsheets show it instead of running it
 * (OWASP CSV injection).
 */
export async function analyticsCsv(db: Db, dealerId: string, period: AnalyticsPeriod, modelMap: Record<string, string>, now: Date): Promise<string> {
  const { from, to } = periodWindow(period, now);
  const inPeriod = and(eq(r.dealerId, dealerId), gte(r.hour, from), lt(r.hour, to));
  const top = db
    .select({ model: r.model })
    .from(r)
    .where(inPeriod)
    .groupBy(r.model)
    .orderBy(desc(sums.impressions), desc(sums.clicks), desc(sums.conversions), r.model)
    .limit(MAX_ANALYTICS_MODELS);
  const day = sql<string>`to_char(date_trunc('day', ${r.hour} at time zone 'UTC'), 'YYYY-MM-DD')`;
  // NULL for the models outside the top: one row per day for all of them.
  const model = sql<string | null>`CASE WHEN ${r.model} IN (${top}) THEN ${r.model} END`;
  const rows = await db
    .select({ day, model, ...sums })
    .from(r)
    .where(inPeriod)
    .groupBy(sql`1, 2`) // by position: `model` binds its parameters anew wherever it is written
    .orderBy(day, desc(sums.impressions));
  return stringify(
    rows.map((x) => {
      const c = ctr(x.clicks, x.impressions);
      const name = x.model === null ? OTHER_MODELS : x.model === UNKNOWN_MODEL_KEY ? UNKNOWN_MODEL_KEY : x.model ? canonicalModel(x.model, modelMap) : '';
      return [x.day, name, x.impressions, x.clicks, c === null ? '' : c.toFixed(2), x.conversions];
    }),
    { header: true, columns: ['date', 'model', 'impressions', 'clicks', 'ctr', 'conversions'], escape_formulas: true },
  );
}
