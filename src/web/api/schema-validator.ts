/**
 * The check of a form against a shared domain schema, in a module of its own because it
 * brings zod (mantine-form-zod-resolver and the schemas it is given): the editing screens import it
 * through `deferredValidator` (field-errors.ts), after their first paint, and a form that
 * is itself loaded on demand (the manufacturer drawer) imports it directly.
 */
import type { FormErrors } from '@mantine/form';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import type { $ZodType } from 'zod/v4/core';
import { inUserWords } from '../../domain/field-errors';

/**
 * A `@mantine/form` validate function from a shared domain schema: the form's values
 * become the body Save would send (`toBody`), the schema the server validates with checks it
 * (mantine-form-zod-resolver), and each problem lands on the form field `fieldOf` names for its
 * path (the path itself by default), in the user's words (`inUserWords`, or `words` when it gives
 * one). Only the first problem of a field is kept.
 */
export function schemaValidator<V>(
  schema: $ZodType,
  toBody: (values: V) => unknown,
  { fieldOf = (path) => path, words }: { fieldOf?: (path: string) => string; words?: (field: string, message: string) => string | undefined } = {},
): (values: V) => FormErrors {
  const resolve = zod4Resolver(schema, { errorPriority: 'first' });
  return (values) => {
    const out: FormErrors = {};
    for (const [path, message] of Object.entries(resolve(toBody(values) as Record<string, unknown>))) {
      const field = fieldOf(path);
      if (!(field in out)) out[field] = words?.(field, String(message)) ?? inUserWords(String(message));
    }
    return out;
  };
}
