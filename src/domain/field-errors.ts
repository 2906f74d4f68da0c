/**
 * The field part of the 400 error contract, shared by the server and the web app without zod.
 * A refused input answers `{ error: { code: 'INVALID', message, fields: FieldIssue[] } }`: one
 * entry per problem, naming the field by its dot-separated path ('security.maxRequestsPerMinute',
 * '' for the whole document), a stable machine code (zod's issue code such as 'too_big',
 * 'invalid_type', 'custom', or a service's own code) and the problem in the user's words
 * ("Must be at most 1,000"). Screens map a problem to a form field by `path` and may choose their
 * own words by `code`; nobody reads the English of `message` to find out what went wrong.
 */

/** One problem with one field of a refused input (docs/API.md "Errors"). */
export interface FieldIssue {
  /** The field, as the body names it: keys and array indexes joined by '.'; '' for the whole body. */
  path: string;
  /** Machine-readable kind of problem: zod's issue code ('too_big', 'invalid_type', …) or 'custom'. */
  code: string;
  /** What is wrong, in the user's words, starting with a capital letter. */
  message: string;
}

/** Field path (dot-separated, as the server names it) -> what is wrong, in the user's words. */
export type FieldErrors = Record<string, string>;

/** `text` with its first letter capitalised (a schema's own 'must be …' as a sentence). */
export function sentence(text: string): string {
  const t = text.trim();
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/**
 * The first problem of each field among `issues`, keyed by its path ({} for none). Issues with an
 * empty path (about the whole body) are left out: they have no field to mark.
 */
export function fieldErrorsFrom(issues: readonly FieldIssue[]): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) if (issue.path && !(issue.path in out)) out[issue.path] = issue.message;
  return out;
}

/** True when `value` is a well-formed FieldIssue (an answer from the server is checked before use). */
export function isFieldIssue(value: unknown): value is FieldIssue {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.path === 'string' && typeof v.code === 'string' && typeof v.message === 'string';
}
