/**
 * Platform-wide figures and data exchange for admins (spec 01 §2 Admin Dashboard, Platform
 * Analytics, §8 import/export texts, §9 CTR and performance score; DECISIONS 3, 18, 19): the
 * dashboard cards (all-time totals, the last 30 days and their trends against the 30 days before),
 * per-dealer analytics with a per-day series across dealers, all read through server/reporting in
 * the windows of domain/periods.ts; and the versioned export/import.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { dealers, eventDeadLetters, manufacturers, sessions, users } from '../db/schema';
import { dealerConfigsSchema, manufacturerSchema, oneLineNameSchema, type AnalyticsPeriod } from '../../domain/schemas';
import { RECENT_DEALERS_ROWS, TEXT } from '../../domain/constants';
import { ctr, performanceScore, trendPercent } from '../../domain/metrics';
import { Conflict, Invalid } from '../errors';
import { fieldIssuesOf } from '../../domain/zod-issues';
import { isSlug } from '../../domain/slug';
import { ADMIN_TREND_PERIOD, PERIOD_SPANS, periodWindow, previousWindow } from '../../domain/periods';
import { dealerTotals, platformAllTime, series as seriesOf, totals } from '../reporting/service';
import { assertDealerSettingsAllowed, dealerSettingsFields, fallbackAssetsInputSchema, listDealers } from './dealers';
import { manufacturerInputSchema } from './manufacturers';
import type { PrivateHostPolicy } from '../outbound/guard';
import type { AdminDashboard, ImportResult, PlatformAnalytics } from '../../domain/admin';
import { hashPassword } from '../auth/password';
import { EXPORT_FORMAT, exportedDealerSchema, exportedUserSchema, type PlatformExport } from '../../domain/contracts/admin';

/**
 * The Admin Dashboard (spec 01 §2) at `now` (the request time): the all-time totals and active
 * dealers now (`period: 'all'`), the same figures over the last 30 days (`recent`, the window of
 * domain/periods.ts) and their trends against the 30 days before (DECISIONS 18). Active Dealers'
 * trend compares the active dealers now with those of them that existed when the window began.
 */
export async function adminDashboard(db: Db, now: Date): Promise<AdminDashboard> {
  const window = periodWindow(ADMIN_TREND_PERIOD, now);
  const prevWindow = previousWindow(window, PERIOD_SPANS[ADMIN_TREND_PERIOD]);
  const isActive = eq(dealers.status, 'active');
  const [[counts], { impressions, clicks }, recentDealers, cur, prev] = await Promise.all([
    db
      .select({
        active: sql<number>`count(*) filter (where ${isActive})`.mapWith(Number),
        activeBefore: sql<number>`count(*) filter (where ${and(isActive, lt(dealers.createdAt, window.from))})`.mapWith(Number),
      })
      .from(dealers),
    platformAllTime(db),
    // Only the rows the Recent Dealers table shows: the first five, oldest first.
    listDealers(db, { page: 1, pageSize: RECENT_DEALERS_ROWS, sort: 'created', order: 'asc', q: undefined, manufacturer: undefined, period: undefined }),
    totals(db, 'platform', window),
    totals(db, 'platform', prevWindow),
  ]);
  const activeDealers = counts?.active ?? 0;
  const activeBefore = counts?.activeBefore ?? 0;
  const curCtr = ctr(cur.clicks, cur.impressions);
  const prevCtr = ctr(prev.clicks, prev.impressions);
  return {
    period: 'all',
    activeDealers,
    impressions,
    clicks,
    ctr: ctr(clicks, impressions),
    recent: {
      period: ADMIN_TREND_PERIOD,
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      impressions: cur.impressions,
      clicks: cur.clicks,
      ctr: curCtr,
    },
    trends: {
      activeDealers: trendPercent(activeDealers, activeBefore),
      impressions: trendPercent(cur.impressions, prev.impressions),
      clicks: trendPercent(cur.clicks, prev.clicks),
      ctr: curCtr === null || prevCtr === null ? null : trendPercent(curCtr, prevCtr),
    },
    recentDealers: recentDealers.items,
    deadLetteredEvents: await db.$count(eventDeadLetters),
  };
}

/**
 * Platform Analytics (spec 01 §2, DECISIONS 18-19): per dealer figures and score for the period's
 * window at `now` (the request time; domain/periods.ts), plus the series, one bucket per hour (24h)
 * or UTC day.
 */
