/**
 * Drizzle schema: the tables of the product. Changes here become SQL migrations with
 * `npm run db:generate` (drizzle-kit); migrations are the only way the schema changes.
 *
 * Design notes:
 * - A manufacturer's catalogue (models with their trims, default mappings, upsell rules, trim
 *   patterns) is JSONB on the manufacturer row: it is always read and edited as one document,
 *   is small (tens of models), and nothing queries across manufacturers' models.
 * - A dealer's settings groups (asset storage, configs, fallback assets, branding, security,
 *   notifications) are JSONB columns validated by the domain zod schemas at the API boundary;
 *   each group is replaced whole in one transaction.
 * - Asset bytes live in `asset_blobs`, apart from the metadata, so listing assets never reads bytes.
 * - `dealers.version` increases on every change that affects delivery (dealer settings, assets,
 *   inventory, the manufacturer's catalogue), raised by database triggers (migration 0007), so
 *   caches keyed by it invalidate across server processes.
 *
 * Spec 01 §3, spec 02 §3, DECISIONS 1, 10.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  smallint,
  bigserial,
  boolean,
  check,
  primaryKey,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import type {
  FieldMapping,
  InventoryData,
  AssetStorage,
  Branding,
  DealerConfigs,
  FallbackAssets,
  Notifications,
  ParsedFilename,
  Security,
  VehicleModel,
  AssetReplacement,
} from '../../domain/schemas';
import { DEVICE_CLASSES, TRACK_EVENTS } from '../../domain/enums';
import type { AssetOrigin } from '../../domain/campaigns';

/** PostgreSQL bytea as a Node Buffer (pg returns Buffer, PGlite a Uint8Array: normalised here). */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength)),
  toDriver: (v) => v,
});

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

export const manufacturers = pgTable('manufacturers', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  logoUrl: text('logo_url').notNull().default(''),
  primaryColor: text('primary_color').notNull().default('#000000'),
  secondaryColor: text('secondary_color').notNull().default('#666666'),
  models: jsonb('models').$type<VehicleModel[]>().notNull().default([]),
  defaultModelMappings: jsonb('default_model_mappings').$type<Record<string, string>>().notNull().default({}),
  defaultUpsellRules: jsonb('default_upsell_rules').$type<Record<string, string>>().notNull().default({}),
  defaultTrimPatterns: jsonb('default_trim_patterns').$type<Record<string, string[]>>().notNull().default({}),
  providerCompatibility: jsonb('provider_compatibility').$type<string[]>().notNull().default([]),
  assetNamingConvention: text('asset_naming_convention').notNull().default(''),
  ...timestamps,
});

