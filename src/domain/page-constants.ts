/**
 * Constants the embed script needs (spec 01 §9), in a module of their own so the script's bundle
 * carries nothing else; re-exported by constants.ts.
 */

/** Embed script constants (spec 01 §9). */
export const SCRIPT_URL_WATCH_MS = 500;
export const MOBILE_BREAKPOINT_PX = 768;
export const HEADER_MAX_WIDTH_PX = 1920;
export const INLINE_MAX_WIDTH_PX = 350;

/** Provider inventory link year bounds for mxs (spec 01 §9). */
export const MXS_MIN_YEAR = 2003;
export const MXS_MAX_YEAR = 2026;
