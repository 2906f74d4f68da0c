/** Server field problems on form fields: by path, reworded only by code. */
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from './client';
import { deferredValidator, fieldAmong, fieldErrorsOf, serverFormErrors, summarizeFieldErrors } from './field-errors';

const refused = (fields: Array<{ path: string; code: string; message: string }>) => new ApiError(400, 'INVALID', 'joined text the client never reads', fields);

describe('fieldErrorsOf', () => {
  it("keys a 400's field problems by path, first problem per field, whatever its message says", () => {
    const e = refused([
      { path: 'security.maxRequestsPerMinute', code: 'too_big', message: 'Must be at most 1,000' },
      { path: 'websiteUrl', code: 'custom', message: 'Must be a URL starting with http:// or https://' },
      { path: 'websiteUrl', code: 'too_big', message: 'At most 2,048 characters' },
      { path: '', code: 'unrecognized_keys', message: 'Unknown field: extra' },
    ]);
    expect(fieldErrorsOf(e)).toEqual({ 'security.maxRequestsPerMinute': 'Must be at most 1,000', websiteUrl: 'Must be a URL starting with http:// or https://' });
  });

  it('names no field for other statuses, for a 400 without fields, and for errors that are not API answers', () => {
    expect(fieldErrorsOf(new ApiError(409, 'CONFLICT', 'name: taken', [{ path: 'name', code: 'custom', message: 'Taken' }]))).toEqual({});
    expect(fieldErrorsOf(new ApiError(400, 'INVALID', 'websiteUrl: must be a URL'))).toEqual({});
    expect(fieldErrorsOf(new Error('websiteUrl: must be a URL'))).toEqual({});
  });

  it('lets a form reword a problem by its code', () => {
    const e = refused([
      { path: 'name', code: 'too_small', message: 'Required' },
      { path: 'logoUrl', code: 'custom', message: 'Must be a URL' },
    ]);
    const words = vi.fn((issue: { path: string; code: string }) => (issue.code === 'too_small' ? 'Name is required' : undefined));
    expect(fieldErrorsOf(e, words)).toEqual({ name: 'Name is required', logoUrl: 'Must be a URL' });
    expect(words).toHaveBeenCalledTimes(2);
  });
});

describe('serverFormErrors', () => {
  it('puts each path on the form field fieldOf names, the first problem winning', () => {
    const e = refused([
      { path: 'defaultModelMappings.civic', code: 'too_small', message: 'Required' },
      { path: 'defaultModelMappings.accord', code: 'too_big', message: 'At most 100 characters' },
      { path: 'models.0.name', code: 'too_small', message: 'Required' },
    ]);
    const fieldOf = (path: string) => (path.startsWith('defaultModelMappings') ? 'mappings' : path);
    expect(serverFormErrors(e, fieldOf)).toEqual({ mappings: 'Required', 'models.0.name': 'Required' });
  });
});

describe('fieldAmong', () => {
  it.each([
    ['security.allowedDomains.2', 'security.allowedDomains'],
    ['security.maxRequestsPerMinute', 'security.maxRequestsPerMinute'],
    ['branding.primaryColor', 'branding.primaryColor'],
    ['securityX', 'securityX'],
    ['unknown.path', 'unknown.path'],
  ])('%s -> %s', (path, field) => {
    expect(fieldAmong(['security', 'security.allowedDomains', 'security.maxRequestsPerMinute', 'branding.primaryColor'], path)).toBe(field);
  });
});

describe('summarizeFieldErrors', () => {
  it('names each field by its label, or by its path when it has none', () => {
    const labels: Record<string, string> = { websiteUrl: 'Website URL' };
    expect(summarizeFieldErrors({ websiteUrl: 'Must be a URL', 'security.x': 'Required' }, (p) => labels[p])).toBe('Website URL: Must be a URL. security.x: Required.');
  });
});

describe('deferredValidator', () => {
  const event = () => ({ preventDefault: vi.fn() }) as unknown as Parameters<ReturnType<ReturnType<typeof deferredValidator>['submitChecked']>>[0];

  it('holds a save asked for before the check arrived until it has, then validates with it', async () => {
    let arrive!: (check: (v: { rpm: number }) => Record<string, string>) => void;
    const v = deferredValidator<{ rpm: number }>(() => new Promise((resolve) => (arrive = resolve)));
    const seen: Array<Record<string, string>> = [];
    const submit = vi.fn(() => seen.push(v.validate({ rpm: 5000 }) as Record<string, string>));
    const e = event();
    v.submitChecked(submit)(e);
    expect(e.preventDefault).toHaveBeenCalled(); // the browser does not submit the form meanwhile
    expect(submit).not.toHaveBeenCalled();
    arrive((values): Record<string, string> => (values.rpm > 1000 ? { rpm: 'Must be 10-1,000' } : {}));
    await vi.waitFor(() => expect(submit).toHaveBeenCalledTimes(1));
    expect(seen).toEqual([{ rpm: 'Must be 10-1,000' }]);
    // Once in, a save goes through at once with its event.
    const again = event();
    v.submitChecked(submit)(again);
    expect(submit).toHaveBeenLastCalledWith(again);
  });

  it('lets the save go on, for the server to check, when the check cannot load', async () => {
    const v = deferredValidator<{ rpm: number }>(() => Promise.reject(new Error('chunk failed')));
    const submit = vi.fn();
    v.submitChecked(submit)(event());
    await vi.waitFor(() => expect(submit).toHaveBeenCalledTimes(1));
    expect(v.validate({ rpm: 5000 })).toEqual({});
  });
});
