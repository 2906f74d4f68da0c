/** Analytics formulas (spec 01 §9, spec 02 §2 Analytics and §9, DECISIONS 18-19). */
import { CTR_ABOVE_AVERAGE } from './constants';

/**
 * Click-through rate in percent (spec 01 §9): clicks / impressions x 100, unrounded
 * (ctr(7, 200) === 3.5). Null when impressions is 0 (or negative): there is no rate to show.
 */
export function ctr(clicks: number, impressions: number): number | null {
  return impressions > 0 ? (clicks * 100) / impressions : null;
}

/**
 * Performance score 0..100 (spec 01 §9): min(100, 20 x CTR percent); 0 for a null CTR.
 * performanceScore(3.5) === 70, performanceScore(6) === 100.
 */
export function performanceScore(ctrPercent: number | null): number {
  return ctrPercent === null ? 0 : Math.min(100, 20 * ctrPercent);
}

/**
 * How many decimals each kind of figure shows, on every screen: the same number never
 * reads "5.0%" on one screen and "5.00%" on another.
 * - CTR (click-through rate, a percentage of impressions): two decimals, "3.50%" (spec 02 §2's
 *   dashboard and analytics reading; spec 01 §2's "one decimal" on the admin dealer cards yields to
 *   it so that a dealer's CTR reads the same in the admin and dealer areas).
 * - Conversion rate (a percentage of clicks): one decimal, "12.5%" (spec 02 §2).
 * - Trend (change against the previous period): one decimal with a sign, "+12.5%" (formatTrend).
 * - Counts (impressions, clicks, conversions): whole numbers with thousands separators, "12,345".
 * - Performance score: a whole number 0..100.
 * Missing figures (no impressions, no clicks, no previous period) read '--'.
 */
export const FIGURE_DECIMALS = { ctr: 2, conversionRate: 1, trend: 1 } as const;

/** `value` with `decimals` decimals and a '%', or '--' for null. */
function formatPercent(value: number | null, decimals: number): string {
  return value === null ? '--' : `${value.toFixed(decimals)}%`;
}

/** A CTR for display, on every screen: two decimals and a '%' ("3.50%"), '--' for null (no impressions). */
export function formatCtr(value: number | null): string {
  return formatPercent(value, FIGURE_DECIMALS.ctr);
}

/** A conversion rate for display, on every screen: one decimal and a '%' ("12.5%"), '--' for null (no clicks). */
export function formatConversionRate(value: number | null): string {
  return formatPercent(value, FIGURE_DECIMALS.conversionRate);
}

/** A count for display: a whole number with thousands separators ("12,345"). */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

const PLURAL_RULES = new Intl.PluralRules('en-US');

/**
 * A count and its noun, the one helper for every "N things" text: "1 conversion",
 * "0 conversions", "1,234 clicks"; `many` for irregular plurals (plural(2, 'entry', 'entries')).
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${PLURAL_RULES.select(n) === 'one' ? one : many}`;
}

/**
 * Change of `current` against `previous` in percent ((current - previous) / previous x 100;
 * 112.5 vs 100 -> 12.5). Null when `previous` is 0 (or negative): no previous data (DECISIONS 18).
 */
export function trendPercent(current: number, previous: number): number | null {
  return previous > 0 ? ((current - previous) * 100) / previous : null;
}

/**
 * A trend for display (DECISIONS 18, FIGURE_DECIMALS): one decimal with an explicit sign ("+12.5%", "-3.0%",
 * "+0.0%" for no change or a change that rounds to zero), or '--' for null.
 */
export function formatTrend(p: number | null): string {
  if (p === null) return '--';
  const text = Math.abs(p).toFixed(FIGURE_DECIMALS.trend);
  return `${p < 0 && Number(text) !== 0 ? '-' : '+'}${text}%`;
}

/** 'Above average' when the CTR percent is over CTR_ABOVE_AVERAGE (3; spec 02 §2, DECISIONS 19); false for null. */
export function isAboveAverage(ctrPercent: number | null): boolean {
  return ctrPercent !== null && ctrPercent > CTR_ABOVE_AVERAGE;
}

