/**
 * Response shapes of the dealer configuration API (docs/API.md: upsell-rules, preview), shared by
 * the server (src/server/configs) and the dealer screens (src/web/dealer/config).
 */
import type { SlotType, UpsellStrategy } from './schemas';
import type { InventorySummaryView } from './inventory';

/** GET /api/dealers/:dealerId/upsell-rules (spec 02 §2 Upsell rules, spec 01 §9). */
export interface UpsellRulesView {
  /** The saved strategy (configs.customUpsellLogic). */
  strategy: UpsellStrategy;
  /** The rule set each strategy would put in force (spec 02 §2, activeUpsellRules). */
  rules: Record<UpsellStrategy, Record<string, string>>;
  /** The rules in force now: rules[strategy]. Delivery and preview use exactly these for type=upsell. */
  active: Record<string, string>;
  /** The manufacturer's own default rules ('Load Manufacturer Defaults'). */
  manufacturerDefaults: Record<string, string>;
  /** Headline numbers of the dealer's inventory, null without inventory data. */
  inventory: InventorySummaryView | null;
}

/** One slot of GET /api/dealers/:dealerId/preview (spec 02 §2 Banner Preview, DECISIONS 14). */
export interface PreviewSlot {
  slot: SlotType;
  /** The model the slot shows (the upsell target for 'upsell'), as the catalogue displays it. */
  model: string;
  /** Its comparison key: what the image endpoint answers in X-Banner-Model. */
  modelKey: string;
  /**
   * 'found': an image of the slot's shape (uploaded asset, CDN or fallback); 'mismatch': an uploaded
   * asset of another shape (shown whole, letterboxed; `creative` gives its size); 'Missing': the placeholder.
   */
  status: 'found' | 'mismatch' | 'Missing';
  /** The chosen asset's own size, pixels; null without an uploaded asset. */
  creative: { width: number; height: number } | null;
  /** Where the image comes from (DECISIONS 14): uploaded asset, CDN, fallback asset or placeholder. */
  source: 'asset' | 'cdn' | 'fallback' | 'placeholder';
  assetId: string | null;
  assetName: string | null;
  /** Configured slot size, CSS pixels. */
  width: number;
  height: number;
  /** The public delivery URL of the slot's image (same choice as the embed script), version-stamped. */
  imageUrl: string;
}
