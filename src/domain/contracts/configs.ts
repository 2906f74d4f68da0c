/**
 * Contract of the dealer configuration routes (spec 02 §2 Configuration manager, Upsell rules,
 * Banner Preview, Dashboard trend; DECISIONS 2, 14, 18): the editable configs, their update body,
 * the preview query and the answers. Shared by src/server/configs and src/web/dealer (types only).
 */
import { z } from 'zod';
import { isWindowText, WINDOW_FORMAT_MESSAGE } from '../schedule';
import { EMPTY_SLOT_MODES, UPSELL_STRATEGIES, bannerSizesSchema, dealerConfigsSchema, dealerStatsSchema, slotTypeSchema, variantSchema } from '../schemas';
import type { PreviewSlot, UpsellRulesView } from '../configs';
import type { InventorySummaryView } from '../inventory';

/** The config fields the dealer edits (spec 02 §3 Dealer configs) plus the four banner sizes. */
export const editableConfigsSchema = z.object({
  modelMap: dealerConfigsSchema.shape.modelMap,
  upsellMap: dealerConfigsSchema.shape.upsellMap,
  trimPatterns: dealerConfigsSchema.shape.trimPatterns,
  inventoryWeights: dealerConfigsSchema.shape.inventoryWeights,
  customUpsellLogic: dealerConfigsSchema.shape.customUpsellLogic,
  customUpsellRules: dealerConfigsSchema.shape.customUpsellRules,
  bannerSizes: bannerSizesSchema,
  // Without the stored schema's defaults: a save that leaves these out must keep them as they are.
  /** The embed script's dataLayer pushes (dc_banner_view, dc_banner_click); stored default on. */
  dataLayerEvents: z.boolean(),
  /** A slot whose model has no creative: 'placeholder' (stored default) or 'hide'. */
  emptySlots: z.enum(EMPTY_SLOT_MODES),
});
export type EditableConfigs = z.infer<typeof editableConfigsSchema>;

/** Body of PUT /configs: any subset of the editable fields; each given field replaces the saved one whole. */
export const configsUpdateSchema = editableConfigsSchema
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to save: send at least one field');
export type ConfigsUpdate = z.infer<typeof configsUpdateSchema>;

/** GET and PUT /configs: the editable configs, the manufacturer and dealers.version after the read or save. */
export const configsViewSchema = editableConfigsSchema.extend({
  manufacturer: z.object({ id: z.string(), name: z.string() }),
  /** dealers.version (changes on every delivery-affecting write). */
  version: z.number(),
});
export type ConfigsView = z.infer<typeof configsViewSchema>;

/** POST /upsell-priorities/:model/raise: the dealer and the model (a standard model name, matched by model key). */
export const upsellPriorityParams = z.object({ dealerId: z.string(), model: z.string().min(1).max(100) });

/**
 * Answer of 'Raise upsell priority' (domain/priority-scale.ts): the model as its priority is stored,
 * the priority before and after and the new band, and the configs as saved.
 */
export const raisedPrioritySchema = z.object({
  model: z.string(),
  from: z.number().int(),
  priority: z.number().int(),
  label: z.enum(['High Priority', 'Normal Priority', 'Low Priority']),
  configs: configsViewSchema,
});
export type RaisedPriority = z.infer<typeof raisedPrioritySchema>;

/** GET /configs/defaults: 'Reset to {manufacturer} Defaults' data; nothing is stored. */
export const manufacturerDefaultsSchema = editableConfigsSchema.omit({ customUpsellLogic: true, customUpsellRules: true, dataLayerEvents: true, emptySlots: true });
export type ManufacturerDefaults = z.infer<typeof manufacturerDefaultsSchema>;

const inventorySummarySchema: z.ZodType<InventorySummaryView> = z.object({
  totalUnits: z.number(),
  modelCount: z.number(),
  agedUnits: z.number(),
  avgDaysOnLot: z.number(),
  lastUpdated: z.string(),
});
export { inventorySummarySchema };

