/**
 * Boundary validation: parses untrusted input with a zod schema and turns a failure into an
 * `Invalid` error whose message names each wrong field, e.g. "maxRequestsPerMinute: Too big".
 */
import type { z } from 'zod';
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
