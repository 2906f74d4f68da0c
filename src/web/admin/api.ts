/**
 * Server operations of the admin screens (docs/API.md "admin") with their query keys. Every
 * mutation refreshes the lists it changes.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AdminDashboard, AdminUser, ClientErrorEntry, DealerListPage, ImportResult, InvitationSent, ManufacturerListItem, PlatformAnalytics } from '../../domain/admin';
import type { AnalyticsPeriod, Dealer, Manufacturer } from '../../domain/schemas';
import type { DealerListParams, DealerSettings, ManufacturerInput, NewDealer, NewUser, UserPatch } from '../../domain/contracts/admin';
import { apiFetch } from '../api/client';
import { dealerKeys, dealerPath, retryUnlessClientError } from '../dealer/api';

export const adminKeys = {
  all: ['admin'] as const,
  dashboard: ['admin', 'dashboard'] as const,
  dealers: ['admin', 'dealers'] as const,
  dealerPage: (p: DealerListParams) => ['admin', 'dealers', p] as const,
  manufacturers: ['admin', 'manufacturers'] as const,
  users: ['admin', 'users'] as const,
  analytics: (p: AnalyticsPeriod) => ['admin', 'analytics', p] as const,
  clientErrors: ['admin', 'client-errors'] as const,
};

export function useAdminDashboard() {
  return useQuery({ queryKey: adminKeys.dashboard, queryFn: () => apiFetch<AdminDashboard>('/api/admin/dashboard') });
}

export function usePlatformAnalytics(period: AnalyticsPeriod) {
  return useQuery({ queryKey: adminKeys.analytics(period), queryFn: () => apiFetch<PlatformAnalytics>(`/api/admin/analytics?period=${period}`) });
}

/** GET /api/admin/dealers with the parameters given (the server's defaults for the others). */
export function dealerListUrl(params: DealerListParams): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(key, String(value));
  const text = query.toString();
  return text ? `/api/admin/dealers?${text}` : '/api/admin/dealers';
}

/**
 * One page of the dealer list (server-side search, filter, sort and paging). While the next page
 * loads the previous one stays on screen (`isPlaceholderData`), so pages do not flash.
 */
export function useAdminDealers(params: DealerListParams, opts: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: adminKeys.dealerPage(params),
    queryFn: () => apiFetch<DealerListPage>(dealerListUrl(params)),
    placeholderData: keepPreviousData,
    enabled: opts.enabled ?? true,
  });
}

export function useManufacturers() {
  return useQuery({
    queryKey: adminKeys.manufacturers,
    queryFn: async () => (await apiFetch<{ manufacturers: ManufacturerListItem[] }>('/api/admin/manufacturers')).manufacturers,
  });
}

export function useUsers() {
  return useQuery({ queryKey: adminKeys.users, queryFn: async () => (await apiFetch<{ users: AdminUser[] }>('/api/admin/users')).users });
}

/** The client error log, newest first. */
export function useClientErrors() {
  return useQuery({ queryKey: adminKeys.clientErrors, queryFn: async () => (await apiFetch<{ errors: ClientErrorEntry[] }>('/api/admin/client-errors')).errors });
}

/** The dealer for the settings screen (GET /api/dealers/:id; admins may read any dealer). */
export function useAdminDealer(id: string) {
  return useQuery({
    queryKey: dealerKeys.dealer(id),
    queryFn: async () => (await apiFetch<{ dealer: Dealer }>(dealerPath(id))).dealer,
    retry: retryUnlessClientError,
  });
}

/** Invalidates every admin query (lists, dashboard, analytics) after a change. */
function useInvalidateAdmin() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: adminKeys.all });
}

// Request shapes of the admin API: the server's own route schemas (src/domain/contracts/admin.ts).
export type { DealerSettings, ManufacturerInput, NewDealer, NewUser };

export function useCreateDealer() {
  const invalidate = useInvalidateAdmin();
  return useMutation({
    mutationFn: (d: NewDealer) => apiFetch<{ dealer: Dealer }>('/api/admin/dealers', { method: 'POST', json: d }),
    onSettled: invalidate,
  });
}

export function useSaveDealerSettings(id: string) {
  const qc = useQueryClient();
  const invalidate = useInvalidateAdmin();
  return useMutation({
    mutationFn: (s: DealerSettings) => apiFetch<{ dealer: Dealer }>(`/api/admin/dealers/${encodeURIComponent(id)}/settings`, { method: 'PUT', json: s }),
    onSuccess: ({ dealer }) => qc.setQueryData(dealerKeys.dealer(id), dealer),
    onSettled: invalidate,
  });
}

export function useDeleteDealer() {
  const invalidate = useInvalidateAdmin();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`/api/admin/dealers/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}

export function useSaveManufacturer() {
  const invalidate = useInvalidateAdmin();
  return useMutation({
    mutationFn: ({ id, input }: { id: string | null; input: ManufacturerInput }) =>
      id
        ? apiFetch<{ manufacturer: Manufacturer }>(`/api/admin/manufacturers/${encodeURIComponent(id)}`, { method: 'PUT', json: input })
        : apiFetch<{ manufacturer: Manufacturer }>('/api/admin/manufacturers', { method: 'POST', json: input }),
    onSettled: invalidate,
  });
}

export function useDeleteManufacturer() {
  const invalidate = useInvalidateAdmin();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`/api/admin/manufacturers/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}

export function useCreateUser() {
  const invalidate = useInvalidateAdmin();
  return useMutation({
    mutationFn: (u: NewUser) => apiFetch<{ user: AdminUser; invitation: InvitationSent }>('/api/admin/users', { method: 'POST', json: u }),
    onSettled: invalidate,
  });
}

export function useUpdateUser() {
  const invalidate = useInvalidateAdmin();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UserPatch }) =>
      apiFetch<{ user: AdminUser }>(`/api/admin/users/${id}`, { method: 'PATCH', json: patch }),
    onSettled: invalidate,
  });
}

export function useResetPassword() {
  return useMutation({
    mutationFn: ({ id, password }: { id: string; password: string }) => apiFetch<void>(`/api/admin/users/${id}/password`, { method: 'POST', json: { password } }),
  });
}

export function useImportPlatform() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (doc: unknown) => apiFetch<{ imported: ImportResult }>('/api/admin/import', { method: 'POST', json: doc }),
    onSettled: () => qc.invalidateQueries(),
  });
}
