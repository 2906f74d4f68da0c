/**
 * Server operation of the Script page and the dealer script page (spec 02 §2 Script, Dealer
 * script page): GET /api/dealers/:dealerId/script. Shapes: docs/API.md.
 */
import { useQuery } from '@tanstack/react-query';
import type { ScriptInfo } from '../../../domain/contracts/public';
import { apiFetch } from '../../api/client';
import { dealerKeys, dealerPath, retryUnlessClientError } from '../api';

// The dealer's embed script: address, tag, shortcodes, full text and a configuration summary
// (the server's route schema, src/domain/contracts/public.ts).
export type { ScriptInfo };

/** GET /api/dealers/:dealerId/script. */
export function fetchScriptInfo(dealerId: string): Promise<ScriptInfo> {
  return apiFetch<ScriptInfo>(`${dealerPath(dealerId)}/script`);
}

/** The dealer's script; disabled without an id; a 403/404 is not retried. */
export function useScriptInfo(dealerId: string | null | undefined) {
  return useQuery({
    queryKey: dealerKeys.script(dealerId ?? ''),
    queryFn: () => fetchScriptInfo(dealerId!),
    enabled: Boolean(dealerId),
    retry: retryUnlessClientError,
  });
}
