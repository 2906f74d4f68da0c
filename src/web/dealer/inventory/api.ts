/**
 * Server operations of the Inventory screen (spec 02 §2 Inventory; docs/API.md "inventory"): the
 * stored inventory, file preview and apply, and the automatic feed, with the query keys they touch.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FeedTestResult, FeedView, InventoryPreview, StoredInventory } from '../../../domain/inventory';
import type { FeedSave, FeedState } from '../../../domain/contracts/inventory';
import { apiFetch } from '../../api/client';
import { dealerKeys, dealerPath } from '../api';
import { configKeys } from '../config/api';

export const inventoryKeys = {
  inventory: (id: string) => ['dealer', id, 'inventory'] as const,
  feed: (id: string) => ['dealer', id, 'inventory-feed'] as const,
};

const withFile = (file: File) => {
  const body = new FormData();
  body.append('file', file, file.name);
  return body;
};

/** Everything that reads the inventory or its rules: refreshed after an apply or a feed run. */
function invalidateInventory(qc: ReturnType<typeof useQueryClient>, id: string) {
  return Promise.all([
    qc.invalidateQueries({ queryKey: inventoryKeys.inventory(id) }),
    qc.invalidateQueries({ queryKey: configKeys.upsells(id) }),
    qc.invalidateQueries({ queryKey: configKeys.preview(id) }),
    qc.invalidateQueries({ queryKey: dealerKeys.dealer(id), exact: true }),
  ]);
}

export function useInventory(id: string | null) {
  return useQuery({
    queryKey: inventoryKeys.inventory(id ?? ''),
    queryFn: async () => (await apiFetch<{ inventory: StoredInventory | null }>(`${dealerPath(id!)}/inventory`)).inventory,
    enabled: Boolean(id),
  });
}

/** Parses a file on the server for the preview; nothing is stored. */
export function previewInventoryFile(id: string, file: File, signal?: AbortSignal) {
  return apiFetch<InventoryPreview>(`${dealerPath(id)}/inventory/preview`, { body: withFile(file), signal });
}

/** 'Apply Inventory Data': uploads the previewed file again and stores it. */
export function useApplyInventory(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => apiFetch<{ inventory: StoredInventory }>(`${dealerPath(id)}/inventory`, { body: withFile(file) }),
    onSuccess: ({ inventory }) => qc.setQueryData(inventoryKeys.inventory(id), inventory),
    onSettled: () => invalidateInventory(qc, id),
  });
}

// GET /inventory/feed answer: the server's route schema (src/domain/contracts/inventory.ts, issue 14).
export type { FeedState };

/** The feed and its runs; polls every 5 s while a run is in progress or due, so the card follows the scheduler. */
export function useFeed(id: string | null) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: inventoryKeys.feed(id ?? ''),
    queryFn: async () => {
      const state = await apiFetch<FeedState>(`${dealerPath(id!)}/inventory/feed`);
      const previous = qc.getQueryData<FeedState>(inventoryKeys.feed(id!));
      if (previous && previous.runs[0]?.id !== state.runs[0]?.id) void invalidateInventory(qc, id!);
      return state;
    },
    enabled: Boolean(id),
    refetchInterval: (q) => {
      const s = q.state.data;
      const busy = s?.runs[0]?.status === 'running' || (s?.feed?.isActive && s.feed.nextRunAt && Date.parse(s.feed.nextRunAt) <= Date.now());
      return busy ? 5000 : false;
    },
  });
}

/** PUT /inventory/feed body (the server's route schema). */
export type FeedForm = FeedSave;

export function useTestFeed(id: string) {
  return useMutation({
    mutationFn: (f: Pick<FeedForm, 'feedUrl' | 'fieldMapping'>) => apiFetch<FeedTestResult>(`${dealerPath(id)}/inventory/feed/test`, { method: 'POST', json: f }),
  });
}

export function useSaveFeed(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (f: FeedForm) => apiFetch<{ feed: FeedView }>(`${dealerPath(id)}/inventory/feed`, { method: 'PUT', json: f }),
    onSettled: () => qc.invalidateQueries({ queryKey: inventoryKeys.feed(id) }),
  });
}

export function useSetFeedActive(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (isActive: boolean) => apiFetch<{ feed: FeedView }>(`${dealerPath(id)}/inventory/feed`, { method: 'PATCH', json: { isActive } }),
    onSettled: () => qc.invalidateQueries({ queryKey: inventoryKeys.feed(id) }),
  });
}
