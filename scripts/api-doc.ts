/**
 * Renders docs/API.md from the server's OpenAPI document: the hand-written prose of
 * docs/api/header.md, then every route grouped by tag (the document's tag order), each with its
 * method and path, access policy (`x-access`), parameters, body fields and answers from the route
 * schemas, and its notes from docs/api/routes.md ("## METHOD /path" sections, Fastify path syntax),
 * then docs/api/footer.md. Pure apart from reading those three files; the same document always
 * renders to the same text (scripts/gen-api-doc.ts writes it, src/server/openapi.test.ts checks it).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { OpenAPIV3 } from 'openapi-types';

type Schema = OpenAPIV3.SchemaObject & { const?: unknown };
type Operation = OpenAPIV3.OperationObject & { 'x-access'?: string };

const DOCS = path.resolve('docs/api');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const ACCESS: Record<string, string> = {
  public: 'public',
  'signed-in': 'signed in',
  admin: 'admin',
  'dealer-read': "dealer read (admin, or a user of the path's dealer)",
  'dealer-write': "dealer write (admin, or a non-viewer user of the path's dealer)",
};

/** A short TypeScript-like type of a JSON Schema: `string`, `'a' | 'b'`, `Asset[]`, `{ id, name? }`. */
export function typeOf(s: Schema | OpenAPIV3.ReferenceObject | undefined, depth = 0): string {
  if (!s || '$ref' in s) return 'unknown';
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  const union = s.anyOf ?? s.oneOf;
  if (union) return [...new Set(union.map((u) => typeOf(u as Schema, depth)))].join(' \\| ');
  if (s.allOf) return s.allOf.map((u) => typeOf(u as Schema, depth)).join(' & ');
  const nullable = s.nullable ? ' \\| null' : '';
  switch (s.type) {
    case 'array': {
      const items = s.items as Schema | Schema[] | undefined;
      if (Array.isArray(items)) return `[${items.map((i) => typeOf(i, depth + 1)).join(', ')}]${nullable}`;
      const inner = typeOf(items, depth + 1);
      return `${/[ |&]/.test(inner) && !inner.startsWith('{') ? `(${inner})` : inner}[]${nullable}`;
    }
    case 'object': {
      const props = Object.keys(s.properties ?? {});
      if (props.length === 0) {
        const extra = s.additionalProperties;
        return (extra && typeof extra === 'object' ? `Record<string, ${typeOf(extra as Schema, depth + 1)}>` : 'object') + nullable;
      }
      if (depth >= 2) return `object${nullable}`;
      const required = new Set(s.required ?? []);
      return `{ ${props.map((p) => `${p}${required.has(p) ? '' : '?'}`).join(', ')} }${nullable}`;
    }
    case undefined:
      return 'any';
    default:
      return `${s.type}${nullable}`;
  }
}

/** The limits a schema states: length, range, pattern, format, default. */
function limitsOf(s: Schema): string {
  const out: string[] = [];
  if (s.format) out.push(s.format);
  if (s.minLength !== undefined && s.minLength > 0) out.push(`≥ ${s.minLength} chars`);
  if (s.maxLength !== undefined) out.push(`≤ ${s.maxLength} chars`);
  if (s.minimum !== undefined) out.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) out.push(`≤ ${s.maximum}`);
  if (s.minItems !== undefined && s.minItems > 0) out.push(`≥ ${s.minItems} items`);
  if (s.maxItems !== undefined) out.push(`≤ ${s.maxItems} items`);
  if (s.pattern) out.push(`pattern \`${s.pattern}\``);
  if (s.default !== undefined) out.push(`default ${JSON.stringify(s.default)}`);
  return out.join(', ');
}

const cell = (text: string) => text.replace(/\n/g, ' ');

/** Rows `| name | in | type | required | limits |` of an object schema's top-level fields. */
function fieldRows(schema: Schema, where: string): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => {
    const p = prop as Schema;
    return `| \`${name}\` | ${where} | \`${typeOf(p, 1)}\` | ${required.has(name) ? 'yes' : 'no'} | ${cell([limitsOf(p), p.description ?? ''].filter(Boolean).join('; '))} |`;
  });
}

