/**
 * Default dealer settings and the numeric fallbacks of the settings forms (spec 01 §5, §9;
 * spec 02 §5; DECISIONS 8, 12, 22, 23).
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

/** CDN base path of the default asset storage; the dealer id is appended. */
export const DEFAULT_CDN_BASE = 'https://cdn.dc-banners.com/assets';
export const DEFAULT_NAMING_PATTERN = 'new_{year}_{model}_{trim}_{size}.{ext}';
export const DEFAULT_NAMING_VARIABLES = ['year', 'model', 'trim', 'size', 'ext'];
/** Default inventory weight (spec 02 §9). */
export const DEFAULT_WEIGHT = 5;

const copySizes = (): BannerSizes => structuredClone(DEFAULT_BANNER_SIZES) as unknown as BannerSizes;

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

export function defaultBranding(): Branding {
  return { primaryColor: '#000000', secondaryColor: '#666666', logoUrl: '', customCss: '', fontFamily: FONT_CHOICES[0] };
}

/** Default security: the dealer's own site host allowed, CORS on, HTTPS required, 100 requests/minute. */
export function defaultSecurity(websiteUrl: string): Security {
  let host: string | null = null;
  try {
    host = new URL(websiteUrl).hostname;
  } catch {
    host = null;
  }
  return {
    allowedDomains: host ? [host] : [],
    enableCors: true,
    requireHttps: true,
    rateLimitEnabled: true,
    maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.fallback,
  };
}

export function defaultNotifications(): Notifications {
  return { emailAlerts: true, performanceAlerts: true, errorAlerts: true, weeklyReports: true, alertThreshold: DEFAULT_ALERT_THRESHOLD };
}

export function emptyFallbackAssets(): FallbackAssets {
  return { srpHeaderDesktop: [], srpHeaderMobile: [], inlineDesktop: [], inlineMobile: [] };
}

/** A new dealer's configs from its manufacturer's defaults: every mapped model weighted 5, manufacturer upsells. */
export function defaultDealerConfigs(
  m: Pick<Manufacturer, 'defaultModelMappings' | 'defaultUpsellRules' | 'defaultTrimPatterns'>,
  provider: Provider,
): DealerConfigs {
  const models = [...new Set(Object.values(m.defaultModelMappings))];
  return {
    modelMap: { ...m.defaultModelMappings },
    upsellMap: { ...m.defaultUpsellRules },
    trimPatterns: structuredClone(m.defaultTrimPatterns),
    inventoryWeights: Object.fromEntries(models.map((model) => [model, DEFAULT_WEIGHT])),
    customUpsellLogic: 'manufacturer',
    customUpsellRules: {},
    useManufacturerUpsells: true,
    providerConfig: { type: provider },
  };
}

/** `value` as a finite number (numbers or numeric strings), else `fallback`. */
export function numberOr(value: unknown, fallback: number): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : fallback;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : fallback;
  }
  return fallback;
}

/** Banner sizes with every non-numeric or empty width/height replaced by its default (spec 02 §5, DECISIONS 23). */
export function sizesWithFallback(input: Partial<Record<BannerSlot, { width?: unknown; height?: unknown }>>): BannerSizes {
  const out = copySizes();
  for (const slot of Object.keys(out) as BannerSlot[]) {
    const given = input[slot];
    out[slot] = {
      width: Math.round(numberOr(given?.width, DEFAULT_BANNER_SIZES[slot].width)),
      height: Math.round(numberOr(given?.height, DEFAULT_BANNER_SIZES[slot].height)),
    };
  }
  return out;
}

/** Max requests per minute, falling back to 100 when not a number (spec 01 §5). */
export function maxRequestsOrDefault(v: unknown): number {
  return numberOr(v, MAX_REQUESTS_PER_MINUTE.fallback);
}

/** CTR alert threshold, falling back to 2 when not a number (spec 01 §5). */
export function alertThresholdOrDefault(v: unknown): number {
  return numberOr(v, DEFAULT_ALERT_THRESHOLD);
}

/** Allowed domains from a textarea: one per line, trimmed, blank lines dropped (spec 01 §5). */
export function parseAllowedDomains(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}

/** Weight label (DECISIONS 22): 8-10 High Priority, 4-7 Normal Priority, 1-3 Low Priority. */
export function weightLabel(w: number): 'High Priority' | 'Normal Priority' | 'Low Priority' {
  if (w >= 8) return 'High Priority';
  if (w >= 4) return 'Normal Priority';
  return 'Low Priority';
}
