/**
 * mxs page and link URLs (spec 01 §9 "Provider URL formats"). One of three provider modules with
 * the same exports; provider-urls.ts dispatches between them, and each dealer's embed script is
 * built with its provider's module only.
 */
import { MXS_MAX_YEAR, MXS_MIN_YEAR } from '../page-constants';

/** Query parameters of this provider's search pages that beacons and stored events keep. */
export const KEPT_PARAMS = ['new', 'model', 'trim'];

/** The page's trim parameter. */
export const TRIM_PARAM = 'trim';

/** `{origin}/new-inventory?new=true&model={model lowercased, spaces and hyphens removed}&fq=1&min-year=2003&max-year=2026`; `origin` without a trailing slash. */
export function inventoryLink(origin: string, model: string): string {
  const m = model.toLowerCase().replace(/[\s-]+/g, '');
  return `${origin}/new-inventory?new=true&model=${encodeURIComponent(m)}&fq=1&min-year=${MXS_MIN_YEAR}&max-year=${MXS_MAX_YEAR}`;
}

/**
 * The model of a new-vehicle search page as written (untrimmed), else null: a `new-inventory` path
 * segment with `model` (and `new` not 'false'); or a `search` or `inventory` segment with
 * `new=true` and `model`. `segs` are the lower-cased path segments.
 */
export function pageModel(url: URL, segs: string[]): string | null {
  const q = url.searchParams;
  const newFlag = q.get('new')?.trim().toLowerCase() ?? null;
  const newInventory = segs.includes('new-inventory') && newFlag !== 'false';
  const searchPage = (segs.includes('search') || segs.includes('inventory')) && newFlag === 'true';
  return newInventory || searchPage ? q.get('model') : null;
}
