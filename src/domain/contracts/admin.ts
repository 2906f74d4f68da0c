/**
 * Contract of the admin API (spec 01 §2-§9, DECISIONS 3, 7-9; docs/API.md "Admin"): the request
 * bodies the server validates (moved here from src/server/admin) and the response schemas
 * of its JSON answers. Response schemas are typed against the shared shapes of ../admin.ts, so a
 * field added there and not here fails the typecheck instead of being dropped by serialisation.
 */
import { z } from 'zod';
import { TEXT_LIMITS } from '../constants';
import {
  ANALYTICS_PERIODS,
  DEALER_STATUSES,
  analyticsPeriodSchema,
  assetStorageSchema,
  brandingSchema,
  dealerNameSchema,
  oneLineNameSchema,
  dealerSchema,
  fallbackAssetSchema,
  manufacturerSchema,
  modelMapSchema,
  notificationsSchema,
  providerSchema,
  roleSchema,
  securitySchema,
  sessionUserSchema,
  timeZoneSchema,
  trimPatternsSchema,
  upsellMapSchema,
  vehicleModelSchema,
} from '../schemas';
import { DEALER_LIST_DEFAULT_ORDER, DEALER_LIST_DEFAULT_PAGE_SIZE, DEALER_LIST_MAX_PAGE_SIZE, PORTFOLIO_SORTS } from '../admin';
import { TAG_REFUSAL_REASONS, type TagRefusalReason } from '../tag-health';
import type { AdminDashboard, AdminUser, ClientErrorEntry, DealerListItem, DealerListPage, ImportResult, InvitationSent, ManufacturerListItem, PlatformAnalytics } from '../admin';

// ---------------------------------------------------------------------------------------------
// Dealers

const websiteUrl = z.url({ protocol: /^https?$/, error: 'must be a URL starting with http:// or https://' }).max(TEXT_LIMITS.url);
const optionalHttpUrl = z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be empty or a URL starting with http:// or https://' })]);

/** Body of POST /api/admin/dealers (DECISIONS 8). */
export const createDealerSchema = z
  .object({
    name: dealerNameSchema,
    manufacturer: z.string().trim().min(1, 'is required').max(TEXT_LIMITS.id),
    websiteUrl,
    provider: providerSchema,
    status: z.enum(DEALER_STATUSES).default('active'),
    /** IANA zone of the dealer's promotion schedules and e-mails; absent: the server's zone. */
    timeZone: timeZoneSchema.optional(),
  })
  .strict();
/** What the New Dealer form sends (status optional: 'active'). */
export type NewDealer = z.input<typeof createDealerSchema>;
export type CreateDealer = z.output<typeof createDealerSchema>;

/**
 * The dealer settings sections, each validated field by field (spec 01 §9): the settings route
 * takes any subset of them, the import (platform.ts) every one.
 */
export const dealerSettingsFields = z.object({
  name: dealerNameSchema,
  websiteUrl,
  provider: providerSchema,
  status: z.enum(DEALER_STATUSES),
  assetStorage: assetStorageSchema.extend({
    baseUrl: optionalHttpUrl,
    storageQuotaBytes: z.number().int().min(1024 * 1024, 'must be at least 1 MB').max(10 * 1024 ** 3, 'must be at most 10 GB'),
  }),
  branding: brandingSchema.extend({ logoUrl: optionalHttpUrl }),
  security: securitySchema,
  notifications: notificationsSchema,
  /** IANA zone promotion schedules are entered in; null returns the dealer to the server's zone. */
  timeZone: timeZoneSchema.nullable(),
});

const fallbackAssetInput = fallbackAssetSchema.extend({
  url: z.url({ protocol: /^https?$/, error: 'must be a URL starting with http:// or https://' }),
});
/** Fallback assets as the import accepts them: each URL an http(s) URL. */
export const fallbackAssetsInputSchema = z.object({
  srpHeaderDesktop: z.array(fallbackAssetInput),
  srpHeaderMobile: z.array(fallbackAssetInput),
  inlineDesktop: z.array(fallbackAssetInput),
  inlineMobile: z.array(fallbackAssetInput),
});

