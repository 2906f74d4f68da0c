/**
 * Dealer analytics read through server/reporting (spec 02 §2 Analytics, DECISIONS 18-19): totals of a
 * period and of the previous period of the same length, trends, per-model performance, a time
 * series, and the CSV export per day and model. Windows from domain/periods.ts at the given `now`.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/client';
import { assets } from '../db/schema';
import type { AnalyticsPeriod, CreativePerformance, DealerAnalytics, DealerStats, ModelPerformance } from '../../domain/schemas';
import { scheduleStatus } from '../../domain/schedule';
import { PERIOD_SPANS, periodWindow, previousWindow, type TimeWindow } from '../../domain/periods';
import { abSampleProgress, conversionRate, ctr, rotationVerdicts, trendPercent } from '../../domain/metrics';
import { canonicalModel, OTHER_MODELS, UNKNOWN_MODEL_KEY } from '../../domain/model-keys';
import { MAX_ANALYTICS_CREATIVES, MAX_ANALYTICS_MODELS } from '../../domain/constants';
import type { DeviceFilter } from '../../domain/enums';
import { dailyByModel, dealerStats, lastEventAt, ranked, series as seriesOf, type DealerScope } from '../reporting/service';

/**
 * How answers name a stored model key: UNKNOWN_MODEL_KEY as itself, '' as '(none)', any other by
 * the dealer's model mappings (canonicalModel).
 */
const modelName = (model: string, modelMap: Record<string, string>) =>
  model === UNKNOWN_MODEL_KEY ? UNKNOWN_MODEL_KEY : model ? canonicalModel(model, modelMap) : '(none)';

const rate = (s: DealerStats) => conversionRate(s.conversions, s.clicks);
const trendOf = (a: number | null, b: number | null) => (a === null || b === null ? null : trendPercent(a, b));

/**
 * The analytics of one dealer for a period at `now` (the request time): the window and the previous
 * window of domain/periods.ts, one series bucket per hour (24h) or UTC day; model keys are shown as
 * the dealer's canonical names; with the creative analytics of the period. Every figure but
 * 'Last updated' counts the events of `device` only ('all': every device). Bounded
 * whatever is stored: at most MAX_ANALYTICS_MODELS + 1 models and MAX_ANALYTICS_CREATIVES + 1
 * creatives (the rest summed into an OTHER_MODELS row), one series entry per bucket.
 */
export async function dealerAnalytics(
  db: Db,
  dealerId: string,
  period: AnalyticsPeriod,
  modelMap: Record<string, string>,
  now: Date,
  device: DeviceFilter = 'all',
): Promise<DealerAnalytics> {
  const span = PERIOD_SPANS[period];
  const { from, to } = periodWindow(period, now);
  const prev = previousWindow({ from, to }, span);
  const scope: DealerScope = { dealerId, device };
  const [current, previous] = await Promise.all([dealerStats(db, dealerId, from, to, device), dealerStats(db, dealerId, prev.from, prev.to, device)]);

  // At most MAX_ANALYTICS_MODELS keys (by impressions); the rest summed into one OTHER_MODELS row.
  const modelRows = await ranked(db, scope, ['model'], { from, to }, MAX_ANALYTICS_MODELS);
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

  const series: DealerAnalytics['series'] = await seriesOf(db, scope, { from, to }, span.unit);

  const last = await lastEventAt(db, dealerId);
  const { creatives, placeholderShare, needBanner } = await creativeAnalytics(db, scope, { from, to }, modelMap, now);
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

/** creativeAnalytics of the hours starting in [from, to) (the weekly report's top creatives; the report's, of one device). */
export function creativePerformance(db: Db, dealerId: string, from: Date, to: Date, modelMap: Record<string, string>, now: Date, device: DeviceFilter = 'all') {
  return creativeAnalytics(db, { dealerId, device }, { from, to }, modelMap, now);
}

/**
 * The creative analytics of a period: each creative's figures per slot type (assets with
 * their name, size and status now), the share of impressions that showed a placeholder and the
 * models that showed one, and the verdict of each A/B rotation (assets of the same model, slot and
 * size with impressions in the period; domain/metrics.ts rotationVerdicts). At most
 * MAX_ANALYTICS_CREATIVES rows, those with the most impressions, then one row (kind 'unknown',
 * model OTHER_MODELS) summing the rest.
 */
async function creativeAnalytics(
  db: Db,
  scope: DealerScope,
  window: TimeWindow,
  modelMap: Record<string, string>,
  now: Date,
): Promise<Pick<DealerAnalytics, 'creatives' | 'placeholderShare' | 'needBanner'>> {
  const { dealerId } = scope;
  const groups = await ranked(db, scope, ['creative', 'model', 'slot_type'], window, MAX_ANALYTICS_CREATIVES);
  const rest = groups.find((x) => x.rest);
  const rows = groups.filter((x) => !x.rest).map((x) => ({ ...x, slot: x.slot_type }));
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
      sample: null,
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
    const sample = abSampleProgress(group);
    rotationVerdicts(group).forEach((verdict, i) => Object.assign(group[i]!, { verdict, sample }));
  }
  creatives.sort((a, b) => b.impressions - a.impressions || b.clicks - a.clicks);
  if (rest) {
    const { impressions, clicks, conversions } = rest;
    creatives.push({ creative: '', kind: 'unknown', name: null, model: OTHER_MODELS, slot: '', width: null, height: null, status: null, impressions, clicks, conversions, ctr: ctr(clicks, impressions), verdict: null, sample: null });
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
 * CSV of the period per day and model, of `device`'s events ('all': every device): date, model,
 * impressions, clicks, ctr (percent, 2 decimals), conversions; the period's MAX_ANALYTICS_MODELS models with the most impressions get rows of their
 * own, the others are summed per day into an OTHER_MODELS row (at most days × (cap + 1) rows,
 * whatever keys are stored). A text cell starting with =, +, -, @, tab or CR (a model name from a
 * dealer page) is prefixed with a single quote, so spreadsheets show it instead of running it
 * (OWASP CSV injection).
 */
export async function analyticsCsv(db: Db, dealerId: string, period: AnalyticsPeriod, modelMap: Record<string, string>, now: Date, device: DeviceFilter = 'all'): Promise<string> {
  const rows = await dailyByModel(db, { dealerId, device }, periodWindow(period, now), MAX_ANALYTICS_MODELS);
  return stringify(
    rows.map((x) => {
      const c = ctr(x.clicks, x.impressions);
      const name = x.model === null ? OTHER_MODELS : x.model === UNKNOWN_MODEL_KEY ? UNKNOWN_MODEL_KEY : x.model ? canonicalModel(x.model, modelMap) : '';
      return [x.day, name, x.impressions, x.clicks, c === null ? '' : c.toFixed(2), x.conversions];
    }),
    { header: true, columns: ['date', 'model', 'impressions', 'clicks', 'ctr', 'conversions'], escape_formulas: true },
  );
}