/**
 * Conversion rate in percent (spec 02 §2 Analytics, DECISIONS 16): conversions / clicks x 100;
 * null when clicks is 0.
 */
export function conversionRate(conversions: number, clicks: number): number | null {
  return clicks > 0 ? (conversions * 100) / clicks : null;
}

/**
 * True when CTR `a` is higher than CTR `b` at 95 % confidence (A/B rotations): a one-sided
 * two-proportion z-test on clicks out of impressions, z >= 1.645. False when either has no impressions.
 */
export function ctrBetter(a: { clicks: number; impressions: number }, b: { clicks: number; impressions: number }): boolean {
  if (a.impressions === 0 || b.impressions === 0) return false;
  const pa = a.clicks / a.impressions;
  const pb = b.clicks / b.impressions;
  const pooled = (a.clicks + b.clicks) / (a.impressions + b.impressions);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.impressions + 1 / b.impressions));
  return se > 0 && (pa - pb) / se >= 1.645;
}

/**
 * Fewest viewable impressions each creative (arm) of an A/B rotation needs before its CTRs are
 * compared at all. At 100 per arm a one-sided 95 % test (ctrBetter) can first tell apart CTRs a few
 * points apart (e.g. 8 % vs 2 %); below it the normal approximation of the z-test is unreliable
 * for banner CTRs of a few percent, and an early "Leading" is mostly noise.
 */
export const AB_MIN_IMPRESSIONS = 100;

/** How far a rotation is towards its minimum sample: `seen` of `needed` impressions. */
export interface AbSample {
  seen: number;
  needed: number;
}

/**
 * The sample progress of one rotation (the creatives' viewable impressions, in any order): each
 * arm counts up to AB_MIN_IMPRESSIONS, so `seen` = sum of min(impressions, AB_MIN_IMPRESSIONS) and
 * `needed` = AB_MIN_IMPRESSIONS x arms; seen = needed exactly when the verdicts may be named
 * (rotationVerdicts stops 'collecting'). E.g. arms of 6 and 240 impressions -> 106 of 200.
 */
export function abSampleProgress(group: ReadonlyArray<{ impressions: number }>): AbSample {
  return {
    seen: group.reduce((n, c) => n + Math.min(AB_MIN_IMPRESSIONS, Math.max(0, c.impressions)), 0),
    needed: AB_MIN_IMPRESSIONS * group.length,
  };
}

/** What a rotation still collecting says: 'Not enough data yet (106 of 200 impressions)'. */
export function notEnoughDataText(sample: AbSample): string {
  return `Not enough data yet (${sample.seen.toLocaleString('en-US')} of ${sample.needed.toLocaleString('en-US')} impressions)`;
}

/** A creative's A/B verdict in its rotation (see rotationVerdicts). */
export type RotationVerdict = 'best' | 'leading' | 'trailing' | 'even' | 'collecting';

/**
 * The A/B verdicts of one rotation (two or more creatives of the same model, slot and size), in
 * the order given: 'collecting' for every creative while any has fewer than AB_MIN_IMPRESSIONS
 * impressions (six impressions name no leader); then 'even' for all while no CTR is above the
 * rest; else 'best' for the highest CTR when it beats each other one at 95 % confidence
 * (ctrBetter), 'leading' when it does not yet, and 'trailing' for the others. Ties on CTR go to
 * the creative with more impressions.
 */
export function rotationVerdicts(group: ReadonlyArray<{ clicks: number; impressions: number }>): RotationVerdict[] {
  if (group.some((c) => c.impressions < AB_MIN_IMPRESSIONS)) return group.map(() => 'collecting');
  const rate = (c: { clicks: number; impressions: number }) => c.clicks / c.impressions;
  const order = group.map((c, i) => i).sort((a, b) => rate(group[b]!) - rate(group[a]!) || group[b]!.impressions - group[a]!.impressions);
  const top = group[order[0]!]!;
  if (rate(top) === rate(group[order[1]!]!)) return group.map(() => 'even');
  const others = order.slice(1).map((i) => group[i]!);
  const verdicts: RotationVerdict[] = group.map(() => 'trailing');
  verdicts[order[0]!] = others.every((o) => ctrBetter(top, o)) ? 'best' : 'leading';
  return verdicts;
}
