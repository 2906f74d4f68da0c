/** Analytics formulas (spec 01 §9, spec 02 §2 Analytics, DECISIONS 18-19). */
import { CTR_ABOVE_AVERAGE } from './constants';

/** CTR in percent = clicks / impressions x 100; null with no impressions. */
export function ctr(clicks: number, impressions: number): number | null {
  return impressions > 0 ? (clicks / impressions) * 100 : null;
}

/** Performance score 0..100 = min(100, 20 x CTR); 0 without a CTR. */
export function performanceScore(ctrPercent: number | null): number {
  return ctrPercent === null ? 0 : Math.min(100, 20 * ctrPercent);
}

/** "3.5%" with the given decimals, or "--" for null. */
export function formatCtr(value: number | null, decimals: number): string {
  return value === null ? '--' : `${value.toFixed(decimals)}%`;
}

/** Change of `current` against `previous` in percent; null when there is no previous data. */
export function trendPercent(current: number, previous: number): number | null {
  return previous > 0 ? ((current - previous) / previous) * 100 : null;
}

/** "+12.5%", "-3.0%", or "--" for null. */
export function formatTrend(p: number | null): string {
  if (p === null) return '--';
  return `${p >= 0 ? '+' : ''}${p.toFixed(1)}%`;
}

/** 'Above average' threshold: CTR over 3 percent. */
export function isAboveAverage(ctrPercent: number | null): boolean {
  return ctrPercent !== null && ctrPercent > CTR_ABOVE_AVERAGE;
}

/** Conversion rate in percent = conversions / clicks x 100; null without clicks. */
export function conversionRate(conversions: number, clicks: number): number | null {
  return clicks > 0 ? (conversions / clicks) * 100 : null;
}
