/** The admin's Outbox (GET /api/admin/outbox): notification e-mails, newest first, and whether SMTP is set. */
import { useQuery } from '@tanstack/react-query';
import type { OutboxResponse } from '../../domain/notifications';
import { apiFetch } from '../api/client';

export const outboxKey = ['admin', 'outbox'] as const;

export function useOutbox() {
  return useQuery({ queryKey: outboxKey, queryFn: () => apiFetch<OutboxResponse>('/api/admin/outbox') });
}
