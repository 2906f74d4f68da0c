/**
 * Inventory links and model detection per inventory provider (spec 01 §9 "Provider URL formats",
 * spec 01 §4 embedded script). Browser-safe: uses URL and URLSearchParams only.
 */
import type { Provider } from './schemas';
import * as mxs from './providers/mxs';
import * as dealerInspire from './providers/dealer-inspire';
import * as custom from './providers/custom';

/** What each provider module (providers/*.ts) exports. */
export interface ProviderUrls {
  KEPT_PARAMS: string[];
  TRIM_PARAM: string;
  inventoryLink(origin: string, model: string): string;
  pageModel(url: URL, segs: string[]): string | null;
}

/** Each provider's URL module: the embed bundles one of them (embed/provider.ts), the server reads them all. */
export const PROVIDER_URLS: Record<Provider, ProviderUrls> = { mxs, 'dealer-inspire': dealerInspire, custom };

export { pathSegments, privacySafeUrl } from './page-url';

/** Every provider's kept query parameters (what the server keeps of any stored page URL). */
export const ALL_KEPT_PARAMS = [...new Set(Object.values(PROVIDER_URLS).flatMap((p) => p.KEPT_PARAMS))];