export async function platformAnalytics(db: Db, period: AnalyticsPeriod, now: Date): Promise<PlatformAnalytics> {
  const { from, to } = periodWindow(period, now);
  const [byDealer, points, all] = await Promise.all([
    dealerTotals(db, 'all', { from, to }),
    seriesOf(db, 'platform', { from, to }, PERIOD_SPANS[period].unit),
    db
      .select({ id: dealers.id, name: dealers.name, status: dealers.status, manufacturerName: manufacturers.name })
      .from(dealers)
      .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
      .orderBy(dealers.name),
  ]);
  const series: PlatformAnalytics['series'] = points.map(({ bucket, impressions, clicks }) => ({ bucket, impressions, clicks }));
  return {
    period,
    from: from.toISOString(),
    to: to.toISOString(),
    dealers: all.map((d) => {
      const s = byDealer.get(d.id) ?? { impressions: 0, clicks: 0 };
      const c = ctr(s.clicks, s.impressions);
      return { ...d, impressions: s.impressions, clicks: s.clicks, ctr: c, score: performanceScore(c) };
    }),
    series,
  };
}

// ---------------------------------------------------------------------------------------------
// Export / import (DECISIONS 3)

export const EXPORT_VERSION = 1;
// The export document's shape (the GET /api/admin/export response schema): src/domain/contracts/admin.ts.
export { EXPORT_FORMAT, type PlatformExport } from '../../domain/contracts/admin';

/**
 * What an import accepts: the same rules as the screens that edit the data, not the
 * loose stored shapes. Manufacturers by the manufacturer form's schema (hex colours, http(s) logo
 * URL), dealers by the dealer settings' sections (http(s) URLs, quota 1 MB-10 GB, hex colours,
 * security limits) and the configs' schema, fallback assets with http(s) URLs, users with a role.
 */
const settings = dealerSettingsFields.shape;
const importDataSchema = z.object({
  manufacturers: z.array(manufacturerInputSchema.extend({ id: z.string().min(1).max(100), createdAt: z.string(), updatedAt: z.string() })),
  dealers: z.array(
    z.object({
      // The rule of ids made by creating a dealer: it names URL paths, cache keys and script files.
      id: z
        .string()
        .max(100)
        .refine(isSlug, { error: (issue) => `dealer id ${JSON.stringify(String(issue.input).slice(0, 100))} is not a slug: lowercase letters, digits and single hyphens, as made from a dealer name` }),
      name: settings.name,
      manufacturer: z.string().min(1).max(100),
      websiteUrl: settings.websiteUrl,
      provider: settings.provider,
      status: settings.status,
      assetStorage: settings.assetStorage,
      configs: dealerConfigsSchema,
      fallbackAssets: fallbackAssetsInputSchema,
      branding: settings.branding,
      security: settings.security,
      notifications: settings.notifications,
      // Absent in exports made before dealers had a time zone: the stored zone is then kept.
      timeZone: settings.timeZone.optional(),
      createdAt: z.string(),
      updatedAt: z.string(),
    }),
  ),
  users: z.array(exportedUserSchema.extend({ name: oneLineNameSchema(120) })),
});

/** The message when an import would leave no active admin (the Users API's rule). */
export const IMPORT_NO_ACTIVE_ADMIN = 'Import refused: it would leave no active admin. Keep at least one admin user active in the file; nothing was changed.';

/** The whole platform as one versioned JSON document (users without password hashes). */
export async function exportPlatform(db: Db): Promise<PlatformExport> {
  const ms = await db.select().from(manufacturers).orderBy(manufacturers.id);
  const ds = await db.select().from(dealers).orderBy(dealers.id);
  const us = await db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role, dealerId: users.dealerId, isActive: users.isActive })
    .from(users)
    .orderBy(users.email);
  const iso = (d: Date) => d.toISOString();
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date().toISOString(),
    manufacturers: ms.map((m) => manufacturerSchema.parse({ ...m, createdAt: iso(m.createdAt), updatedAt: iso(m.updatedAt) })),
    // The key is the database's own (events.dealer_key): an import's dealer gets a key of its own.
    dealers: ds.map(({ version: _v, key: _k, manufacturerId, ...d }) =>
      exportedDealerSchema.parse({ ...d, manufacturer: manufacturerId, createdAt: iso(d.createdAt), updatedAt: iso(d.updatedAt) }),
    ),
    users: us.map((u) => exportedUserSchema.parse(u)),
  };
}

/**
 * Validates a whole export document, then applies it in one transaction: manufacturers and dealers
 * are upserted by id, users by email (existing users keep their password; new users get a random
 * one and are listed in `passwordResetRequired`). Nothing is deleted.
 * Validation: the settings screens' schemas (see importDataSchema); dealer base and
 * fallback URLs on private addresses refused unless `opts.allowPrivateHosts` allows them; the
 * Users API's rules: valid roles, an existing dealer for active dealer-manager and viewer users
 * (an inactive one may have none: a deleted dealer's staff are exported that way), each email once,
 * and at least one active admin afterwards. A user deactivated or whose role or dealer changed is
 * signed out, as through the Users API.
 * @throws Invalid('Invalid export format') when it is not our export of a known version;
 * Invalid('Invalid import data format: ...') naming the first problems of the contents, or a
 * dealer whose manufacturer is neither imported nor present; Conflict(IMPORT_NO_ACTIVE_ADMIN).
 * Nothing changes on error.
 */
