/** Contract of the dealer analytics routes (spec 02 §2 Analytics, DECISIONS 18). */
import { z } from 'zod';
import { ANALYTICS_PERIODS, analyticsPeriodSchema, dealerStatsSchema, type DealerAnalytics } from '../schemas';
import { COMPARISONS, MAX_RANGE_DAYS, isDayText, rangeDays } from '../ranges';
import { DEVICE_FILTERS } from '../enums';

/**
 * The device filter of the analytics routes (migration 0024, domain/device.ts): 'all' (the
 * default: every event, those stored before devices were recorded included), 'desktop' or 'mobile'.
 */
export const deviceFilterSchema = z.enum(DEVICE_FILTERS).default('all');

/** Query of both analytics routes: the period, 7d unless given, and the device, all unless given. */
export const dealerAnalyticsQuery = z.object({ period: analyticsPeriodSchema.default('7d'), device: deviceFilterSchema });

const percentOrNull = z.number().nullable();
/** One creative's figures in a window (spec 02 §2 Analytics, creative performance). */
const creativeSchema = z.object({
  creative: z.string(),
  kind: z.enum(['asset', 'cdn', 'fallback', 'placeholder', 'unknown']),
  name: z.string().nullable(),
  model: z.string(),
  slot: z.string(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  status: z.enum(['live', 'scheduled', 'expired', 'inactive', 'deleted']).nullable(),
  impressions: z.number(),
  clicks: z.number(),
  conversions: z.number(),
  ctr: percentOrNull,
  verdict: z.enum(['best', 'leading', 'trailing', 'even', 'collecting']).nullable(),
  sample: z.object({ seen: z.number(), needed: z.number() }).nullable(),
});

/** GET /api/dealers/:dealerId/analytics. */
export const dealerAnalyticsSchema: z.ZodType<DealerAnalytics> = z.object({
  period: z.enum(ANALYTICS_PERIODS),
  from: z.string(),
  to: z.string(),
  current: dealerStatsSchema,
  previous: dealerStatsSchema,
  trends: z.object({ impressions: percentOrNull, clicks: percentOrNull, ctr: percentOrNull, conversionRate: percentOrNull }),
  models: z.array(
    z.object({ model: z.string(), impressions: z.number(), clicks: z.number(), conversions: z.number(), ctr: percentOrNull, conversionRate: percentOrNull }),
  ),
  series: z.array(z.object({ bucket: z.string(), impressions: z.number(), clicks: z.number(), conversions: z.number() })),
  lastUpdated: z.string().nullable(),
  creatives: z.array(creativeSchema),
  placeholderShare: percentOrNull,
  needBanner: z.array(z.object({ model: z.string(), slot: z.string(), impressions: z.number() })),
});

// ---------------------------------------------------------------------------------------------
// The Analytics screen's report: a fixed period or a custom range in the dealer's time zone, its
// comparison, the chart series, and the per-model, per-slot and per-creative tables
// (domain/ranges.ts; server/analytics/report.ts).

/** The tables of the report, as the CSV export names them. */
export const REPORT_TABLES = ['models', 'slots', 'creatives', 'days'] as const;
export type ReportTable = (typeof REPORT_TABLES)[number];

const dayText = z.string().refine(isDayText, 'Use a date written YYYY-MM-DD');

/**
 * Query of the report and its CSV: `period` (a fixed period, 7d when nothing is given) or `from`
 * and `to` (days in the dealer's time zone, both included, at most MAX_RANGE_DAYS); `compare` with
 * the previous period of the same length or the same dates last year (not for 24h); `device`
 * narrows every figure to one device; `table` picks the CSV's rows.
 */
export const analyticsReportQuery = z
  .object({
    period: analyticsPeriodSchema.optional(),
    from: dayText.optional(),
    to: dayText.optional(),
    compare: z.enum(COMPARISONS).default('previous'),
    device: deviceFilterSchema,
    table: z.enum(REPORT_TABLES).default('models'),
  })
  .superRefine((q, ctx) => {
    if (q.period && (q.from || q.to)) ctx.addIssue({ code: 'custom', path: ['period'], message: 'Give either a period or a from/to range, not both' });
    if (!q.period && Boolean(q.from) !== Boolean(q.to)) ctx.addIssue({ code: 'custom', path: [q.from ? 'to' : 'from'], message: 'A custom range needs both from and to' });
    if (q.from && q.to && isDayText(q.from) && isDayText(q.to)) {
      const days = rangeDays({ from: q.from, to: q.to });
      if (days < 1) ctx.addIssue({ code: 'custom', path: ['to'], message: 'The range ends before it starts' });
      else if (days > MAX_RANGE_DAYS) ctx.addIssue({ code: 'custom', path: ['to'], message: `A range covers at most ${MAX_RANGE_DAYS} days` });
    }
    if (q.period === '24h' && q.compare === 'year') ctx.addIssue({ code: 'custom', path: ['compare'], message: 'Last 24 Hours compares with the previous 24 hours only' });
  });
export type AnalyticsReportQuery = z.infer<typeof analyticsReportQuery>;

const countsWithRates = z.object({
  impressions: z.number(),
  clicks: z.number(),
  conversions: z.number(),
  ctr: percentOrNull,
  conversionRate: percentOrNull,
});
const seriesPoint = z.object({ bucket: z.string(), impressions: z.number(), clicks: z.number(), conversions: z.number() });

/** GET /api/dealers/:dealerId/analytics/report. Counted impressions are viewable impressions (DECISIONS 15). */
export const analyticsReportSchema = z.object({
  /** The device whose events every figure counts ('all': every device). */
  device: z.enum(DEVICE_FILTERS),
  range: z.object({
    /** The fixed period, or null for a custom range. */
    period: z.enum(ANALYTICS_PERIODS).nullable(),
    /** First and last day shown (local days of a custom range; UTC days of a fixed period). */
    from: z.string(),
    to: z.string(),
    label: z.string(),
    timeZone: z.string(),
    unit: z.enum(['hour', 'day']),
    /** True when the range is older than the hourly rollups and is read by whole UTC days. */
    utcDays: z.boolean(),
  }),
  window: z.object({ from: z.string(), to: z.string() }),
  comparison: z.object({
    compare: z.enum(COMPARISONS),
    label: z.string(),
    from: z.string(),
    to: z.string(),
    utcDays: z.boolean(),
  }),
  current: countsWithRates,
  previous: countsWithRates,
  /** Change against the comparison in percent; null ('--') without comparison data. */
  trends: z.object({ impressions: percentOrNull, clicks: percentOrNull, ctr: percentOrNull, conversions: percentOrNull, conversionRate: percentOrNull }),
  series: z.array(seriesPoint),
  /** The comparison's buckets, index by index beside `series`. */
  previousSeries: z.array(seriesPoint),
  models: z.array(
    countsWithRates.extend({
      model: z.string(),
      /** The key inventory weights are stored under (configs.inventoryWeights); null for the (other)/(unknown) rows. */
      weightKey: z.string().nullable(),
      /** Upsell weight 1..10 (configs.inventoryWeights; DECISIONS 22 labels); null where no model is named. */
      upsellWeight: z.number().nullable(),
      inventory: z
        .object({ units: z.number(), agedUnits: z.number(), agedShare: z.number().nullable(), medianDaysOnLot: z.number().nullable(), priorityScore: z.number() })
        .nullable(),
    }),
  ),
  slots: z.array(countsWithRates.extend({ slot: z.string() })),
  creatives: z.array(creativeSchema),
  placeholderShare: percentOrNull,
  needBanner: z.array(z.object({ model: z.string(), slot: z.string(), impressions: z.number() })),
  lastUpdated: z.string().nullable(),
});
export type AnalyticsReport = z.infer<typeof analyticsReportSchema>;
export type ReportModelRow = AnalyticsReport['models'][number];
