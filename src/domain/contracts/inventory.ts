/**
 * Contract of the inventory routes (spec 02 §2 Inventory, §5 Inventory upload and Feed; DECISIONS
 * 20-21): the feed bodies the server validates (moved here from src/server/inventory/feeds.ts)
 * and the answers, typed against the shared views of ../inventory.ts.
 */
import { z } from 'zod';
import { INVENTORY_TEXT, PRIORITY_GROUPS, TEXT_LIMITS } from '../constants';
import { UPDATE_FREQUENCIES, fieldMappingSchema, modelBreakdownSchema, updateFrequencySchema } from '../schemas';
import type { FeedRunView, FeedTestResult, FeedView, InventoryPreview, StoredInventory } from '../inventory';
import { inventorySummarySchema } from './configs';

const feedUrlSchema = z
  .string({ error: INVENTORY_TEXT.enterFeedUrl })
  .trim()
  .min(1, INVENTORY_TEXT.enterFeedUrl)
  .max(TEXT_LIMITS.url, `Feed URL must be at most ${TEXT_LIMITS.url} characters`)
  .pipe(z.url({ protocol: /^https?$/, error: 'Feed URL must be a valid http(s) URL' }));

/** Body of Test Feed: the URL and optional field mapping. */
export const feedTestSchema = z.object({ feedUrl: feedUrlSchema, fieldMapping: fieldMappingSchema.partial().optional() }).strict();
export type FeedTest = z.infer<typeof feedTestSchema>;
/** Body of Save: URL, frequency and field mapping (spec 02 §3 InventoryFeed). */
export const feedSaveSchema = z
  .object({ feedUrl: feedUrlSchema, updateFrequency: updateFrequencySchema, fieldMapping: fieldMappingSchema })
  .strict();
export type FeedSave = z.infer<typeof feedSaveSchema>;

/**
 * A count per name (trim, year, colour, body style) in an answer. Names come from dealers' files and
 * may be `__proto__` or `constructor`: the map is passed through as the
 * server built it (own properties only), since parsing it into a new object would drop `__proto__`.
 */
const countsByName = z.custom<Record<string, number>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v));

const inventoryViewShape = {
  summary: inventorySummarySchema,
  models: z.array(
    modelBreakdownSchema.omit({ vehicles: true }).extend({
      key: z.string(),
      trims: countsByName,
      years: countsByName,
      colors: z.custom<{ exterior: Record<string, number>; interior: Record<string, number> }>((v) => typeof v === 'object' && v !== null),
      bodyStyles: countsByName,
    }),
  ),
  priorityGroups: z.array(
    z.object({ label: z.enum(PRIORITY_GROUPS.map((g) => g.label) as [(typeof PRIORITY_GROUPS)[number]['label']]), min: z.number(), max: z.number(), models: z.array(z.string()) }),
  ),
  insights: z.object({
    agedModels: z.array(z.object({ key: z.string(), model: z.string(), agedUnits: z.number(), totalUnits: z.number(), agedShare: z.number() })),
    deepTrimModels: z.array(z.object({ key: z.string(), model: z.string(), trims: z.array(z.object({ trim: z.string(), units: z.number() })) })),
  }),
  upsellRules: z.record(z.string(), z.string()),
};

/** POST /inventory/preview: the parsed file before it is applied, with what was skipped. */
export const inventoryPreviewSchema: z.ZodType<InventoryPreview> = z.object({
  ...inventoryViewShape,
  rowsRead: z.number(),
  skipped: z.array(z.object({ row: z.number(), line: z.number().optional(), reason: z.string() })),
  skippedCount: z.number(),
});

const storedInventorySchema: z.ZodType<StoredInventory> = z.object({ ...inventoryViewShape, source: z.enum(['upload', 'feed']), updatedAt: z.string() });
/** GET and POST /inventory: the stored inventory (null before any upload or feed run). */
export const storedInventoryAnswerSchema = z.object({ inventory: storedInventorySchema.nullable() });
/** Query of POST /inventory: `pauseFeed=true` also pauses the dealer's active feed, in the same transaction. */
export const inventoryApplyQuery = z.object({ pauseFeed: z.enum(['true', 'false']).optional() });
/** POST /inventory: the stored inventory and whether an active feed was paused with it. */
export const uploadedInventoryAnswerSchema = z.object({ inventory: storedInventorySchema, feedPaused: z.boolean() });

const feedViewSchema: z.ZodType<FeedView> = z.object({
  feedUrl: z.string(),
  updateFrequency: z.enum(UPDATE_FREQUENCIES),
  isActive: z.boolean(),
  fieldMapping: fieldMappingSchema,
  lastUpdated: z.string().nullable(),
  nextRunAt: z.string().nullable(),
});
const feedRunSchema: z.ZodType<FeedRunView> = z.object({
  id: z.number(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  status: z.enum(['running', 'success', 'error']),
  vehicleCount: z.number().nullable(),
  error: z.string().nullable(),
});
/** GET /inventory/feed: the feed (null when none is saved) and its latest runs, newest first. */
export const feedStateSchema = z.object({ feed: feedViewSchema.nullable(), runs: z.array(feedRunSchema) });
export type FeedState = z.infer<typeof feedStateSchema>;
/** PUT and PATCH /inventory/feed. */
export const feedAnswerSchema = z.object({ feed: feedViewSchema });
/** POST /inventory/feed/test: what the feed holds now; nothing is stored. */
export const feedTestResultSchema: z.ZodType<FeedTestResult> = z.object({
  vehicleCount: z.number(),
  modelCount: z.number(),
  agedUnits: z.number(),
  skippedCount: z.number(),
  models: z.array(z.object({ key: z.string(), model: z.string(), totalUnits: z.number() })),
});
