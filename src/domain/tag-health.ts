/**
 * Tag health: what a dealer's Script page says of the beacons its pages send (spec 01 §7 tracking,
 * spec 02 §2 Script). The server keeps counters only, never personal data: per dealer, site origin
 * and slot type, when a beacon was last seen and last counted, and per hour how many beacons were
 * counted or refused/dropped and why. Pure: no I/O; the reasons' texts are shown by the Script
 * page and the server's "Test my page" answer alike.
 */

/**
 * Why a beacon that reached the dealer's intake was, or was not, counted:
 * - `counted`: accepted for counting (an impression may still be a page view's second one);
 * - `bot`: sent by a crawler or a headless browser (isbot), acknowledged and dropped;
 * - `domain`: its page is not on the dealer's allowed domains (or sent no usable Origin/Referer);
 * - `https`: its page was plain HTTP while the dealer requires HTTPS;
 * - `rate-limit`: over the dealer's requests per minute (per page view, or per client IP);
 * - `opted-out`: the visitor sent Do-Not-Track or Global Privacy Control and the dealer respects them;
 * - `invalid`: the body named the dealer but was not a valid beacon (an old or altered script).
 */
export const TAG_HEALTH_REASONS = ['counted', 'bot', 'domain', 'https', 'rate-limit', 'opted-out', 'invalid'] as const;
export type TagHealthReason = (typeof TAG_HEALTH_REASONS)[number];
/** The reasons a beacon was refused or dropped (every reason but `counted`). */
export type TagRefusalReason = Exclude<TagHealthReason, 'counted'>;
/** The refusal reasons in the order screens list them. */
export const TAG_REFUSAL_REASONS = TAG_HEALTH_REASONS.filter((r): r is TagRefusalReason => r !== 'counted');

/** Hours of refusal counts the Script page shows (the last 24 h). */
export const TAG_HEALTH_WINDOW_HOURS = 24;
/**
 * Start of the tag-health window at `now`: the UTC hour TAG_HEALTH_WINDOW_HOURS - 1 hours before
 * the current one, so the window holds the current hour and the 23 whole ones before it.
 */
export function tagHealthSince(now: Date): Date {
  const hour = 3_600_000;
  return new Date(Math.floor(now.getTime() / hour) * hour - (TAG_HEALTH_WINDOW_HOURS - 1) * hour);
}

/** Days the hourly tag-health counters are kept before the retention job deletes them. */
export const TAG_HEALTH_KEPT_DAYS = 7;
/**
 * Distinct site origins stored per dealer; beacons from any further origin are counted under
 * TAG_OTHER_ORIGIN (a hostile client can send any Origin header).
 */
export const TAG_HEALTH_ORIGINS_PER_DEALER = 20;
/** The origin under which beacons past TAG_HEALTH_ORIGINS_PER_DEALER are counted. */
export const TAG_OTHER_ORIGIN = 'other';
/** The origin of beacons that sent neither a usable Origin nor Referer header. */
export const TAG_NO_ORIGIN = 'none';
/** Longest origin text stored; a longer one counts as TAG_OTHER_ORIGIN. */
export const TAG_ORIGIN_MAX_LENGTH = 200;

/**
 * One line for each reason: what it means, and what the dealer can do about it; `adminAction`,
 * where it differs, is the same advice for an administrator, who changes the settings the
 * dealer's staff have to ask for (reasonAction).
 */
export const TAG_REASON_TEXTS: Record<TagHealthReason, { label: string; explanation: string; action: string; adminAction?: string }> = {
  counted: {
    label: 'Counted',
    explanation: 'Beacons accepted for counting.',
    action: 'Nothing to do: your tag is working.',
  },
  bot: {
    label: 'Bots',
    explanation: 'Sent by crawlers, monitoring tools or headless browsers (their user agent says so); never counted.',
    action: 'Nothing to do unless you were testing with a headless browser: test in a normal browser window instead.',
  },
  domain: {
    label: 'Domain not allowed',
    explanation: "The page was not on one of your allowed domains (or the browser sent no page address), so its beacons are refused.",
    action: 'Ask your administrator to add the domain (and the bare domain if your site also answers without www.) under Security.',
    adminAction: "Add the domain (and the bare domain if the site also answers without www.) to the allowed domains in the dealer's Security settings.",
  },
  https: {
    label: 'HTTPS required',
    explanation: 'The page was served over plain HTTP while your settings count only HTTPS pages.',
    action: 'Serve your site over HTTPS (redirect http:// to https://), or ask your administrator to turn off "Require HTTPS".',
    adminAction: 'Have the site served over HTTPS (redirect http:// to https://), or turn off "Require HTTPS" in the dealer\'s Security settings.',
  },
  'rate-limit': {
    label: 'Rate limit',
    explanation: 'More beacons per minute than your rate limit allows, from one page view or one network.',
    action: 'Usually a page that re-renders banners in a loop; otherwise ask your administrator to raise the requests per minute.',
    adminAction: "Usually a page that re-renders banners in a loop; otherwise raise the requests per minute in the dealer's Security settings.",
  },
  'opted-out': {
    label: 'Do-Not-Track / GPC',
    explanation: 'The visitor asked not to be tracked (Do-Not-Track or Global Privacy Control) and your settings respect that.',
    action: 'Nothing to do: these visitors still see the banners but are not counted.',
  },
  invalid: {
    label: 'Invalid',
    explanation: 'The beacon named your dealer but its content was not valid (an old copy of the script, or an altered one).',
    action: 'Copy the tag from this page again and replace any old or self-hosted copy of the script.',
  },
};

/** What to do about `reason`, worded for an administrator (`admin`) or for the dealer's staff. */
export function reasonAction(reason: TagHealthReason, admin: boolean): string {
  const text = TAG_REASON_TEXTS[reason];
  return (admin && text.adminAction) || text.action;
}

/**
 * The site origin a beacon is counted under, from its Origin header, else its Referer:
 * `scheme://host[:port]` lower-cased for http(s) pages; TAG_NO_ORIGIN when neither header is
 * usable (absent, `null`, or not an http(s) address); TAG_OTHER_ORIGIN for one longer than
 * TAG_ORIGIN_MAX_LENGTH. Cheap (a regular expression, no URL parsing): it runs for every beacon.
 */
export function beaconOrigin(origin: string | undefined, referer: string | undefined): string {
  const raw = origin && origin !== 'null' ? origin : referer;
  if (!raw) return TAG_NO_ORIGIN;
  const m = /^(https?:\/\/)([^/?#\s]+)/i.exec(raw);
  if (!m) return TAG_NO_ORIGIN;
  // A Referer may carry user:password@ before the host: never stored.
  const o = `${m[1]}${m[2]!.slice(m[2]!.lastIndexOf('@') + 1)}`.toLowerCase();
  return o.length > TAG_ORIGIN_MAX_LENGTH ? TAG_OTHER_ORIGIN : o;
}
