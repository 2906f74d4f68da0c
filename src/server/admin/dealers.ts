/**
 * Admin dealer management (spec 01 §2 Dealer Management, Dealer Settings, §3, §4, §5, §9;
 * DECISIONS 8, 9): the paginated, sorted, searchable list with all-time impressions, clicks and CTR, create with every default, the
 * settings update (asset storage, branding, security, notifications and the dealer's identity
 * fields) validated field by field, and delete.
 */
import { and, asc, desc, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealerPurges, dealerRollupTotals, dealers, manufacturers, sessions, users } from '../db/schema';
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
import type { CreateDealer, DealerListQuery, DealerSettingsUpdate } from '../../domain/contracts/admin';
import { getDealer, newDealerRow } from '../dealers/service';
import type { DealerListItem, DealerListPage } from '../../domain/admin';
import { outboundUrlProblem, type PrivateHostPolicy } from '../outbound/guard';
import { scopeCustomCss } from '../scripts/custom-css';

/**
 * Refuses dealer settings the server cannot accept: URLs the server itself fetches or redirects visitors to (the asset storage base
 * URL of CDN auto-discovery, fallback asset URLs) when they point at a private, loopback or
 * link-local address that `allow` (FEED_ALLOW_PRIVATE_HOSTS) does not allow.
 * Input: any part of a dealer's settings; `prefix` goes before the field path ('dealers.0.' in an import).
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
    if (problem) throw Invalid.field(`${prefix}${path}`, problem, 'private_address');
  };
  if (d.assetStorage) check('assetStorage.baseUrl', d.assetStorage.baseUrl);
  for (const slot of BANNER_SLOTS) (d.fallbackAssets?.[slot] ?? []).forEach((f, i) => check(`fallbackAssets.${slot}.${i}.url`, f.url));
  if (d.branding) scopeCustomCss(d.branding.customCss, `${prefix}branding.customCss`); // throws Invalid on a CSS syntax error
}

// Request bodies: src/domain/contracts/admin.ts; re-exported for the import path and tests.
export { createDealerSchema, dealerSettingsFields, dealerSettingsSchema, fallbackAssetsInputSchema } from '../../domain/contracts/admin';

/** Names sort case-insensitively on every database collation (PGlite's and a server's differ); indexed by dealers_name_id_idx. */
const nameKey = sql`lower(${dealers.name})`;

/** `%text%` for ILIKE with the pattern characters of `text` taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of Dealer Management (spec 01 §2; GET /api/admin/dealers): the dealers matching `q`
 * (case-insensitive part of the name, id or website URL) and `manufacturer` (an id), sorted on the
 * server by `sort` in `order` (names case-insensitively; ties by name, then id, so pages never overlap), `pageSize` rows of
 * 1-based `page`, each with its all-time impressions, clicks and CTR (percent, null without
 * impressions); `total` counts every matching dealer. Sorting by name or creation date walks an
 * index of the dealers table (migration 0016) and reads figures for the page's dealers only;
 * sorting by a figure joins every matching dealer's all-time totals (dealer_rollup_totals, one row per dealer).
 */
