/**
 * The generated API reference: @fastify/swagger collects every route's zod schema
 * (fastify-type-provider-zod's jsonSchemaTransform turns them into JSON Schema) into one OpenAPI 3
 * document, served at GET /api/openapi.json with each operation's access policy as `x-access`.
 *
 * Admins only: the document lists the admin and dealer-area routes, which are the web app's own
 * API and no promise to third parties; dealer sites need only the public endpoints, whose contract
 * docs/API.md (generated from this document by scripts/gen-api-doc.ts) describes.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { OpenAPIV3 } from 'openapi-types';
import { z } from 'zod';
import { errorBodySchema } from '../domain/contracts/common';
import { openApiDocumentSchema } from '../domain/contracts/openapi';

/** The error body's schema as the document's `components.schemas.ErrorBody`. */
const ERROR_BODY = z.toJSONSchema(errorBodySchema, { target: 'openapi-3.0' }) as OpenAPIV3.SchemaObject;
delete (ERROR_BODY as { $schema?: string }).$schema;
const ERROR_REF: OpenAPIV3.ReferenceObject = { $ref: '#/components/schemas/ErrorBody' };

/** The route groups of the document, in the order docs/API.md lists them. */
export const API_TAGS: OpenAPIV3.TagObject[] = [
  { name: 'auth', description: 'Sign-in and the session' },
  { name: 'dealer', description: 'Dealer area: the dealer record and its figures (admins may read any dealer)' },
  { name: 'assets', description: 'Dealer area: Asset Manager, uploads and Free up space' },
  { name: 'campaigns', description: 'Dealer area: named promotion campaigns (window, models, slots, takeover or rotate, draft to published)' },
  { name: 'configs', description: 'Dealer area: configuration, upsell rules, preview and trends' },
  { name: 'inventory', description: 'Dealer area: inventory uploads and the automatic feed' },
  { name: 'analytics', description: 'Dealer area: the Analytics dashboard and its CSV export' },
  { name: 'script', description: 'The embed script and the script page' },
  { name: 'public', description: 'Called by dealer sites: banner images and tracking beacons' },
  { name: 'admin', description: 'Admin area (role admin)' },
  { name: 'client errors', description: "The web app's error reports" },
  { name: 'reference', description: 'This document' },
];

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * The OpenAPI document of `app` with `x-access` (the route's access policy, auth/access.ts) on
 * every operation, the error body as `components.schemas.ErrorBody`, and a 400 answer of that
 * shape (with `fields`) on every operation that takes path, query or body input. A copy: the
 * swagger plugin's cached document is left as it is.
 */
export function openApiDocument(app: FastifyInstance): OpenAPIV3.Document {
  const doc = structuredClone(app.swagger()) as OpenAPIV3.Document;
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ErrorBody: ERROR_BODY } };
  for (const { method, url, access } of app.routePolicies) {
    const op = doc.paths[openApiPath(url)]?.[method.toLowerCase() as OpenAPIV3.HttpMethods] as (OpenAPIV3.OperationObject & { 'x-access'?: string }) | undefined;
    if (!op) continue;
    op['x-access'] = access;
    if ((op.parameters?.length || op.requestBody) && !op.responses?.['400']) {
      op.responses = { ...op.responses, 400: { description: 'Refused input: `{ error: { code: "INVALID", message, fields } }`', content: { 'application/json': { schema: ERROR_REF } } } };
    }
  }
  return doc;
}

export const openApiPlugin = fp(
  async (fastify: FastifyInstance) => {
    await fastify.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'dc-banners API',
          version: '1',
          description: 'Every route of the dc-banners server, from its route schemas (src/domain/contracts). Errors: `{ error: { code, message } }`, and for a 400 `fields: [{ path, code, message }]` (components.schemas.ErrorBody).',
        },
        tags: API_TAGS,
      },
      // Only our API: /healthz, /readyz and /metrics (plugins' JSON Schemas) stay out of the document.
      transform: (doc) => (doc.url.startsWith('/api/') || doc.url.startsWith('/scripts/') ? jsonSchemaTransform(doc) : { schema: { hide: true }, url: doc.url }),
    });
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      '/api/openapi.json',
      { config: { access: 'admin' }, schema: { tags: ['reference'], summary: 'This API reference as an OpenAPI 3 document', response: { 200: openApiDocumentSchema } } },
      async () => ({ ...openApiDocument(fastify) }),
    );
  },
  { name: 'dc-banners-openapi' },
);
