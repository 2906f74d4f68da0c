/** zod issues -> the 400 contract's field problems, worded from the issue's structure. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldErrorsFrom, sentence } from './field-errors';
import { fieldIssuesOf } from './zod-issues';

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) throw new Error('expected a refusal');
  return fieldIssuesOf(result.error.issues);
};

describe('fieldIssuesOf', () => {
  it.each<[string, z.ZodType, unknown, { code: string; message: string }]>([
    ['a fraction where a whole number belongs', z.number().int(), 1.5, { code: 'invalid_type', message: 'Enter a whole number' }],
    ['text where a number belongs', z.number(), 'x', { code: 'invalid_type', message: 'Enter a number' }],
    ['an empty number field', z.number(), undefined, { code: 'invalid_type', message: 'Enter a number' }],
    ['a missing text', z.string(), undefined, { code: 'invalid_type', message: 'Required' }],
    ['a number over its maximum', z.number().max(1000), 2000, { code: 'too_big', message: 'Must be at most 1,000' }],
    ['a number under its minimum, with the schema\'s own text', z.number().min(10, 'x must be 10-1000'), 1, { code: 'too_small', message: 'Must be at least 10' }],
    ['an exclusive bound', z.number().lt(5), 5, { code: 'too_big', message: 'Must be less than 5' }],
    ['a long text', z.string().max(20000), 'x'.repeat(20001), { code: 'too_big', message: 'At most 20,000 characters' }],
    ['an empty required text', z.string().min(1), '', { code: 'too_small', message: 'Required' }],
    ['a short text', z.string().min(8), 'abc', { code: 'too_small', message: 'At least 8 characters' }],
    ['too many entries', z.array(z.string()).max(2), ['a', 'b', 'c'], { code: 'too_big', message: 'At most 2 entries' }],
    ['an unknown option', z.enum(['active', 'inactive']), 'on', { code: 'invalid_value', message: 'Choose one of the listed options' }],
    ['a refinement with its own text', z.string().refine(() => false, 'must be a URL starting with http:// or https://'), 'ftp:', { code: 'custom', message: 'Must be a URL starting with http:// or https://' }],
    ['a format without its own text', z.string().url(), 'nope', { code: 'invalid_format', message: 'This value is not valid' }],
    ['a format with its own text', z.string().regex(/^#[0-9a-f]{6}$/i, 'must be a colour such as #1a2b3c'), 'red', { code: 'invalid_format', message: 'Must be a colour such as #1a2b3c' }],
  ])('%s', (_what, schema, value, expected) => {
    expect(issuesOf(z.object({ field: schema }), { field: value })).toEqual([{ path: 'field', ...expected }]);
  });

  it('joins nested keys and indexes with dots, and names unknown keys at the root', () => {
    const schema = z.object({ security: z.object({ allowedDomains: z.array(z.string().min(1)) }) }).strict();
    expect(issuesOf(schema, { security: { allowedDomains: ['a', ''] }, extra: 1 })).toEqual([
      { path: 'security.allowedDomains.1', code: 'too_small', message: 'Required' },
      { path: '', code: 'unrecognized_keys', message: 'Unknown field: extra' },
    ]);
  });
});

describe('fieldErrorsFrom', () => {
  it('keeps the first problem of each field and leaves out problems about the whole body', () => {
    expect(
      fieldErrorsFrom([
        { path: 'websiteUrl', code: 'custom', message: 'Must be a URL' },
        { path: 'websiteUrl', code: 'too_big', message: 'At most 2,048 characters' },
        { path: '', code: 'unrecognized_keys', message: 'Unknown field: x' },
        { path: 'name', code: 'too_small', message: 'Required' },
      ]),
    ).toEqual({ websiteUrl: 'Must be a URL', name: 'Required' });
  });
  it('sentence capitalises a schema\'s own text', () => {
    expect(sentence(' must be at least 1 MB')).toBe('Must be at least 1 MB');
  });
});
