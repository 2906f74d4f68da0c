/**
 * The Analytics screen's report (GET /api/dealers/:dealerId/analytics/report; docs/API.md): what
 * the range picker can choose (the spec's four periods, quick ranges and a custom range of days in
 * the dealer's time zone), the query string of a choice (the screen and its CSV export ask the
 * same), the chart's points for one metric beside the comparison's, and the 'Raise upsell priority'
 * action (the configs weights API, DECISIONS 22 scale).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AnalyticsPeriod } from '../../../domain/schemas';
import type { AnalyticsReport, ReportModelRow, ReportTable } from '../../../domain/contracts/analytics';
import type { RaisedPriority } from '../../../domain/contracts/configs';
import { ANALYTICS_PERIODS, type DeviceFilter } from '../../../domain/enums';
import { ANALYTICS_REFRESH_MS, PERIOD_LABELS } from '../../../domain/constants';
import { MAX_RANGE_DAYS, isDayText, quickRanges, rangeDays, type Comparison, type DayRange } from '../../../domain/ranges';
import { bucketLabel } from '../../../domain/periods';
import { ctr } from '../../../domain/metrics';
import { apiFetch } from '../../api/client';
import { configKeys } from '../config/api';
import { dealerKeys } from '../api';

export type { AnalyticsReport, ReportModelRow, ReportTable };

/** What the range picker chose: a fixed period or days (both included) in the dealer's time zone. */
export type RangeChoice = { period: AnalyticsPeriod } | DayRange;

/** The picker's option values: 'period:7d', 'quick:Yesterday', 'custom'. */
export function rangeOptions(today: string): Array<{ value: string; label: string }> {
  return [
    ...ANALYTICS_PERIODS.map((p) => ({ value: `period:${p}`, label: PERIOD_LABELS[p] })),
    ...quickRanges(today).map((q) => ({ value: `quick:${q.label}`, label: q.label })),
    { value: 'custom', label: 'Custom range' },
  ];
}

/** The range of an option value (null for 'custom': the From/To fields decide). */
export function rangeOfOption(value: string, today: string): RangeChoice | null {
  if (value.startsWith('period:')) return { period: value.slice(7) as AnalyticsPeriod };
  const quick = quickRanges(today).find((q) => `quick:${q.label}` === value);
  return quick ? quick.range : null;
}

/** Why From/To cannot be read yet, or null when they make a range the server accepts. */
export function customRangeError(from: string, to: string): string | null {
  if (!isDayText(from) || !isDayText(to)) return 'Enter both dates';
  const n = rangeDays({ from, to });
  if (n < 1) return 'The end date is before the start date';
  if (n > MAX_RANGE_DAYS) return `Choose at most ${MAX_RANGE_DAYS} days`;
  return null;
}

/** The device switch's choices: every device, or one (the API's `device` filter). */
export const DEVICE_OPTIONS: Array<{ value: DeviceFilter; label: string }> = [
  { value: 'all', label: 'All devices' },
  { value: 'desktop', label: 'Desktop' },
  { value: 'mobile', label: 'Mobile' },
];

/**
 * The query string of a choice ('period=7d&compare=previous'), with `device` when one device is
 * chosen ('all' is the API's default and is left out) and `table` for the CSV export.
 */
export function reportQuery(range: RangeChoice, compare: Comparison, table?: ReportTable, device: DeviceFilter = 'all'): string {
  const q = new URLSearchParams('period' in range ? { period: range.period } : { from: range.from, to: range.to });
  q.set('compare', 'period' in range && range.period === '24h' ? 'previous' : compare);
  if (device !== 'all') q.set('device', device);
  if (table) q.set('table', table);
  return q.toString();
}

const base = (id: string) => `/api/dealers/${encodeURIComponent(id)}`;

/** The CSV export's address of a table for the same choice (range, comparison, device) as the screen. */
export function reportCsvUrl(dealerId: string, range: RangeChoice, compare: Comparison, table: ReportTable, device: DeviceFilter = 'all'): string {
  return `${base(dealerId)}/analytics/report.csv?${reportQuery(range, compare, table, device)}`;
}

/** The chart's metrics: one at a time, so each has its own axis. */
export const CHART_METRICS = [
  { value: 'impressions', label: 'Viewable impressions' },
  { value: 'clicks', label: 'Clicks' },
  { value: 'ctr', label: 'CTR' },
  { value: 'conversions', label: 'Conversions' },
] as const;
export type ChartMetric = (typeof CHART_METRICS)[number]['value'];

type Point = AnalyticsReport['series'][number];
const valueOf = (p: Point | undefined, metric: ChartMetric): number | null =>
  p === undefined ? null : metric === 'ctr' ? ctr(p.clicks, p.impressions) : p[metric];

/**
 * One chart row per bucket of the range: its label, the metric's value (`current`) and the
 * comparison's bucket at the same position (`comparison`); CTR in percent, null without impressions.
 */
export function chartRows(report: AnalyticsReport, metric: ChartMetric): Array<{ label: string; current: number | null; comparison: number | null }> {
  return report.series.map((p, i) => ({ label: bucketLabel(p.bucket), current: valueOf(p, metric), comparison: valueOf(report.previousSeries[i], metric) }));
}

/** The report of a choice, of every device or one; refetched by Refresh (DECISIONS 18); disabled without a dealer id. */
export function useAnalyticsReport(dealerId: string | null | undefined, range: RangeChoice | null, compare: Comparison, device: DeviceFilter = 'all') {
  return useQuery({
    queryKey: ['dealer', dealerId ?? '', 'analytics-report', range, compare, device],
    queryFn: () => apiFetch<AnalyticsReport>(`${base(dealerId!)}/analytics/report?${reportQuery(range!, compare, undefined, device)}`),
    enabled: Boolean(dealerId) && range !== null,
    placeholderData: (previous) => previous,
    refetchInterval: (query) => ((query.state.data?.current.impressions ?? 0) > 0 ? ANALYTICS_REFRESH_MS : false),
  });
}

/**
 * 'Raise upsell priority': asks the server to raise this model's upsell priority one band
 * (POST /upsell-priorities/:model/raise; the server computes and stores the step in one
 * transaction), then refreshes what reads it. `weightKey` is the model as its priority is stored.
 */
export function useRaiseUpsellPriority(dealerId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ weightKey }: { weightKey: string }) =>
      apiFetch<RaisedPriority>(`${base(dealerId)}/upsell-priorities/${encodeURIComponent(weightKey)}/raise`, { method: 'POST' }),
    onSuccess: (data) => qc.setQueryData(configKeys.configs(dealerId), data.configs),
    onSettled: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ['dealer', dealerId, 'analytics-report'] }),
        qc.invalidateQueries({ queryKey: dealerKeys.dealer(dealerId), exact: true }),
        qc.invalidateQueries({ queryKey: configKeys.upsells(dealerId) }),
        qc.invalidateQueries({ queryKey: configKeys.preview(dealerId) }),
      ]),
  });
}
