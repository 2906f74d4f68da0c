/**
 * Inventory links and model detection per inventory provider (spec 01 §9 "Provider URL formats",
 * spec 01 §4 embedded script). Browser-safe: uses URL and URLSearchParams only.
 */
import type { Provider } from './schemas';
import { MXS_MAX_YEAR, MXS_MIN_YEAR } from './constants';

/** Dealer Inspire's facet parameters (written URL-encoded: `_dFR%5Bmodel%5D%5B0%5D`). */
const DI_MODEL = '_dFR[model][0]';
const DI_TYPE = '_dFR[type][0]';

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
  const origin = websiteOrigin.trim().replace(/\/+$/, '');
  if (provider === 'mxs') {
    const m = model.toLowerCase().replace(/[\s-]+/g, '');
    return `${origin}/new-inventory?new=true&model=${encodeURIComponent(m)}&fq=1&min-year=${MXS_MIN_YEAR}&max-year=${MXS_MAX_YEAR}`;
  }
  if (provider === 'dealer-inspire') {
    const q = new URLSearchParams();
    q.set(DI_MODEL, model);
    q.set(DI_TYPE, 'New');
    return `${origin}/new-vehicles/?${q.toString()}`;
  }
  return `${origin}/inventory?model=${encodeURIComponent(model)}&type=new`;
}

/** Lowercased, non-empty path segments of a URL path. */
function segments(pathname: string): string[] {
  return pathname
    .toLowerCase()
    .split('/')
    .filter((s) => s.length > 0);
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
  const segs = segments(url.pathname);
  const q = url.searchParams;
  const isNewType = (v: string | null) => v === null || v.trim().toLowerCase() === 'new';
  let model: string | null = null;
  if (provider === 'mxs') {
    const newFlag = q.get('new')?.trim().toLowerCase() ?? null;
    const newInventory = segs.includes('new-inventory') && newFlag !== 'false';
    const searchPage = (segs.includes('search') || segs.includes('inventory')) && newFlag === 'true';
    if (newInventory || searchPage) model = q.get('model');
  } else if (provider === 'dealer-inspire') {
    if (segs.includes('new-vehicles') && isNewType(q.get(DI_TYPE))) model = q.get(DI_MODEL);
  } else if (segs.includes('inventory') && isNewType(q.get('type'))) {
    model = q.get('model');
  }
  const trimmed = model?.trim();
  return trimmed ? trimmed : null;
}

/**
 * The trim in a dealer's search page URL, when it carries one (issue 12): `trim` for mxs and custom,
 * `_dFR[trim][0]` for dealer-inspire; trimmed, null when absent, empty or not a URL.
 */
export function trimFromPageUrl(provider: Provider, pageUrl: string): string | null {
  try {
    const trim = new URL(pageUrl).searchParams.get(provider === 'dealer-inspire' ? '_dFR[trim][0]' : 'trim')?.trim();
    return trim ? trim : null;
  } catch {
    return null;
  }
}
