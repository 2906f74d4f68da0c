/**
 * Server operations shared by the dealer screens: the query keys of the dealer area and
 * GET /api/dealers/:dealerId. Each screen's own operations live in its folder's `api.ts`
 * (assets/api.ts, dashboard/api.ts, script/api.ts). Shapes: docs/API.md.
 */
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Dealer } from '../../domain/schemas';
import type { DealerModels } from '../../domain/contracts/dealers';
import { modelNamer } from '../../domain/model-names';
import { apiFetch, ApiError } from '../api/client';

export const dealerKeys = {
  dealer: (id: string) => ['dealer', id] as const,
  stats: (id: string) => ['dealer', id, 'stats'] as const,
  assets: (id: string) => ['dealer', id, 'assets'] as const,
  script: (id: string) => ['dealer', id, 'script'] as const,
  models: (id: string) => ['dealer', id, 'models'] as const,
};

/** `/api/dealers/{id}` with the id URL-encoded. */
export const dealerPath = (id: string) => `/api/dealers/${encodeURIComponent(id)}`;

/** Retry a failed query once, but never a 4xx answer (a 404 or 403 will not change by asking again). */
export const retryUnlessClientError = (failureCount: number, error: Error) =>
  !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failureCount < 1;

/**
 * The options of a read of dealer `id` for useQuery: key `key(id)`, answered by `fetch(id)`,
 * disabled without an id, a 403/404 not retried (retryUnlessClientError). Spread them and add
 * any further option (`staleTime`).
 */
export function dealerQuery<K extends readonly unknown[], T>(id: string | null | undefined, key: (id: string) => K, fetch: (id: string) => Promise<T>) {
  return { queryKey: key(id ?? ''), queryFn: () => fetch(id!), enabled: Boolean(id), retry: retryUnlessClientError };
}

/** True for an ApiError with one of the given HTTP statuses. */
export const isApiStatus = (error: unknown, ...statuses: number[]) => error instanceof ApiError && statuses.includes(error.status);

/** GET /api/dealers/:dealerId. */
export async function fetchDealer(id: string): Promise<Dealer> {
  return (await apiFetch<{ dealer: Dealer }>(dealerPath(id))).dealer;
}

/** The dealer record; disabled without an id. */
export function useDealer(id: string | null | undefined) {
  return useQuery(dealerQuery(id, dealerKeys.dealer, fetchDealer));
}

/** How long the catalogue's display names are used before asking again: they change only when an admin edits the catalogue. */
const MODEL_NAMES_STALE_MS = 5 * 60_000;

/**
 * The dealer's model names: a function showing any model key or spelling ('cr-v') as its
 * manufacturer's catalogue display name ('CR-V'), from GET /api/dealers/:dealerId/models. Until the
 * catalogue has loaded (or when it fails) a model is shown as given.
 */
export function useModelNames(id: string | null | undefined): (model: string) => string {
  const q = useQuery({
    ...dealerQuery(id, dealerKeys.models, async (dealerId) => (await apiFetch<DealerModels>(`${dealerPath(dealerId)}/models`)).models),
    staleTime: MODEL_NAMES_STALE_MS,
  });
  return useMemo(() => modelNamer(q.data ?? []), [q.data]);
}
