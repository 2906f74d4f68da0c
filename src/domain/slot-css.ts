/**
 * The CSS that reserves a banner slot's box (spec 01 §9: full width up to the slot's max width,
 * the dealer's configured aspect ratio per device), written once for the three places that need
 * it: the inline snippet (embed/snippet.ts: shortcode slots and the banner element's style rule),
 * the main script (embed/index.ts: every slot it fills) and the server (the banner-element rules a
 * tag-manager install pastes in the theme's stylesheet, server/scripts/service.ts). Plain strings,
 * no tables: the embed bundles take only what they call (the max width comes from the caller:
 * the embed's compact copy, or the slot registry on the server).
 */
import type { SlotSizes } from './embed-config';
import { MOBILE_BREAKPOINT_PX } from './page-constants';
import type { SlotType } from './slots';

/**
 * The reserved box of a slot, as CSS declarations: full width up to `maxWidth` CSS px, the slot's
 * [width, height] aspect ratio. Transparent: the dealer's colour (around a creative of another shape) is added once
 * the creative has loaded, so a slot whose creative is late or never comes is empty space, not a
 * coloured block. Its paint is contained (clipped to the slot's box; the dealer's custom CSS may not
 * set `contain` or `all`, see server/scripts/custom-css.ts): whatever that CSS does to what is
 * inside the slot (an absolutely positioned link the size of the viewport, a transform), it is
 * drawn and clicked within the slot.
 */
export const reserveStyle = (maxWidth: number, size: [number, number]) =>
  `display:block;width:100%;max-width:${maxWidth}px;aspect-ratio:${size[0]}/${size[1]};margin:0 auto;contain:paint`;

/**
 * Style rules reserving the box of each banner element `<div data-dc-banner="type">` (any case)
 * from the dealer's `sizes` (EmbedConfig.sizes: [desktop, mobile] per slot type): the desktop box,
 * and the mobile aspect ratio at MOBILE_BREAKPOINT_PX wide or less; `maxWidth` gives each slot
 * type's max width (px). The same boxes the main script gives the elements it fills, so nothing
 * moves when it does. One rule pair per slot type of `sizes`, joined by `separator` (none: the
 * snippet's; a line break: the text a dealer pastes); a slot type `hidden` answers true for gets
 * `display:none` instead (the snippet's slots without a banner, when the dealer hides them).
 */
export function bannerElementCss(sizes: SlotSizes, maxWidth: (type: SlotType) => number, separator = '', hidden: (type: SlotType) => boolean = () => false): string {
  return (Object.keys(sizes) as SlotType[])
    .map((t) => {
      const sel = `[data-dc-banner=${t} i]`;
      if (hidden(t)) return `${sel}{display:none}`;
      const [desktop, mobile] = sizes[t] as [[number, number], [number, number]];
      return `${sel}{${reserveStyle(maxWidth(t), desktop)}}@media(max-width:${MOBILE_BREAKPOINT_PX}px){${sel}{aspect-ratio:${mobile[0]}/${mobile[1]}}}`;
    })
    .join(separator);
}
