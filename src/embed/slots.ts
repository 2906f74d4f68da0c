/**
 * Shortcodes to slot elements, shared by the inline snippet (snippet.ts) and the main script
 * (index.ts): a text node's shortcodes are blanked and a `<div class="dc-banner"
 * data-dc-type="...">` per shortcode is inserted right after it. The text node itself is never
 * removed or replaced (a framework such as React may own it).
 */
import { mayHoldShortcode, SHORTCODE, shortcodeTypes, unfinishedShortcodeAt } from './shortcodes';
import { MOBILE_BREAKPOINT_PX, ROTATION_BUCKETS } from '../domain/page-constants';

/**
 * shortcodes.ts's variantFor for the viewport's width, read through a media query: on a mobile viewport
 * `innerWidth` makes the browser lay the page out first (a 30-60 ms stretch on a large page at 4x
 * CPU), a media query does not.
 */
export const viewportVariant = (): 'desktop' | 'mobile' => (matchMedia(`(max-width:${MOBILE_BREAKPOINT_PX}px)`).matches ? 'mobile' : 'desktop');

/**
 * The reserved box of a slot: full width up to `maxWidth` CSS px, the slot's [width, height]
 * aspect ratio. Transparent: the dealer's colour (around a creative of another shape) is added once
 * the creative has loaded, so a slot whose creative is late or never comes is empty space, not a
 * coloured block. Its paint is contained (clipped to the slot's box; the dealer's custom CSS may not
 * set `contain` or `all`, see server/scripts/custom-css.ts): whatever that CSS does to what is
 * inside the slot (an absolutely positioned link the size of the viewport, a transform), it is
 * drawn and clicked within the slot.
 */
export const reserveStyle = (maxWidth: number, size: [number, number]) =>
  `display:block;width:100%;max-width:${maxWidth}px;aspect-ratio:${size[0]}/${size[1]};margin:0 auto;contain:paint`;

/** The creative inside its slot: the whole box, drawn at its own aspect ratio (letterboxed on the slot's colour, never stretched). */
export const IMG_STYLE = 'display:block;width:100%;height:100%;object-fit:contain;border:0';

/** A slot element made from a shortcode: `dcText` is the text node it was made from (a property, shared by the snippet and the main script). */
export type MadeSlot = HTMLElement & { dcText?: Text };

/**
 * A text node whose end the HTML parser delivered as the start of a shortcode: `dcHeld` is [the text
 * left on the page, the unfinished shortcode withheld] until the parser's next chunk completes it
 * (a property, shared by the snippet and the main script).
 */
type HeldText = Text & { dcHeld?: [string, string] };

/**
 * Blanks the shortcodes of `node` and inserts one slot element after it per shortcode, in order,
 * each remembering `node` (MadeSlot). Returns the new slots; [] when the text holds none or is
 * script, style or form text.
 *
 * Split across parser chunks: while the document is loading, an unfinished shortcode at the end
 * of the text (shortcodes.ts unfinishedShortcodeAt) is withheld from the page (never painted raw)
 * and joined to what the parser adds next: the same text node when the parser appends to it, or
 * the next text node after the node's slots when it starts a new one. What never gets finished is
 * put back when the document has been parsed (DOMContentLoaded).
 */
export function slotsFor(node: HeldText): HTMLElement[] {
  const parent = node.parentNode;
  if (!parent || /^(SCRIPT|STYLE|TEXTAREA|NOSCRIPT)$/.test(parent.nodeName)) return [];
  let text = node.nodeValue ?? '';
  // The withheld start of a shortcode: in this node (the parser appended to it) or in the text
  // node before this one's slot siblings (the parser started a new node after them).
  let from: Node | null = node;
  if (!node.dcHeld) for (from = node.previousSibling; from && (from as MadeSlot).dcText; ) from = from.previousSibling;
  const held = (from as HeldText | null)?.dcHeld;
  if (held && from!.nodeValue!.startsWith(held[0])) {
    (from as HeldText).dcHeld = undefined;
    text = from === node ? held[0] + held[1] + text.slice(held[0].length) : held[1] + text;
  }
  const types = mayHoldShortcode(text) ? shortcodeTypes(text) : [];
  let shown = types.length ? text.replace(SHORTCODE, '') : text;
  const cut = document.readyState === 'loading' ? unfinishedShortcodeAt(shown) : -1;
  if (cut >= 0) {
    node.dcHeld = [shown.slice(0, cut), shown.slice(cut)];
    shown = node.dcHeld[0];
    document.addEventListener('DOMContentLoaded', () => void (node.dcHeld && slotsFor(node)), { once: true });
  }
  if (shown !== node.nodeValue) node.nodeValue = shown;
  let after: Node = node;
  return types.map((type) => {
    const el: MadeSlot = document.createElement('div');
    el.dcText = node;
    el.className = 'dc-banner';
    el.setAttribute('data-dc-type', type);
    parent.insertBefore(el, after.nextSibling);
    return (after = el);
  });
}

/** The text nodes under `root` (an element) that may hold shortcodes: one walk of the subtree. */
export function shortcodeTexts(root: Node): Text[] {
  const hits: Text[] = [];
  if (!mayHoldShortcode(root.textContent)) return hits;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (mayHoldShortcode(n.nodeValue)) hits.push(n as Text);
  return hits;
}

/**
 * The added nodes of a batch of mutation records that need looking at: every added text node, and
 * the added elements with children that were not all added in the same batch (a subtree inserted
 * whole, by innerHTML or appendChild). The parser adds an element and then each of its children,
 * all in the batch (its first and last child among them): walking that element's subtree as well
 * would read the same text once per ancestor.
 */
export function addedRoots(records: MutationRecord[]): Node[] {
  const added = new Set<Node>();
  for (const r of records) r.addedNodes.forEach((n) => added.add(n));
  return [...added].filter((n) => n.nodeType === 3 || (n.nodeType === 1 && n.firstChild && !(added.has(n.firstChild) && added.has(n.lastChild!))));
}

/**
 * This browser session's rotation bucket (A/B): a whole number below ROTATION_BUCKETS,
 * drawn once and kept in sessionStorage, so a shopper sees the same creative on every page of a
 * visit (and the browser cache serves it); the server shows `rotation[r % n]`. 0 when `quiet`
 * (Do-Not-Track or Global Privacy Control: nothing is stored, and nothing is counted either) or
 * when storage is blocked, so the inline snippet and the main script always ask for the same URL.
 */
export function rotationBucket(quiet: boolean): number {
  try {
    return quiet ? 0 : +(sessionStorage[BUCKET_KEY] ??= (Math.random() * ROTATION_BUCKETS) | 0);
  } catch {
    return 0;
  }
}
const BUCKET_KEY = 'dcb_r';

/** True when the browser signals Do-Not-Track or Global Privacy Control. */
export const optedOut = (): boolean => navigator.doNotTrack == '1' || !!(navigator as Navigator & { globalPrivacyControl?: boolean }).globalPrivacyControl;
