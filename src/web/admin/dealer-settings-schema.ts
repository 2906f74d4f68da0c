/**
 * The Dealer Settings form's check: the body Save would send against the shared domain
 * schemas the server validates with (spec 01 §9; the server adds its own URL and quota checks and
 * checks everything again), plus a name. A chunk of its own, fetched after the form has painted
 * (`deferredValidator`), because it brings zod.
 */
import { z } from 'zod';
import { assetStorageSchema, brandingSchema, DEALER_STATUSES, dealerSchema, notificationsSchema, providerSchema, securitySchema } from '../../domain/schemas';
import { TEXT_LIMITS } from '../../domain/constants';

export { schemaValidator } from '../api/schema-validator';

const MB = 1024 * 1024;

export const settingsSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(TEXT_LIMITS.name),
  websiteUrl: dealerSchema.shape.websiteUrl,
  provider: providerSchema,
  status: z.enum(DEALER_STATUSES),
  assetStorage: assetStorageSchema.extend({ storageQuotaBytes: assetStorageSchema.shape.storageQuotaBytes.min(MB).max(10 * 1024 * MB) }),
  branding: brandingSchema,
  security: securitySchema,
  notifications: notificationsSchema,
});
