/** Pure helpers of the embed script (no DOM), unit-tested. Spec 01 §4, §7, §9. */
import type { EmbedConfig } from './config';
import { HEADER_MAX_WIDTH_PX, INLINE_MAX_WIDTH_PX, MOBILE_BREAKPOINT_PX } from '../domain/constants';

export type Slot = 'header' | 'primary' | 'upsell';

/** Matches [dc-banner type="header"] (single or double quotes, any spacing). */
export const SHORTCODE = /\[dc-banner\s+type\s*=\s*["'](header|primary|upsell)["']\s*\]/g;

/** The shortcodes in a text, in order, with their positions. */
export function findShortcodes(text: string): Array<{ type: Slot; index: number; length: number }> {
  const out: Array<{ type: Slot; index: number; length: number }> = [];
  for (const m of text.matchAll(SHORTCODE)) out.push({ type: m[1] as Slot, index: m.index ?? 0, length: m[0].length });
  return out;
}

/** 'mobile' at 768 px wide or less, else 'desktop'. */
export function variantFor(windowWidth: number): 'desktop' | 'mobile' {
  return windowWidth <= MOBILE_BREAKPOINT_PX ? 'mobile' : 'desktop';
}

/** Configured size of a slot: header -> SRP header sizes, primary/upsell -> inline sizes. */
export function slotSize(type: Slot, variant: 'desktop' | 'mobile', sizes: EmbedConfig['sizes']): { width: number; height: number } {
  if (type === 'header') return variant === 'mobile' ? sizes.srpHeaderMobile : sizes.srpHeaderDesktop;
  return variant === 'mobile' ? sizes.inlineMobile : sizes.inlineDesktop;
}

/** Max CSS width of a slot: 1920 px for headers, 350 px for inline banners. */
export function maxWidth(type: Slot): number {
  return type === 'header' ? HEADER_MAX_WIDTH_PX : INLINE_MAX_WIDTH_PX;
}

/**
 * URL of the banner image for a slot: the page's model as the URL writes it (the server decides what
 * the slot shows), the page's trim when it has one, and the dealer's version (a settings change
 * gives new URLs, so no cache keeps the old choice).
 */
export function assetUrl(c: Pick<EmbedConfig, 'apiOrigin' | 'dealerId' | 'version'>, model: string, type: Slot, variant: 'desktop' | 'mobile', trim?: string | null): string {
  const q = `model=${encodeURIComponent(model)}&type=${type}&variant=${variant}${trim ? `&trim=${encodeURIComponent(trim)}` : ''}&v=${c.version}`;
  return `${c.apiOrigin}/api/scripts/${encodeURIComponent(c.dealerId)}/asset?${q}`;
}
