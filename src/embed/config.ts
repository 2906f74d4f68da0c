/**
 * The per-dealer configuration the server injects into the embed bundle: the bundle contains the
 * JS string literal "__DC_BANNERS_CONFIG__", which the server replaces with a JSON object literal.
 */
export interface EmbedConfig {
  dealerId: string;
  /** Origin of our API, e.g. "https://banners.example.com". */
  apiOrigin: string;
  provider: 'mxs' | 'dealer-inspire' | 'custom';
  sizes: {
    srpHeaderDesktop: { width: number; height: number };
    srpHeaderMobile: { width: number; height: number };
    inlineDesktop: { width: number; height: number };
    inlineMobile: { width: number; height: number };
  };
  /** The dealer's version: part of every image URL, so a settings change never meets a cached image of the old choice. */
  version: number;
  /** Display names of the models slots show ('CR-V'): links and beacons name them. */
  models: string[];
  /**
   * Page model key (modelKey of the URL's model) -> [index in `models` of what header and primary
   * show, index of what upsell shows]: the server's slot plan (domain/slot-plan.ts). A page model
   * absent here maps to nothing and its slots are hidden.
   */
  plans: Record<string, [number, number]>;
  /** Dealer branding colour shown around a creative whose shape differs from its slot (#rrggbb). */
  background: string;
}

export const CONFIG_PLACEHOLDER = '__DC_BANNERS_CONFIG__';
