/**
 * Server operations of the dealer dashboard (spec 02 §2 Dashboard, DECISIONS 18): the dealer's
 * totals over a period with the change against the period before. Shapes: docs/API.md.
 */
import { useQuery } from '@tanstack/react-query';
import type { StatsWithTrend } from '../../../domain/contracts/configs';
import { apiFetch } from '../../api/client';
import { dealerKeys, dealerPath } from '../api';

// GET /api/dealers/:dealerId/stats/trend answer: the server's route schema (src/domain/contracts/configs.ts).
export type { StatsWithTrend };

/** GET /api/dealers/:dealerId/stats/trend?days={days}. */
export function fetchDealerTrend(dealerId: string, days: number): Promise<StatsWithTrend> {
  return apiFetch<StatsWithTrend>(`${dealerPath(dealerId)}/stats/trend?days=${days}`);
}

/** The dealer's stats of the last `days` days with trends; disabled without an id. */
export function useDealerTrend(dealerId: string | null | undefined, days: number) {
  return useQuery({
    queryKey: [...dealerKeys.stats(dealerId ?? ''), 'trend', days],
    queryFn: () => fetchDealerTrend(dealerId!, days),
    enabled: Boolean(dealerId),
  });
}
