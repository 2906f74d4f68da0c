/**
 * Shortcodes to slot elements, shared by the inline snippet (snippet.ts) and the main script
 * (index.ts): a text node's shortcodes are blanked and a `<div class="dc-banner"
 * data-dc-type="...">` per shortcode is inserted right after it. The text node itself is never
 * removed or replaced (a framework such as React may own it; issue 13).
 */
import { mayHoldShortcode, SHORTCODE, shortcodeTypes } from './shortcodes';

/** The reserved box of a slot: full width up to `maxWidth` CSS px, the slot's [width, height] aspect ratio, the dealer's colour. */
export const reserveStyle = (maxWidth: number, size: [number, number], background: string) =>
  `display:block;width:100%;max-width:${maxWidth}px;aspect-ratio:${size[0]}/${size[1]};margin:0 auto;overflow:hidden;background:${background}`;

/** The creative inside its slot: the whole box, drawn at its own aspect ratio (letterboxed on the slot's colour, never stretched). */
export const IMG_STYLE = 'display:block;width:100%;height:100%;object-fit:contain;border:0';

/**
 * Blanks the shortcodes of `node` and inserts one slot element after it per shortcode, in order.
 * Returns the new slots; [] when the text holds none or is script, style or form text.
 */
export function slotsFor(node: Text): HTMLElement[] {
  const text = node.nodeValue ?? '';
  const parent = node.parentNode;
  if (!mayHoldShortcode(text) || !parent || /^(SCRIPT|STYLE|TEXTAREA|NOSCRIPT)$/.test(parent.nodeName)) return [];
  const types = shortcodeTypes(text);
  if (types.length) node.nodeValue = text.replace(SHORTCODE, '');
  let after: Node = node;
  return types.map((type) => {
    const el = document.createElement('div');
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
