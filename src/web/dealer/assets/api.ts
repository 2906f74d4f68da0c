/**
 * Server operations of the Asset Manager and its upload panel (spec 02 §2, §5; DECISIONS 10-13):
 * list, upload (XMLHttpRequest, for per-file progress), delete, active toggle and 'Free up space';
 * promotion windows, bulk deactivate/delete and replacing a file in place. Shapes: docs/API.md.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Asset } from '../../../domain/schemas';
import type {
  AssetList,
  AssetPatch,
  BulkAction,
  BulkResult,
  CleanupAsset,
  CleanupGroup,
  CleanupPlan,
  FreeUpSpaceResult,
  StorageUsage,
  UploadResult,
} from '../../../domain/contracts/assets';
import { apiFetch } from '../../api/client';
import { dealerKeys, dealerPath, retryUnlessClientError } from '../api';

// Answer shapes: the server's route schemas (src/domain/contracts/assets.ts).
export type { AssetList, AssetPatch, BulkAction, BulkResult, CleanupAsset, CleanupGroup, CleanupPlan, FreeUpSpaceResult, StorageUsage, UploadResult };

/** The upload endpoint's answer, success or error. */
interface UploadAnswer {
  results?: UploadResult[];
  error?: { message?: string };
}

const assetsPath = (dealerId: string) => `${dealerPath(dealerId)}/assets`;

/** GET /api/dealers/:dealerId/assets. */
export function fetchAssets(dealerId: string): Promise<AssetList> {
  return apiFetch<AssetList>(assetsPath(dealerId));
}

/** The dealer's assets and storage use; disabled without an id. */
export function useAssets(dealerId: string | null | undefined) {
  return useQuery({
    queryKey: dealerKeys.assets(dealerId ?? ''),
    queryFn: () => fetchAssets(dealerId!),
    enabled: Boolean(dealerId),
  });
}

/** DELETE /api/dealers/:dealerId/assets/:assetId. */
export function deleteAsset(dealerId: string, assetId: string): Promise<void> {
  return apiFetch<void>(`${assetsPath(dealerId)}/${encodeURIComponent(assetId)}`, { method: 'DELETE' });
}

/** Deletes one asset and refreshes the list. */
export function useDeleteAsset(dealerId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (assetId: string) => deleteAsset(dealerId, assetId),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(dealerId) }),
  });
}

/**
 * PATCH /api/dealers/:dealerId/assets/:assetId with any of isActive and the promotion window
 * (`startsAt`/`endsAt` as local `YYYY-MM-DDTHH:mm` in the dealer's time zone, or null to clear).
 * Rejects with the server's 400 naming the field ('endsAt: must be after startsAt').
 */
export async function updateAsset(dealerId: string, assetId: string, patch: AssetPatch): Promise<Asset> {
  return (await apiFetch<{ asset: Asset }>(`${assetsPath(dealerId)}/${encodeURIComponent(assetId)}`, { method: 'PATCH', json: patch })).asset;
}

/** Turns an asset on or off for delivery (spec 02 §3 Asset.isActive), or sets or clears its promotion window; refreshes the list. */
export function useUpdateAsset(dealerId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { assetId: string; patch: AssetPatch }) => updateAsset(dealerId, v.assetId, v.patch),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(dealerId) }),
  });
}

/**
 * PUT /api/dealers/:dealerId/assets/:assetId/file: replaces the asset's file in place with `file`
 * (same pixel size; its id, statistics and settings stay). Rejects with the server's
 * message ('The replacement must be 1920x300 like the banner it replaces; ...').
 */
export async function replaceAssetFile(dealerId: string, assetId: string, file: File): Promise<Asset> {
  const body = new FormData();
  body.append('file', file, file.name);
  return (await apiFetch<{ asset: Asset }>(`${assetsPath(dealerId)}/${encodeURIComponent(assetId)}/file`, { method: 'PUT', body })).asset;
}

/** Replaces an asset's file and refreshes the list. */
export function useReplaceAssetFile(dealerId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { assetId: string; file: File }) => replaceAssetFile(dealerId, v.assetId, v.file),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(dealerId) }),
  });
}

