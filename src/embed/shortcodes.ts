/** Pure helpers of the embed script (no DOM), unit-tested. Spec 01 §4, §7, §9. */
import type { EmbedConfig } from '../domain/embed-config';
import { modelKey } from '../domain/model-keys';
import { MOBILE_BREAKPOINT_PX } from '../domain/page-constants';
import type { SlotType, Variant } from '../domain/slots';

/**
 * A slot type of the registry (domain/slots.ts). The script carries its few facts about slot
 * types (here: the shortcode pattern, max widths; in index.ts: which slot shows the upsell target,
 * the alt text word, the slot element check) as compact expressions rather than the registry's
 * tables: every byte ships to every dealer page, within a 4 KB brotli budget that the tables
 * would take a sixth of. shortcodes.test.ts checks this module's against the registry.
 */
export type Slot = SlotType;

/**
 * Matches [dc-banner type="header"]: straight or curly quotes (WordPress's texturizer and word
 * processors write type=”primary”; any one non-word character counts as a quote), any case, any
 * spacing, quotes optional. Written `d[c]` so that the inline snippet's own source, which
 * is text in the page, never contains what it looks for (else every scan of the page would find it
 * and walk all its text).
 */
export const SHORTCODE = /\[d[c]-banner\s+type\s*=\s*[^\w\s\]]?\s*(header|primary|upsell)\s*[^\w\s\]]?\s*\]/gi;

/** True when a text may hold a shortcode (cheap test before the full match; `d[c]` as in SHORTCODE). */
export const mayHoldShortcode = (text: string | null): boolean => !!text && /\[d[c]-banner/i.test(text);

/**
 * Where an unfinished shortcode ends the text: the index of a trailing `[d`, `[dc-b`, ...
 * `[dc-banner type="` (up to 40 characters after `[dc-banner`, no `]`), else -1. The HTML parser
 * may deliver a shortcode across two network chunks; the part that arrived first is withheld from
 * the page until the rest does (slots.ts slotsFor). Written without the literal, as SHORTCODE.
 */
export function unfinishedShortcodeAt(text: string): number {
  const m = /\[(?:d(?:c(?:-(?:b(?:a(?:n(?:n(?:e(?:r[^\]]{0,40})?)?)?)?)?)?)?)?)$/i.exec(text);
  return m ? m.index : -1;
}

/** The slot types of the shortcodes in a text, in order, lower case. */
export function shortcodeTypes(text: string): Slot[] {
  return Array.from(text.matchAll(SHORTCODE), (m) => m[1]!.toLowerCase() as Slot);
}

/** 'mobile' at 768 px wide or less, else 'desktop'. */
export function variantFor(windowWidth: number): Variant {
  return windowWidth <= MOBILE_BREAKPOINT_PX ? 'mobile' : 'desktop';
}

/** Configured size of a slot on a device, [width, height] pixels, from the configuration's sizes keyed by slot type (desktop, mobile). */
export function slotSize(type: Slot, variant: Variant, sizes: EmbedConfig['sizes']): [number, number] {
  return sizes[type][variant === 'mobile' ? 1 : 0]!;
}

/** Max CSS width of a slot, its size family's (slots.ts SIZE_FAMILIES): 1920 px for headers, 350 px for inline banners. */
export function maxWidth(type: Slot): number {
  return type === 'header' ? 1920 : 350;
}

/**
 * URL of the banner image for a slot: the page's model as the URL writes it (the server decides what
 * the slot shows), the page's trim when it has one, the dealer's version `v` except for the header,
 * and the session's rotation bucket `r` (slots.ts rotationBucket: which creative of a rotation
 * shows). The version makes a settings change give new URLs, so no cache keeps the old choice.
 * The header's URL names none: the inline snippet pasted in the dealer's page requests the header
 * while the page parses and never learns a later version, and the main script must ask for that
 * same URL or the header downloads twice; the server answers a URL without `v` with
 * `Cache-Control: no-cache`, revalidated by its ETag on every use, which keeps it as current.
 */
export function assetUrl(c: Pick<EmbedConfig, 'apiOrigin' | 'dealerId'> & { version?: number }, model: string, type: Slot, variant: Variant, trim: string | null | undefined, r: number): string {
  const q = `model=${encodeURIComponent(model)}&type=${type}&variant=${variant}${trim ? `&trim=${encodeURIComponent(trim)}` : ''}${type === 'header' ? '' : `&v=${c.version}`}&r=${r}`;
  return `${c.apiOrigin}/api/scripts/${encodeURIComponent(c.dealerId)}/asset?${q}`;
}

/**
 * The models the slots of a page model show, from the configuration's compact plan:
 * [header and primary model, upsell model] as display names; null when the page model maps to
 * nothing (its slots are hidden).
 */
export function planOf(c: Pick<EmbedConfig, 'models' | 'aliases'>, pageModel: string): [string, string] | null {
  const key = modelKey(pageModel);
  const i = {}.hasOwnProperty.call(c.aliases, key) ? c.aliases[key]! : c.models.findIndex(([name, up]) => up >= 0 && modelKey(name) === key);
  const entry = key ? c.models[i] : undefined;
  const upsell = entry ? c.models[entry[1]] : undefined;
  return entry && upsell ? [entry[0], upsell[0]] : null;
}

/**
 * True when `bare` (EmbedConfig.bare / SnippetConfig.b: page model key -> first letters of the slot
 * types without a creative, set only when the dealer hides such slots) lists the `type` slot of
 * the page's `model`: the snippet reserves no box for it and the script hides it.
 */
export const isBare = (bare: Record<string, string> | undefined, model: string, type: SlotType): boolean => !!bare?.[modelKey(model)]?.includes(type[0]!);
