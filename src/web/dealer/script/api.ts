/**
 * Server operation of the Script page and the dealer script page (spec 02 §2 Script, Dealer
 * script page): GET /api/dealers/:dealerId/script, and the tag health (GET
 * /api/dealers/:dealerId/tag-health and …/tag-health/page-check). Shapes: docs/API.md.
 */
import { useQuery } from '@tanstack/react-query';
import type { ScriptInfo } from '../../../domain/contracts/public';
import type { PageCheck, TagHealth } from '../../../domain/contracts/tag-health';
import { apiFetch } from '../../api/client';
import { dealerKeys, dealerPath, dealerQuery, retryUnlessClientError } from '../api';

// The dealer's embed script: address, tag, shortcodes, full text and a configuration summary
// (the server's route schema, src/domain/contracts/public.ts).
export type { ScriptInfo, PageCheck, TagHealth };

/** GET /api/dealers/:dealerId/script. */
export function fetchScriptInfo(dealerId: string): Promise<ScriptInfo> {
  return apiFetch<ScriptInfo>(`${dealerPath(dealerId)}/script`);
}

/** The dealer's script; disabled without an id; a 403/404 is not retried. */
export function useScriptInfo(dealerId: string | null | undefined) {
  return useQuery(dealerQuery(dealerId, dealerKeys.script, fetchScriptInfo));
}

/** Query keys of the tag health (under the dealer's, so a dealer-wide invalidation covers them). */
export const tagHealthKeys = {
  health: (id: string) => ['dealer', id, 'tag-health'] as const,
  pageCheck: (id: string, url: string) => ['dealer', id, 'tag-health', 'page-check', url] as const,
};

/** GET /api/dealers/:dealerId/tag-health: last beacon per origin and slot, and the last 24 h by reason. */
export function fetchTagHealth(dealerId: string): Promise<TagHealth> {
  return apiFetch<TagHealth>(`${dealerPath(dealerId)}/tag-health`);
}

/** The dealer's tag health; disabled without an id; a 403/404 is not retried. */
export function useTagHealth(dealerId: string | null | undefined) {
  return useQuery(dealerQuery(dealerId, tagHealthKeys.health, fetchTagHealth));
}

/** GET /api/dealers/:dealerId/tag-health/page-check?url=: what a page at `url` would meet (the server does not load it). */
export function fetchPageCheck(dealerId: string, url: string): Promise<PageCheck> {
  return apiFetch<PageCheck>(`${dealerPath(dealerId)}/tag-health/page-check?url=${encodeURIComponent(url)}`);
}

/** "Test my page" for the address last submitted (null: none yet, the query waits). */
export function usePageCheck(dealerId: string, url: string | null) {
  return useQuery({
    queryKey: tagHealthKeys.pageCheck(dealerId, url ?? ''),
    queryFn: () => fetchPageCheck(dealerId, url!),
    enabled: Boolean(dealerId && url),
    retry: retryUnlessClientError,
  });
}
