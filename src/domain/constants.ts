/**
 * Every number and user-facing text of the spec that more than one place needs, named once.
 * Spec 01 §8-§9, spec 02 §8-§9, DECISIONS 12-13, 19, 22-23.
 */
import { perSizeKey, SIZE_FAMILY_SETTINGS, type BannerSlot } from './slots';

/** A banner width/height in CSS pixels. */
interface BannerSize {
  width: number;
  height: number;
}
/** The allowed inputs of a banner size, CSS pixels. */
interface SizeRange {
  width: { readonly min: number; readonly max: number };
  height: { readonly min: number; readonly max: number };
}

/** Default banner sizes in CSS pixels by size key (spec 01 §9; inline mobile 350x564 per DECISIONS 23), from the slot registry. */
export const DEFAULT_BANNER_SIZES: Readonly<Record<BannerSlot, Readonly<BannerSize>>> = perSizeKey((f, v) => SIZE_FAMILY_SETTINGS[f].defaults[v]);

/** Allowed ranges of the banner size inputs by size key (spec 02 §5 Configuration), from the slot registry. */
export const BANNER_SIZE_RANGES: Readonly<Record<BannerSlot, SizeRange>> = perSizeKey((f, v) => SIZE_FAMILY_SETTINGS[f].ranges[v]);

/** The names of the banner size presets (spec 02 §9): 'Standard' (the defaults) and each family's named presets. */
export type BannerSizePreset = 'Standard' | keyof (typeof SIZE_FAMILY_SETTINGS)[keyof typeof SIZE_FAMILY_SETTINGS]['presets'];

/** Banner size presets (spec 02 §9): preset name -> size key -> size, from the slot registry. */
export const BANNER_SIZE_PRESETS: Readonly<Record<BannerSizePreset, Readonly<Record<BannerSlot, Readonly<BannerSize>>>>> = {
  Standard: DEFAULT_BANNER_SIZES,
  Compact: perSizeKey((f, v) => SIZE_FAMILY_SETTINGS[f].presets.Compact[v]),
  'Large/High-Res': perSizeKey((f, v) => SIZE_FAMILY_SETTINGS[f].presets['Large/High-Res'][v]),
};

/** Max upload size per file, bytes (spec 01 §5, DECISIONS 13). */
export const MAX_ASSET_BYTES = 2_097_152;
/**
 * Largest image the server decodes, in pixels (width x height): banners never need
 * more than about 25 MP, and a 2 MB file can hold a 16000x16000 image that costs seconds of CPU.
 */
export const MAX_IMAGE_PIXELS = 25_000_000;
/** Accepted upload MIME types and extensions (DECISIONS 13). */
export const ACCEPTED_IMAGE_MIME_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const ACCEPTED_IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp'] as const;

/** Default per-dealer storage quota, bytes (DECISIONS 12). */
export const DEFAULT_STORAGE_QUOTA_BYTES = 50 * 1024 * 1024;
/** Storage thresholds as fractions of the quota (DECISIONS 12, spec 02 §9). */
export const STORAGE_WARN_RATIO = 0.7;
export const STORAGE_RED_RATIO = 0.9;
export const STORAGE_REFUSE_RATIO = 0.9;
export const STORAGE_FULL_RATIO = 0.95;

/** Header if width / height is more than this (spec 01 §5, spec 02 §9). */
export const WIDE_HEADER_RATIO = 2;

/** Max requests per minute range and fallback (spec 01 §5, §9). */
export const MAX_REQUESTS_PER_MINUTE = { min: 10, max: 1000, fallback: 100 } as const;
/**
 * The tracking endpoint's per-client-IP budget as a multiple of the dealer's maxRequestsPerMinute
 *. The dealer's limit applies per page view; one IP often carries many shoppers (a
 * showroom's Wi-Fi, a mobile carrier's NAT), so the per-IP budget must be far larger: 20 × the
 * default 100 = 2,000 beacons a minute, room for about 500 page views of 3 impressions and a click
 * from one address, while one scripted client inventing page-view ids still meets a ceiling.
 */
export const RATE_LIMIT_NAT_FACTOR = 20;
/**
 * Page views whose tracking counters are kept at once (LRU): enough for every page view
 * of a busy minute; an evicted page view only starts again from zero, and the per-IP budget still
 * bounds it.
 */
