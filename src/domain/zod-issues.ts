/**
 * zod issues -> the 400 contract's field problems (`FieldIssue`, field-errors.ts), decided from the
 * issue's structure (its code, origin, bounds and input), never from zod's English wording. The
 * server builds every 400's `fields` here and the web app's form check uses the same words, so a
 * field reads the same whether the browser or the server refused it.
 */
import { z } from 'zod';
import { sentence, type FieldIssue } from './field-errors';

type Issue = z.core.$ZodIssue & { input?: unknown };

const grouped = (n: number | bigint) => n.toLocaleString('en-US');

/** zod's own text for `issue` (its English locale), to tell a schema's own message from zod's default. */
function defaultMessage(issue: Issue): string | undefined {
  const localeError = z.config().localeError;
  const made = localeError?.(issue as unknown as Parameters<NonNullable<typeof localeError>>[0]);
  return typeof made === 'string' ? made : made?.message;
}

/**
 * One issue in the user's words. Bounds and types are worded from the issue itself ('Must be at
 * most 1,000', 'At most 200 characters', 'Enter a whole number' also for an empty number field,
 * 'Required' for another missing value when the issue carries its input); any other issue keeps the schema's own message as a sentence
 * ('Must be a URL starting with http:// or https://'), or a generic 'This value is not valid'
 * where the schema gave none.
 */
export function issueInUserWords(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      // A number field left empty asks for the number; any other missing value is 'Required'.
      if (issue.expected === 'int') return 'Enter a whole number';
      if (issue.expected === 'number') return 'Enter a number';
      if ('input' in issue && issue.input === undefined) return 'Required';
      break;
    case 'too_big': {
      const max = grouped(issue.maximum as number | bigint);
      if (issue.origin === 'string') return `At most ${max} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `At most ${max} entries`;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') return issue.inclusive === false ? `Must be less than ${max}` : `Must be at most ${max}`;
      break;
    }
    case 'too_small': {
      const min = grouped(issue.minimum as number | bigint);
      if (issue.origin === 'string') return issue.minimum === 1 ? 'Required' : `At least ${min} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `At least ${min} ${issue.minimum === 1 ? 'entry' : 'entries'}`;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') return issue.inclusive === false ? `Must be more than ${min}` : `Must be at least ${min}`;
      break;
    }
    case 'invalid_value':
      return 'Choose one of the listed options';
    default:
      break;
  }
  if (issue.message && issue.message !== defaultMessage(issue)) return sentence(issue.message);
  return issue.code === 'unrecognized_keys' ? `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` : 'This value is not valid';
}

/** A zod issue's path as the contract names it: keys and indexes joined by '.' ('' at the root). */
export const issuePath = (issue: z.core.$ZodIssue): string => issue.path.map(String).join('.');

/**
 * The field problems of a failed parse, one per zod issue, in the issues' order: path, zod's issue
 * code and the problem in the user's words (`issueInUserWords`). Parse with `{ reportInput: true }`
 * so a missing value reads 'Required' (the input is used for wording only, never echoed).
 */
export function fieldIssuesOf(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.map((issue) => ({ path: issuePath(issue), code: issue.code, message: issueInUserWords(issue) }));
}
