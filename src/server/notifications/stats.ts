/**
 * The figures notification e-mails report (spec 01 §5 notifications), read through
 * server/reporting like every other screen:
 * - alertTotals: the performance alert's window totals of many dealers in one statement;
 * - weeklyFigures: one dealer's weekly report (totals, top models, top creatives).
 */
import type { Db } from '../db/client';
import { creativePerformance } from '../analytics/service';
import { dealerTotals, ranked } from '../reporting/service';
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
 * grouped statement (reporting dealerTotals). Dealers without rollups in the window are absent from the map.
 */
export async function alertTotals(db: Db, dealerIds: string[], from: Date, to: Date): Promise<Map<string, ClickTotals>> {
  const byDealer = await dealerTotals(db, dealerIds, { from, to });
  return new Map([...byDealer].map(([id, c]) => [id, { impressions: c.impressions, clicks: c.clicks }]));
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
  const rows = await ranked(db, { dealerId }, ['model'], { from, to }, MAX_ANALYTICS_MODELS);
  const sum = (k: 'impressions' | 'clicks' | 'conversions') => rows.reduce((n, x) => n + x[k], 0);
  const names = new Map(catalogue.map((m) => [modelKey(m.name), m.displayName]));
  const models = rows.filter((x) => !x.rest).map((m) => ({ model: names.get(m.model) ?? m.model, impressions: m.impressions, clicks: m.clicks }));
  const { creatives: byCreative } = await creativePerformance(db, dealerId, from, to, {}, now);
  const creatives = byCreative
    .filter((c) => c.kind !== 'unknown')
    .map((c) => ({ name: c.name ?? CREATIVE_LABELS[c.kind] ?? DELETED_ASSET_LABEL, model: names.get(modelKey(c.model)) ?? c.model, slot: c.slot, impressions: c.impressions, clicks: c.clicks }));
  return { impressions: sum('impressions'), clicks: sum('clicks'), conversions: sum('conversions'), models, creatives };
}