/** Body of PUT /api/admin/dealers/:dealerId/settings: any subset; each section replaces the stored one whole. */
export const dealerSettingsSchema = dealerSettingsFields
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to save: send at least one section');
export type DealerSettingsUpdate = z.output<typeof dealerSettingsSchema>;
/** What the Dealer Settings screen sends. */
export type DealerSettings = z.input<typeof dealerSettingsSchema>;

/** `{ dealer }`: a dealer created, saved or read. */
export const dealerAnswerSchema = z.object({ dealer: dealerSchema });

const dealerListItemSchema: z.ZodType<DealerListItem> = dealerSchema
  .pick({ id: true, name: true, manufacturer: true, manufacturerName: true, websiteUrl: true, provider: true, status: true, createdAt: true })
  .extend({
    impressions: z.number(),
    clicks: z.number(),
    ctr: z.number().nullable(),
    window: z
      .object({ impressions: z.number(), clicks: z.number(), conversions: z.number(), ctr: z.number().nullable(), previousImpressions: z.number(), trend: z.number().nullable() })
      .optional(),
    coverageGaps: z.object({ count: z.number(), models: z.array(z.string()) }).optional(),
    lastEventAt: z.string().nullable().optional(),
    tagHealth: z
      .object({
        counted: z.number(),
        refused: z.number(),
        byReason: z.object(Object.fromEntries(TAG_REFUSAL_REASONS.map((r) => [r, z.number()])) as Record<TagRefusalReason, z.ZodNumber>),
      })
      .optional()
      .describe('With period only: beacons of the last 24 h counted, refused or dropped in all, and by reason (domain/tag-health.ts)'),
  });

const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/**
 * Query of GET /api/admin/dealers (every parameter optional): page (1-based, default 1), pageSize
 * (1-100, default 24), sort (DEALER_LIST_SORTS, default created), order (asc|desc, default
 * DEALER_LIST_DEFAULT_ORDER of the sort), q (case-insensitive part of the name, id or website URL),
 * manufacturer (a manufacturer id), period (24h|7d|30d|90d: each item also carries the figures of
 * that window, its trend, coverage gaps, last event and tag health of the last 24 h, and figure
 * sorts use the window; sort=trend and sort=refused, the beacons refused or dropped in the last
 * 24 h, need it). Unknown parameters are refused, each error names its parameter.
 */
export const dealerListQuery = z
  .object({
    page: intParam(1, 1_000_000).optional().describe('1-based page number, default 1'),
    pageSize: intParam(1, DEALER_LIST_MAX_PAGE_SIZE).optional().describe(`dealers per page, 1-${DEALER_LIST_MAX_PAGE_SIZE}, default ${DEALER_LIST_DEFAULT_PAGE_SIZE}`),
    sort: z.enum(PORTFOLIO_SORTS).default('created'),
    order: z.enum(['asc', 'desc']).optional(),
    q: z.string().trim().max(200, 'must be at most 200 characters').optional(),
    manufacturer: z.string().trim().min(1, 'must not be empty').max(TEXT_LIMITS.id).optional(),
    period: analyticsPeriodSchema.optional(),
  })
  .strict()
  .refine((v) => v.sort !== 'trend' || v.period !== undefined, { path: ['sort'], message: 'trend needs a period (period=7d, 30d or 90d)' })
  .refine((v) => v.sort !== 'refused' || v.period !== undefined, { path: ['sort'], message: 'refused needs a period (period=24h, 7d, 30d or 90d)' })
  .transform((v) => ({
    page: v.page ?? 1,
    pageSize: v.pageSize ?? DEALER_LIST_DEFAULT_PAGE_SIZE,
    sort: v.sort,
    order: v.order ?? DEALER_LIST_DEFAULT_ORDER[v.sort],
    q: v.q || undefined,
    manufacturer: v.manufacturer,
    period: v.period,
  }));
/** The list request after defaults (the server's listDealers input). */
export type DealerListQuery = z.output<typeof dealerListQuery>;
/** What the web app may send (all optional, as strings or numbers it turns into a query string). */
export type DealerListParams = Partial<Omit<DealerListQuery, 'page' | 'pageSize'> & { page: number; pageSize: number }>;

