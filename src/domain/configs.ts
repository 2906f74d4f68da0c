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
  /**
   * Upsell slot only: the candidates the upsell choice weighed, best first (the first is `model`),
   * with their inventory weights and DECISIONS 22 labels; `rule` marks the strategy's own rule
   * target (it wins ties on weight). Empty when the model has no upsell candidate (it shows itself).
   */
  candidates?: PreviewCandidate[];
  /**
   * The uploaded creatives the slot rotates (A/B; [] or one when it does not): each with the
   * delivery URL of its rotation bucket (`r` = its index), the first being the slot's `assetId`.
   */
  rotation: Array<{ assetId: string; assetName: string | null; imageUrl: string }>;
}

/** One upsell candidate as Preview explains it: 'Passport', 8, 'High Priority'. */
export interface PreviewCandidate {
  /** As the catalogue displays it. */
  model: string;
  weight: number;
  label: 'High Priority' | 'Normal Priority' | 'Low Priority';
  rule: boolean;
}

const say = (c: PreviewCandidate) => `${c.model} (${c.label}, ${c.weight})`;

/**
 * Preview's sentence for an upsell choice, from the slot's ranked candidates:
 * 'CR-V → Passport (High Priority, 8) over Pilot (Normal Priority, 5)'; when the first two have the
 * same weight it names the tie-break ('equal weights: the upsell rule's target'); one candidate is
 * 'the only candidate'; none says the slot shows the page's model itself.
 */
export function upsellChoiceText(pageModel: string, candidates: readonly PreviewCandidate[]): string {
  const [first, second] = candidates;
  if (!first) return `${pageModel} has no upsell candidate: the upsell slot shows ${pageModel} itself`;
  if (!second) return `${pageModel} → ${say(first)}: the only candidate`;
  const tie = first.weight === second.weight ? `; equal weights: ${first.rule ? "the upsell rule's target" : 'inventory priority, then catalog order'}` : '';
  return `${pageModel} → ${say(first)} over ${candidates.slice(1).map(say).join(', ')}${tie}`;
}
