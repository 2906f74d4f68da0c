/**
 * Conversion attribution: a conversion counts only after a banner click in the same
 * browser session, within CONVERSION_WINDOW_MS of that click, once per click.
 */

/**
 * How long after a banner click a lead still counts as its conversion: 30 minutes, the usual
 * analytics session timeout (the click is kept in sessionStorage, so a new tab or browser session
 * never inherits it).
 */
export const CONVERSION_WINDOW_MS = 30 * 60_000;