/** POST /api/dealers/:dealerId/assets/bulk: one action for the selected assets. */
export function bulkAssets(dealerId: string, action: BulkAction, assetIds: string[]): Promise<BulkResult> {
  return apiFetch(`${assetsPath(dealerId)}/bulk`, { method: 'POST', json: { action, assetIds } });
}

/** Deactivates, activates or deletes the selected assets and refreshes the list. */
export function useBulkAssets(dealerId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { action: BulkAction; assetIds: string[] }) => bulkAssets(dealerId, v.action, v.assetIds),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(dealerId) }),
  });
}

/** GET /api/dealers/:dealerId/assets/cleanup: what 'Free up space' would delete (nothing is deleted). */
export function fetchCleanupPlan(dealerId: string): Promise<CleanupPlan> {
  return apiFetch<CleanupPlan>(`${assetsPath(dealerId)}/cleanup`);
}

/**
 * The 'Free up space' plan for the open dialog: not kept once the dialog closes (gcTime 0), so each
 * opening loads it afresh, and not refetched on window focus, so the list does not change under the
 * dealer's hand (the server checks the confirmed ids against the current plan anyway); a 4xx is not retried.
 */
export function useCleanupPlan(dealerId: string) {
  return useQuery({
    queryKey: [...dealerKeys.assets(dealerId), 'cleanup'],
    queryFn: () => fetchCleanupPlan(dealerId),
    gcTime: 0,
    refetchOnWindowFocus: false,
    retry: retryUnlessClientError,
  });
}

/** POST /api/dealers/:dealerId/assets/cleanup with the confirmed ids; only ids still in the plan's remove lists are deleted. */
export function freeUpSpace(dealerId: string, assetIds: string[]): Promise<FreeUpSpaceResult> {
  return apiFetch(`${assetsPath(dealerId)}/cleanup`, { method: 'POST', json: { assetIds } });
}

/** Deletes the confirmed assets and refreshes the list (and the plan). */
export function useFreeUpSpace(dealerId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (assetIds: string[]) => freeUpSpace(dealerId, assetIds),
    onSettled: () => qc.invalidateQueries({ queryKey: dealerKeys.assets(dealerId) }),
  });
}

/**
 * POST /api/dealers/:dealerId/assets with one file (multipart field `file`), through
 * XMLHttpRequest so the bytes sent can be reported: `onProgress` gets 0..100 as the upload
 * proceeds. `schedule` sends the promotion window as the `startsAt`/`endsAt` fields
 * (local date-times in the dealer's time zone); `campaignId` uploads it into that campaign. Resolves the server's result for the file (valid
 * or not); rejects with 'Upload failed: {message}' when the request itself fails (network,
 * 400 for a bad window, 401/403/413, ...).
 */
export function uploadAssetFile(
  dealerId: string,
  file: File,
  onProgress: (percent: number) => void,
  signal?: AbortSignal,
  schedule?: { startsAt: string; endsAt: string },
  campaignId?: string,
): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', assetsPath(dealerId));
    // Same-origin request: the session cookie goes with it (withCredentials only matters cross-origin).
    xhr.withCredentials = false;
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onerror = () => reject(new Error('Upload failed: network error'));
    xhr.onabort = () => reject(new Error('Upload failed: canceled'));
    xhr.onload = () => {
      let data: UploadAnswer | null;
      try {
        data = JSON.parse(xhr.responseText) as UploadAnswer;
      } catch {
        data = null;
      }
      const result = data?.results?.[0];
      if (xhr.status >= 200 && xhr.status < 300 && result) resolve(result);
      else reject(new Error(`Upload failed: ${data?.error?.message ?? 'Unknown error'}`));
    };
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    if (schedule?.startsAt) form.append('startsAt', schedule.startsAt);
    if (schedule?.endsAt) form.append('endsAt', schedule.endsAt);
    // Into a campaign: the creative follows the campaign's window and status (a draft until it is published).
    if (campaignId) form.append('campaignId', campaignId);
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
