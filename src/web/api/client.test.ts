/** The web app's fetch client: error answers become ApiError with the server's message and field problems. */
import { describe, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { server } from '../test/setup';
import { apiFetch, ApiError } from './client';

const refusal = async (path: string): Promise<ApiError> => {
  try {
    await apiFetch(path, { json: {} });
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('apiFetch', () => {
  it('sends JSON and resolves the answer', async () => {
    server.use(http.post('/api/echo', async ({ request }) => HttpResponse.json({ got: await request.json(), type: request.headers.get('content-type') })));
    expect(await apiFetch('/api/echo', { json: { a: 1 } })).toEqual({ got: { a: 1 }, type: 'application/json' });
  });

  it('resolves undefined for a 204', async () => {
    server.use(http.delete('/api/thing', () => new HttpResponse(null, { status: 204 })));
    expect(await apiFetch('/api/thing', { method: 'DELETE' })).toBeUndefined();
  });

  it("turns a 400 into an ApiError with the server's message and field problems", async () => {
    const fields = [{ path: 'websiteUrl', code: 'custom', message: 'Must be a URL starting with http:// or https://' }];
    server.use(http.post('/api/save', () => HttpResponse.json({ error: { code: 'INVALID', message: 'websiteUrl: must be a URL starting with http:// or https://', fields } }, { status: 400 })));
    const e = await refusal('/api/save');
    expect({ status: e.status, code: e.code, message: e.message, fields: e.fields }).toEqual({ status: 400, code: 'INVALID', message: 'websiteUrl: must be a URL starting with http:// or https://', fields });
  });

  it('keeps only well-formed field problems, and none for other errors', async () => {
    server.use(
      http.post('/api/save', () => HttpResponse.json({ error: { code: 'INVALID', message: 'x', fields: [{ path: 'a', code: 'custom', message: 'A' }, { path: 3 }, 'b'] } }, { status: 400 })),
      http.post('/api/taken', () => HttpResponse.json({ error: { code: 'CONFLICT', message: 'A user with this email already exists' } }, { status: 409 })),
    );
    expect((await refusal('/api/save')).fields).toEqual([{ path: 'a', code: 'custom', message: 'A' }]);
    const conflict = await refusal('/api/taken');
    expect([conflict.status, conflict.message, conflict.fields]).toEqual([409, 'A user with this email already exists', []]);
  });

  it("reads a 413 without a message of ours (a proxy's page) as the spec's storage text", async () => {
    server.use(http.post('/api/upload', () => new HttpResponse('<html>Too large</html>', { status: 413 })));
    const e = await refusal('/api/upload');
    expect([e.status, e.code, e.message]).toEqual([413, 'PAYLOAD_TOO_LARGE', 'Storage quota exceeded or data too large']);
  });
});
