/**
 * The check of a form against a shared domain schema, in a module of its own because it
 * brings zod (and the schemas it is given): the editing screens import it
 * through `deferredValidator` (field-errors.ts), after their first paint, and a form that
 * is itself loaded on demand (the manufacturer drawer) imports it directly.
 */
import type { FormErrors } from '@mantine/form';
import { safeParse, type $ZodType } from 'zod/v4/core';
import type { FieldIssue } from '../../domain/field-errors';
import { fieldIssuesOf } from '../../domain/zod-issues';

/**
 * A `@mantine/form` validate function from a shared domain schema: the form's values
 * become the body Save would send (`toBody`), the schema the server validates with checks it, and
 * each problem lands on the form field `fieldOf` names for its path (the path itself by default),
 * in the same words the server's 400 would use (`fieldIssuesOf`), or `words` when it gives its own
 * for the issue's field and code. Only the first problem of a field is kept.
 */
export function schemaValidator<V>(
  schema: $ZodType,
  toBody: (values: V) => unknown,
  { fieldOf = (path) => path, words }: { fieldOf?: (path: string) => string; words?: (field: string, issue: FieldIssue) => string | undefined } = {},
): (values: V) => FormErrors {
  return (values) => {
    const result = safeParse(schema, toBody(values), { reportInput: true });
    const out: FormErrors = {};
    if (result.success) return out;
    for (const issue of fieldIssuesOf(result.error.issues)) {
      const field = fieldOf(issue.path);
      if (!(field in out)) out[field] = words?.(field, issue) ?? issue.message;
    }
    return out;
  };
}
