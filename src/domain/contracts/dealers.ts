/** Contract of the dealer record and headline stats routes (spec 02 §2 Dashboard). */
import { z } from 'zod';
import { dealerSchema, dealerStatsSchema } from '../schemas';

/** GET /api/dealers/:dealerId. */
export const dealerRecordSchema = z.object({ dealer: dealerSchema });
/** Query of GET /api/dealers/:dealerId/stats: the last `days` days (1-3650, default 30). */
export const statsQuery = z.object({ days: z.coerce.number().int().min(1).max(3650).default(30) });
export { dealerStatsSchema };
/** GET /api/dealers/:dealerId/models: the dealer's manufacturer catalogue as the screens name it, in catalogue order. */
export const dealerModelsSchema = z.object({ models: z.array(z.object({ name: z.string(), displayName: z.string() })) });
export type DealerModels = z.infer<typeof dealerModelsSchema>;