export const RATE_LIMIT_PAGE_VIEWS_KEPT = 50_000;
/** CTR alert threshold fallback, percent (spec 01 §5). */
export const DEFAULT_ALERT_THRESHOLD = 2;

/** Font choices (spec 01 §9). */
export const FONT_CHOICES = [
  'Arial, sans-serif',
  'Helvetica, sans-serif',
  'Times New Roman, serif',
  'Georgia, serif',
  'Courier New, monospace',
] as const;

/** CTR above this percent is 'Above average' (spec 02 §9, DECISIONS 19). */
export const CTR_ABOVE_AVERAGE = 3;

export * from './page-constants';

/** Script preview length and summary entries (spec 02 §9). */
export const SCRIPT_PREVIEW_CHARS = 1000;
export const SCRIPT_SUMMARY_ENTRIES = 5;
export const COPY_CONFIRMATION_MS = 2000;

/** Recent dealers rows on the admin dashboard (spec 01 §9). */
export const RECENT_DEALERS_ROWS = 5;

/** Client render errors kept by the server, newest first (spec 01 §8, §9: error log capped at 50). */
export const CLIENT_ERROR_LOG_LIMIT = 50;

/** Aged inventory threshold in days on lot (spec 02 §9). */
export const AGED_DAYS = 60;

/** Analytics auto-refresh interval (spec 02 §9). */
export const ANALYTICS_REFRESH_MS = 300_000;

/** User-facing texts the spec fixes (spec 01 §8, spec 02 §8). */
export const TEXT = {
  invalidCredentials: 'Invalid credentials',
  loginFailed: 'Login failed',
  invalidFilename: 'Invalid filename format. Expected: new_{year}_{manufacturer}_{model}_{trim}_{size}.{ext}',
  /**
   * The spec's hint ('with the example {hash}.jpg') shown as a real file name: a literal '{hash}' read
   * as a placeholder nobody can type.
   */
  invalidFilenameHint: 'Example: new_2025_honda_civic_sport_1920x300.jpg',
  invalidFileTypeOrSize: 'Invalid file type or size',
  failedToReadFile: 'Failed to read file',
  storageNearlyFull: 'Storage nearly full! Please delete some old assets first.',
  storageFull: 'Storage full - delete assets first',
  storageQuotaExceeded: 'Storage quota exceeded or data too large',
  dealerNotFound: 'Dealer not found',
  dealerIdNotFound: 'Dealer ID not found',
  pageNotFound: 'Page Not Found',
  pageNotFoundBody: 'The requested page could not be found.',
  noAssetsYet: 'No assets yet',
  noAssetsUploaded: 'No assets uploaded',
  noModelsAvailable: 'No models available. Add model mappings first.',
  invalidExportFormat: 'Invalid export format',
  invalidImportData: 'Invalid import data format',
} as const;

/** Period labels of the selector (spec 02 §2 Analytics). */
export const PERIOD_LABELS = { '24h': 'Last 24 Hours', '7d': 'Last 7 Days', '30d': 'Last 30 Days', '90d': 'Last 90 Days' } as const;

/**
 * Deepest nesting of arrays and objects accepted in any JSON the server reads: request bodies,
 * tracking beacons, inventory files and feeds, platform imports. Real
 * documents nest under 10 levels; deeper ones are refused with JSON_TOO_DEEP (HTTP 400).
 */
export const MAX_JSON_DEPTH = 64;
/** The refusal of JSON nested deeper than MAX_JSON_DEPTH. */
export const JSON_TOO_DEEP = `JSON nested too deeply (limit ${MAX_JSON_DEPTH} levels)`;

/** Inventory limits: largest upload or feed body, most vehicles in one inventory. */
export const MAX_INVENTORY_BYTES = 20 * 1024 * 1024;
export const MAX_VEHICLES = 50_000;
/**
 * Inventory file limits checked while the file is read, uploads and feeds alike: a file past one is
 * refused as soon as it is crossed, before the rest is read. Columns per CSV record; characters per
 * CSV cell; bytes per physical line (and characters per record, so a quoted field spanning many
 * short lines is bounded too); characters of a vehicle's model name (a longer one skips its row;
 * the delivery paths take model names of at most 100 characters).
 */
