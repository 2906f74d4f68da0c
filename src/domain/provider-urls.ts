/**
 * Inventory links and model detection per inventory provider (spec 01 §9 "Provider URL formats").
 * Browser-safe: uses URL and URLSearchParams only.
 */
import type { Provider } from './schemas';
import { MXS_MAX_YEAR, MXS_MIN_YEAR } from './constants';

const DI_MODEL = '_dFR[model][0]';
const DI_TYPE = '_dFR[type][0]';

/** The dealer's new-inventory search URL filtered by model, for its provider. */
export function inventoryUrl(provider: Provider, websiteOrigin: string, model: string): string {
  const origin = websiteOrigin.replace(/\/+$/, '');
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

/**
 * The model browsed on a dealer's new-vehicle search page, or null when the URL is not a
 * new-vehicle page with a model for this provider.
 */
export function modelFromPageUrl(provider: Provider, pageUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    return null;
  }
  const path = url.pathname.toLowerCase();
  const q = url.searchParams;
  let model: string | null = null;
  if (provider === 'mxs') {
    if (path.includes('/new-inventory') && q.get('new') !== 'false') model = q.get('model');
  } else if (provider === 'dealer-inspire') {
    const type = q.get(DI_TYPE);
    if (path.includes('/new-vehicles') && (type === null || type.toLowerCase() === 'new')) model = q.get(DI_MODEL);
  } else if (path.includes('/inventory')) {
    const type = q.get('type');
    if (type === null || type.toLowerCase() === 'new') model = q.get('model');
  }
  const trimmed = model?.trim();
  return trimmed ? trimmed : null;
}
