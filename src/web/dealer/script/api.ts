/**
 * Server operation of the Script page and the dealer script page (spec 02 §2 Script, Dealer
 * script page): GET /api/dealers/:dealerId/script. Shapes: docs/API.md.
 */
import { useQuery } from '@tanstack/react-query';
import { apiFetch } from '../../api/client';
import { dealerKeys, dealerPath, retryUnlessClientError } from '../api';

/** The dealer's embed script: address, tag, shortcodes, full text and a configuration summary. */
export interface ScriptInfo {
  scriptUrl: string;
  /** The tag to paste in the page's <head>: the inline snippet, then the async script. */
  scriptTag: string;
  /** The inline snippet's CSP hash, for a script-src without 'unsafe-inline'. */
  snippetHash: string;
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
