/**
 * Constants the embed script needs (spec 01 §9), in a module of their own so the script's bundle
 * carries nothing else; re-exported by constants.ts.
 */

/** Embed script constants (spec 01 §9). */
export const SCRIPT_URL_WATCH_MS = 500;
export const MOBILE_BREAKPOINT_PX = 768;

/**
 * How long after the page's load event the embed keeps waiting for a framework to hydrate a region
 * marked as server-rendered (embed/slots.ts awaitingHydration) before it makes the region's slots
 * anyway: a marked region that no framework ever takes still gets its banners.
 */
export const HYDRATION_WAIT_MS = 10_000;

/** Provider inventory link year bounds for mxs (spec 01 §9). */
export const MXS_MIN_YEAR = 2003;
export const MXS_MAX_YEAR = 2026;

/**
 * Rotation buckets a banner request may name (`r`, 0 to ROTATION_BUCKETS - 1; the embed script
 * draws one per browser session): 2520 is divisible by every count from 1 to 10, so buckets drawn
 * evenly split a rotation of up to 10 creatives exactly evenly.
 */
export const ROTATION_BUCKETS = 2520;
