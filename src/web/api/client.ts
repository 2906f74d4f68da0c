/**
 * The one typed fetch client of the web app: same-origin cookies, JSON in and out, and server
 * errors `{ error: { code, message, fields? } }` turned into ApiError with the server's message
 * and, for a refused input (400), its field problems `{ path, code, message }`. A 413
 * without a message of ours (a proxy's page, a body-size refusal) reads as the spec's
 * 'Storage quota exceeded or data too large' (DECISIONS 1).
 */
import { TEXT } from '../../domain/constants';
import { isFieldIssue, type FieldIssue } from '../../domain/field-errors';

/**
 * An API answer outside 2xx: its HTTP status, the server's error code, its user-facing message
 * and the field problems of a refused input (empty when the answer names none).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: readonly FieldIssue[] = [],
  ) {
    super(message);
  }
}

/** Fastify's own text for a body over its limit (answered by older servers). */
const BODY_TOO_LARGE = 'Request body is too large';

/** Calls the API; resolves the parsed JSON (undefined for 204). @throws ApiError on any non-2xx. */
export async function apiFetch<T>(
  path: string,
  init: { method?: string; json?: unknown; body?: BodyInit; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let body = init.body;
  if (init.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, credentials: 'same-origin', signal: init.signal });
  if (res.status === 204) return undefined as T;
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = (data as { error?: { code?: string; message?: string; fields?: unknown } } | null)?.error;
    if (res.status === 413 && (!err?.message || err.message === BODY_TOO_LARGE)) throw new ApiError(413, err?.code ?? 'PAYLOAD_TOO_LARGE', TEXT.storageQuotaExceeded);
    const fields = Array.isArray(err?.fields) ? err.fields.filter(isFieldIssue) : [];
    throw new ApiError(res.status, err?.code ?? 'ERROR', err?.message ?? `Request failed (${res.status})`, fields);
  }
  return data as T;
}

/** A user-presentable message for any thrown value. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : 'Unknown error';
}
