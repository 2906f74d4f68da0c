/**
 * Admin dealer management (spec 01 §2 Dealer Management, Dealer Settings, §3, §4, §5, §9;
 * DECISIONS 8, 9): list with all-time impressions, clicks and CTR, create with every default, the
 * settings update (asset storage, branding, security, notifications and the dealer's identity
 * fields) validated field by field, and delete.
 */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealers, manufacturers, sessions, users } from '../db/schema';
import { dealerTotals } from '../reporting/service';
import {
  BANNER_SLOTS,
  type BannerSlot,
  type FallbackAsset,
  type Dealer,
} from '../../domain/schemas';
import { slugify } from '../../domain/slug';
import { ctr } from '../../domain/metrics';
import { TEXT } from '../../domain/constants';
import { Conflict, Invalid, NotFound } from '../errors';
import type { CreateDealer, DealerSettingsUpdate } from '../../domain/contracts/admin';
import { getDealer, newDealerRow, toDealer } from '../dealers/service';
import type { DealerListItem } from '../../domain/admin';
import { outboundUrlProblem, type PrivateHostPolicy } from '../outbound/guard';
import { scopeCustomCss } from '../scripts/custom-css';

/**
 * Refuses dealer settings the server cannot accept: URLs the server itself fetches or redirects visitors to (the asset storage base
 * URL of CDN auto-discovery, fallback asset URLs) when they point at a private, loopback or
 * link-local address that `allow` (FEED_ALLOW_PRIVATE_HOSTS) does not allow (issue 11 §7).
 * Input: any part of a dealer's settings; `prefix` goes before the field path in the message.
 * @throws Invalid('{prefix}assetStorage.baseUrl: must not point at a private, loopback or
 * link-local address (127.0.0.1); ...') naming the first such field; also refuses branding.customCss
 * that is not CSS (scripts/custom-css.ts: 'branding.customCss: CSS syntax error at line 1, column 5: ...').
 */
export function assertDealerSettingsAllowed(
  d: { assetStorage?: { baseUrl: string }; fallbackAssets?: Partial<Record<BannerSlot, FallbackAsset[]>>; branding?: { customCss: string } },
  allow: PrivateHostPolicy,
  prefix = '',
): void {
  const check = (path: string, url: string) => {
    const problem = url.trim() === '' ? null : outboundUrlProblem(url.trim(), allow);
    if (problem) throw new Invalid(`${prefix}${path}: ${problem}`);
  };
  if (d.assetStorage) check('assetStorage.baseUrl', d.assetStorage.baseUrl);
  for (const slot of BANNER_SLOTS) (d.fallbackAssets?.[slot] ?? []).forEach((f, i) => check(`fallbackAssets.${slot}.${i}.url`, f.url));
  if (d.branding) scopeCustomCss(d.branding.customCss, `${prefix}branding.customCss`); // throws Invalid on a CSS syntax error (issue 15)
}

// Request bodies: src/domain/contracts/admin.ts (issue 14); re-exported for the import path and tests.
export { createDealerSchema, dealerSettingsFields, dealerSettingsSchema, fallbackAssetsInputSchema } from '../../domain/contracts/admin';

/** Every dealer, oldest first (the dashboard's "first 5"), with all-time impressions, clicks and CTR. */
export async function listDealers(db: Db): Promise<DealerListItem[]> {
  const [rows, totals] = await Promise.all([
    db
      .select({ dealer: dealers, manufacturerName: manufacturers.name })
      .from(dealers)
      .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
      .orderBy(dealers.createdAt, dealers.id),
    dealerTotals(db, 'all', 'all'),
  ]);
  return rows.map((r) => {
    const { impressions = 0, clicks = 0 } = totals.get(r.dealer.id) ?? {};
    return { ...toDealer(r.dealer, r.manufacturerName), impressions, clicks, ctr: ctr(clicks, impressions) };
  });
}

/**
 * Creates a dealer: id = slug of the name; every default of spec 01 §9 and the manufacturer's
 * default mappings, upsell rules and trim patterns.
 * @throws Invalid (name gives an empty id, unknown manufacturer), Conflict (id taken).
 */
export async function createDealer(db: Db, body: CreateDealer): Promise<Dealer> {
  const id = slugify(body.name);
  if (!id) throw new Invalid('name: must contain at least one letter or digit (the dealer id is made from it)');
  await db.transaction(async (tx) => {
    const [m] = await tx.select().from(manufacturers).where(eq(manufacturers.id, body.manufacturer));
    if (!m) throw new Invalid(`manufacturer: unknown manufacturer "${body.manufacturer}"`);
    const inserted = await tx
      .insert(dealers)
      .values(newDealerRow({ ...body, id }, m))
      .onConflictDoNothing()
      .returning({ id: dealers.id });
    if (inserted.length === 0) throw new Conflict(`A dealer with the id "${id}" already exists. Choose a different name.`);
  });
  return getDealer(db, id);
}

/**
 * Saves settings sections in one transaction holding the dealer row lock; the database bumps the
 * dealer version (migration 0007: delivery caches read security and storage). A base URL pointing at a private address
 * is refused unless `opts.allowPrivateHosts` (FEED_ALLOW_PRIVATE_HOSTS) allows it (issue 11 §7).
 * @throws NotFound, Invalid (naming the field).
 */
export async function updateDealerSettings(db: Db, dealerId: string, update: DealerSettingsUpdate, opts: { allowPrivateHosts: PrivateHostPolicy }): Promise<Dealer> {
  assertDealerSettingsAllowed(update, opts.allowPrivateHosts);
  await db.transaction(async (tx) => {
    const [row] = await tx.select({ id: dealers.id }).from(dealers).where(eq(dealers.id, dealerId)).for('update');
    if (!row) throw new NotFound(TEXT.dealerNotFound);
    await tx.update(dealers).set(update).where(eq(dealers.id, dealerId));
  });
  return getDealer(db, dealerId);
}

/**
 * Deletes a dealer and everything it owns (assets, inventory, feeds, events, rollups). Its users
 * are deactivated and signed out in the same transaction: a dealer user without a dealer cannot
 * work, and an admin must assign another dealer before reactivating them. Such inactive users
 * without a dealer export and import back as they are (platform.ts, issue 11 §9). @throws NotFound.
 */
export async function deleteDealer(db: Db, dealerId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const staff = await tx.update(users).set({ isActive: false, updatedAt: new Date() }).where(eq(users.dealerId, dealerId)).returning({ id: users.id });
    if (staff.length > 0) await tx.delete(sessions).where(inArray(sessions.userId, staff.map((u) => u.id)));
    const deleted = await tx.delete(dealers).where(eq(dealers.id, dealerId)).returning({ id: dealers.id });
    if (deleted.length === 0) throw new NotFound(TEXT.dealerNotFound);
  });
}