export const MAX_INVENTORY_COLUMNS = 100;
export const MAX_INVENTORY_CELL_CHARS = 1_000;
export const MAX_INVENTORY_LINE_BYTES = 10_000;
export const MAX_INVENTORY_MODEL_CHARS = 100;
/** The refusals naming each inventory limit; `source` is 'file' (upload) or 'feed'. */
export const INVENTORY_LIMIT_TEXT = {
  bytes: (source: 'file' | 'feed') => `Inventory ${source} is larger than 20 MB (${MAX_INVENTORY_BYTES} bytes)`,
  rows: (source: 'file' | 'feed') => `Inventory ${source} has more than ${MAX_VEHICLES.toLocaleString('en-US')} rows`,
  vehicles: (source: 'file' | 'feed') => `Inventory ${source} has more than ${MAX_VEHICLES.toLocaleString('en-US')} vehicles`,
  columns: `Inventory file has more than ${MAX_INVENTORY_COLUMNS} columns`,
  cell: `Inventory file has a cell longer than ${MAX_INVENTORY_CELL_CHARS.toLocaleString('en-US')} characters`,
  line: `Inventory file has a line longer than ${MAX_INVENTORY_LINE_BYTES.toLocaleString('en-US')} bytes`,
  /** The skip reason of a row whose model name is too long. */
  model: `model name is longer than ${MAX_INVENTORY_MODEL_CHARS} characters`,
} as const;
/**
 * Default feed fetch timeout (spec 02 §9, DECISIONS 20; the server's FEED_TIMEOUT_MS overrides it)
 * and the most redirects a feed may follow.
 */
export const FEED_TIMEOUT_MS = 15_000;

/**
 * Default longest time a dealer's cached delivery settings keep serving banners, the embed script
 * and beacons while the database cannot be read (stale-if-error; the server's DELIVERY_MAX_STALE_MS
 * overrides it): 24 hours after they were last read.
 */
export const DELIVERY_MAX_STALE_MS = 24 * 3600_000;

/**
 * Default crash-loss bound of tracking beacons, ms (the server's EVENT_MAX_UNSECURED_MS overrides
 * it): the age at which the oldest acknowledged event neither in the database nor in the event
 * journal makes the intake answer 503 with Retry-After, so a kill -9 loses at most this window.
 */
export const MAX_UNSECURED_MS = 250;
export const FEED_MAX_REDIRECTS = 3;
/** How often an active feed runs, milliseconds, per update frequency (spec 02 §3 InventoryFeed). */
export const FEED_INTERVAL_MS = { hourly: 3_600_000, 'every-4-hours': 4 * 3_600_000, daily: 86_400_000 } as const;
/** Feed runs kept per dealer, newest first; older runs are pruned. */
export const FEED_RUNS_KEPT = 50;
/**
 * How long a claimed feed run holds its feed before another process may take it over, ms; the
 * retention job never prunes a 'running' run younger than this (the feed claim and retention share it).
 */
export const FEED_LEASE_MS = 5 * 60_000;
/** Priority groups of the inventory preview: score ranges (spec 02 §2 Inventory, §9). */
export const PRIORITY_GROUPS = [
  { label: 'High Priority', min: 8, max: 10 },
  { label: 'Normal Priority', min: 4, max: 7 },
  { label: 'Low Priority', min: 1, max: 3 },
] as const;
/** A model with at least this many units of one trim is a trim-upsell opportunity (spec 01 §9 step 1). */
export const DEEP_TRIM_UNITS = 5;

