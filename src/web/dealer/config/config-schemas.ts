/**
 * The Configuration and Upsell Rules forms' checks: what Save sends, as the server checks it (the
 * configs service validates with the same shared domain schemas). A chunk of its own,
 * fetched after the form has painted (`deferredValidator`), because it brings zod.
 */
import { z } from 'zod';
import { bannerSizesSchema, dealerConfigsSchema, modelMapSchema, trimPatternsSchema, upsellMapSchema, upsellStrategySchema } from '../../../domain/schemas';

export { schemaValidator } from '../../api/schema-validator';

/** The editable configs of the Configuration screen. */
export const configsSchema = z.object({
  modelMap: modelMapSchema,
  upsellMap: upsellMapSchema,
  trimPatterns: trimPatternsSchema,
  inventoryWeights: dealerConfigsSchema.shape.inventoryWeights,
  bannerSizes: bannerSizesSchema,
});

/** The upsell settings of the Upsell Rules screen. */
export const upsellSettingsSchema = z.object({
  customUpsellLogic: upsellStrategySchema,
  upsellMap: upsellMapSchema,
  customUpsellRules: upsellMapSchema,
  inventoryWeights: dealerConfigsSchema.shape.inventoryWeights,
});
