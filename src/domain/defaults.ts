/**
 * Default dealer settings and the numeric fallbacks of the settings forms (spec 01 §5, §9;
 * spec 02 §4-§5, §9; DECISIONS 8, 12, 22, 23).
 */
import type {
  AssetStorage,
  BannerSizes,
  BannerSlot,
  Branding,
  DealerConfigs,
  FallbackAssets,
  Manufacturer,
  Notifications,
  Provider,
  Security,
} from './schemas';
import {
  DEFAULT_ALERT_THRESHOLD,
  DEFAULT_BANNER_SIZES,
  DEFAULT_STORAGE_QUOTA_BYTES,
  FONT_CHOICES,
  MAX_REQUESTS_PER_MINUTE,
} from './constants';
import { BANNER_SLOTS, perSizeKey } from './slots';

/** CDN base path of the default asset storage; the dealer id is appended (spec 01 §9). */
export const DEFAULT_CDN_BASE = 'https://cdn.dc-banners.com/assets';
/** Default asset naming pattern and its variables (spec 01 §9). */
export const DEFAULT_NAMING_PATTERN = 'new_{year}_{model}_{trim}_{size}.{ext}';
export const DEFAULT_NAMING_VARIABLES = ['year', 'model', 'trim', 'size', 'ext'];
/** Default (neutral) inventory weight on the 1..10 scale (spec 02 §9 'Reset to Neutral'). */
export const DEFAULT_WEIGHT = 5;

/** A fresh, mutable copy of the default banner sizes. */
export function copySizes(): BannerSizes {
  return perSizeKey((_f, _v, key) => ({ ...DEFAULT_BANNER_SIZES[key] }));
}

/**
 * A new dealer's asset storage (spec 01 §9, DECISIONS 12): provider 'dc-banners', baseUrl
 * `https://cdn.dc-banners.com/assets/{dealerId}`, fallback enabled, the default banner sizes,
 * naming pattern new_{year}_{model}_{trim}_{size}.{ext} and a 50 MB quota. Fresh objects each call.
 */
export function defaultAssetStorage(dealerId: string): AssetStorage {
  return {
    provider: 'dc-banners',
    baseUrl: `${DEFAULT_CDN_BASE}/${dealerId}`,
    fallbackEnabled: true,
    bannerSizes: copySizes(),
    customNaming: { pattern: DEFAULT_NAMING_PATTERN, variables: [...DEFAULT_NAMING_VARIABLES] },
    storageQuotaBytes: DEFAULT_STORAGE_QUOTA_BYTES,
  };
}

/** Default branding (spec 01 §9): primary #000000, secondary #666666, no logo or CSS, 'Arial, sans-serif'. */
export function defaultBranding(): Branding {
  return { primaryColor: '#000000', secondaryColor: '#666666', logoUrl: '', customCss: '', fontFamily: FONT_CHOICES[0] };
}

/**
 * Default security (spec 01 §9): allowed domains [hostname of `websiteUrl`] ([] when it is not an
 * absolute URL), CORS on, HTTPS required, rate limit on at 100 requests per minute; Do-Not-Track
 * and Global Privacy Control respected.
 */
export function defaultSecurity(websiteUrl: string): Security {
  let host = '';
  try {
    host = new URL(websiteUrl.trim()).hostname;
  } catch {
    host = '';
  }
  return {
    allowedDomains: host ? [host] : [],
    enableCors: true,
    requireHttps: true,
    rateLimitEnabled: true,
    maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.fallback,
    respectDoNotTrack: true,
  };
}

/** Default notifications (spec 01 §9): all four switches on, CTR alert threshold 2 percent. */
export function defaultNotifications(): Notifications {
  return { emailAlerts: true, performanceAlerts: true, errorAlerts: true, weeklyReports: true, alertThreshold: DEFAULT_ALERT_THRESHOLD };
}

/** No fallback assets: an empty list for each of the four banner types (spec 01 §3). */
export function emptyFallbackAssets(): FallbackAssets {
  return perSizeKey(() => []);
}

/**
 * A new dealer's configs from its manufacturer's defaults (DECISIONS 8, spec 02 §4 Reset): copies of
 * the default model mappings, upsell rules and trim patterns; weight 5 for every distinct canonical
 * model (the mappings' values); strategy 'manufacturer' with no custom rules; manufacturer upsells
 * on; providerConfig.type = `provider`; dataLayer events on; slots without a creative show the
 * placeholder. Inputs are not shared with the result.
 */
export function defaultDealerConfigs(
  m: Pick<Manufacturer, 'defaultModelMappings' | 'defaultUpsellRules' | 'defaultTrimPatterns'>,
  provider: Provider,
): DealerConfigs {
  const models = [...new Set(Object.values(m.defaultModelMappings))];
  return {
    modelMap: { ...m.defaultModelMappings },
    upsellMap: { ...m.defaultUpsellRules },
    trimPatterns: Object.fromEntries(Object.entries(m.defaultTrimPatterns).map(([k, v]) => [k, [...v]])),
    inventoryWeights: Object.fromEntries(models.map((model) => [model, DEFAULT_WEIGHT])),
    customUpsellLogic: 'manufacturer',
    customUpsellRules: {},
    useManufacturerUpsells: true,
    providerConfig: { type: provider },
    dataLayerEvents: true,
    emptySlots: 'placeholder',
  };
}

/** A plain decimal number as typed in a form field: "12", "-3", "12.5", ".5" (no hex, exponents or Infinity). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * `value` as a finite number, else `fallback`. Accepts finite numbers and decimal strings
 * (surrounding whitespace ignored: " 12 " -> 12); NaN, Infinity, '', 'abc', '0x10', '1e3', null,
 * booleans and objects give `fallback`. Does not round or range-check.
 */
export function numberOr(value: unknown, fallback: number): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : fallback;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) return Number(value.trim());
  return fallback;
}

/**
 * Banner sizes from form input (spec 02 §5, DECISIONS 23): each width/height that is a number or a
 * decimal string is kept (rounded to an integer), every missing, empty or non-numeric one is replaced
 * by its default (1920x300, 600x500, 350x564, 350x564). Range checks are bannerSizesSchema's job.
 */
export function sizesWithFallback(
  input: Partial<Record<BannerSlot, { width?: unknown; height?: unknown } | null | undefined>>,
): BannerSizes {
  const out = copySizes();
  for (const slot of BANNER_SLOTS) {
    const given = input[slot];
    out[slot] = {
      width: Math.round(numberOr(given?.width, DEFAULT_BANNER_SIZES[slot].width)),
      height: Math.round(numberOr(given?.height, DEFAULT_BANNER_SIZES[slot].height)),
    };
  }
  return out;
}

/**
 * Max requests per minute from form input, 100 when not a number (spec 01 §5). Not clamped: the
 * 10..1000 range is securitySchema's check.
 */
export function maxRequestsOrDefault(v: unknown): number {
  return numberOr(v, MAX_REQUESTS_PER_MINUTE.fallback);
}

/** CTR alert threshold (percent) from form input, 2 when not a number (spec 01 §5). */
export function alertThresholdOrDefault(v: unknown): number {
  return numberOr(v, DEFAULT_ALERT_THRESHOLD);
}

/** Allowed domains from a textarea (spec 01 §5): one per line (\n or \r\n), trimmed, blank lines dropped. */
export function parseAllowedDomains(text: string): string[] {
  return text
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}

/** Label of an inventory weight (the upsell priority): domain/priority-scale.ts priorityLabel (DECISIONS 22). */
export { priorityLabel as weightLabel } from './priority-scale';
