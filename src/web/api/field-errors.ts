/**
 * Field-level server errors for the forms (issue 16): a 400 from the server names each wrong field
 * ("path: problem"); `fieldErrorsOf` turns it into errors per field path in the user's words
 * (domain/field-errors.ts), so a form marks the field itself, and `summarizeFieldErrors` names
 * the fields by their labels for a notification. For @mantine/form (issue 14): `schemaValidator`
 * checks a form against the shared domain schema the server uses, `serverFormErrors` puts a refused
 * save's errors on the form's fields.
 */
import type { FormErrors } from '@mantine/form';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import type { $ZodType } from 'zod/v4/core';
import { inUserWords, parseFieldErrors, type FieldErrors } from '../../domain/field-errors';
import { ApiError } from './client';

export type { FieldErrors } from '../../domain/field-errors';

/** The field errors of a failed save: for a 400 ApiError, one entry per field its message names; {} otherwise. */
export function fieldErrorsOf(error: unknown): FieldErrors {
  return error instanceof ApiError && error.status === 400 ? parseFieldErrors(error.message) : {};
}

/** The field errors of `error` for the given form fields only (the rest stay in the error's message). */
export function formErrorsOf(error: unknown, fields: readonly string[]): FieldErrors {
  return Object.fromEntries(Object.entries(fieldErrorsOf(error)).filter(([path]) => fields.includes(path)));
}

/**
 * A notification text for field errors: "Website URL: Must be a URL starting with http:// or
 * https://. Max requests per minute: Enter a whole number." with each path named by `labelOf`
 * (the path itself when it has no label).
 */
export function summarizeFieldErrors(errors: FieldErrors, labelOf: (path: string) => string | undefined): string {
  return Object.entries(errors)
    .map(([path, problem]) => `${labelOf(path) ?? path}: ${problem}.`)
    .join(' ');
}

/**
 * A `@mantine/form` validate function from a shared domain schema (issue 14): the form's values
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

/** The errors of a refused save (400) keyed by the form field `fieldOf` names for each path; {} for other errors. */
export function serverFormErrors(error: unknown, fieldOf: (path: string) => string = (path) => path): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, problem] of Object.entries(fieldErrorsOf(error))) {
    const field = fieldOf(path);
    if (!(field in out)) out[field] = problem;
  }
  return out;
}

/** The longest of `fields` that is `path` or a prefix of it ('security.allowedDomains.2' -> 'security.allowedDomains'), else `path`. */
export function fieldAmong(fields: readonly string[], path: string): string {
  return fields.filter((f) => path === f || path.startsWith(`${f}.`)).sort((a, b) => b.length - a.length)[0] ?? path;
}
