/**
 * Names that ad blockers block (spec 01 §7, the public addresses dealer sites load): whether an
 * address of this deployment would match the generic rules of the filter lists shoppers run
 * (EasyList and AdGuard Base for ads, EasyPrivacy and AdGuard Tracking Protection for trackers).
 * Such rules block by name alone, whoever serves the address: a host that starts with `banners.`
 * loses its script, images and beacons to the rule `://banners.`, a path through `/ads/` to `/ads/`.
 *
 * This is a naming check, not a filter engine: it knows the few generic host labels, path
 * directories and file names a banner deployment is likely to pick, written as those lists write
 * them, and matches the way their rules match (case-insensitive; `://banners.` = the host's first
 * label; `/ads/` = a whole path directory; `/tracking.js` = a whole file name). The product's own
 * paths (`/scripts/dc-banners-{id}.js`, `/api/scripts/{id}/asset`, `/api/analytics/track`) match
 * none of them. Pure: no I/O.
 */

/** Which filter lists carry a rule of this kind. */
const AD_LISTS = 'EasyList / AdGuard Base';
const TRACKER_LISTS = 'EasyPrivacy / AdGuard Tracking Protection';

/** Host first labels blocked by a generic `://label.` rule, with the lists that carry it. */
const HOST_LABELS: ReadonlyMap<string, string> = new Map([
  ['banners', AD_LISTS],
  ['banner', AD_LISTS],
  ['ads', AD_LISTS],
  ['ad', AD_LISTS],
  ['adserver', AD_LISTS],
  ['track', TRACKER_LISTS],
  ['tracking', TRACKER_LISTS],
  ['analytics', TRACKER_LISTS],
  ['stats', TRACKER_LISTS],
  ['pixel', TRACKER_LISTS],
]);

/** Path directories blocked by a generic `/word/` rule. */
const PATH_DIRECTORIES: ReadonlyMap<string, string> = new Map([
  ['banner', AD_LISTS],
  ['banners', AD_LISTS],
  ['ads', AD_LISTS],
  ['ad', AD_LISTS],
  ['adserver', AD_LISTS],
]);

/** File names blocked by a generic `/name` rule. */
const FILE_NAMES: ReadonlyMap<string, string> = new Map([
  ['tracking.js', TRACKER_LISTS],
  ['analytics.js', TRACKER_LISTS],
  ['promo.js', AD_LISTS],
]);

/** One address that a generic filter rule would block. */
export interface BlocklistMatch {
  /** The address checked (absolute URL). */
  url: string;
  /** Where the blocked name is: the host's first label, a path directory or the file name. */
  part: 'host' | 'path';
  /** The blocked name as found in the address, lower-cased (`banners`, `ads`, `tracking.js`). */
  name: string;
  /** The rule in filter-list syntax (`://banners.`, `/ads/`, `/tracking.js`). */
  rule: string;
  /** The filter lists that carry rules of this kind. */
  lists: string;
  /** One sentence: what the rule does to this address and what to rename. */
  why: string;
}

/**
 * The first generic filter rule that would block this address: its host's first label, then each
 * path directory, then the file name.
 * @param url an absolute URL (`https://banners.example.com/scripts/x.js`); a URL whose path ends in
 *   `/` is a directory (so `https://example.com/ads/` matches `/ads/`, `https://example.com/ads` does not)
 * @returns the match, or null when the address passes (or is not an absolute URL)
 */
export function blocklistMatch(url: string): BlocklistMatch | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const label = parsed.hostname.toLowerCase().split('.')[0] ?? '';
  const hostLists = parsed.hostname.includes('.') ? HOST_LABELS.get(label) : undefined;
  if (hostLists) {
    return {
      url,
      part: 'host',
      name: label,
      rule: `://${label}.`,
      lists: hostLists,
      why: `${hostLists} block every request to a host whose name starts with "${label}.", whoever serves it: give the host another first label (e.g. "dcb." or "media.").`,
    };
  }
  const segments = parsed.pathname.toLowerCase().split('/').slice(1);
  for (const [i, segment] of segments.entries()) {
    const directory = i < segments.length - 1;
    const name = decodeSegment(segment);
    const lists = (directory ? PATH_DIRECTORIES : FILE_NAMES).get(name);
    if (!lists) continue;
    const rule = directory ? `/${name}/` : `/${name}`;
    return {
      url,
      part: 'path',
      name,
      rule,
      lists,
      why: `${lists} block every address whose path contains "${rule}": choose a path without it.`,
    };
  }
  return null;
}

/** A path segment as a filter sees it; a malformed escape stays as written. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The public addresses a dealer's site requests from this deployment (as the server and the embed
 * script build them): the embed script, the banner image endpoint and the tracking beacon.
 * @param origin PUBLIC_ORIGIN without a trailing slash (it may carry a path prefix)
 * @param dealerId the dealer's id (lowercase letters, digits and hyphens)
 */
export function publicAddresses(origin: string, dealerId: string): { script: string; image: string; beacon: string } {
  return {
    script: `${origin}/scripts/dc-banners-${dealerId}.js`,
    image: `${origin}/api/scripts/${encodeURIComponent(dealerId)}/asset`,
    beacon: `${origin}/api/analytics/track`,
  };
}

/**
 * Every generic filter rule this deployment's public addresses would match, one entry per rule:
 * PUBLIC_ORIGIN itself (host and any path prefix) and, given a dealer, its script, image and
 * beacon addresses (a dealer id such as `ads` puts `/ads/` into the image path).
 * @param origin PUBLIC_ORIGIN without a trailing slash
 * @param dealerId a dealer's id; absent = only the origin is checked (server start-up)
 * @returns the matches, empty when every address passes
 */
export function deploymentBlocklistMatches(origin: string, dealerId?: string): BlocklistMatch[] {
  const urls = [`${origin.replace(/\/+$/, '')}/`];
  if (dealerId !== undefined) urls.push(...Object.values(publicAddresses(origin, dealerId)));
  const byRule = new Map<string, BlocklistMatch>();
  for (const url of urls) {
    const match = blocklistMatch(url);
    if (match && !byRule.has(match.rule)) byRule.set(match.rule, match);
  }
  return [...byRule.values()];
}
