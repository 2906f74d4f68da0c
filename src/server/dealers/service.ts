/**
 * Dealer reads; a new dealer with every default (spec 01 §3, §9; DECISIONS 8) is built by
 * db/dealer-row.ts. Later issues add create/update/delete here.
 */
import { eq } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import type { Db, Tx } from '../db/client';
import { dealers, manufacturers } from '../db/schema';
import type { Dealer, Provider } from '../../domain/schemas';
import { NotFound } from '../errors';
import { TEXT } from '../../domain/constants';

type DealerRow = typeof dealers.$inferSelect;

/**
 * The server process's IANA time zone (TZ, else the system's): a dealer's time zone until an admin
 * sets one.
 */
export const SERVER_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The time zone a dealer enters and reads promotion windows in: its setting, else SERVER_TIME_ZONE. */
export const dealerTimeZone = (row: { timeZone: string | null }): string => row.timeZone ?? SERVER_TIME_ZONE;

/** The insert row for a new dealer with every default; built in the db layer (db/dealer-row.ts), re-exported for the dealers feature. */
export { newDealerRow } from '../db/dealer-row';

/** API shape of a dealer row. */
export function toDealer(row: DealerRow, manufacturerName: string): Dealer {
  return {
    id: row.id,
    name: row.name,
    manufacturer: row.manufacturerId,
    manufacturerName,
    websiteUrl: row.websiteUrl,
    provider: row.provider as Provider,
    status: row.status,
    assetStorage: row.assetStorage,
    configs: row.configs,
    fallbackAssets: row.fallbackAssets,
    branding: row.branding,
    security: row.security,
    notifications: row.notifications,
    timeZone: dealerTimeZone(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The dealer with this id, or null. */
export async function findDealer(db: Db, dealerId: string): Promise<Dealer | null> {
  const [row] = await db
    .select({ dealer: dealers, manufacturerName: manufacturers.name })
    .from(dealers)
    .innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
    .where(eq(dealers.id, dealerId));
  return row ? toDealer(row.dealer, row.manufacturerName) : null;
}

/** The dealer with this id. @throws NotFound('Dealer not found'). */
export async function getDealer(db: Db, dealerId: string): Promise<Dealer> {
  const dealer = await findDealer(db, dealerId);
  if (!dealer) throw new NotFound(TEXT.dealerNotFound);
  return dealer;
}

/**
 * The columns `fields` (of dealers and manufacturers, e.g. `{ configs: dealers.configs, models:
 * manufacturers.models }`) of the dealer with this id joined to its manufacturer, in `db` or a
 * transaction. @throws NotFound('Dealer not found').
 */
export async function dealerWithManufacturer<T extends SelectedFields>(db: Db | Tx, dealerId: string, fields: T): Promise<SelectResultFields<T>> {
  // Drizzle types a select of generic fields no further than the builder: the row is typed here, by its fields.
  const [row] = await db.select(fields as SelectedFields).from(dealers).innerJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId)).where(eq(dealers.id, dealerId));
  if (!row) throw new NotFound(TEXT.dealerNotFound);
  return row as SelectResultFields<T>;
}

/**
 * The catalogue models of the dealer's manufacturer (canonical name and display name), in catalogue
 * order (screens show display names). @throws NotFound('Dealer not found').
 */
export async function dealerModelNames(db: Db, dealerId: string): Promise<Array<{ name: string; displayName: string }>> {
  const row = await dealerWithManufacturer(db, dealerId, { models: manufacturers.models });
  return row.models.map((m) => ({ name: m.name, displayName: m.displayName }));
}
