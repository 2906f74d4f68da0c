/**
 * A dealer's configuration as GET /api/dealers/:id/configs answers it, for the web tests of the
 * screens that read it: Honda's three demo models mapped, no rules, weights or trim patterns, the
 * default banner sizes; `partial` overrides any field.
 */
import type { ConfigsView } from '../../domain/contracts/configs';
import { DEFAULT_BANNER_SIZES } from '../../domain/constants';

export function configsViewOf(partial: Partial<ConfigsView> = {}): ConfigsView {
  return {
    modelMap: { civic: 'Civic', accord: 'Accord', pilot: 'Pilot' },
    upsellMap: {},
    trimPatterns: {},
    inventoryWeights: {},
    customUpsellLogic: 'manufacturer',
    customUpsellRules: {},
    bannerSizes: DEFAULT_BANNER_SIZES,
    dataLayerEvents: true,
    emptySlots: 'placeholder',
    manufacturer: { id: 'honda', name: 'Honda' },
    version: 1,
    ...partial,
  };
}
