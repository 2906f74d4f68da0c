/**
 * Server operations of the Campaigns screen (docs/API.md "campaigns"), with the query keys they
 * invalidate: a campaign change can change what every slot shows, so Preview, the coverage matrix
 * and the asset list are refreshed too.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Campaign, CampaignAction, CampaignAssets, CampaignCreate, CampaignList, CampaignPatch } from '../../../domain/contracts/campaigns';
import { apiFetch } from '../../api/client';
import { dealerKeys, dealerPath, dealerQuery } from '../api';
import { configKeys } from '../config/api';

export type { Campaign, CampaignAction, CampaignCreate, CampaignPatch };

export const campaignKeys = { list: (id: string) => ['dealer', id, 'campaigns'] as const };

/** GET /campaigns: the dealer's campaigns with their state now, and the time zone windows are entered in. */
export function useCampaigns(dealerId: string | null | undefined) {
  return useQuery(dealerQuery(dealerId, campaignKeys.list, (id) => apiFetch<CampaignList>(`${dealerPath(id)}/campaigns`)));
}

/** Refreshes everything a campaign change may change. */
function useRefresh(dealerId: string) {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: campaignKeys.list(dealerId) }),
      qc.invalidateQueries({ queryKey: configKeys.preview(dealerId) }),
      qc.invalidateQueries({ queryKey: configKeys.coverage(dealerId) }),
      qc.invalidateQueries({ queryKey: dealerKeys.assets(dealerId) }),
    ]);
}

/** POST /campaigns (a draft) or PATCH /campaigns/:id (an edit), by whether `id` is given. */
export function useSaveCampaign(dealerId: string) {
  const refresh = useRefresh(dealerId);
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: CampaignCreate | CampaignPatch }) =>
      apiFetch<{ campaign: Campaign }>(id ? `${dealerPath(dealerId)}/campaigns/${id}` : `${dealerPath(dealerId)}/campaigns`, { method: id ? 'PATCH' : 'POST', json: body }),
    onSettled: refresh,
  });
}

/** POST /campaigns/:id/status: publish, pause, resume or end now. */
export function useCampaignAction(dealerId: string) {
  const refresh = useRefresh(dealerId);
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: CampaignAction }) => apiFetch<{ campaign: Campaign }>(`${dealerPath(dealerId)}/campaigns/${id}/status`, { method: 'POST', json: { action } }),
    onSettled: refresh,
  });
}

/**
 * POST /campaigns/:id/assets: attaches existing assets of the dealer to the campaign as its
 * creatives and detaches others (one transaction on the server; a refusal changes nothing).
 */
export function useCampaignAssets(dealerId: string) {
  const refresh = useRefresh(dealerId);
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: CampaignAssets }) => apiFetch<{ campaign: Campaign }>(`${dealerPath(dealerId)}/campaigns/${id}/assets`, { method: 'POST', json: body }),
    onSettled: refresh,
  });
}

/** DELETE /campaigns/:id (its creatives with it). */
export function useDeleteCampaign(dealerId: string) {
  const refresh = useRefresh(dealerId);
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`${dealerPath(dealerId)}/campaigns/${id}`, { method: 'DELETE' }),
    onSettled: refresh,
  });
}

/** Refreshes the campaign list and what it shows after creatives were uploaded into a campaign. */
export const useRefreshCampaigns = useRefresh;
