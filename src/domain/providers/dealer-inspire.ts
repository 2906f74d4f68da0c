/**
 * Dealer Inspire page and link URLs (spec 01 §9 "Provider URL formats"); same exports as mxs.ts.
 * Its facet parameters are written URL-encoded: `_dFR%5Bmodel%5D%5B0%5D`.
 */
const MODEL = '_dFR[model][0]';
const TYPE = '_dFR[type][0]';

/** Query parameters of this provider's search pages that beacons and stored events keep. */
export const KEPT_PARAMS = [MODEL, TYPE, '_dFR[trim][0]'];

/** The page's trim parameter. */
export const TRIM_PARAM = '_dFR[trim][0]';

/** `{origin}/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D={model}&_dFR%5Btype%5D%5B0%5D=New` (form-encoded: a space becomes '+'). */
export function inventoryLink(origin: string, model: string): string {
  const q = new URLSearchParams();
  q.set(MODEL, model);
  q.set(TYPE, 'New');
  return `${origin}/new-vehicles/?${q.toString()}`;
}

/** The model of a `new-vehicles` page with `_dFR[model][0]` and `_dFR[type][0]` absent or 'New' (any case), as written; else null. */
export function pageModel(url: URL, segs: string[]): string | null {
  const type = url.searchParams.get(TYPE);
  return segs.includes('new-vehicles') && (type === null || type.trim().toLowerCase() === 'new') ? url.searchParams.get(MODEL) : null;
}
