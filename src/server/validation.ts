/**
 * Boundary validation: the zod validator compiler of every route schema (params, querystring, body)
 * turns a failure into an `Invalid` error whose message names each wrong field, e.g.
 * "maxRequestsPerMinute: Too big …", and whose `fields` give each problem's path, code and words
 * (domain/zod-issues.ts) — both made once, here, from the zod issues (a malformed path param is a
 * `NotFound` instead: no such resource); `assertValid` does the same for a whole document a service checks again; and
 * `jsonTooDeep` refuses JSON text nested deeper than MAX_JSON_DEPTH before anything parses it.
 */
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { ZodType, type z } from 'zod';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH } from '../domain/constants';
import { fieldIssuesOf } from '../domain/zod-issues';
import { Invalid, NotFound } from './errors';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars';

/**
 * The message of a failed parse: each issue as `path.join('.') + ': ' + message` (the message
 * alone at the root), joined by '; '. The error contract of every 400 INVALID (docs/API.md).
 */
export function issuesMessage(error: z.ZodError): string {
  const message = error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
  return message || 'Invalid input';
}

/** Parses `data` with `schema` (a whole document a service validates again). @throws Invalid naming the failing fields. */
export function assertValid<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) return result.data;
  throw invalidOf(result.error);
}

/**
 * The 400 of a failed parse: the joined message of `issuesMessage` and one field problem per issue
 * (`fieldIssuesOf`). Parse with `{ reportInput: true }` so a missing value reads 'Required'.
 */
export function invalidOf(error: z.ZodError): Invalid {
  return new Invalid(issuesMessage(error), fieldIssuesOf(error.issues));
}

/**
 * Fastify's validator compiler for the zod route schemas (fastify-type-provider-zod's schemas):
 * the parsed value replaces the raw one (defaults, coercion, trimming); a failure is an
 * `Invalid` (400) naming the fields (`invalidOf`), or for the path params a `NotFound` (404) with the issue
 * messages alone, so a malformed id reads like an unknown one (e.g. 'Asset not found').
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => (data) => {
  if (!(schema instanceof ZodType)) return { value: data }; // no plugin route of ours validates with JSON Schema
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) return { value: result.data };
  if (httpPart === 'params') return { error: new NotFound([...new Set(result.error.issues.map((i) => i.message))].join('; ')) };
  return { error: invalidOf(result.error) };
};

/**
 * Fastify's serializer compiler: a zod response schema encodes the answer with
 * fastify-type-provider-zod (fields not in the schema are dropped: the leak guard); a plugin's
 * JSON Schema (@fastify/under-pressure's /readyz) falls back to JSON.stringify.
 */
export const zodSerializerCompiler: FastifySerializerCompiler<unknown> = (route) =>
  route.schema instanceof ZodType ? serializerCompiler(route as Parameters<typeof serializerCompiler>[0]) : (data) => JSON.stringify(data);

/**
 * True when JSON text nests arrays and objects more than `limit` levels deep (`[]` and `{}` are
 * one level, `[[1]]` two), found in one pass over the text without parsing it, so a hostile
 * document costs no recursion or allocation. Brackets inside strings do not count; text that is
 * not valid JSON is judged the same way (JSON.parse reports its other problems).
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

/**
 * Refuses JSON text nested deeper than MAX_JSON_DEPTH, before it is parsed: the
 * server's JSON bodies, tracking beacons, inventory files and feeds all pass through here.
 * @throws Invalid(`${prefix}JSON nested too deeply (limit 64 levels)`).
 */
export function assertJsonDepth(text: string, prefix = ''): void {
  if (jsonTooDeep(text)) throw new Invalid(`${prefix}${JSON_TOO_DEEP}`);
}
