/**
 * Server operations shared by the dealer screens: the query keys of the dealer area and
 * GET /api/dealers/:dealerId. Each screen's own operations live in its folder's `api.ts`
 * (assets/api.ts, dashboard/api.ts, script/api.ts). Shapes: docs/API.md.
 */
import { useQuery } from '@tanstack/react-query';
import type { Dealer } from '../../domain/schemas';
import { apiFetch, ApiError } from '../api/client';

export const dealerKeys = {
  dealer: (id: string) => ['dealer', id] as const,
  stats: (id: string) => ['dealer', id, 'stats'] as const,
  assets: (id: string) => ['dealer', id, 'assets'] as const,
  script: (id: string) => ['dealer', id, 'script'] as const,
};

/** `/api/dealers/{id}` with the id URL-encoded. */
export const dealerPath = (id: string) => `/api/dealers/${encodeURIComponent(id)}`;

/** Retry a failed query once, but never a 4xx answer (a 404 or 403 will not change by asking again). */
export const retryUnlessClientError = (failureCount: number, error: Error) =>
  !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failureCount < 1;

/** True for an ApiError with one of the given HTTP statuses. */
export const isApiStatus = (error: unknown, ...statuses: number[]) => error instanceof ApiError && statuses.includes(error.status);

/** GET /api/dealers/:dealerId. */
export async function fetchDealer(id: string): Promise<Dealer> {
  return (await apiFetch<{ dealer: Dealer }>(dealerPath(id))).dealer;
}

/** The dealer record; disabled without an id. */
export function useDealer(id: string | null | undefined) {
  return useQuery({
    queryKey: dealerKeys.dealer(id ?? ''),
    queryFn: () => fetchDealer(id!),
    enabled: Boolean(id),
    retry: retryUnlessClientError,
  });
}
