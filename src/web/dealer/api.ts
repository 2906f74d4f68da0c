/**
 * Server operations of the dealer area: one fetch + TanStack Query hook per operation, with the
 * query keys they invalidate. Shapes: docs/API.md.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Asset, Dealer, DealerStats } from '../../domain/schemas';
import { apiFetch } from '../api/client';

export const dealerKeys = {
  dealer: (id: string) => ['dealer', id] as const,
  stats: (id: string) => ['dealer', id, 'stats'] as const,
  assets: (id: string) => ['dealer', id, 'assets'] as const,
  script: (id: string) => ['dealer', id, 'script'] as const,
};

export interface AssetList {
  assets: Asset[];
  usage: { usedBytes: number; quotaBytes: number };
}

export type UploadResult =
  | { filename: string; ok: true; asset: Asset; warnings: string[] }
  | { filename: string; ok: false; error: string; hint?: string };

export interface ScriptInfo {
  scriptUrl: string;
  scriptTag: string;
  shortcodes: string[];
  content: string;
  dealer: { id: string; name: string; manufacturer: string; provider: string; status: string };
  summary: {
    mappings: Array<[string, string]>;
    mappingsTotal: number;
    upsellRules: Array<[string, string]>;
    upsellRulesTotal: number;
    impressions: number;
    clicks: number;
    ctr: number | null;
  };
}

const base = (id: string) => `/api/dealers/${encodeURIComponent(id)}`;

export function useDealer(id: string | null | undefined) {
  return useQuery({
    queryKey: dealerKeys.dealer(id ?? ''),
    queryFn: async () => (await apiFetch<{ dealer: Dealer }>(base(id!))).dealer,
    enabled: Boolean(id),
  });
}

export function useDealerStats(id: string | null | undefined, days = 30) {
  return useQuery({
    queryKey: [...dealerKeys.stats(id ?? ''), days],
    queryFn: () => apiFetch<DealerStats>(`${base(id!)}/stats?days=${days}`),
    enabled: Boolean(id),
  });
}

export function useAssets(id: string | null | undefined) {
  return useQuery({
    queryKey: dealerKeys.assets(id ?? ''),
    queryFn: () => apiFetch<AssetList>(`${base(id!)}/assets`),
    enabled: Boolean(id),
  });
}

export function useDeleteAsset(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (assetId: string) => apiFetch<void>(`${base(id)}/assets/${assetId}`, { method: 'DELETE' }),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(id) }),
  });
}

/**
 * Uploads one file with XMLHttpRequest so progress (0..100) can be reported.
 * Resolves the server's per-file result; rejects with an Error carrying the server's message.
 */
export function uploadAssetFile(dealerId: string, file: File, onProgress: (percent: number) => void): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${base(dealerId)}/assets`);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onerror = () => reject(new Error('Upload failed: network error'));
    xhr.onload = () => {
      let data: { results?: UploadResult[]; error?: { message?: string } } | null = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        data = null;
      }
      if (xhr.status >= 200 && xhr.status < 300 && data?.results?.[0]) resolve(data.results[0]);
      else reject(new Error(`Upload failed: ${data?.error?.message ?? 'Unknown error'}`));
    };
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

export function useScriptInfo(id: string | null | undefined) {
  return useQuery({
    queryKey: dealerKeys.script(id ?? ''),
    queryFn: () => apiFetch<ScriptInfo>(`${base(id!)}/script`),
    enabled: Boolean(id),
    retry: false,
  });
}

/** Dealer stats of the last `days` days with the change vs the `days` before (spec 02 §2 Dashboard, DECISIONS 18). */
export interface StatsWithTrend extends DealerStats {
  previous: DealerStats;
  trend: { impressions: number | null; clicks: number | null; ctr: number | null };
}

export function useDealerTrend(id: string | null | undefined, days = 7) {
  return useQuery({
    queryKey: [...dealerKeys.stats(id ?? ''), 'trend', days],
    queryFn: () => apiFetch<StatsWithTrend>(`${base(id!)}/stats/trend?days=${days}`),
    enabled: Boolean(id),
  });
}

/** Turns an asset on or off for delivery (spec 02 §3 Asset.isActive). */
export function useSetAssetActive(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { assetId: string; isActive: boolean }) =>
      apiFetch<{ asset: Asset }>(`${base(id)}/assets/${v.assetId}`, { method: 'PATCH', json: { isActive: v.isActive } }),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(id) }),
  });
}

/** The 'Free up space' plan (DECISIONS 12): per model, the older assets that would be removed. */
export interface CleanupPlan {
  groups: Array<{ model: string; kept: Asset[]; remove: Asset[] }>;
  freedBytes: number;
}

export function useCleanupPlan(id: string, enabled: boolean) {
  return useQuery({
    queryKey: [...dealerKeys.assets(id), 'cleanup'],
    queryFn: () => apiFetch<CleanupPlan>(`${base(id)}/assets/cleanup`),
    enabled,
  });
}

export function useFreeUpSpace(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (assetIds: string[]) =>
      apiFetch<{ deleted: number; freedBytes: number }>(`${base(id)}/assets/cleanup`, { method: 'POST', json: { assetIds } }),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(id) }),
  });
}
