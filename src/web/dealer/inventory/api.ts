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

/**
 * Everything that reads the inventory or its rules: refreshed after an apply or a feed run. The
 * upsell rules are fetched again at once even while no screen shows them: Upsell Rules decides
 * from them whether Inventory Optimized has data, and must not decide from the copy made before
 * the apply while its own refetch is on the way.
 */
function invalidateInventory(qc: ReturnType<typeof useQueryClient>, id: string) {
  return Promise.all([
    qc.invalidateQueries({ queryKey: inventoryKeys.inventory(id) }),
    qc.invalidateQueries({ queryKey: configKeys.upsells(id), refetchType: 'all' }),
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

/**
 * 'Apply Inventory Data': uploads the previewed file again and stores it; with `pauseFeed` the
 * dealer's active feed is paused in the same step, so its next run does not replace the upload.
 */
export function useApplyInventory(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ file, pauseFeed = false }: { file: File; pauseFeed?: boolean }) =>
      apiFetch<{ inventory: StoredInventory; feedPaused: boolean }>(`${dealerPath(id)}/inventory${pauseFeed ? '?pauseFeed=true' : ''}`, { body: withFile(file) }),
    onSuccess: ({ inventory }) => qc.setQueryData(inventoryKeys.inventory(id), inventory),
    onSettled: () => Promise.all([invalidateInventory(qc, id), qc.invalidateQueries({ queryKey: inventoryKeys.feed(id) })]),
  });
}

// GET /inventory/feed answer: the server's route schema (src/domain/contracts/inventory.ts).
export type { FeedState };

/** How often the feed card asks while a run is due, running or awaited after Save. */
export const FEED_POLL_MS = 2000;
/** Longest wait before asking again while the next run is far off (the server's clock may differ a little from ours). */
const FEED_IDLE_POLL_MS = 15 * 60_000;
/** How long after Save the card waits for the feed's first run before it stops asking every FEED_POLL_MS. */
export const FEED_FIRST_RUN_WAIT_MS = 3 * 60_000;

/**
 * A run the feed card waits for: one started at or after `after` (the server's time of
 * Save, its answer's `nextRunAt`), until the browser's clock reaches `until`.
 */
export interface AwaitedRun {
  after: number;
  until: number;
}

/** Whether `state` still lacks a finished run started at or after `awaited.after` (5 s of clock slack between database and server). */
function awaiting(state: FeedState | undefined, awaited: AwaitedRun | null | undefined): boolean {
  if (!awaited || Date.now() > awaited.until) return false;
  return !state?.runs.some((r) => r.status !== 'running' && Date.parse(r.startedAt) >= awaited.after - 5000);
}

/**
 * The feed and its runs, following the scheduler without a reload: asked every
 * FEED_POLL_MS while a run is running, due or `awaitedRun` (just saved) has not finished, and
 * otherwise again when the next run is due. A new run refreshes everything that reads the inventory.
 */
export function useFeed(id: string | null, awaitedRun?: AwaitedRun | null) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: inventoryKeys.feed(id ?? ''),
    queryFn: async () => {
      const state = await apiFetch<FeedState>(`${dealerPath(id!)}/inventory/feed`);
      const previous = qc.getQueryData<FeedState>(inventoryKeys.feed(id!));
      const changed = previous && (previous.runs[0]?.id !== state.runs[0]?.id || previous.runs[0]?.status !== state.runs[0]?.status);
      if (changed) void invalidateInventory(qc, id!);
      return state;
    },
    enabled: Boolean(id),
    refetchInterval: (q) => {
      const s = q.state.data;
      if (!s) return false;
      if (s.runs[0]?.status === 'running' || awaiting(s, awaitedRun)) return FEED_POLL_MS;
      if (!s.feed?.isActive || !s.feed.nextRunAt) return false;
      return Math.min(FEED_IDLE_POLL_MS, Math.max(FEED_POLL_MS, Date.parse(s.feed.nextRunAt) - Date.now()));
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

/** The saved or paused/resumed feed shown at once, its runs kept until the refetch brings the new ones. */
function showFeed(qc: ReturnType<typeof useQueryClient>, id: string, feed: FeedView) {
  qc.setQueryData<FeedState>(inventoryKeys.feed(id), (old) => ({ feed, runs: old?.runs ?? [] }));
}

/** Save Feed (PUT): the card shows the saved feed at once, then follows its first run (see useFeed). */
export function useSaveFeed(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (f: FeedForm) => apiFetch<{ feed: FeedView }>(`${dealerPath(id)}/inventory/feed`, { method: 'PUT', json: f }),
    onSuccess: ({ feed }) => showFeed(qc, id, feed),
    onSettled: () => qc.invalidateQueries({ queryKey: inventoryKeys.feed(id) }),
  });
}

/** Pause Feed / Resume Feed (PATCH). */
export function useSetFeedActive(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (isActive: boolean) => apiFetch<{ feed: FeedView }>(`${dealerPath(id)}/inventory/feed`, { method: 'PATCH', json: { isActive } }),
    onSuccess: ({ feed }) => showFeed(qc, id, feed),
    onSettled: () => qc.invalidateQueries({ queryKey: inventoryKeys.feed(id) }),
  });
}
