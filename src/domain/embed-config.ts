/**
 * The per-dealer configuration the server injects into the embed bundle: the bundle contains the
 * JS string literal "__DC_BANNERS_CONFIG__", which the server replaces with a JSON object literal.
 * A contract between server (server/scripts/service.ts) and embed (src/embed), so it lives in
 * domain, which both may import.
 */
import type { SlotType } from './slots';
import type { Branding, DealerConfigs, Security } from './schemas';

/**
 * The dealer settings the embed script reads, from the dealer's stored settings: the one place
 * they are picked for the script (server/scripts/service.ts embedConfig spreads them into
 * EmbedConfig). A new setting the script reads, kept with the dealer's configs, is a line here, its
 * field and default in dealerConfigsSchema (domain/schemas.ts) and defaultDealerConfigs
 * (domain/defaults.ts), its field in the Config Manager's contract (domain/contracts/configs.ts
 * editableConfigsSchema), view (server/configs/service.ts pick) and form (web/dealer/config:
 * ConfigManager.tsx values, WebsiteSettings.tsx field), and its use in src/embed.
 */
export function embedSettings(d: { branding: Branding; security: Security; configs: DealerConfigs }) {
  return {
    /** Dealer branding colour shown around a creative whose shape differs from its slot (#rrggbb). */
    background: d.branding.primaryColor,
    /** Send nothing and store nothing when the browser signals Do-Not-Track or Global Privacy Control (dealer setting, default on). */
    respectDnt: d.security.respectDoNotTrack !== false,
    /**
     * Push dc_banner_view and dc_banner_click to the page's `window.dataLayer` (Google Tag Manager)
     * when the page has one (dealer setting configs.dataLayerEvents, default on).
     */
    dataLayer: d.configs.dataLayerEvents !== false,
  };
}

/**
 * Slot sizes keyed by slot type (slots.ts SLOTS): [width, height] CSS pixels per variant, in
 * VARIANTS order (desktop, mobile). Keyed, so a new slot type adds a key, not a position.
 */
export type SlotSizes = Record<SlotType, Array<[number, number]>>;
export interface EmbedConfig extends ReturnType<typeof embedSettings> {
  dealerId: string;
  /** Origin of our API, e.g. "https://banners.example.com". */
  apiOrigin: string;
  /** The dealer's configured size of each slot type (SlotSizes). */
  sizes: SlotSizes;
  /**
   * The dealer's version: part of every image URL but the header's (embed/shortcodes.ts assetUrl),
   * so a settings change never meets a cached image of the old choice.
   */
  version: number;
  /**
   * The server's slot plan (domain/slot-plan.ts), compact: each model a slot can show as [display
   * name ('CR-V'), index in this list of the model its upsell slot shows, or -1 when the model is
   * not a page model itself (only ever an upsell target)].
   */
  models: Array<[string, number]>;
  /**
   * Page model keys (modelKey of the URL's model) that are not the key of their model's display
   * name -> index in `models` (mappings such as 'civicsedan' -> Civic). Any other key is the page
   * model whose display name has that key; a key found nowhere maps to nothing (slots hidden).
   */
  aliases: Record<string, number>;
  /**
   * Only when the dealer hides slots without a creative (configs.emptySlots 'hide'): page model key
   * -> first letters of the slot types that have none ('h', 'p', 'u'; delivery/service.ts
   * bareSlots). Such a slot is hidden: no box, no image request, no impression. Absent: every slot
   * shows its creative or the server's placeholder.
   */
  bare?: Record<string, string>;
}

/** The inline snippet's configuration (embed/snippet.ts), kept short: it is pasted into the dealer's pages. */
export interface SnippetConfig {
  /** Slot sizes, as EmbedConfig.sizes. */
  s: SlotSizes;
  /** Page model keys the dealer has, joined by '|' (the keys EmbedConfig's models and aliases resolve). */
  k: string;
  /**
   * The image endpoint, as EmbedConfig names it: with them the snippet requests the header
   * creative while the page parses (the URL the main script will ask for); without them it only
   * reserves the slots. No version: a pasted tag never learns a later one, so the header's URL
   * names none (embed/shortcodes.ts assetUrl).
   */
  apiOrigin?: string;
  dealerId?: string;
  /** Slots without a creative, as EmbedConfig.bare: the snippet reserves no box for them. */
  b?: Record<string, string>;
}

export const CONFIG_PLACEHOLDER = '__DC_BANNERS_CONFIG__';
