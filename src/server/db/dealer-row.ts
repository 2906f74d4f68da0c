/**
 * The insert row for a new dealer with every default (spec 01 §3, §9; DECISIONS 8). In the db
 * layer, below the features, so the dealers feature (admin "Add dealer") and the demo seed build
 * new dealers the same way without the seed importing a feature service.
 */
import { sql, type SQL } from 'drizzle-orm';
import { dealers } from './schema';
import type { Manufacturer, Provider } from '../../domain/schemas';
import {
  defaultAssetStorage,
  defaultBranding,
  defaultDealerConfigs,
  defaultNotifications,
  defaultSecurity,
  emptyFallbackAssets,
} from '../../domain/defaults';

/** The insert row for a new dealer: its identity plus every default of spec 01 §9 and its manufacturer's defaults. */
export function newDealerRow(
  d: { id: string; name: string; manufacturer: string; websiteUrl: string; provider: Provider; status: string; timeZone?: string },
  m: Pick<Manufacturer, 'defaultModelMappings' | 'defaultUpsellRules' | 'defaultTrimPatterns'>,
): typeof dealers.$inferInsert {
  return {
    id: d.id,
    name: d.name,
    manufacturerId: d.manufacturer,
    websiteUrl: d.websiteUrl,
    provider: d.provider,
    status: d.status,
    timeZone: d.timeZone ?? null,
    assetStorage: defaultAssetStorage(d.id),
    configs: defaultDealerConfigs(m, d.provider),
    fallbackAssets: emptyFallbackAssets(),
    branding: defaultBranding(),
    security: defaultSecurity(d.websiteUrl),
    notifications: defaultNotifications(),
  };
}

/**
 * The dealer's integer key (dealers.key) as an SQL scalar subquery, for comparing events.dealer_key
 * (migration 0025) with a dealer id: `eq(events.dealerKey, dealerKeyOf(id))`. NULL, so matching
 * nothing, for an unknown or deleted dealer.
 */
export const dealerKeyOf = (dealerId: string): SQL<number | null> => sql`(SELECT ${dealers.key} FROM ${dealers} WHERE ${dealers.id} = ${dealerId})`;
