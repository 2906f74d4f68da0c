/**
 * Which device a tracking beacon came from, for the Analytics screen's desktop/mobile split
 * (migration 0024). Decided by the server from the beacon's request headers, never by the
 * script: a page cannot then report itself on another device.
 *
 * - `Sec-CH-UA-Mobile` (a User-Agent Client Hint Chromium browsers send on every request):
 *   `?1` is mobile, `?0` desktop.
 * - Without it (Safari, Firefox, older browsers), the User-Agent: mobile when it carries the
 *   "Mobi" token (MDN's advice for mobile detection; phones' browsers put "Mobile" in their user
 *   agent, and Chromium sends `?1` exactly when its own user agent has it), else desktop.
 * - No hint and no User-Agent: unknown.
 *
 * Tablets count as desktop: that is what they declare themselves (Chrome on an Android tablet
 * sends `?0` and no "Mobile" token, iPadOS Safari presents a Mac's user agent) and what they get:
 * at 1024 px and wider the embed script shows the desktop banners (variant mobile at 768 px or
 * less, spec 01 §7). A separate tablet class could not be told apart reliably from headers, so
 * the split stays the two classes a dealer's site is laid out for.
 */
import type { DeviceClass } from './enums';

/** The "Mobi" token of a phone's user agent ("Mobile", "Mobi" of Opera Mobi), case-sensitive as MDN advises. */
const MOBILE_TOKEN = 'Mobi';

/**
 * The device class of a request from its `Sec-CH-UA-Mobile` and `User-Agent` header values
 * (undefined or '' when absent); see the module doc.
 */
export function deviceOf(secChUaMobile: string | undefined, userAgent: string | undefined): DeviceClass {
  const hint = secChUaMobile?.trim();
  if (hint === '?1') return 'mobile';
  if (hint === '?0') return 'desktop';
  if (!userAgent) return 'unknown';
  return userAgent.includes(MOBILE_TOKEN) ? 'mobile' : 'desktop';
}
