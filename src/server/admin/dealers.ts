/**
 * Admin dealer management (spec 01 §2 Dealer Management, Dealer Settings, §3, §4, §5, §9;
 * DECISIONS 8, 9): the paginated, sorted, searchable list with all-time impressions, clicks and CTR, create with every default, the
 * settings update (asset storage, branding, security, notifications and the dealer's identity
 * fields) validated field by field, and delete.
 */
import { and, asc, desc, eq, ilike, inArray, isNull, gt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { assets, dealerPurges, dealerRollupTotals, dealers, manufacturers, sessions, users } from '../db/schema';
import { dealerTotals, dealerWindowTotalsSql, lastEventsAt } from '../reporting/service';
import { refusedTotalsSql, tagHealthTotals } from '../tracking/tag-health';
import { tagHealthSince } from '../../domain/tag-health';
import { PERIOD_SPANS, periodWindow, previousWindow } from '../../domain/periods';
import { modelKey } from '../../domain/model-keys';
import {
  BANNER_SLOTS,
  type BannerSlot,
  type FallbackAsset,
  type Dealer,
} from '../../domain/schemas';
import { slugify } from '../../domain/slug';
import { ctr, trendPercent } from '../../domain/metrics';
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
 * With `query.period` the page is the portfolio table's (listPortfolio): `now` is the request time its window ends at.
 */
export async function listDealers(db: Db, query: DealerListQuery, now: Date = new Date()): Promise<DealerListPage> {
  if (query.period) return listPortfolio(db, query, query.period, now);
  const { page, pageSize, sort, order, q, manufacturer } = query;
  const where = listFilter(q, manufacturer);
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
  // 'trend' and 'refused' need a period (dealerListQuery): without one they never reach here, and would sort as conversions.
  if (sort === 'impressions' || sort === 'clicks' || sort === 'ctr' || sort === 'conversions' || sort === 'trend' || sort === 'refused') {
    // All-time figures per dealer: one row each in dealer_rollup_totals (kept by the rollup triggers).
    const totals = dealerRollupTotals;
    const impressions = sql<number>`coalesce(${totals.impressions}, 0)`.mapWith(Number);
    const clicks = sql<number>`coalesce(${totals.clicks}, 0)`.mapWith(Number);
    const conversions = sql<number>`coalesce(${totals.conversions}, 0)`;
    // CTR without impressions is null: last in either order, as '--' belongs after every figure.
    const key =
      sort === 'ctr'
        ? sql`${totals.clicks}::float8 / nullif(${totals.impressions}, 0) ${sql.raw(order)} nulls last`
        : dir(sort === 'impressions' ? impressions : sort === 'clicks' ? clicks : conversions);
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

/** The dealers matching the list's search (`q`: part of the name, id or website URL) and manufacturer filter. */
function listFilter(q: string | undefined, manufacturer: string | undefined): SQL | undefined {
  return and(
    manufacturer ? eq(dealers.manufacturerId, manufacturer) : undefined,
    q ? or(ilike(dealers.name, containsPattern(q)), ilike(dealers.id, containsPattern(q)), ilike(dealers.websiteUrl, containsPattern(q))) : undefined,
  );
}

/** Most gap model names one portfolio row carries (the count is exact). */
const GAP_MODELS_LISTED = 5;

/**
 * The portfolio table of Platform Analytics (GET /api/admin/dealers?period=; spec 01 §2 Platform
 * Analytics, DECISIONS 18-19): one page of the dealers matching `q` and `manufacturer`, each with
 * its all-time figures (as the list without a period), the figures of the period's window at
 * `now` (domain/periods.ts periodWindow), the previous window's viewable impressions and the trend
 * between them, its coverage gaps and its last event. Sorting by a figure (impressions, clicks,
 * CTR, conversions: of the window; trend) joins every matching dealer's window totals, read
 * through reporting's dealerWindowTotalsSql (dealer_rollups_daily for whole days, the hourly
 * rollups for the edges); CTR and trend without a value sort last in either order. Sorting by
 * name, manufacturer, status or creation date reads the window figures of the page's dealers only.
 * Coverage gaps: the dealer's manufacturer's active catalogue models for which the dealer has no
 * active uploaded banner in force at `now` (its delivery then shows a CDN, fallback or placeholder
 * creative; the per-slot answer is the dealer's coverage matrix, configs/service.ts coverage).
 * Tag health: the beacons of the last 24 h at `now` (tagHealthSince) counted, refused or dropped,
 * by reason, read for the page's dealers in one grouped query; sorting by `refused` joins every
 * matching dealer's refusal total (refusedTotalsSql), ties by name.
 */
async function listPortfolio(db: Db, query: DealerListQuery, period: NonNullable<DealerListQuery['period']>, now: Date): Promise<DealerListPage> {
  const { page, pageSize, sort, order, q, manufacturer } = query;
  const where = listFilter(q, manufacturer);
  const window = periodWindow(period, now);
  const prevWindow = previousWindow(window, PERIOD_SPANS[period]);
  const offset = (page - 1) * pageSize;
  const totalQuery = db.$count(dealers, where);
  const dir = sql.raw(order);

  type Row = { id: string; name: string; manufacturer: string; manufacturerName: string; websiteUrl: string; provider: string; status: string; createdAt: string; models: Array<{ name: string; displayName?: string; isActive?: boolean }> };
  const select = sql`SELECT ${dealers.id} AS id, ${dealers.name} AS name, ${dealers.manufacturerId} AS manufacturer, ${manufacturers.name} AS "manufacturerName",
      ${dealers.websiteUrl} AS "websiteUrl", ${dealers.provider} AS provider, ${dealers.status} AS status,
      to_char(${dealers.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt", ${manufacturers.models} AS models`;
  const from = sql`FROM ${dealers} INNER JOIN ${manufacturers} ON ${manufacturers.id} = ${dealers.manufacturerId}`;
  const filter = where ? sql`WHERE ${where}` : sql``;
  const byName = sql`lower(${dealers.name}) asc, ${dealers.id} asc`;
  let pageRows: Row[];
  const figureSort = sort === 'impressions' || sort === 'clicks' || sort === 'ctr' || sort === 'conversions' || sort === 'trend';
  const since = tagHealthSince(now);
  if (sort === 'refused') {
    const result = await db.execute(sql`
      WITH refused AS (${refusedTotalsSql(since)})
      ${select} ${from} LEFT JOIN refused ON refused.dealer_id = ${dealers.id}
      ${filter} ORDER BY coalesce(refused.refused, 0) ${dir}, ${byName} LIMIT ${pageSize} OFFSET ${offset}`);
    pageRows = (result as unknown as { rows: Row[] }).rows;
  } else if (figureSort) {
    const cur = sql`coalesce(cur.impressions, 0)`;
    const prev = sql`coalesce(prev.impressions, 0)`;
    const key = {
      impressions: sql`${cur} ${dir}`,
      clicks: sql`coalesce(cur.clicks, 0) ${dir}`,
      conversions: sql`coalesce(cur.conversions, 0) ${dir}`,
      ctr: sql`cur.clicks::float8 / nullif(cur.impressions, 0) ${dir} nulls last`,
      trend: sql`(${cur} - ${prev})::float8 / nullif(${prev}, 0) ${dir} nulls last`,
    }[sort];
    const result = await db.execute(sql`
      WITH cur AS (${dealerWindowTotalsSql(window)}), prev AS (${dealerWindowTotalsSql(prevWindow)})
      ${select} ${from}
      LEFT JOIN cur ON cur.dealer_id = ${dealers.id} LEFT JOIN prev ON prev.dealer_id = ${dealers.id}
      ${filter} ORDER BY ${key}, ${byName} LIMIT ${pageSize} OFFSET ${offset}`);
    pageRows = (result as unknown as { rows: Row[] }).rows;
  } else {
    const key = {
      name: sql`lower(${dealers.name}) ${dir}, ${dealers.id} ${dir}`,
      created: sql`${dealers.createdAt} ${dir}, ${dealers.id} ${dir}`,
      manufacturer: sql`${manufacturers.name} ${dir}, ${byName}`,
      status: sql`${dealers.status} ${dir}, ${byName}`,
    }[sort];
    const result = await db.execute(sql`${select} ${from} ${filter} ORDER BY ${key} LIMIT ${pageSize} OFFSET ${offset}`);
    pageRows = (result as unknown as { rows: Row[] }).rows;
  }

  const ids = pageRows.map((r) => r.id);
  const [allTime, cur, prev, last, tags, banners] = await Promise.all([
    dealerTotals(db, ids, 'all'),
    dealerTotals(db, ids, window),
    dealerTotals(db, ids, prevWindow),
    lastEventsAt(db, ids),
    tagHealthTotals(db, ids, since),
    ids.length
      ? db
          .selectDistinct({ dealerId: assets.dealerId, modelKey: assets.modelKey })
          .from(assets)
          .where(
            and(
              inArray(assets.dealerId, ids),
              eq(assets.isActive, true),
              or(isNull(assets.startsAt), sql`${assets.startsAt} <= ${now.toISOString()}::timestamptz`),
              or(isNull(assets.endsAt), gt(assets.endsAt, now)),
            ),
          )
      : Promise.resolve([]),
  ]);
  const covered = new Set(banners.map((b) => `${b.dealerId}\n${b.modelKey}`));
  const zero = { impressions: 0, clicks: 0, conversions: 0 };
  return {
    items: pageRows.map((r) => {
      const all = allTime.get(r.id) ?? zero;
      const c = cur.get(r.id) ?? zero;
      const p = prev.get(r.id) ?? zero;
      const gaps = (r.models ?? []).filter((m) => m.isActive !== false && !covered.has(`${r.id}\n${modelKey(m.name)}`)).map((m) => m.displayName || m.name);
      return {
        id: r.id,
        name: r.name,
        manufacturer: r.manufacturer,
        manufacturerName: r.manufacturerName,
        websiteUrl: r.websiteUrl,
        provider: r.provider as DealerListItem['provider'],
        status: r.status as DealerListItem['status'],
        createdAt: r.createdAt,
        impressions: all.impressions,
        clicks: all.clicks,
        ctr: ctr(all.clicks, all.impressions),
        window: { ...c, ctr: ctr(c.clicks, c.impressions), previousImpressions: p.impressions, trend: trendPercent(c.impressions, p.impressions) },
        coverageGaps: { count: gaps.length, models: gaps.slice(0, GAP_MODELS_LISTED) },
        lastEventAt: last.get(r.id)?.toISOString() ?? null,
        tagHealth: tags.get(r.id)!,
      };
    }),
    total: await totalQuery,
    page,
    pageSize,
    window: { period, from: window.from.toISOString(), to: window.to.toISOString() },
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
 * bounded settings rows (assets, inventory, feeds, daily rollups, dealer hours: foreign keys ON
 * DELETE CASCADE through indexes that start with the dealer's id or key), so it is gone from every screen, delivery and beacon at once. Its
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
    const [deleted] = await tx.delete(dealers).where(eq(dealers.id, dealerId)).returning({ key: dealers.key });
    if (!deleted) throw new NotFound(TEXT.dealerNotFound);
    // The key goes with the id: its events carry the key (migration 0025), the other traffic rows the id.
    await tx.insert(dealerPurges).values({ dealerId, dealerKey: deleted.key }).onConflictDoNothing();
  });
}