const rules = z.record(z.string(), z.string());
/** GET /upsell-rules. */
export const upsellRulesViewSchema: z.ZodType<UpsellRulesView> = z.object({
  strategy: z.enum(UPSELL_STRATEGIES),
  rules: z.object({ manufacturer: rules, inventory: rules, custom: rules }),
  active: rules,
  manufacturerDefaults: rules,
  inventory: inventorySummarySchema.nullable(),
});

/** Query of GET /preview: the page's model (required), trim and device. */
/**
 * `asOf`: Preview and the coverage matrix as of another moment (a date-time as promotion windows
 * take it, domain/schedule.ts parseWindowInput: local ones in the dealer's time zone); absent = now.
 */
export const asOfSchema = z.string().trim().max(40).refine(isWindowText, WINDOW_FORMAT_MESSAGE).optional();
export const previewQuery = z.object({
  model: z.string().trim().min(1, 'Choose a model').max(100),
  trim: z.string().trim().max(100).optional(),
  variant: variantSchema.default('desktop'),
  asOf: asOfSchema,
});
/** Query of GET /coverage: `asOf` as Preview's. */
export const coverageQuery = z.object({ asOf: asOfSchema });

const previewSlotSchema: z.ZodType<PreviewSlot> = z.object({
  slot: slotTypeSchema,
  model: z.string(),
  modelKey: z.string(),
  status: z.enum(['found', 'mismatch', 'Missing']),
  creative: z.object({ width: z.number(), height: z.number() }).nullable(),
  source: z.enum(['asset', 'cdn', 'fallback', 'placeholder']),
  assetId: z.string().nullable(),
  assetName: z.string().nullable(),
  width: z.number(),
  height: z.number(),
  imageUrl: z.string(),
  candidates: z
    .array(z.object({ model: z.string(), weight: z.number(), label: z.enum(['High Priority', 'Normal Priority', 'Low Priority']), rule: z.boolean() }))
    .optional(),
  rotation: z.array(z.object({ assetId: z.string(), assetName: z.string().nullable(), imageUrl: z.string() })),
});
/** GET /preview: the three slots as delivery would choose them, and the dealer's branding colour around them. */
export const previewAnswerSchema = z.object({
  model: z.string(),
  trim: z.string(),
  variant: variantSchema,
  slots: z.array(previewSlotSchema),
  background: z.string(),
  /** The moment the slots were chosen for (ISO 8601 UTC): the request's `asOf`, else the server's now. */
  asOf: z.string(),
});
export type PreviewAnswer = z.infer<typeof previewAnswerSchema>;

/**
 * GET /coverage: for every standard model of the dealer (its catalogue
 * models by display name; mapping aliases are not rows), the three slots on desktop and on
 * mobile as delivery would choose them (the same answer as Preview for that model and device).
 */
export const coverageAnswerSchema = z.object({
  models: z.array(
    z.object({
      /** The model's comparison key (the page's `model=`). */
      model: z.string(),
      displayName: z.string(),
      desktop: z.array(previewSlotSchema),
      mobile: z.array(previewSlotSchema),
    }),
  ),
  background: z.string(),
  /** The moment the slots were chosen for (ISO 8601 UTC), as Preview's. */
  asOf: z.string(),
});
export type CoverageAnswer = z.infer<typeof coverageAnswerSchema>;

/** Query of GET /stats/trend: the last `days` days (1-365, default 7). */
export const trendQuery = z.object({ days: z.coerce.number().int().min(1).max(365).default(7) });

/**
 * GET /stats/trend: totals of the period (today, UTC, and the `days - 1` days before; window
 * [from, to) in ISO, domain/periods.ts) plus the previous period of the same length and the change
 * in percent (null: '--').
 */
export const statsWithTrendSchema = dealerStatsSchema.extend({
  days: z.number().int(),
  from: z.string(),
  to: z.string(),
  previous: dealerStatsSchema,
  trend: z.object({ impressions: z.number().nullable(), clicks: z.number().nullable(), ctr: z.number().nullable(), conversions: z.number().nullable() }),
});
export type StatsWithTrend = z.infer<typeof statsWithTrendSchema>;
