/**
 * The product's fixed value lists (roles, providers, slots, periods, ...) as plain `as const`
 * arrays with their union types, in a module that does not import zod: a web screen
 * that only lists or picks one of these values (a Select's options, a period switch) imports them
 * from here and so does not download zod. schemas.ts builds its `z.enum` schemas from these arrays
 * and re-exports them, so server code keeps importing them from there.
 */
import { SLOT_TYPES } from './slots';

export const ROLES = ['admin', 'dealer-manager', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PROVIDERS = ['mxs', 'dealer-inspire', 'custom'] as const;
export type Provider = (typeof PROVIDERS)[number];

// Slot types, variants and size keys come from the slot registry (slots.ts).
export { BANNER_SLOTS, SLOT_TYPES, VARIANTS, type BannerSlot } from './slots';

/** Stored asset types (spec 02 §3 Asset): one per slot type. */
export const ASSET_TYPES = SLOT_TYPES;

export const TRACK_EVENTS = ['impression', 'click', 'conversion'] as const;

/**
 * The device class stored with each event and rollup (domain/device.ts deviceOf, migration 0024):
 * 'unknown' for events stored before the device was recorded.
 */
export const DEVICE_CLASSES = ['desktop', 'mobile', 'unknown'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/**
 * The Analytics screen's and API's device filter: every event ('all', unknown devices included),
 * or one device class.
 */
export const DEVICE_FILTERS = ['all', 'desktop', 'mobile'] as const;
export type DeviceFilter = (typeof DEVICE_FILTERS)[number];

/** Vehicle model categories of the manufacturer catalogue (spec 01 §3). */
export const MODEL_CATEGORIES = ['sedan', 'hatchback', 'suv', 'truck', 'coupe', 'wagon'] as const;

export const STORAGE_PROVIDERS = ['dc-banners', 'dealer', 'agency', 'custom'] as const;

export const UPSELL_STRATEGIES = ['manufacturer', 'inventory', 'custom'] as const;
export type UpsellStrategy = (typeof UPSELL_STRATEGIES)[number];

/**
 * What a dealer-site slot does when its model has no creative (no uploaded asset, CDN image or
 * fallback asset): 'placeholder' shows the server's generated placeholder (spec 02 §4 step 6,
 * DECISIONS 14 d; the default), 'hide' reserves no box and counts no impression.
 */
export const EMPTY_SLOT_MODES = ['placeholder', 'hide'] as const;
export type EmptySlotMode = (typeof EMPTY_SLOT_MODES)[number];

export const DEALER_STATUSES = ['active', 'inactive', 'pending', 'suspended'] as const;

/** Inventory feed update frequencies (spec 02 §3 InventoryFeed). */
export const UPDATE_FREQUENCIES = ['hourly', 'every-4-hours', 'daily'] as const;

/** Analytics periods (spec 02 §2 Analytics, DECISIONS 18-19). */
export const ANALYTICS_PERIODS = ['24h', '7d', '30d', '90d'] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];
