/** Contract of the dealer analytics routes (spec 02 §2 Analytics, DECISIONS 18). */
import { z } from 'zod';
import { ANALYTICS_PERIODS, analyticsPeriodSchema, dealerStatsSchema, type DealerAnalytics } from '../schemas';

/** Query of both analytics routes: the period, 7d unless given. */
export const dealerAnalyticsQuery = z.object({ period: analyticsPeriodSchema.default('7d') });

const percentOrNull = z.number().nullable();
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
  creatives: z.array(
    z.object({
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
    }),
  ),
  placeholderShare: percentOrNull,
  needBanner: z.array(z.object({ model: z.string(), slot: z.string(), impressions: z.number() })),
});