export const dealers = pgTable(
  'dealers',
  {
    id: text('id').primaryKey(),
    /**
     * The dealer's integer key in events (events.dealer_key, migration 0025): 4 bytes where the text
     * id takes about 18 in every event row. Assigned by the database, never reused; dealer_purges
     * keeps a deleted dealer's key until its events are purged.
     */
    key: integer('key').generatedAlwaysAsIdentity().notNull().unique(),
    name: text('name').notNull(),
    manufacturerId: text('manufacturer_id')
      .notNull()
      .references(() => manufacturers.id),
    websiteUrl: text('website_url').notNull(),
    provider: text('provider').notNull(),
    status: text('status').notNull().default('active'),
    assetStorage: jsonb('asset_storage').$type<AssetStorage>().notNull(),
    configs: jsonb('configs').$type<DealerConfigs>().notNull(),
    fallbackAssets: jsonb('fallback_assets').$type<FallbackAssets>().notNull(),
    branding: jsonb('branding').$type<Branding>().notNull(),
    security: jsonb('security').$type<Security>().notNull(),
    notifications: jsonb('notifications').$type<Notifications>().notNull(),
    /** IANA time zone the dealer enters promotion schedules in; null = the server's zone. */
    timeZone: text('time_zone'),
    version: integer('version').notNull().default(1),
    ...timestamps,
  },
  (t) => [
    index('dealers_manufacturer_idx').on(t.manufacturerId),
    // The admin dealer list's name and creation-date sorts (with the id as tie-breaker) walk these.
    index('dealers_name_id_idx').on(sql`lower(${t.name})`, t.id),
    index('dealers_created_at_id_idx').on(t.createdAt, t.id),
  ],
);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    role: text('role').notNull(),
    dealerId: text('dealer_id').references(() => dealers.id, { onDelete: 'set null' }),
    passwordHash: text('password_hash').notNull(),
    /** True while the password is the public demo one the seed set; any password change clears it. */
    demoPassword: boolean('demo_password').notNull().default(false),
    isActive: boolean('is_active').notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`)],
);

/**
 * Invitations to set a password (migration 0020): creating a user e-mails a one-time link whose
 * token is stored only as its SHA-256 (hex). A token works once (`used_at`) and until `expires_at`.
 */
export const userInvitations = pgTable(
  'user_invitations',
  {
    /** sha256 of the link's token, hex; the token itself is never stored. */
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('user_invitations_user_idx').on(t.userId)],
);

export const sessions = pgTable(
  'sessions',
  {
    /** sha256 of the cookie token, hex; the token itself is never stored. */
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const assets = pgTable(
  'assets',
  {
    id: uuid('id').primaryKey(),
    dealerId: text('dealer_id')
      .notNull()
      .references(() => dealers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').notNull(),
    model: text('model').notNull(),
    /** modelKey(model), for lookups by the shared comparison key (DECISIONS 25). */
    modelKey: text('model_key').notNull(),
    trim: text('trim').notNull(),
    year: text('year').notNull(),
    manufacturer: text('manufacturer').notNull(),
    mimeType: text('mime_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    parsedMetadata: jsonb('parsed_metadata').$type<ParsedFilename>().notNull(),
    /** SHA-256 of the file's bytes, hex (the same file uploaded again is offered as already uploaded). */
    contentHash: text('content_hash'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Promotion schedule: shown from starts_at (inclusive) until ends_at (exclusive); null = open. */
    startsAt: timestamp('starts_at', { withTimezone: true }),
    endsAt: timestamp('ends_at', { withTimezone: true }),
    /**
     * Earlier files of this creative, oldest first: each replacement
     * keeps the asset's id (so its statistics, window and settings) and records here when, by which
     * file name, and the size of the bytes it replaced.
     */
    replacements: jsonb('replacements').$type<AssetReplacement[]>().notNull().default([]),
    /**
     * The campaign the asset belongs to (migration 0018), or null. A campaign's asset is live only
     * while its campaign is published and inside the campaign's window (the campaign owns the
     * window; the asset's own starts_at/ends_at are not used); deleting the campaign deletes it.
     */
    campaignId: uuid('campaign_id').references((): AnyPgColumn => campaigns.id, { onDelete: 'cascade' }),
    /**
     * Where the asset was uploaded (migration 0027): 'campaign' = into its campaign, deleted with
     * it; 'library' = to the dealer's assets (a campaign it is chosen into only borrows it: deleting
     * the campaign, or detaching it, returns it to the library with its own schedule).
     */
    origin: text('origin').$type<AssetOrigin>().notNull().default('library'),
  },
  (t) => [
    index('assets_dealer_model_idx').on(t.dealerId, t.modelKey),
    index('assets_dealer_hash_idx').on(t.dealerId, t.contentHash),
    check('assets_window_order', sql`${t.endsAt} IS NULL OR ${t.startsAt} IS NULL OR ${t.endsAt} > ${t.startsAt}`),
    check('assets_origin', sql`${t.origin} IN ('library', 'campaign')`),
    index('assets_campaign_idx').on(t.campaignId),
  ],
);

/**
 * Named promotion campaigns of a dealer (migration 0018; domain/campaigns.ts): a window
 * [starts_at, ends_at) in UTC (entered in the dealer's time zone), the models and slots it
 * covers (empty = all), its mode ('takeover': its creatives replace the regular ones of those
 * slots and models during the window; 'rotate': they join the regular rotation) and its status
 * ('draft', 'published', 'paused', 'ended'). Its creatives are the assets whose campaign_id names
 * it. Every write raises dealers.version (the campaigns_version_* triggers).
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: uuid('id').primaryKey(),
    dealerId: text('dealer_id')
      .notNull()
      .references(() => dealers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    mode: text('mode').$type<'takeover' | 'rotate'>().notNull(),
    status: text('status').$type<'draft' | 'published' | 'paused' | 'ended'>().notNull().default('draft'),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }),
    /** Standard model names the campaign covers; [] = every model. */
    models: jsonb('models').$type<string[]>().notNull().default([]),
    /** Slot types the campaign covers; [] = every slot. */
    slots: jsonb('slots').$type<Array<'header' | 'primary' | 'upsell'>>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('campaigns_dealer_idx').on(t.dealerId, t.startsAt),
    check('campaigns_window_order', sql`${t.endsAt} IS NULL OR ${t.endsAt} > ${t.startsAt}`),
    check('campaigns_mode', sql`${t.mode} IN ('takeover', 'rotate')`),
    check('campaigns_status', sql`${t.status} IN ('draft', 'published', 'paused', 'ended')`),
  ],
);

export const assetBlobs = pgTable('asset_blobs', {
  assetId: uuid('asset_id')
    .primaryKey()
    .references(() => assets.id, { onDelete: 'cascade' }),
  data: bytea('data').notNull(),
});

/** The kinds of tracking event (TRACK_EVENTS, fixed by spec 01 §7 and DECISIONS 17), stored as an enum: 4 bytes a row. */
export const eventKind = pgEnum('event_kind', TRACK_EVENTS);

/**
 * device_class (migration 0024): the device a beacon came from (domain/device.ts deviceOf),
 * 'unknown' for events and rollups stored before it was recorded.
 */
export const deviceClass = pgEnum('device_class', DEVICE_CLASSES);

/**
 * Raw tracking events. Migration 0014 makes this a native partitioned table, PARTITION BY RANGE
 * (occurred_at), one partition per UTC week (Monday 00:00) named events_YYYYMMDD, which drizzle
 * cannot express: the definition below is the parent's columns and indexes only. Partitions are
 * created ahead and dropped whole by retention (maintenance/partitions.ts). No primary key (a
 * unique index on a partitioned table must include occurred_at, and nothing reads events by id)
 * and no unique index: counting once is decided by `event_keys` (tracking/service.ts).
 */
export const events = pgTable(
  'events',
  {
    // Fixed-width columns first (migration 0022): no alignment padding between them and the texts.
    /** When our server received the event (the client's clock is not trusted for reporting); the partition key. */
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    /** event_kind (migration 0017): 4 bytes where the text took 11. */
    event: eventKind('event').notNull(),
    /**
     * The page URL, as the id of its row in `event_urls` (migration 0022: 4 bytes where the text
     * took about 60); null when unknown. The URL is in its privacy-safe form: origin, path and the
     * providers' model filters only.
     */
    urlId: integer('url_id'),
    /**
     * The dealer's dealers.key (migration 0025: 4 bytes where the text id took about 18). No foreign
     * key (migration 0021): a deleted dealer's rows are purged in batches (dealer_purges).
     */
    dealerKey: integer('dealer_key').notNull(),
    /**
     * The device the beacon came from (migration 0024; 'unknown' before it); a conversion's is its
     * own request's. With the fixed-width columns (migration 0025 rebuilds the table).
     */
    device: deviceClass('device').notNull().default('unknown'),
    slotType: text('slot_type'),
    model: text('model').notNull().default(''),
    /**
     * The page view the embed script rendered the banner in (a random id per page view and slot
     * render). A click is stored only when an impression of the same dealer, page view and slot
     * type exists, and at most once: clicks cannot exceed rendered banners. For a conversion, the
     * page view of the banner click it is attributed to.
     */
    pageView: text('page_view'),
    // No lead id (migration 0025): a conversion's lead is its 'lead' row of event_keys, the hash of
    // the dealer site's lead id (tracking/service.ts leadIdHash), kept as long as the events. With 8
    // columns the row header is 24 bytes, not 32.
    /**
     * The creative the slot showed: the uploaded asset's id, or 'cdn', 'fallback' or
     * 'placeholder'; null when the beacon did not say (scripts before creative analytics). The track
     * route resolves it from the banner request the beacon names (delivery/service.ts creativeOf);
     * a conversion takes its click's.
     */
    creative: text('creative'),
  },
  (t) => [
    // The only reader by time: lastEventAt looks at one hour of events (analytics/service.ts). A
    // BRIN index is a few pages per partition where a btree took 64 bytes per event.
    index('events_occurred_brin').using('brin', t.occurredAt),
  ],
);

/**
 * The page URLs of events, each stored once (migration 0022); events.url_id names a row. Global
 * (a URL's origin names its dealer's site) and never pruned, so ids cached by a server process
 * (tracking/service.ts UrlIds) stay valid; it grows with the distinct pages of the dealers' sites.
 */
export const eventUrls = pgTable('event_urls', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  url: text('url').notNull().unique(),
});

/**
 * What makes an event count once (tracking/service.ts), one row per counted key, written in the
 * same statement as the event with ON CONFLICT DO NOTHING, so two writers of the same retried
 * beacon store one. Kinds and keys: 'impression' and 'click' (page view, slot type), 'conversion'
 * (page view, slot ''), 'lead' (lead id hash, slot ''). An impression row also tells a click which
 * model its page view showed; a click row tells a conversion its creative and slot. Kept for
 * EVENT_KEY_TTL_MS ('lead' rows for EVENT_RETENTION_DAYS), pruned by the retention job.
 */
export const eventKeys = pgTable(
  'event_keys',
  {
    // No foreign key (migration 0021): a deleted dealer's rows are purged in batches (dealer_purges).
    dealerId: text('dealer_id').notNull(),
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    slotType: text('slot_type').notNull().default(''),
    /** The counted event's occurred_at. */
    at: timestamp('at', { withTimezone: true }).notNull(),
    model: text('model').notNull().default(''),
    creative: text('creative'),
  },
  (t) => [primaryKey({ columns: [t.dealerId, t.kind, t.key, t.slotType] }), index('event_keys_at_idx').on(t.at)],
);

/**
 * Hourly rollups per dealer, model key, slot type, creative and device (spec 02 §2 Analytics, DECISIONS 18),
 * written with the event batches. Read for the hours of the detailed screens (the 24h period,
 * today's partial day, the weekly report's dealer-local days) and kept DETAIL_HOURLY_DAYS only
 * (reporting/service.ts); older hours live on in the daily rollups and dealer_rollups_hourly.
 */
export const eventRollupsHourly = pgTable(
  'event_rollups_hourly',
  {
    // No foreign key (migration 0021): a deleted dealer's rows are purged in batches (dealer_purges).
    dealerId: text('dealer_id').notNull(),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    model: text('model').notNull(),
    slotType: text('slot_type').notNull(),
    /** events.creative, '' when unknown (events stored before creative analytics). */
    creative: text('creative').notNull().default(''),
    impressions: integer('impressions').notNull().default(0),
    clicks: integer('clicks').notNull().default(0),
    conversions: integer('conversions').notNull().default(0),
    /** events.device (migration 0024). */
    device: deviceClass('device').notNull().default('unknown'),
  },
  // hour: the platform screens read the last hours of every dealer (24h, today's partial day).
  // Partitioned by UTC day (migration 0028; maintenance/partitions.ts): drizzle does not declare it.
  (t) => [primaryKey({ columns: [t.dealerId, t.hour, t.model, t.slotType, t.creative, t.device] }), index('event_rollups_hourly_hour_idx').on(t.hour)],
);

/**
 * Each (model key, slot type, creative) of the detailed daily rollups stored once (migration 0026),
 * so event_rollups_daily carries a 4-byte id instead of the three texts. Global, never pruned (the
 * distinct models, slots and creatives of every dealer's banners); written by the rollup triggers.
 */
export const rollupDetails = pgTable(
  'rollup_details',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    model: text('model').notNull(),
    slotType: text('slot_type').notNull(),
    creative: text('creative').notNull(),
  },
  (t) => [unique('rollup_details_model_slot_type_creative_unique').on(t.model, t.slotType, t.creative)],
);

/**
 * Daily rollups (UTC day) per dealer, model key, slot type, creative and device: the full days of every
 * dealer screen's models and creatives, export and report (server/reporting). Kept
 * DETAIL_DAILY_DAYS (the longest detailed read is the 90-day period); maintained by database
 * triggers on event_rollups_hourly (migration 0015), so they always equal the hourly rows
 * written, whoever writes them, while the hourly rows are pruned after DETAIL_HOURLY_DAYS.
 * Since migration 0026 a row names the dealer by its key and the model, slot type and creative by
 * their rollup_details id: fixed-width columns only (28 bytes, no padding).
 */
export const eventRollupsDaily = pgTable(
  'event_rollups_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    /** The dealer's dealers.key. */
    dealerKey: integer('dealer_key')
      .notNull()
      .references(() => dealers.key, { onDelete: 'cascade' }),
    /**
     * The row's model, slot type and creative ('' when unknown), as their rollup_details id. No
     * foreign key: details are never deleted, the rollup trigger takes the id from that table, and
     * the key's check would lock every detail row of each ingestion batch.
     */
    detailId: integer('detail_id').notNull(),
    device: deviceClass('device').notNull().default('unknown'),
    impressions: integer('impressions').notNull().default(0),
    clicks: integer('clicks').notNull().default(0),
    conversions: integer('conversions').notNull().default(0),
  },
  // No day index (migration 0026): the retention job prunes each dealer's old days through the primary key.
  (t) => [primaryKey({ columns: [t.dealerKey, t.day, t.detailId, t.device] })],
);

/**
 * One row per dealer, UTC hour and device (migration 0024): the hour's totals, for the totals of windows whose partial-day
 * edge is older than the detailed hourly rollups are kept (the previous window of the 7, 30 and
 * 90-day periods ends in a partial day one period back). Maintained with the daily rollups by the
 * same triggers (migration 0017); kept HOURLY_ROLLUP_DAYS (domain/retention.ts).
 */
export const dealerRollupsHourly = pgTable(
  'dealer_rollups_hourly',
  {
    // The hour first, then the dealer's dealers.key (migration 0025): no alignment padding, 4 bytes where the text id took about 18.
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    dealerKey: integer('dealer_key')
      .notNull()
      .references(() => dealers.key, { onDelete: 'cascade' }),
    /** Per device (migration 0024), so a device's totals of any window read the same rows. */
    device: deviceClass('device').notNull().default('unknown'),
    impressions: integer('impressions').notNull().default(0),
    clicks: integer('clicks').notNull().default(0),
    conversions: integer('conversions').notNull().default(0),
  },
  // hour: the platform screens' totals over every dealer, and the pruning. Partitioned by UTC day (migration 0028).
  (t) => [primaryKey({ columns: [t.dealerKey, t.hour, t.device] }), index('dealer_rollups_hourly_hour_idx').on(t.hour)],
);

/**
 * One row per dealer, UTC day and device (migration 0024): the day's totals, for the admin screens and the dealer totals
 * and series (server/reporting). Maintained with event_rollups_daily by the same triggers.
 */
export const dealerRollupsDaily = pgTable(
  'dealer_rollups_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    /** The dealer's dealers.key (migration 0025): 4 bytes where the text id took about 18, in the row and the primary key. */
    dealerKey: integer('dealer_key')
      .notNull()
      .references(() => dealers.key, { onDelete: 'cascade' }),
    device: deviceClass('device').notNull().default('unknown'),
    // integer, not bigint (migration 0017): a dealer's day is far below 2^31 events, and its two index entries are 12 bytes shorter.
    impressions: integer('impressions').notNull().default(0),
    clicks: integer('clicks').notNull().default(0),
    conversions: integer('conversions').notNull().default(0),
  },
  // day: the platform screens' windows (every dealer, a range of days). Not covering (migration
  // 0025): the counts are read from the heap, and each entry is 20 bytes where it took 52.
  (t) => [primaryKey({ columns: [t.dealerKey, t.day, t.device] }), index('dealer_rollups_daily_day_idx').on(t.day)],
);

/**
 * Each dealer's newest recorded event time (migration 0030), written with the events by ingestion
 * (tracking/service.ts withRollup): 'Last updated' without reading raw events.
 */
export const dealerLastEvents = pgTable('dealer_last_events', {
  dealerKey: integer('dealer_key')
    .primaryKey()
    .references(() => dealers.key, { onDelete: 'cascade' }),
  at: timestamp('at', { withTimezone: true }).notNull(),
});

/** The columns of a platform rollup (migration 0029): device, the writer's shard and the counts. */
const platformCounts = () => ({
  device: deviceClass('device').notNull(),
  /** The writing backend's pid modulo 16, so concurrent writers do not queue on one row; readers sum the shards. */
  shard: smallint('shard').notNull(),
  impressions: bigint('impressions', { mode: 'number' }).notNull().default(0),
  clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
  conversions: bigint('conversions', { mode: 'number' }).notNull().default(0),
});

/**
 * Every dealer's dealer_rollups_hourly summed per UTC hour and device (migration 0029, kept so by
 * triggers on that table): the platform's totals and series over any hours without reading a row per
 * dealer. Kept HOURLY_ROLLUP_DAYS, as the dealer hours.
 */
export const platformRollupsHourly = pgTable(
  'platform_rollups_hourly',
  { hour: timestamp('hour', { withTimezone: true }).notNull(), ...platformCounts() },
  (t) => [primaryKey({ columns: [t.hour, t.device, t.shard] })],
);

/** Every dealer's dealer_rollups_daily summed per UTC day and device (migration 0029), kept for ever. */
export const platformRollupsDaily = pgTable(
  'platform_rollups_daily',
  { day: date('day', { mode: 'string' }).notNull(), ...platformCounts() },
  (t) => [primaryKey({ columns: [t.day, t.device, t.shard] })],
);

/** Every dealer's all-time totals (the dealer list and the Admin Dashboard), maintained with the daily rollups. */
export const dealerRollupTotals = pgTable('dealer_rollup_totals', {
  dealerId: text('dealer_id')
    .primaryKey()
    .references(() => dealers.id, { onDelete: 'cascade' }),
  impressions: bigint('impressions', { mode: 'number' }).notNull().default(0),
  clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
  conversions: bigint('conversions', { mode: 'number' }).notNull().default(0),
});

/** The dealer's current inventory (spec 02 §3 InventoryData) and the rules generated from it. */
export const dealerInventory = pgTable('dealer_inventory', {
  dealerId: text('dealer_id')
    .primaryKey()
    .references(() => dealers.id, { onDelete: 'cascade' }),
  data: jsonb('data').$type<InventoryData>().notNull(),
  /** Inventory-optimised upsell rules (spec 01 §9 "Optimal upsell rule selection"). */
  upsellRules: jsonb('upsell_rules').$type<Record<string, string>>().notNull().default({}),
  source: text('source').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A dealer's automatic inventory feed (spec 02 §3 InventoryFeed, DECISIONS 20). */
export const inventoryFeeds = pgTable('inventory_feeds', {
  dealerId: text('dealer_id')
    .primaryKey()
    .references(() => dealers.id, { onDelete: 'cascade' }),
  feedUrl: text('feed_url').notNull(),
  updateFrequency: text('update_frequency').notNull(),
  isActive: boolean('is_active').notNull().default(true),
  fieldMapping: jsonb('field_mapping').$type<FieldMapping>().notNull(),
  lastUpdated: timestamp('last_updated', { withTimezone: true }),
  nextRunAt: timestamp('next_run_at', { withTimezone: true }),
  ...timestamps,
});

/** One run of a feed: when, how it ended, how many vehicles, which error. */
export const feedRuns = pgTable(
  'feed_runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    dealerId: text('dealer_id')
      .notNull()
      .references(() => dealers.id, { onDelete: 'cascade' }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    status: text('status').notNull(),
    vehicleCount: integer('vehicle_count'),
    error: text('error'),
  },
  (t) => [index('feed_runs_dealer_idx').on(t.dealerId, t.startedAt)],
);

/**
 * Render errors caught by the web app's error screen (spec 01 §2, §8: "logged for debugging",
 * last 50 entries). Only the newest CLIENT_ERROR_LOG_LIMIT rows are kept; admins read them.
 */
export const clientErrors = pgTable(
  'client_errors',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    message: text('message').notNull(),
    stack: text('stack'),
    componentStack: text('component_stack'),
    url: text('url').notNull(),
    userAgent: text('user_agent'),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    userEmail: text('user_email'),
  },
  (t) => [index('client_errors_created_idx').on(t.createdAt)],
);

/**
 * Events the writer could not store even alone: after retries and splitting a failed
 * batch, each event that still fails lands here with the database's error, so nothing accepted
 * is silently dropped. Admins see the count on the platform dashboard. `payload` is the event as
 * accepted, with every string JSON-escaped by the writer (so a row here can always be written).
 */
export const eventDeadLetters = pgTable(
  'event_dead_letters',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    dealerId: text('dealer_id').notNull(),
    payload: text('payload').notNull(),
    error: text('error').notNull(),
  },
  (t) => [index('event_dead_letters_created_idx').on(t.createdAt)],
);

/**
 * Periodic maintenance jobs claimed across server processes (retention pruning, stale feed runs):
 * a process runs a job only after moving its next_run_at forward in one UPDATE, like feed claims.
 */
export const jobLeases = pgTable('job_leases', {
  name: text('name').primaryKey(),
  nextRunAt: timestamp('next_run_at', { withTimezone: true }).notNull().defaultNow(),
  lastRunAt: timestamp('last_run_at', { withTimezone: true }),
  lastResult: text('last_result'),
});

/**
 * Dealers deleted whose traffic rows (events, event_keys, event_rollups_hourly: no foreign key to
 * dealers) are still to be purged in batches by the maintenance job (maintenance/dealer-purge.ts).
 * A dealer id listed here cannot be given to a new dealer.
 */
export const dealerPurges = pgTable('dealer_purges', {
  dealerId: text('dealer_id').primaryKey(),
  /** The deleted dealer's dealers.key, which its events carry (migration 0025); null for a dealer deleted before it (its events were not kept). */
  dealerKey: integer('dealer_key'),
  deletedAt: timestamp('deleted_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Sign-in throttle (domain/login-throttle.ts): failed sign-ins per lower-cased email,
 * known or not (so a lock says nothing about whether the account exists), and client IP, keyed
 * "email ip" (throttleKey), and the lock they caused; a row keyed by the bare email serialises the
 * attempts on that email. Kept in the database so every server process sees the same count; a
 * successful sign-in deletes its IP's row, and the retention job prunes rows whose failures are forgotten.
 */
export const loginThrottles = pgTable('login_throttles', {
  emailLower: text('email_lower').primaryKey(),
  failures: integer('failures').notNull().default(0),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true }).notNull(),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
});

/**
 * Every notification e-mail, sent or not: the admin's Outbox. A row is written before
 * the message is sent, and (dealer, dedupe_key) is unique, so an alert or report goes out once even
 * when two processes find it due at the same moment. `status`: 'sending' while the SMTP server is
 * asked, then 'sent', 'failed' (with `error`), 'not-configured' (no SMTP_URL: kept here only) or
 * 'no-recipients' (the dealer has no active dealer-manager).
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The dealer the message is about; null for messages to a user, not about a dealer (an admin's invitation; migration 0020). */
    dealerId: text('dealer_id').references(() => dealers.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    dedupeKey: text('dedupe_key').notNull(),
    recipients: jsonb('recipients').$type<string[]>().notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body').notNull(),
    status: text('status').notNull(),
    error: text('error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('mail_outbox_dedupe_idx').on(t.dealerId, t.dedupeKey), index('mail_outbox_created_idx').on(t.createdAt)],
);

/**
 * Tag health counters (domain/tag-health.ts, tracking/tag-health.ts): per dealer, site origin,
 * reason and UTC hour, how many beacons were counted or refused/dropped. Counters only, no IP,
 * user agent or page address: the origin is the page's `scheme://host[:port]`, at most
 * TAG_HEALTH_ORIGINS_PER_DEALER of them per dealer (the rest under 'other'). Written by upserts
 * that add, so any number of processes flush into the same row; pruned after TAG_HEALTH_KEPT_DAYS.
 */
export const tagHealthHourly = pgTable(
  'tag_health_hourly',
  {
    dealerId: text('dealer_id')
      .notNull()
      .references(() => dealers.id, { onDelete: 'cascade' }),
    origin: text('origin').notNull(),
    reason: text('reason').notNull(),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    beacons: integer('beacons').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.dealerId, t.origin, t.reason, t.hour] }), index('tag_health_hourly_hour_idx').on(t.hour)],
);

/**
 * When a dealer's pages on one origin last sent a beacon for one slot type ('' for a beacon that
 * names none, e.g. a conversion), and when one was last counted (null: never). Upserted with
 * GREATEST, so processes flushing out of order never move a time back.
 */
export const tagLastSeen = pgTable(
  'tag_last_seen',
  {
    dealerId: text('dealer_id')
      .notNull()
      .references(() => dealers.id, { onDelete: 'cascade' }),
    origin: text('origin').notNull(),
    slotType: text('slot_type').notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    lastCountedAt: timestamp('last_counted_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.dealerId, t.origin, t.slotType] })],
);
