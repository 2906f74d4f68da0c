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

/**
 * How long after the page's load event the inline snippet waits for the main script to take the
 * page over (window.dcBanners) before it gives its empty reserved boxes up (embed/slots.ts
 * whenScriptMissing). An async script delays the load event until it has run or failed, so at
 * the load event a working tag has normally run; the wait covers a tag manager that inserts our
 * script on its "window loaded" trigger (one more round trip, a second or two on a slow phone
 * network). A script that fails to load is given up at once, without this wait.
 */
export const SCRIPT_GRACE_MS = 3_000;

/**
 * How long a banner image may take to load or fail before the embed treats it as failed (the
 * placeholder, then collapse; embed/index.ts). A 100-200 KB creative takes 1-2 s on Slow 4G and
 * about 4 s on a 400 kbit/s link: an image with no answer after 10 s is a server or proxy that
 * hangs, and its slot must not stay an empty box for good.
 */
export const IMAGE_TIMEOUT_MS = 10_000;

/** Provider inventory link year bounds for mxs (spec 01 §9). */
export const MXS_MIN_YEAR = 2003;
export const MXS_MAX_YEAR = 2026;

/**
 * Rotation buckets a banner request may name (`r`, 0 to ROTATION_BUCKETS - 1; the embed script
 * draws one per browser session): 2520 is divisible by every count from 1 to 10, so buckets drawn
 * evenly split a rotation of up to 10 creatives exactly evenly.
 */
export const ROTATION_BUCKETS = 2520;
