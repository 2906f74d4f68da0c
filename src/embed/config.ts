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
  /** Active upsell rules: model -> upsell target model. */
  upsellMap: Record<string, string>;
}

export const CONFIG_PLACEHOLDER = '__DC_BANNERS_CONFIG__';
