/**
 * Inventory links and model detection per inventory provider (spec 01 §9 "Provider URL formats",
 * spec 01 §4 embedded script). Browser-safe: uses URL and URLSearchParams only.
 */
import type { Provider } from './schemas';
import { pathSegments } from './page-url';
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

const BY_PROVIDER: Record<Provider, ProviderUrls> = { mxs, 'dealer-inspire': dealerInspire, custom };

/**
 * The dealer's new-inventory search URL filtered by model, for its provider (spec 01 §9).
 * Input: the provider, the dealer site's origin (trailing slashes ignored; a path prefix is kept),
 * and the model as it should appear on the dealer site.
 * - mxs: `{origin}/new-inventory?new=true&model={model lowercased, spaces and hyphens removed}&fq=1&min-year=2003&max-year=2026`
 * - dealer-inspire: `{origin}/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D={model}&_dFR%5Btype%5D%5B0%5D=New`
 *   (brackets URL-encoded, the model as given, form-encoded: a space becomes '+')
 * - custom: `{origin}/inventory?model={model, URL-encoded}&type=new`
 * modelFromPageUrl reads each of these back.
 */
export function inventoryUrl(provider: Provider, websiteOrigin: string, model: string): string {
  return BY_PROVIDER[provider].inventoryLink(websiteOrigin.trim().replace(/\/+$/, ''), model);
}

/**
 * The model browsed on a dealer's new-vehicle search page (spec 01 §4, §9), as written in the URL
 * (decoded, trimmed; compare it with modelKey). Null when `pageUrl` is not an absolute URL, not a
 * new-vehicle search page of this provider, or has no (or an empty) model. Path segments are
 * compared whole and case-insensitively:
 * - mxs: a `new-inventory` segment with `model` (and `new` not 'false'); or a `search` or
 *   `inventory` segment with `new=true` and `model`.
 * - dealer-inspire: a `new-vehicles` segment with `_dFR[model][0]` (brackets encoded or not) and
 *   `_dFR[type][0]` absent or 'New' (any case).
 * - custom: an `inventory` segment with `model` and `type` absent or 'new' (any case).
 */
export function modelFromPageUrl(provider: Provider, pageUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    return null;
  }
  return BY_PROVIDER[provider].pageModel(url, pathSegments(url))?.trim() || null;
}

/**
 * The trim in a dealer's search page URL, when it carries one: `trim` for mxs and custom,
 * `_dFR[trim][0]` for dealer-inspire; trimmed, null when absent, empty or not a URL.
 */
export function trimFromPageUrl(provider: Provider, pageUrl: string): string | null {
  try {
    return new URL(pageUrl).searchParams.get(BY_PROVIDER[provider].TRIM_PARAM)?.trim() || null;
  } catch {
    return null;
  }
}

export { pathSegments, privacySafeUrl } from './page-url';

/** Every provider's kept query parameters (what the server keeps of any stored page URL). */
export const ALL_KEPT_PARAMS = [...new Set(Object.values(BY_PROVIDER).flatMap((p) => p.KEPT_PARAMS))];

