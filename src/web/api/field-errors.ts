/**
 * Field-level server errors for the forms (issue 16): a 400 from the server names each wrong field
 * ("path: problem"); `fieldErrorsOf` turns it into errors per field path in the user's words
 * (domain/field-errors.ts), so a form marks the field itself, and `summarizeFieldErrors` names
 * the fields by their labels for a notification.
 */
import { parseFieldErrors, type FieldErrors } from '../../domain/field-errors';
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
