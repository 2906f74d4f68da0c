/**
 * The generated API reference: GET /api/openapi.json lists every registered /api and
 * /scripts route (compared with app.routePolicies, as the role matrix does) with its access policy,
 * the request schema of every params, query and body it takes, and a response schema for every
 * JSON answer; and docs/API.md is what scripts/gen-api-doc.ts makes of that document.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenAPIV3 } from 'openapi-types';
import { createTestApp, type TestApp } from './test-app';
import { DEMO_ACCOUNTS } from './db/seed';
import { openApiPath } from './openapi';
import { renderApiDoc } from '../../scripts/api-doc';
import { zodSerializerCompiler } from './validation';
import { meAnswerSchema } from '../domain/contracts/auth';

type Operation = OpenAPIV3.OperationObject & { 'x-access'?: string };

/** Routes whose answer is not JSON: images, redirects, CSV, JavaScript. */
const NON_JSON = new Set(['GET /api/scripts/:dealerId/asset', 'GET /scripts/:file', 'GET /api/dealers/:dealerId/assets/:assetId/image', 'GET /api/dealers/:dealerId/analytics/export.csv', 'GET /api/dealers/:dealerId/analytics/report.csv']);

let t: TestApp;
let doc: OpenAPIV3.Document;

beforeAll(async () => {
  t = await createTestApp();
  const admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
  const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { cookie: admin } });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(() => t.close());

const operation = (method: string, url: string) => doc.paths[openApiPath(url)]?.[method.toLowerCase() as OpenAPIV3.HttpMethods] as Operation | undefined;

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3 document for admins only', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(anonymous.statusCode).toBe(401);
    const manager = await t.userCookie('dealer-manager', 'honda-of-demo');
    expect((await t.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { cookie: manager } })).statusCode).toBe(403);
  });

  it('lists every registered /api and /scripts route with its access policy, and nothing else', () => {
    const registered = t.app.routePolicies.map((r) => `${r.method} ${openApiPath(r.url)} ${r.access}`).sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) =>
        Object.entries(item ?? {})
          .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map(([method, op]) => `${method.toUpperCase()} ${path} ${(op as Operation)['x-access']}`),
      )
      .sort();
    expect(documented).toEqual(registered);
  });

  it('gives every route its request schemas and every JSON answer a response schema', () => {
    for (const { method, url } of t.app.routePolicies) {
      const op = operation(method, url)!;
      const where = `${method} ${url}`;
      expect(op.tags?.length, where).toBeGreaterThan(0);
      const pathParams = [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
      const documentedParams = (op.parameters ?? []).filter((p) => (p as OpenAPIV3.ParameterObject).in === 'path').map((p) => (p as OpenAPIV3.ParameterObject).name);
      expect(documentedParams.sort(), where).toEqual(pathParams.sort());
      for (const p of op.parameters ?? []) expect((p as OpenAPIV3.ParameterObject).schema, `${where} ${(p as OpenAPIV3.ParameterObject).name}`).toBeDefined();
      if (['POST', 'PUT', 'PATCH'].includes(method) && !op.requestBody && !/\/(logout|raise)$/.test(url)) {
        // Only multipart uploads read their body in the handler; sign-out and raising a model's
        // upsell priority one band are actions without input.
        expect(JSON.stringify(op), where).toMatch(/multipart/);
      }
      const answers = Object.entries(op.responses ?? {});
      expect(answers.length, `${where} declares its answers`).toBeGreaterThan(0);
      if (!NON_JSON.has(where)) {
        const ok = answers.find(([status]) => /^2/.test(status));
        expect(ok, where).toBeDefined();
        const [status, answer] = ok!;
        if (status !== '204') expect((answer as OpenAPIV3.ResponseObject).content?.['application/json']?.schema, where).toBeDefined();
      }
    }
  });

  it('documents the request bodies the routes validate', () => {
    const login = operation('POST', '/api/auth/login')!;
    const body = (login.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']!.schema as OpenAPIV3.SchemaObject;
    expect(Object.keys(body.properties ?? {}).sort()).toEqual(['email', 'password']);
    const track = operation('POST', '/api/analytics/track')!;
    expect(JSON.stringify(track.requestBody)).toContain('dealerId');
  });
});

describe('docs/API.md', () => {
  it('is current: npm run docs:api writes what this document renders to', async () => {
    const written = await readFile('docs/API.md', 'utf8');
    expect(written, 'docs/API.md is stale: run npm run docs:api').toBe(await renderApiDoc(doc));
  });
});

describe('response schemas guard what leaves the server', () => {
  it('drops fields the response schema does not name', () => {
    const serialize = zodSerializerCompiler({ schema: meAnswerSchema, method: 'GET', url: '/api/auth/me', httpStatus: '200' });
    const user = { id: 'u1', email: 'a@example.com', name: 'A', role: 'admin', dealerId: null, dealerName: null, passwordHash: 'secret' };
    expect(JSON.parse(serialize({ user, sessionToken: 'secret' }))).toEqual({ user: { id: 'u1', email: 'a@example.com', name: 'A', role: 'admin', dealerId: null, dealerName: null } });
  });
});
