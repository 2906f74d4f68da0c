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

/** One problem with one field of a refused input (domain/field-errors.ts `FieldIssue`). */
export const fieldIssueSchema = z.object({
  path: z.string().describe("The field: keys and array indexes joined by '.', '' for the whole body"),
  code: z.string().describe("The kind of problem: zod's issue code ('too_big', 'invalid_type', …) or the service's own ('custom', 'unknown_reference', …)"),
  message: z.string().describe('What is wrong, in the user\'s words'),
});

/**
 * Every error answer: `{ error: { code, message } }`; a 400 `INVALID` also carries `fields`, one
 * entry per problem (empty when none is about a field) (src/server/errors.ts, docs/API.md "Errors").
 */
export const errorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string(), fields: z.array(fieldIssueSchema).optional() }) });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** PATCH bodies that pause or resume something (a feed; an asset's PATCH also takes its window: contracts/assets.ts). */
export const activeBodySchema = z.object({ isActive: z.boolean() }).strict();
export type ActiveBody = z.infer<typeof activeBodySchema>;
