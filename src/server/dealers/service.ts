/**
 * Dealer reads and the construction of a new dealer with every default (spec 01 §3, §9;
 * DECISIONS 8). Later issues add create/update/delete here.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealers, manufacturers } from '../db/schema';
import type { Dealer, Manufacturer, Provider } from '../../domain/schemas';
import {
  defaultAssetStorage,
  defaultBranding,
  defaultDealerConfigs,
  defaultNotifications,
  defaultSecurity,
  emptyFallbackAssets,
} from '../../domain/defaults';
import { NotFound } from '../errors';
import { TEXT } from '../../domain/constants';

type DealerRow = typeof dealers.$inferSelect;

/** The insert row for a new dealer: its identity plus every default of spec 01 §9 and its manufacturer's defaults. */
export function newDealerRow(
  d: { id: string; name: string; manufacturer: string; websiteUrl: string; provider: Provider; status: string },
  m: Pick<Manufacturer, 'defaultModelMappings' | 'defaultUpsellRules' | 'defaultTrimPatterns'>,
): typeof dealers.$inferInsert {
  return {
    id: d.id,
    name: d.name,
    manufacturerId: d.manufacturer,
    websiteUrl: d.websiteUrl,
    provider: d.provider,
    status: d.status,
    assetStorage: defaultAssetStorage(d.id),
    configs: defaultDealerConfigs(m, d.provider),
    fallbackAssets: emptyFallbackAssets(),
    branding: defaultBranding(),
    security: defaultSecurity(d.websiteUrl),
    notifications: defaultNotifications(),
  };
}

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
