/** Custom-provider page and link URLs (spec 01 §9 "Provider URL formats"); same exports as mxs.ts. */

/** Query parameters of this provider's search pages that beacons and stored events keep. */
export const KEPT_PARAMS = ['model', 'type', 'trim'];

/** The page's trim parameter. */
export const TRIM_PARAM = 'trim';

/** `{origin}/inventory?model={model, URL-encoded}&type=new`. */
export function inventoryLink(origin: string, model: string): string {
  return `${origin}/inventory?model=${encodeURIComponent(model)}&type=new`;
}

/** The model of an `inventory` page with `model` and `type` absent or 'new' (any case), as written; else null. */
export function pageModel(url: URL, segs: string[]): string | null {
  const type = url.searchParams.get('type');
  return segs.includes('inventory') && (type === null || type.trim().toLowerCase() === 'new') ? url.searchParams.get('model') : null;
}