export async function listDealers(db: Db, query: DealerListQuery): Promise<DealerListPage> {
  const { page, pageSize, sort, order, q, manufacturer } = query;
  const where = and(
    manufacturer ? eq(dealers.manufacturerId, manufacturer) : undefined,
    q ? or(ilike(dealers.name, containsPattern(q)), ilike(dealers.id, containsPattern(q)), ilike(dealers.websiteUrl, containsPattern(q))) : undefined,
  );
  const dir = order === 'asc' ? asc : desc;
  const columns = {
    id: dealers.id,
    name: dealers.name,
    manufacturer: dealers.manufacturerId,
    manufacturerName: manufacturers.name,
    websiteUrl: dealers.websiteUrl,
    provider: dealers.provider,
    status: dealers.status,
    createdAt: dealers.createdAt,
  };
  const offset = (page - 1) * pageSize;
  const totalQuery = db.$count(dealers, where);
  type Row = { [K in keyof typeof columns]: (typeof columns)[K]['_']['data'] } & { impressions: number; clicks: number };
  let rows: Row[];
  if (sort === 'impressions' || sort === 'clicks' || sort === 'ctr') {
    // All-time figures per dealer: one row each in dealer_rollup_totals (kept by the rollup triggers).
    const totals = dealerRollupTotals;
    const impressions = sql<number>`coalesce(${totals.impressions}, 0)`.mapWith(Number);
    const clicks = sql<number>`coalesce(${totals.clicks}, 0)`.mapWith(Number);
    // CTR without impressions is null: last in either order, as '--' belongs after every figure.
    const key =
      sort === 'ctr'
        ? sql`${totals.clicks}::float8 / nullif(${totals.impressions}, 0) ${sql.raw(order)} nulls last`
        : dir(sort === 'impressions' ? impressions : clicks);
    rows = await db
      .select({ ...columns, impressions, clicks })
      .from(dealers)
      .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
      .leftJoin(totals, eq(totals.dealerId, dealers.id))
      .where(where)
      .orderBy(key, asc(nameKey), asc(dealers.id))
      .limit(pageSize)
      .offset(offset);
  } else {
    const keys = {
      name: [dir(nameKey), dir(dealers.id)],
      created: [dir(dealers.createdAt), dir(dealers.id)],
      manufacturer: [dir(manufacturers.name), asc(nameKey), asc(dealers.id)],
      status: [dir(dealers.status), asc(nameKey), asc(dealers.id)],
    }[sort];
    const pageRows = await db
      .select(columns)
      .from(dealers)
      .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
      .where(where)
      .orderBy(...keys)
      .limit(pageSize)
      .offset(offset);
    const byDealer = await dealerTotals(db, pageRows.map((r) => r.id), 'all');
    rows = pageRows.map((r) => ({ ...r, impressions: Number(byDealer.get(r.id)?.impressions ?? 0), clicks: Number(byDealer.get(r.id)?.clicks ?? 0) }));
  }
  return {
    items: rows.map((r) => ({
      ...r,
      provider: r.provider as DealerListItem['provider'],
      createdAt: r.createdAt.toISOString(),
      ctr: ctr(r.clicks, r.impressions),
    })),
    total: await totalQuery,
    page,
    pageSize,
  };
}

/**
 * Creates a dealer: id = slug of the name; every default of spec 01 §9 and the manufacturer's
 * default mappings, upsell rules and trim patterns.
 * @throws Invalid (name gives an empty id, unknown manufacturer), Conflict (id taken).
 */
export async function createDealer(db: Db, body: CreateDealer): Promise<Dealer> {
  const id = slugify(body.name);
  if (!id) throw Invalid.field('name', 'must contain at least one letter or digit (the dealer id is made from it)');
  await db.transaction(async (tx) => {
    const [m] = await tx.select().from(manufacturers).where(eq(manufacturers.id, body.manufacturer));
    if (!m) throw Invalid.field('manufacturer', `unknown manufacturer "${body.manufacturer}"`, 'unknown_reference');
    // A deleted dealer's traffic rows keep its id until they are purged: a new dealer must not inherit them.
    const [purging] = await tx.select({ id: dealerPurges.dealerId }).from(dealerPurges).where(eq(dealerPurges.dealerId, id));
    if (purging) throw new Conflict(`A deleted dealer with the id "${id}" is still being cleaned up. Choose a different name, or try again later.`);
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
 * is refused unless `opts.allowPrivateHosts` (FEED_ALLOW_PRIVATE_HOSTS) allows it.
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
 * Deletes a dealer and everything it owns, in one short transaction: the dealer row and its
 * bounded settings rows (assets, inventory, feeds, daily rollups: foreign keys ON DELETE CASCADE
 * through dealer_id indexes), so it is gone from every screen, delivery and beacon at once. Its
 * traffic rows (events, event_keys, hourly rollups: a year of them for a busy dealer) are not
 * touched here: the id goes to dealer_purges and the maintenance job purges them in bounded
 * batches (maintenance/dealer-purge.ts, migration 0021). Its users are deactivated and signed out
 * in the same transaction: a dealer user without a dealer cannot work, and an admin must assign
 * another dealer before reactivating them. Such inactive users without a dealer export and import
 * back as they are (platform.ts). @throws NotFound.
 */
export async function deleteDealer(db: Db, dealerId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const staff = await tx.update(users).set({ isActive: false, updatedAt: new Date() }).where(eq(users.dealerId, dealerId)).returning({ id: users.id });
    if (staff.length > 0) await tx.delete(sessions).where(inArray(sessions.userId, staff.map((u) => u.id)));
    const deleted = await tx.delete(dealers).where(eq(dealers.id, dealerId)).returning({ id: dealers.id });
    if (deleted.length === 0) throw new NotFound(TEXT.dealerNotFound);
    await tx.insert(dealerPurges).values({ dealerId }).onConflictDoNothing();
  });
}