/** Inventory texts the spec fixes (spec 02 §2 Inventory, §5 Inventory upload and Feed, §8; DECISIONS 20). */
export const INVENTORY_TEXT = {
  title: 'Inventory Management',
  subtitle: 'Configure automatic inventory feeds or manually upload inventory data to optimize upsell rules',
  unsupported: 'Unsupported file format. Please upload JSON or CSV.',
  badStructure: 'Invalid JSON structure. Expected "Inventory.ListOfVehicles" array or direct vehicle array.',
  failed: 'Failed to process file',
  uploadError: 'Upload Error',
  apply: 'Apply Inventory Data',
  noData: 'No inventory data uploaded',
  enterFeedUrl: 'Please enter a feed URL',
  notArray: 'Vehicle data is not in array format',
  empty: 'Feed returned empty inventory data',
  noNew: 'No new vehicles found in inventory data. Make sure vehicles have "IsNew": true',
  fetchFailed: 'Failed to fetch inventory feed',
  /** The timeout message at the default FEED_TIMEOUT_MS (DECISIONS 20); feedTimeoutText for another deadline. */
  timeout: 'Request timed out after 15 seconds. The feed may be too large or the server is slow to respond.',
  /** A run left 'running' by a stopped server, once its lease expired. */
  runInterrupted: 'Run interrupted: the server stopped before it finished',
  /** The feed failure box's four tips (spec 02 §8); the CORS tip reads for a server-side fetch. */
  failureTips: [
    'The feed URL is reachable and returns JSON',
    'The feed server allows requests from our server (no sign-in or IP allow-list in the way)',
    'The data structure matches the expected format below',
    'Try opening the feed URL directly in your browser',
  ],
} as const;

/**
 * The feed timeout message for a deadline of `ms` milliseconds: INVENTORY_TEXT.timeout at the
 * default 15 s (DECISIONS 20), the same sentence naming the configured deadline otherwise
 * (e.g. 200 -> "Request timed out after 0.2 seconds. ...").
 */
export function feedTimeoutText(ms: number): string {
  const seconds = Number((ms / 1000).toFixed(3));
  return `Request timed out after ${seconds} second${seconds === 1 ? '' : 's'}. The feed may be too large or the server is slow to respond.`;
}

/**
 * Upload request limits: at most MAX_UPLOAD_FILES files per asset upload request
 * (the web app sends one per request; API clients may batch), each at most MAX_ASSET_BYTES, and a
 * file name of at most MAX_FILENAME_LENGTH characters (real banner names are under 80).
 */
export const MAX_UPLOAD_FILES = 20;
export const MAX_FILENAME_LENGTH = 200;
/** The refusals that name each upload limit. */
export const UPLOAD_TEXT = {
  tooManyFiles: `Too many files: at most ${MAX_UPLOAD_FILES} per upload`,
  filenameTooLong: `File name is too long: at most ${MAX_FILENAME_LENGTH} characters`,
} as const;

/**
 * Length limits of stored free text in API bodies and imports, characters:
 * ids and slugs, names, model/map keys, colours, patterns, URLs, domains, list lengths and map
 * sizes. Generous for real data (the catalogue's longest name is under 40 characters), small
 * enough that no single field can bloat a row, a cache entry or a page.
 */
export const TEXT_LIMITS = {
  id: 100,
  name: 200,
  key: 100,
  color: 20,
  pattern: 200,
  url: 2048,
  domain: 253,
  email: 254,
  password: 200,
  listItems: 500,
  mapEntries: 2000,
} as const;

/**
 * How Analytics and the weekly report name a creative that is not an uploaded asset, by
 * CreativePerformance.kind; an asset goes by its file name, or DELETED_ASSET_LABEL once deleted.
 */
export const CREATIVE_LABELS: Record<string, string> = {
  cdn: 'CDN image',
  fallback: 'Fallback image',
  placeholder: 'Placeholder',
  unknown: 'Not recorded (older script)',
};
export const DELETED_ASSET_LABEL = 'Deleted asset';
/** How Analytics names the row summing the creatives beyond MAX_ANALYTICS_CREATIVES (model OTHER_MODELS). */
export const OTHER_CREATIVES_LABEL = 'All other creatives';

/**
 * Most model keys an analytics answer lists per dealer (the dashboard's models, the CSV per day, the
 * weekly report): the ones with the most impressions in the period; the rest are summed into one
 * OTHER_MODELS row, so the answer stays small whatever keys are stored (rows written before
 * beacons were limited to the dealer's known models included). Far above a real dealer's models.
 */
export const MAX_ANALYTICS_MODELS = 100;
/**
 * Most (creative, model, slot) rows an analytics answer lists, by impressions; the rest are summed
 * into one row of kind 'unknown' named OTHER_MODELS.
 */
export const MAX_ANALYTICS_CREATIVES = 200;