export const dealerListSchema: z.ZodType<DealerListPage> = z.object({
  items: z.array(dealerListItemSchema),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
  window: z.object({ period: z.enum(ANALYTICS_PERIODS), from: z.string(), to: z.string() }).optional(),
});

// ---------------------------------------------------------------------------------------------
// Manufacturers

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color like #CC0000');
const optionalUrl = z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be empty or a URL starting with http:// or https://' }).max(TEXT_LIMITS.url)]);

/** The editable fields of a manufacturer (the form plus the catalogue): POST and PUT /api/admin/manufacturers bodies. */
export const manufacturerInputSchema = z
  .object({
    name: oneLineNameSchema(80),
    logoUrl: optionalUrl.default(''),
    primaryColor: hexColor.default('#000000'),
    secondaryColor: hexColor.default('#666666'),
    providerCompatibility: z.array(providerSchema).default([]),
    assetNamingConvention: z.string().max(200).default(''),
    models: z
      .array(vehicleModelSchema)
      .default([])
      .refine((ms) => new Set(ms.map((m) => m.name.toLowerCase())).size === ms.length, 'model names must be unique')
      .refine((ms) => ms.every((m) => m.msrp.min <= m.msrp.max), 'each model MSRP min must not exceed its max'),
    defaultModelMappings: modelMapSchema.default({}),
    defaultUpsellRules: upsellMapSchema.default({}),
    defaultTrimPatterns: trimPatternsSchema.default({}),
  })
  .strict();
/** The manufacturer as the server stores it after defaults. */
export type ManufacturerInput = z.output<typeof manufacturerInputSchema>;

export const manufacturerAnswerSchema = z.object({ manufacturer: manufacturerSchema });
const manufacturerListItemSchema: z.ZodType<ManufacturerListItem> = manufacturerSchema.extend({ dealerCount: z.number() });
export const manufacturerListSchema = z.object({ manufacturers: z.array(manufacturerListItemSchema) });

// ---------------------------------------------------------------------------------------------
// Users

import { MIN_PASSWORD_LENGTH } from '../passwords';
export { MIN_PASSWORD_LENGTH };
const password = z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(200);

/** `:id` of a user route: a malformed id is simply not found (404). */
export const userParams = z.object({ id: z.uuid({ error: 'User not found' }) });

/** Body of POST /api/admin/users. */
export const createUserSchema = z
  .object({
    email: z.email('must be a valid email address').transform((e) => e.trim()),
    name: oneLineNameSchema(120),
    role: roleSchema,
    dealerId: z.string().min(1).nullable().default(null),
    /** Absent: the user sets it through the invitation e-mail (until then nobody knows one). */
    password: password.optional(),
  })
  .strict();
export type NewUser = z.input<typeof createUserSchema>;

/** Body of PATCH /api/admin/users/:id: any subset. */
export const updateUserSchema = z
  .object({
    name: oneLineNameSchema(120),
    role: roleSchema,
    dealerId: z.string().min(1).nullable(),
    isActive: z.boolean(),
  })
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to save: send at least one field');
export type UserPatch = z.input<typeof updateUserSchema>;

/** Body of POST /api/admin/users/:id/password. */
export const resetPasswordSchema = z.object({ password }).strict();

const adminUserSchema: z.ZodType<AdminUser> = sessionUserSchema.extend({ isActive: z.boolean(), createdAt: z.string() });
export const userAnswerSchema = z.object({ user: adminUserSchema });
const invitationSentSchema: z.ZodType<InvitationSent> = z.object({ status: z.enum(['sent', 'failed', 'not-configured']), expiresAt: z.string(), link: z.string().nullable() });
/** POST /api/admin/users: the user and its invitation e-mail. */
export const createdUserAnswerSchema = z.object({ user: adminUserSchema, invitation: invitationSentSchema });

/** Body of POST /api/auth/invitation: the set-password link's token. */
export const invitationTokenSchema = z.object({ token: z.string().min(1, 'is required').max(200) }).strict();
/** Body of POST /api/auth/invitation/accept: the token and the new password (the same rules as an initial password). */
export const acceptInvitationSchema = z.object({ token: z.string().min(1, 'is required').max(200), password }).strict();
/** POST /api/auth/invitation: whom the open invitation is for. */
export const invitationAnswerSchema = z.object({ email: z.string(), name: z.string() });
/** POST /api/auth/invitation/accept: the email to sign in with. */
export const acceptedInvitationSchema = z.object({ email: z.string() });
export const userListSchema = z.object({ users: z.array(adminUserSchema) });

