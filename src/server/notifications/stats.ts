/**
 * The figures notification e-mails report (spec 01 §5 notifications), read from the hourly
 * rollups. Kept behind these two functions so the storage they read (rollups today) can change
 * without touching the notification job:
 * - alertTotals: the performance alert's window totals of many dealers in one statement;
 * - weeklyFigures: one dealer's weekly report (totals, top models, top creatives).
 */
import { and, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { eventRollupsHourly } from '../db/schema';
import { creativePerformance, rankedSums } from '../analytics/service';
import { modelKey } from '../../domain/model-keys';
import { CREATIVE_LABELS, DELETED_ASSET_LABEL, MAX_ANALYTICS_MODELS } from '../../domain/constants';
import type { WeeklyFigures } from '../../domain/notifications';

/** Impressions and clicks of a period. */
export interface ClickTotals {
  impressions: number;
  clicks: number;
}

/**
 * Impressions and clicks of each of `dealerIds` in the hours starting in [from, to), in one
 * grouped statement. Dealers without rollups in the window are absent from the map.
 */
export async function alertTotals(db: Db, dealerIds: string[], from: Date, to: Date): Promise<Map<string, ClickTotals>> {
  if (!dealerIds.length) return new Map();
  const r = eventRollupsHourly;
  const rows = await db
    .select({ dealerId: r.dealerId, impressions: sql<string>`sum(${r.impressions})::bigint`, clicks: sql<string>`sum(${r.clicks})::bigint` })
    .from(r)
    .where(and(inArray(r.dealerId, dealerIds), gte(r.hour, from), lt(r.hour, to)))
    .groupBy(r.dealerId);
  return new Map(rows.map((x) => [x.dealerId, { impressions: Number(x.impressions), clicks: Number(x.clicks) }]));
}

/**
 * The weekly report's figures of dealer `dealerId` for the hours starting in [from, to): totals,
 * the MAX_ANALYTICS_MODELS models with the most impressions and the top creatives, models shown by
 * their display name in `catalogue` (the manufacturer's models). `now` decides asset schedule states.
 */
export async function weeklyFigures(
  db: Db,
  dealerId: string,
  from: Date,
  to: Date,
  catalogue: Array<{ name: string; displayName: string }>,
  now: Date,
): Promise<WeeklyFigures> {
  const r = eventRollupsHourly;
  const rows = await rankedSums(db, ['model'], and(eq(r.dealerId, dealerId), gte(r.hour, from), lt(r.hour, to)), MAX_ANALYTICS_MODELS);
  const sum = (k: 'impressions' | 'clicks' | 'conversions') => rows.reduce((n, x) => n + x[k], 0);
  const names = new Map(catalogue.map((m) => [modelKey(m.name), m.displayName]));
  const models = rows.filter((x) => !x.rest).map((m) => ({ model: names.get(m.model) ?? m.model, impressions: m.impressions, clicks: m.clicks }));
  const { creatives: byCreative } = await creativePerformance(db, dealerId, from, to, {}, now);
  const creatives = byCreative
    .filter((c) => c.kind !== 'unknown')
    .map((c) => ({ name: c.name ?? CREATIVE_LABELS[c.kind] ?? DELETED_ASSET_LABEL, model: names.get(modelKey(c.model)) ?? c.model, slot: c.slot, impressions: c.impressions, clicks: c.clicks }));
  return { impressions: sum('impressions'), clicks: sum('clicks'), conversions: sum('conversions'), models, creatives };
}
