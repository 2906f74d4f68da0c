/** A form's own check against the shared schema: the server's words, on the form's fields. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaValidator } from './schema-validator';

const schema = z.object({
  name: z.string().min(1),
  security: z.object({ maxRequestsPerMinute: z.number().int().min(10).max(1000), allowedDomains: z.array(z.string().min(1)) }),
});
type Values = { name: string; rpm: number | string; domains: string[] };
const toBody = (v: Values) => ({ name: v.name, security: { maxRequestsPerMinute: v.rpm === '' ? undefined : Number(v.rpm), allowedDomains: v.domains } });

describe('schemaValidator', () => {
  it('answers {} for valid values', () => {
    expect(schemaValidator<Values>(schema, toBody)({ name: 'Honda', rpm: 100, domains: ['a.example'] })).toEqual({});
  });

  it('words each problem as the server does, on its path', () => {
    const validate = schemaValidator<Values>(schema, toBody);
    expect(validate({ name: '', rpm: 1.5, domains: [] })).toEqual({ name: 'Required', 'security.maxRequestsPerMinute': 'Enter a whole number' });
    expect(validate({ name: 'x', rpm: 5000, domains: [] })).toEqual({ 'security.maxRequestsPerMinute': 'Must be at most 1,000' });
    expect(validate({ name: 'x', rpm: '', domains: [] })).toEqual({ 'security.maxRequestsPerMinute': 'Enter a number' });
  });

  it('maps paths to form fields with fieldOf and lets words replace a problem by field and code', () => {
    const validate = schemaValidator<Values>(schema, toBody, {
      fieldOf: (path) => (path.startsWith('security.allowedDomains') ? 'domains' : path === 'security.maxRequestsPerMinute' ? 'rpm' : path),
      words: (field, issue) => (field === 'rpm' && (issue.code === 'too_big' || issue.code === 'too_small') ? 'Must be 10-1,000' : undefined),
    });
    expect(validate({ name: 'x', rpm: 1, domains: ['ok', ''] })).toEqual({ rpm: 'Must be 10-1,000', domains: 'Required' });
  });
});
