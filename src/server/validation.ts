/**
 * Boundary validation: parses untrusted input with a zod schema and turns a failure into an
 * `Invalid` error whose message names each wrong field, e.g. "maxRequestsPerMinute: Too big";
 * and refuses JSON text nested deeper than MAX_JSON_DEPTH before anything parses it.
 */
import type { z } from 'zod';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH } from '../domain/constants';
import { Invalid } from './errors';

/** Parses `data` with `schema`; @throws Invalid naming the failing fields. */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const message = result.error.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  throw new Invalid(message || 'Invalid input');
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when JSON text nests arrays and objects more than `limit` levels deep (`[]` and `{}` are
 * one level, `[[1]]` two), found in one pass over the text without parsing it, so a hostile
 * document costs no recursion or allocation. Brackets inside strings do not count; text that is
 * not valid JSON is judged the same way (JSON.parse reports its other problems). Issue 10.
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
 * Refuses JSON text nested deeper than MAX_JSON_DEPTH, before it is parsed (issue 10): the
 * server's JSON bodies, tracking beacons, inventory files and feeds all pass through here.
 * @throws Invalid(`${prefix}JSON nested too deeply (limit 64 levels)`).
 */
export function assertJsonDepth(text: string, prefix = ''): void {
  if (jsonTooDeep(text)) throw new Invalid(`${prefix}${JSON_TOO_DEEP}`);
}