/** The "## METHOD /path" sections of docs/api/routes.md, keyed "METHOD /path" (Fastify syntax). */
async function routeNotes(): Promise<Map<string, string>> {
  const text = await readFile(path.join(DOCS, 'routes.md'), 'utf8');
  const notes = new Map<string, string>();
  for (const section of text.split(/^## /m).slice(1)) {
    const [heading, ...body] = section.split('\n');
    notes.set(heading!.trim(), body.join('\n').trim());
  }
  return notes;
}

const fastifyPath = (openApiPath: string) => openApiPath.replace(/\{([^}]+)\}/g, ':$1');

function renderOperation(method: string, apiPath: string, op: Operation, notes: Map<string, string>): string {
  const key = `${method.toUpperCase()} ${fastifyPath(apiPath)}`;
  const lines = [`### ${key}`, ''];
  if (op.summary) lines.push(`${op.summary}.`, '');
  lines.push(`Access: ${ACCESS[op['x-access'] ?? ''] ?? op['x-access'] ?? 'unknown'}.`, '');
  const rows: string[] = [];
  for (const p of (op.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    const s = (p.schema ?? {}) as Schema;
    rows.push(`| \`${p.name}\` | ${p.in} | \`${typeOf(s, 1)}\` | ${p.required ? 'yes' : 'no'} | ${cell([limitsOf(s), p.description ?? s.description ?? ''].filter(Boolean).join('; '))} |`);
  }
  const body = op.requestBody as OpenAPIV3.RequestBodyObject | undefined;
  for (const [type, media] of Object.entries(body?.content ?? {})) {
    const s = (media.schema ?? {}) as Schema;
    if (s.properties) rows.push(...fieldRows(s, `body (${type})`));
    else rows.push(`| (body) | ${type} | \`${typeOf(s)}\` | yes | ${cell(s.description ?? '')} |`);
  }
  if (rows.length > 0) lines.push('| Field | In | Type | Required | Limits |', '|---|---|---|---|---|', ...rows, '');
  const answers = Object.entries(op.responses ?? {}).map(([status, r]) => {
    const res = r as OpenAPIV3.ResponseObject;
    const s = res.content?.['application/json']?.schema as Schema | undefined;
    if (status === '204') return `- 204: no body${s?.description ? ` (${s.description})` : ''}`;
    if (!s) return `- ${status}: ${res.description ?? ''}`.trimEnd();
    if ('$ref' in s) return `- ${status}: \`${String(s.$ref).split('/').pop()}\``;
    const fields = Object.entries(s.properties ?? {}).map(([name, prop]) => `  - \`${name}\`${(s.required ?? []).includes(name) ? '' : '?'}: \`${typeOf(prop as Schema, 1)}\``);
    return [`- ${status}: \`${typeOf(s)}\``, ...fields].join('\n');
  });
  if (answers.length > 0) lines.push('Answers:', '', ...answers, '');
  const note = notes.get(key);
  if (note) lines.push(note, '');
  return lines.join('\n');
}

/** docs/API.md for `doc` (see module doc). */
export async function renderApiDoc(doc: OpenAPIV3.Document): Promise<string> {
  const [header, footer, notes] = await Promise.all([readFile(path.join(DOCS, 'header.md'), 'utf8'), readFile(path.join(DOCS, 'footer.md'), 'utf8'), routeNotes()]);
  const byTag = new Map<string, string[]>();
  for (const tag of doc.tags ?? []) byTag.set(tag.name, []);
  for (const [apiPath, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item?.[method] as Operation | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(renderOperation(method, apiPath, op, notes));
    }
  }
  const sections = [...byTag.entries()]
    .filter(([, ops]) => ops.length > 0)
    .map(([tag, ops]) => {
      const description = doc.tags?.find((t) => t.name === tag)?.description;
      return [`## ${tag[0]!.toUpperCase()}${tag.slice(1)}`, '', ...(description ? [`${description}.`, ''] : []), ...ops].join('\n');
    });
  return [
    '# HTTP API',
    '',
    '<!-- Generated by `npm run docs:api` (scripts/gen-api-doc.ts) from the route schemas and docs/api/*.md: edit those, not this file. -->',
    '',
    header.trim(),
    '',
    'Every route below declares an access policy (`src/server/auth/access.ts`); the role matrix test (`src/server/auth/role-matrix.test.ts`) walks every route with every role. The same reference, as an OpenAPI 3 document: GET /api/openapi.json (admins).',
    '',
    ...sections,
    footer.trim(),
    '',
  ].join('\n');
}