export async function importPlatform(db: Db, doc: unknown, opts: { allowPrivateHosts: PrivateHostPolicy }): Promise<ImportResult> {
  const head = z.object({ format: z.literal(EXPORT_FORMAT), version: z.literal(EXPORT_VERSION) }).safeParse(doc);
  if (!head.success) throw new Invalid(TEXT.invalidExportFormat);
  const parsed = importDataSchema.safeParse(doc);
  if (!parsed.success) {
    const detail = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Invalid(`${TEXT.invalidImportData}: ${detail}`, fieldIssuesOf(parsed.error.issues));
  }
  const data = parsed.data;
  try {
    data.dealers.forEach((d, i) => assertDealerSettingsAllowed(d, opts.allowPrivateHosts, `dealers.${i}.`));
  } catch (e) {
    // The same problem, said to be in the import: the fields keep their paths in the document.
    if (e instanceof Invalid) throw new Invalid(`${TEXT.invalidImportData}: ${e.message}`, e.fields);
    throw e;
  }
  const seen = new Set<string>();
  for (const u of data.users) {
    const email = u.email.toLowerCase();
    if (seen.has(email)) throw new Invalid(`${TEXT.invalidImportData}: user "${u.email}" appears more than once`);
    seen.add(email);
    if (u.role !== 'admin' && !u.dealerId && u.isActive) {
      throw new Invalid(`${TEXT.invalidImportData}: user "${u.email}" is active and needs a dealer (dealer-manager and viewer users need one; an inactive user may have none)`);
    }
  }
  const created: string[] = [];
  let newUserHash: string | null = null;
  await db.transaction(async (tx) => {
    for (const { createdAt: _c, updatedAt: _u, ...m } of data.manufacturers) {
      await tx.insert(manufacturers).values(m).onConflictDoUpdate({ target: manufacturers.id, set: { ...m, updatedAt: new Date() } });
    }
    const known = new Set((await tx.select({ id: manufacturers.id }).from(manufacturers)).map((m) => m.id));
    for (const { createdAt: _c, updatedAt: _u, manufacturer, ...d } of data.dealers) {
      if (!known.has(manufacturer)) throw new Invalid(`${TEXT.invalidImportData}: dealer "${d.id}" uses unknown manufacturer "${manufacturer}"`);
      const row = { ...d, manufacturerId: manufacturer };
      // The database bumps the version of a changed dealer, never lowering it (migration 0007).
      await tx.insert(dealers).values(row).onConflictDoUpdate({ target: dealers.id, set: { ...row, updatedAt: new Date() } });
    }
    const dealerIds = new Set((await tx.select({ id: dealers.id }).from(dealers)).map((d) => d.id));
    const signOut: string[] = [];
    for (const u of data.users) {
      if (u.role !== 'admin' && u.dealerId && !dealerIds.has(u.dealerId)) {
        throw new Invalid(`${TEXT.invalidImportData}: user "${u.email}" needs an existing dealer`);
      }
      const values = { name: u.name, role: u.role, dealerId: u.role === 'admin' ? null : u.dealerId, isActive: u.isActive, updatedAt: new Date() };
      const [cur] = await tx
        .select({ id: users.id, role: users.role, dealerId: users.dealerId })
        .from(users)
        .where(eq(sql`lower(${users.email})`, u.email.toLowerCase()))
        .for('update');
      if (cur) {
        await tx.update(users).set(values).where(eq(users.id, cur.id));
        if (!values.isActive || values.role !== cur.role || values.dealerId !== cur.dealerId) signOut.push(cur.id);
      } else {
        newUserHash ??= await hashPassword(randomBytes(24).toString('base64url'));
        await tx.insert(users).values({ id: randomUUID(), email: u.email, passwordHash: newUserHash, ...values });
        created.push(u.email);
      }
    }
    // The Users API's rule: never leave no active admin (rows locked against a concurrent demotion).
    const admins = await tx.select({ id: users.id }).from(users).where(and(eq(users.role, 'admin'), eq(users.isActive, true))).for('update');
    if (admins.length === 0) throw new Conflict(IMPORT_NO_ACTIVE_ADMIN);
    if (signOut.length > 0) await tx.delete(sessions).where(inArray(sessions.userId, signOut));
  });
  return { manufacturers: data.manufacturers.length, dealers: data.dealers.length, users: data.users.length, passwordResetRequired: created };
}
