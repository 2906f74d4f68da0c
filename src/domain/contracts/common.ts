/**
 * Pieces shared by the route contracts: the path params, the error body every 4xx/5xx
 * answer carries, and the `{ isActive }` toggle body. Route contracts live in this folder, one file
 * per feature; the server declares them as route schemas (fastify-type-provider-zod) and the web
 * app imports their types with `import type` only.
 */
import { z } from 'zod';

/** `:dealerId` routes. Any string: an unknown dealer is a 404 from the service. */
export const dealerParams = z.object({ dealerId: z.string() });
/** `:id` routes (manufacturers; users narrow it to a UUID). */
export const idParams = z.object({ id: z.string() });

/** Every error answer: `{ error: { code, message } }` (src/server/errors.ts, docs/API.md "Errors"). */
export const errorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** PATCH bodies that pause or resume something (a feed; an asset's PATCH also takes its window: contracts/assets.ts). */
export const activeBodySchema = z.object({ isActive: z.boolean() }).strict();
export type ActiveBody = z.infer<typeof activeBodySchema>;
