/** GET /api/openapi.json: an OpenAPI 3 document, passed through as the swagger plugin builds it. */
import { z } from 'zod';

export const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  paths: z.record(z.string(), z.unknown()),
});
