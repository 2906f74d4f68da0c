/**
 * Server operations of the Configuration manager, Upsell rules and Banner Preview screens
 * (spec 02 §2, §4; docs/API.md), with the query keys they invalidate.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Variant } from '../../../domain/schemas';
import type { PreviewSlot, UpsellRulesView } from '../../../domain/configs';
import type { ConfigsUpdate, ConfigsView, CoverageAnswer, ManufacturerDefaults } from '../../../domain/contracts/configs';
import { apiFetch } from '../../api/client';
import { dealerKeys } from '../api';

// Shapes: the server's route schemas (src/domain/contracts/configs.ts).
export type { ConfigsUpdate, ConfigsView, ManufacturerDefaults };
export type { PreviewSlot, UpsellRulesView };

const base = (id: string) => `/api/dealers/${encodeURIComponent(id)}`;
export const configKeys = {
  configs: (id: string) => ['dealer', id, 'configs'] as const,
  upsells: (id: string) => ['dealer', id, 'upsell-rules'] as const,
  preview: (id: string) => ['dealer', id, 'preview'] as const,
  coverage: (id: string) => ['dealer', id, 'coverage'] as const,
};

export function useConfigs(id: string | null | undefined) {
  return useQuery({
    queryKey: configKeys.configs(id ?? ''),
    queryFn: () => apiFetch<ConfigsView>(`${base(id!)}/configs`),
    enabled: Boolean(id),
  });
}

export function fetchDefaults(id: string) {
  return apiFetch<ManufacturerDefaults>(`${base(id)}/configs/defaults`);
}

export function useUpsellRules(id: string | null | undefined) {
  return useQuery({
    queryKey: configKeys.upsells(id ?? ''),
    queryFn: () => apiFetch<UpsellRulesView>(`${base(id!)}/upsell-rules`),
    enabled: Boolean(id),
  });
}

/** Saves configs all-or-nothing; refreshes everything that reads them (dealer, upsells, preview, script). */
export function useSaveConfigs(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (update: ConfigsUpdate) => apiFetch<ConfigsView>(`${base(id)}/configs`, { method: 'PUT', json: update }),
    onSuccess: (data) => qc.setQueryData(configKeys.configs(id), data),
    onSettled: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: dealerKeys.dealer(id), exact: true }),
        qc.invalidateQueries({ queryKey: configKeys.upsells(id) }),
        qc.invalidateQueries({ queryKey: configKeys.preview(id) }),
        qc.invalidateQueries({ queryKey: configKeys.coverage(id) }),
        qc.invalidateQueries({ queryKey: dealerKeys.script(id) }),
      ]),
  });
}

/** GET /preview of a model, trim and device; `asOf` (a local date-time in the dealer's zone, '' = now) shows another moment. */
export function usePreview(id: string | null | undefined, q: { model: string; trim: string; variant: Variant; asOf?: string }) {
  return useQuery({
    queryKey: [...configKeys.preview(id ?? ''), q.model, q.trim, q.variant, q.asOf ?? ''],
    queryFn: () => {
      const params = new URLSearchParams({ model: q.model, variant: q.variant });
      if (q.trim.trim()) params.set('trim', q.trim.trim());
      if (q.asOf) params.set('asOf', q.asOf);
      return apiFetch<{ slots: PreviewSlot[]; background: string; asOf: string }>(`${base(id!)}/preview?${params.toString()}`);
    },
    enabled: Boolean(id) && q.model.length > 0,
  });
}

/** GET /coverage: every standard model x slot x device as delivery chooses it, now or as of `asOf` (as usePreview's). */
export function useCoverage(id: string | null | undefined, asOf = '') {
  return useQuery({
    queryKey: [...configKeys.coverage(id ?? ''), asOf],
    queryFn: () => apiFetch<CoverageAnswer>(`${base(id!)}/coverage${asOf ? `?asOf=${encodeURIComponent(asOf)}` : ''}`),
    enabled: Boolean(id),
  });
}