// ---------------------------------------------------------------------------------------------
// Dashboard, platform analytics

const percentOrNull = z.number().nullable();
export const adminDashboardSchema: z.ZodType<AdminDashboard> = z.object({
  period: z.literal('all'),
  activeDealers: z.number(),
  impressions: z.number(),
  clicks: z.number(),
  ctr: percentOrNull,
  recent: z.object({ period: z.enum(ANALYTICS_PERIODS), from: z.string(), to: z.string(), impressions: z.number(), clicks: z.number(), ctr: percentOrNull }),
  trends: z.object({ activeDealers: percentOrNull, impressions: percentOrNull, clicks: percentOrNull, ctr: percentOrNull }),
  recentDealers: z.array(dealerListItemSchema),
  deadLetteredEvents: z.number(),
});

/** Query of GET /api/admin/analytics: the period, 30d unless given. */
export const platformAnalyticsQuery = z.object({ period: analyticsPeriodSchema.default('30d') });

export const platformAnalyticsSchema: z.ZodType<PlatformAnalytics> = z.object({
  period: z.enum(ANALYTICS_PERIODS),
  from: z.string(),
  to: z.string(),
  dealers: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      manufacturerName: z.string(),
      status: z.string(),
      impressions: z.number(),
      clicks: z.number(),
      ctr: percentOrNull,
      score: z.number(),
    }),
  ),
  series: z.array(z.object({ bucket: z.string(), impressions: z.number(), clicks: z.number() })),
});

// ---------------------------------------------------------------------------------------------
// Export / import (DECISIONS 3)

export const EXPORT_FORMAT = 'dc-banners-export';

export const exportedUserSchema = z.object({
  id: z.uuid(),
  email: z.email(),
  name: z.string().min(1),
  role: roleSchema,
  dealerId: z.string().nullable(),
  isActive: z.boolean(),
});
export const exportedDealerSchema = dealerSchema.omit({ manufacturerName: true }).extend({
  /** As stored: null = the server's zone. */
  timeZone: z.string().nullable(),
});

/** GET /api/admin/export: each entity in its stored shape, no password or session (the import checks them more strictly). */
export const platformExportSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.number(),
  exportedAt: z.string(),
  manufacturers: z.array(manufacturerSchema),
  dealers: z.array(exportedDealerSchema),
  users: z.array(exportedUserSchema),
});
export type PlatformExport = z.infer<typeof platformExportSchema>;

/** Body of POST /api/admin/import: an export document, checked whole by the import, which names each wrong field. */
export const importBodySchema = z.unknown().describe('An export document (GET /api/admin/export), up to 20 MB');

const importResultSchema: z.ZodType<ImportResult> = z.object({
  manufacturers: z.number(),
  dealers: z.number(),
  users: z.number(),
  passwordResetRequired: z.array(z.string()),
});
export const importAnswerSchema = z.object({ imported: importResultSchema });

// ---------------------------------------------------------------------------------------------
// Client error log (spec 01 §8)

const cut = (max: number) => z.string().transform((s) => s.slice(0, max));

/** Body of POST /api/client-errors: over-long texts are cut, not refused. */
export const clientErrorSchema = z
  .object({
    message: cut(2_000).pipe(z.string().min(1, 'is required')),
    stack: cut(20_000).nullish(),
    componentStack: cut(20_000).nullish(),
    url: cut(2_000),
  })
  .strict();
export type ClientErrorReport = z.output<typeof clientErrorSchema>;
export type ClientErrorInput = z.input<typeof clientErrorSchema>;

const clientErrorEntrySchema: z.ZodType<ClientErrorEntry> = z.object({
  id: z.number(),
  timestamp: z.string(),
  message: z.string(),
  stack: z.string().nullable(),
  componentStack: z.string().nullable(),
  url: z.string(),
  userAgent: z.string().nullable(),
  user: z.string().nullable(),
});
export const clientErrorListSchema = z.object({ errors: z.array(clientErrorEntrySchema) });
