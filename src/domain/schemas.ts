/**
 * Zod schemas for every entity the product stores and every API body it accepts, shared by server,
 * web app and embed script. Types are inferred from the schemas (`z.infer`), so the browser and the
 * server cannot disagree about a shape.
 *
 * Spec 01 §3 (entities), spec 02 §3 (dealer configs), DECISIONS 1-25.
 */
import { z } from 'zod';
import {
  BANNER_SIZE_RANGES,
  DEFAULT_ALERT_THRESHOLD,
  DEFAULT_BANNER_SIZES,
  MAX_REQUESTS_PER_MINUTE,
  FONT_CHOICES,
  TEXT_LIMITS,
} from './constants';
import type { AbSample, RotationVerdict } from './metrics';
import { beaconModelKey } from './model-keys';
import { ROTATION_BUCKETS } from './page-constants';
import { isValidTimeZone, SCHEDULE_STATUSES } from './schedule';
import {
  ANALYTICS_PERIODS,
  ASSET_TYPES,
  BANNER_SLOTS,
  MODEL_CATEGORIES,
  PROVIDERS,
  ROLES,
  SLOT_TYPES,
  STORAGE_PROVIDERS,
  TRACK_EVENTS,
  UPDATE_FREQUENCIES,
  UPSELL_STRATEGIES,
  EMPTY_SLOT_MODES,
  VARIANTS,
  type BannerSlot,
} from './enums';
import { perSizeKey } from './slots';

// The value lists live in the zod-free enums.ts (screens that only list them do not download zod).
export * from './enums';

/** A map (record) of at most TEXT_LIMITS.mapEntries entries. */
const fewEntries = (o: Record<string, unknown>) => Object.keys(o).length <= TEXT_LIMITS.mapEntries;
const TOO_MANY_ENTRIES = `must have at most ${TEXT_LIMITS.mapEntries} entries`;

export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const providerSchema = z.enum(PROVIDERS);
export type Provider = z.infer<typeof providerSchema>;

/** Slot types a shortcode can ask for (spec 01 §1, spec 02 §2 Script). */
export const slotTypeSchema = z.enum(SLOT_TYPES);
export type SlotType = z.infer<typeof slotTypeSchema>;

/** Stored asset types (spec 02 §3 Asset). */
export const assetTypeSchema = z.enum(ASSET_TYPES);
export type AssetType = z.infer<typeof assetTypeSchema>;

export const variantSchema = z.enum(VARIANTS);
export type Variant = z.infer<typeof variantSchema>;

export const trackEventSchema = z.enum(TRACK_EVENTS);
export type TrackEventName = z.infer<typeof trackEventSchema>;

// ---------------------------------------------------------------------------------------------
// Manufacturer catalogue (spec 01 §3)


export const trimSchema = z.object({
  id: z.string().min(1).max(TEXT_LIMITS.name),
  name: z.string().min(1).max(TEXT_LIMITS.name),
  displayName: z.string().min(1).max(TEXT_LIMITS.name),
  /** MSRP in whole US dollars. */
  msrp: z.number().int().nonnegative(),
  isPopular: z.boolean(),
  priority: z.number().int(),
});
export type Trim = z.infer<typeof trimSchema>;

export const vehicleModelSchema = z.object({
  id: z.string().min(1).max(TEXT_LIMITS.name),
  name: z.string().min(1).max(TEXT_LIMITS.name),
  displayName: z.string().min(1).max(TEXT_LIMITS.name),
  category: z.enum(MODEL_CATEGORIES),
  /** MSRP range in whole US dollars. */
  msrp: z.object({ min: z.number().int().nonnegative(), max: z.number().int().nonnegative() }),
  trims: z.array(trimSchema).max(TEXT_LIMITS.listItems),
  isActive: z.boolean(),
  priority: z.number().int(),
  /** Canonical model names this model upsells to, best first. */
  upsellTargets: z.array(z.string().max(TEXT_LIMITS.key)).max(TEXT_LIMITS.listItems),
});
export type VehicleModel = z.infer<typeof vehicleModelSchema>;

/** inventory/source model key -> canonical model name (spec 02 §3 modelMap). */
export const modelMapSchema = z.record(z.string().min(1).max(TEXT_LIMITS.key), z.string().min(1).max(TEXT_LIMITS.key)).refine(fewEntries, TOO_MANY_ENTRIES);
/** primary canonical model -> upsell target canonical model (spec 02 §3 upsellMap). */
export const upsellMapSchema = z.record(z.string().min(1).max(TEXT_LIMITS.key), z.string().min(1).max(TEXT_LIMITS.key)).refine(fewEntries, TOO_MANY_ENTRIES);
/** canonical model -> ordered trim ladder, entry trim first, top trim last. */
export const trimPatternsSchema = z
  .record(z.string().min(1).max(TEXT_LIMITS.key), z.array(z.string().min(1).max(TEXT_LIMITS.name)).max(TEXT_LIMITS.listItems))
  .refine(fewEntries, TOO_MANY_ENTRIES);

export const manufacturerSchema = z.object({
  id: z.string().min(1).max(TEXT_LIMITS.id),
  name: z.string().min(1).max(TEXT_LIMITS.name),
  logoUrl: z.string().max(TEXT_LIMITS.url),
  primaryColor: z.string().max(TEXT_LIMITS.color),
  secondaryColor: z.string().max(TEXT_LIMITS.color),
  models: z.array(vehicleModelSchema).max(TEXT_LIMITS.listItems),
  defaultModelMappings: modelMapSchema,
  defaultUpsellRules: upsellMapSchema,
  defaultTrimPatterns: trimPatternsSchema,
  providerCompatibility: z.array(providerSchema),
  assetNamingConvention: z.string().max(TEXT_LIMITS.pattern),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Manufacturer = z.infer<typeof manufacturerSchema>;

// ---------------------------------------------------------------------------------------------
// Dealer settings (spec 01 §3, §9; spec 02 §5)

/** A banner width/height pair in CSS pixels. */
export const bannerSizeSchema = z.object({
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});
export type BannerSize = z.infer<typeof bannerSizeSchema>;


/**
 * One slot's size within its range; a missing width or height is the slot's default (DECISIONS 23:
 * an empty entry falls back to the default, decided here, on the server, not by the form).
 */
function sizeInRange(slot: BannerSlot) {
  const r = BANNER_SIZE_RANGES[slot];
  const d = DEFAULT_BANNER_SIZES[slot];
  return z.object({
    width: z.number().int().min(r.width.min, `${slot} width must be ${r.width.min}-${r.width.max}`).max(r.width.max, `${slot} width must be ${r.width.min}-${r.width.max}`).default(d.width),
    height: z.number().int().min(r.height.min, `${slot} height must be ${r.height.min}-${r.height.max}`).max(r.height.max, `${slot} height must be ${r.height.min}-${r.height.max}`).default(d.height),
  });
}

/** The four configured banner sizes, each within the ranges of spec 02 §5 (a missing number: its default). */
export const bannerSizesSchema = z.object(perSizeKey((_f, _v, key) => sizeInRange(key)));
export type BannerSizes = z.infer<typeof bannerSizesSchema>;


export const assetStorageSchema = z.object({
  provider: z.enum(STORAGE_PROVIDERS),
  baseUrl: z.string().max(TEXT_LIMITS.url),
  fallbackEnabled: z.boolean(),
  bannerSizes: bannerSizesSchema,
  customNaming: z.object({ pattern: z.string().max(TEXT_LIMITS.pattern), variables: z.array(z.string().max(TEXT_LIMITS.key)).max(50) }),
  /** Storage quota for uploaded assets, bytes (DECISIONS 12). */
  storageQuotaBytes: z.number().int().positive(),
});
export type AssetStorage = z.infer<typeof assetStorageSchema>;

export const upsellStrategySchema = z.enum(UPSELL_STRATEGIES);
export type UpsellStrategy = z.infer<typeof upsellStrategySchema>;

export const dealerConfigsSchema = z.object({
  modelMap: modelMapSchema,
  upsellMap: upsellMapSchema,
  trimPatterns: trimPatternsSchema,
  /** canonical model -> integer weight 1..10 (spec 02 §5). */
  inventoryWeights: z.record(z.string().min(1).max(TEXT_LIMITS.key), z.number().int().min(1).max(10)).refine(fewEntries, TOO_MANY_ENTRIES),
  customUpsellLogic: upsellStrategySchema,
  /** Rules the dealer wrote itself, used when customUpsellLogic is 'custom'. */
  customUpsellRules: upsellMapSchema,
  useManufacturerUpsells: z.boolean(),
  providerConfig: z.object({ type: providerSchema }),
  /**
   * The embed script pushes dc_banner_view / dc_banner_click events to the page's own
   * `window.dataLayer` (Google Tag Manager) when the page has one. On unless turned off; a body or
   * import without it gets the default.
   */
  dataLayerEvents: z.boolean().default(true),
  /** A slot whose model has no creative: the server's placeholder (default) or hidden (EMPTY_SLOT_MODES). */
  emptySlots: z.enum(EMPTY_SLOT_MODES).default('placeholder'),
});
export type DealerConfigs = z.infer<typeof dealerConfigsSchema>;

export const fallbackAssetSchema = z.object({
  id: z.string().max(TEXT_LIMITS.id),
  name: z.string().max(TEXT_LIMITS.name),
  type: z.enum(BANNER_SLOTS),
  url: z.string().max(TEXT_LIMITS.url),
  isUploaded: z.boolean(),
  createdAt: z.string(),
  isActive: z.boolean(),
  priority: z.number().int(),
});
export type FallbackAsset = z.infer<typeof fallbackAssetSchema>;
export const fallbackAssetsSchema = z.object(perSizeKey(() => z.array(fallbackAssetSchema)));
export type FallbackAssets = z.infer<typeof fallbackAssetsSchema>;

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color like #CC0000');

export const brandingSchema = z.object({
  primaryColor: hexColor,
  secondaryColor: hexColor,
  logoUrl: z.string().max(TEXT_LIMITS.url),
  customCss: z.string().max(20_000),
  fontFamily: z.enum(FONT_CHOICES),
});
export type Branding = z.infer<typeof brandingSchema>;

export const securitySchema = z.object({
  allowedDomains: z.array(z.string().min(1).max(TEXT_LIMITS.domain)).max(TEXT_LIMITS.listItems),
  enableCors: z.boolean(),
  requireHttps: z.boolean(),
  rateLimitEnabled: z.boolean(),
  /** 10..1000; missing: 100 (spec 01 §5 'empty means 100', applied by the server). */
  maxRequestsPerMinute: z.number().int().min(MAX_REQUESTS_PER_MINUTE.min).max(MAX_REQUESTS_PER_MINUTE.max).default(MAX_REQUESTS_PER_MINUTE.fallback),
  /**
   * Honour the visitor's Do-Not-Track / Global Privacy Control signal: banners still
   * show, but the script sends no beacon and stores nothing in the browser (the track route also
   * drops beacons carrying `DNT: 1` or `Sec-GPC: 1`). On unless turned off; a body or import
   * without it gets the default (true), anything but a boolean is refused.
   */
  respectDoNotTrack: z.boolean().default(true),
});
export type Security = z.infer<typeof securitySchema>;

export const notificationsSchema = z.object({
  emailAlerts: z.boolean(),
  performanceAlerts: z.boolean(),
  errorAlerts: z.boolean(),
  weeklyReports: z.boolean(),
  /** CTR percent below which a performance alert fires; missing: 2 (spec 01 §5, applied by the server). */
  alertThreshold: z.number().min(0).max(100).default(DEFAULT_ALERT_THRESHOLD),
});
export type Notifications = z.infer<typeof notificationsSchema>;


export const dealerSchema = z.object({
  id: z.string().max(TEXT_LIMITS.id),
  name: z.string().max(TEXT_LIMITS.name),
  manufacturer: z.string().max(TEXT_LIMITS.id),
  manufacturerName: z.string().max(TEXT_LIMITS.name),
  websiteUrl: z.string().max(TEXT_LIMITS.url),
  provider: providerSchema,
  status: z.string(),
  assetStorage: assetStorageSchema,
  configs: dealerConfigsSchema,
  fallbackAssets: fallbackAssetsSchema,
  branding: brandingSchema,
  security: securitySchema,
  notifications: notificationsSchema,
  /** The IANA time zone promotion schedules are entered and shown in: the dealer's setting, else the server's zone. */
  timeZone: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Dealer = z.infer<typeof dealerSchema>;

/** The dealer `timeZone` setting: an IANA zone name. */
export const timeZoneSchema = z.string().trim().max(64).refine(isValidTimeZone, 'must be an IANA time zone such as America/New_York');

// ---------------------------------------------------------------------------------------------
// Assets (spec 01 §5, spec 02 §3)

export const parsedFilenameSchema = z.object({
  isValid: z.boolean(),
  year: z.string(),
  manufacturer: z.string(),
  model: z.string(),
  trim: z.string(),
  /** The `{width}x{height}` part as written, e.g. "1920x300". */
  size: z.string(),
  dimensions: z.object({ width: z.number(), height: z.number() }),
  extension: z.string(),
  originalFilename: z.string(),
  extraParts: z.array(z.string()),
});
export type ParsedFilename = z.infer<typeof parsedFilenameSchema>;

/** One replacement of an asset's file: when (ISO 8601), the new file's name, and the size in bytes of the file it replaced. */
export const assetReplacementSchema = z.object({ at: z.string(), filename: z.string(), replacedSizeBytes: z.number().int() });
export type AssetReplacement = z.infer<typeof assetReplacementSchema>;

export const assetSchema = z.object({
  id: z.string(),
  dealerId: z.string(),
  name: z.string(),
  type: assetTypeSchema,
  model: z.string(),
  trim: z.string(),
  year: z.string(),
  manufacturer: z.string(),
  mimeType: z.string(),
  /** Stored size of the original bytes. */
  sizeBytes: z.number().int(),
  dimensions: z.object({ width: z.number().int(), height: z.number().int() }),
  isActive: z.boolean(),
  parsedMetadata: parsedFilenameSchema,
  createdAt: z.string(),
  /** URL of the image bytes for the signed-in app. */
  url: z.string(),
  /** Promotion window, ISO 8601 UTC instants: shown from startsAt (inclusive) until endsAt (exclusive); null = open. */
  startsAt: z.string().nullable(),
  endsAt: z.string().nullable(),
  /** Where the window stands at the server's time of the answer: 'scheduled' (before), 'live', 'expired' (after). */
  schedule: z.enum(SCHEDULE_STATUSES),
  /** Earlier files of this creative, oldest first (its id, statistics and settings stay). */
  replacements: z.array(assetReplacementSchema),
  /**
   * In the Asset Manager's list: "Will never show: …" when delivery can never choose the
   * asset (its model is none of the dealer's models or upsell targets), with the nearest model; else null.
   */
  neverShows: z.string().nullable(),
  /** The campaign the asset was uploaded into (it then follows the campaign's window and status), or null. */
  campaignId: z.string().nullable(),
});
export type Asset = z.infer<typeof assetSchema>;


// ---------------------------------------------------------------------------------------------
// Session and API bodies

export const sessionUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  dealerId: z.string().nullable(),
  dealerName: z.string().nullable(),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

export const loginBodySchema = z.object({
  // 254: the longest usable address (RFC 5321); also bounds the sign-in throttle's key.
  email: z.email('Email must be a valid email address').max(254, 'Email must be at most 254 characters'),
  // Passwords are at most TEXT_LIMITS.password characters when set (admin/users.ts), so no longer one can match.
  password: z.string().min(1, 'Password is required').max(TEXT_LIMITS.password, `Password must be at most ${TEXT_LIMITS.password} characters`),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

/** C0/C1 control characters and unpaired UTF-16 surrogates: text PostgreSQL cannot store or that no browser sends. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string of at most `max` characters with no control characters or broken surrogates (hostile-input boundary). */
export const safeText = (max: number) =>
  z.string().max(max).refine((v) => !UNSAFE_TEXT.test(v), 'must not contain control characters');

/** A page-view id as the embed script makes them (random, URL-safe). */
export const PAGE_VIEW_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** Longest model key a beacon may carry (the catalogue's longest key is under 20 characters). */
export const MAX_MODEL_KEY = 64;

/** Query of GET /api/scripts/:dealerId/asset (spec 01 §7, DECISIONS 14). */
export const assetQuerySchema = z.object({
  model: z.string().max(100).default(''),
  type: slotTypeSchema.default(SLOT_TYPES[0]),
  variant: variantSchema.default('desktop'),
  trim: z.string().max(100).optional(),
  /** Device pixel ratio of the srcset candidate: 2 serves the slot size doubled (never enlarged past the original). */
  scale: z.enum(['1', '2']).default('1').transform(Number),
  /** '1': the slot's placeholder whatever was chosen (the embed script's one swap after a failed image load, spec 02 §4). */
  placeholder: z.literal('1').optional(),
  /** Rotation bucket, 0 to ROTATION_BUCKETS - 1 (the embed script's per-session draw): which creative of the slot's rotation shows. */
  r: z.coerce.number().int().min(0).max(ROTATION_BUCKETS - 1).optional(),
  /**
   * The dealer's version the URL was built with: a cache key only, never read for the choice. A URL
   * without one (the header's, which the pasted snippet requests too) outlives settings changes,
   * so its answer must be revalidated on every use (`Cache-Control: no-cache`).
   */
  v: z.string().max(100).optional(),
});
export type AssetQuery = z.infer<typeof assetQuerySchema>;

/**
 * Body of POST /api/analytics/track (spec 01 §7, DECISIONS 17, 25). Every string is
 * bounded and free of control characters; `model` is reduced to its comparison key
 * (beaconModelKey: modelKey, then letters and digits only, so "CR-V" -> "crv" and "=cmd" -> "cmd") and refused
 * when nothing remains; `url` is empty or an http(s) URL (the server stores only its privacy-safe
 * form); impressions and clicks name their slot type and page view (`pv`); conversions
 * name the page view of the banner click they are attributed to (`pv`) and may carry the site's
 * lead id (`leadId`, counted once per dealer and lead).
 */
export const trackBodySchema = z.object({
  dealerId: z.string().regex(/^[a-z0-9-]{1,100}$/, 'must be a dealer id (lowercase letters, digits and hyphens)'),
  event: trackEventSchema,
  type: slotTypeSchema.optional(),
  model: safeText(100)
    .transform(beaconModelKey)
    .pipe(z.string().min(1, 'must name a model (letters or digits)').max(MAX_MODEL_KEY)),
  /** Client time, ISO 8601 or epoch milliseconds: validated, not stored (every figure uses the server's receipt time). */
  timestamp: z.union([safeText(40), z.number().finite()]).optional(),
  url: safeText(2000)
    .refine((v) => v === '' || /^https?:\/\//i.test(v) && URL.canParse(v), 'must be an http(s) URL')
    .optional()
    .default(''),
  /**
   * The page view the banner was rendered in (PAGE_VIEW_ID), required for every event:
   * for a conversion, the page view of the banner click it is attributed to.
   */
  pv: z.string().regex(PAGE_VIEW_ID, 'must be a page-view id (8-64 letters, digits, _ or -)').optional(),
  /**
   * Conversions only, optional: the dealer site's lead id (trimmed; empty is none); one conversion
   * per dealer and lead. The server stores only its SHA-256.
   */
  leadId: safeText(100)
    .transform((v) => v.trim() || undefined)
    .optional(),
  /**
   * Clicks only, optional: 1 when the script has no answer yet for the banner's impression (it was
   * never sent, or its request is still on its way or waiting to be retried). The server then takes
   * the impression from this beacon first, so the click is counted whatever order the two requests
   * arrive in; an impression beacon arriving later for the same page view and slot counts nothing.
   */
  imp: z.literal(1).optional(),
  /**
   * Impressions and clicks: the banner request the slot showed (its image URL, or just
   * its query), from which the server works out the creative as the image answer did. One that is
   * not a banner request is ignored (the event still counts, its creative unknown).
   */
  asset: safeText(1000)
    .transform((v) => {
      const q = assetQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(v.slice(v.indexOf('?') + 1))));
      return q.success ? q.data : undefined;
    })
    .optional(),
}).superRefine((b, ctx) => {
  if (!b.pv) ctx.addIssue({ code: 'custom', path: ['pv'], message: `is required for ${b.event}s` });
  if (b.event === 'conversion') return;
  if (!b.type) ctx.addIssue({ code: 'custom', path: ['type'], message: `is required for ${b.event}s` });
  if (b.leadId !== undefined) ctx.addIssue({ code: 'custom', path: ['leadId'], message: 'is only for conversions' });
  if (b.imp !== undefined && b.event !== 'click') ctx.addIssue({ code: 'custom', path: ['imp'], message: 'is only for clicks' });
});
export type TrackBody = z.infer<typeof trackBodySchema>;


/** Totals for one dealer over a period (dashboard cards). */
export const dealerStatsSchema = z.object({
  impressions: z.number().int(),
  clicks: z.number().int(),
  conversions: z.number().int(),
  /** clicks / impressions x 100, or null with no impressions. */
  ctr: z.number().nullable(),
});
export type DealerStats = z.infer<typeof dealerStatsSchema>;

export { DEFAULT_BANNER_SIZES };

// ---------------------------------------------------------------------------------------------
// Inventory (spec 02 §3 InventoryFeed, InventoryData, ModelBreakdown, Vehicle entry)

export const updateFrequencySchema = z.enum(UPDATE_FREQUENCIES);
export type UpdateFrequency = z.infer<typeof updateFrequencySchema>;

export const vehicleSchema = z.object({
  vin: z.string(),
  stockNumber: z.string(),
  make: z.string(),
  trim: z.string(),
  year: z.number().int(),
  daysOnLot: z.number(),
  isAged: z.boolean(),
  exteriorColor: z.string(),
  interiorColor: z.string(),
  bodyStyle: z.string(),
  isCertified: z.boolean(),
  cityMPG: z.number().nullable(),
  hwyMPG: z.number().nullable(),
});
export type Vehicle = z.infer<typeof vehicleSchema>;

const minMax = z.object({ min: z.number().nullable(), max: z.number().nullable() });

export const modelBreakdownSchema = z.object({
  /** Display form of the model as first seen in the data. */
  model: z.string(),
  totalUnits: z.number().int(),
  agedUnits: z.number().int(),
  avgDaysOnLot: z.number(),
  priorityScore: z.number().int().min(1).max(10),
  trims: z.record(z.string(), z.number().int()),
  years: z.record(z.string(), z.number().int()),
  colors: z.object({ exterior: z.record(z.string(), z.number().int()), interior: z.record(z.string(), z.number().int()) }),
  bodyStyles: z.record(z.string(), z.number().int()),
  certified: z.number().int(),
  mpgRange: z.object({ city: minMax, hwy: minMax }),
  vehicles: z.array(vehicleSchema),
});
export type ModelBreakdown = z.infer<typeof modelBreakdownSchema>;

export const inventoryDataSchema = z.object({
  totalUnits: z.number().int(),
  modelCount: z.number().int(),
  agedUnits: z.number().int(),
  avgDaysOnLot: z.number(),
  lastUpdated: z.string(),
  /** Normalised model key -> breakdown (DECISIONS 25). */
  modelBreakdown: z.record(z.string(), modelBreakdownSchema),
});
export type InventoryData = z.infer<typeof inventoryDataSchema>;

export const fieldMappingSchema = z.object({
  model: z.string().max(TEXT_LIMITS.name),
  trim: z.string().max(TEXT_LIMITS.name),
  year: z.string().max(TEXT_LIMITS.name),
  daysOnLot: z.string().max(TEXT_LIMITS.name),
  vin: z.string().max(TEXT_LIMITS.name),
  stock: z.string().max(TEXT_LIMITS.name),
});
export type FieldMapping = z.infer<typeof fieldMappingSchema>;

// ---------------------------------------------------------------------------------------------
// Analytics (spec 02 §2 Analytics, DECISIONS 18-19)

export const analyticsPeriodSchema = z.enum(ANALYTICS_PERIODS);
export type AnalyticsPeriod = z.infer<typeof analyticsPeriodSchema>;

export interface ModelPerformance {
  model: string;
  impressions: number;
  clicks: number;
  conversions: number;
  /** Percent, null without impressions. */
  ctr: number | null;
  /** conversions / clicks x 100, null without clicks. */
  conversionRate: number | null;
}

/** GET /api/dealers/:dealerId/analytics */
export interface DealerAnalytics {
  period: AnalyticsPeriod;
  from: string;
  to: string;
  current: DealerStats;
  previous: DealerStats;
  /** Change versus the previous period of the same length, percent; null when there is no previous data. */
  trends: { impressions: number | null; clicks: number | null; ctr: number | null; conversionRate: number | null };
  /** Sorted by conversions, then clicks, descending. */
  models: ModelPerformance[];
  /** Per day (per hour for 24h), oldest first, with empty buckets filled with zeros. */
  series: Array<{ bucket: string; impressions: number; clicks: number; conversions: number }>;
  /** Time of the latest recorded event hour, or null when there is none. */
  lastUpdated: string | null;
  /** Per creative and slot type, by impressions, descending. */
  creatives: CreativePerformance[];
  /** Share of the period's impressions that showed a placeholder, percent (null without impressions). */
  placeholderShare: number | null;
  /** Models whose slots showed a placeholder in the period, by those impressions, descending: they need a banner. */
  needBanner: Array<{ model: string; slot: string; impressions: number }>;
}

/** What a creative did in a period. */
export interface CreativePerformance {
  /** The asset id, 'cdn', 'fallback', 'placeholder', or '' for events stored before creatives were recorded. */
  creative: string;
  kind: 'asset' | 'cdn' | 'fallback' | 'placeholder' | 'unknown';
  /** The asset's file name; null for other kinds and deleted assets. */
  name: string | null;
  /** The model shown (canonical name) and the slot type. */
  model: string;
  slot: string;
  /** The asset's pixels, null for other kinds and deleted assets. */
  width: number | null;
  height: number | null;
  /** The asset now: 'live', 'scheduled', 'expired', 'inactive', or 'deleted'; null for other kinds. */
  status: 'live' | 'scheduled' | 'expired' | 'inactive' | 'deleted' | null;
  impressions: number;
  clicks: number;
  conversions: number;
  ctr: number | null;
  /**
   * In an A/B rotation (two or more assets of the same model, slot and size with impressions in the
   * period): 'best' for the highest CTR at 95 % confidence over each other one, 'leading' for the
   * highest without that confidence yet, 'trailing' for the others; 'even' for all of them while
   * no CTR is higher than the rest; 'collecting' while any creative of the rotation has fewer
   * than AB_MIN_IMPRESSIONS; null outside a rotation (domain/metrics.ts rotationVerdicts).
   */
  verdict: RotationVerdict | null;
  /**
   * The rotation's progress towards its minimum sample (domain/metrics.ts abSampleProgress: each
   * creative counts up to AB_MIN_IMPRESSIONS viewable impressions); null outside a rotation.
   */
  sample: AbSample | null;
}

/** Line breaks and control characters (C0, DEL, C1, U+2028/U+2029): never in a one-line name. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/;

/**
 * A name shown on one line (a dealer's, a user's, a manufacturer's; spec 01 §3): trimmed, 1 to
 * `max` characters, no line break or control character: names appear in lists, e-mail subjects
 * and CSV exports, where a line break would split or forge a line.
 */
export const oneLineNameSchema = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'is required')
    .max(max)
    .refine((name) => !NOT_ONE_LINE.test(name), 'must be a single line: no line breaks, tabs or other control characters');

/** A dealer's name: one line of at most 120 characters. */
export const dealerNameSchema = oneLineNameSchema(120);
