/**
 * Page-URL helpers shared by every provider (no provider code here, so the embed bundle of one
 * provider does not carry the others'): path segments and the privacy-safe form of a page URL.
 */

/** Lowercased, non-empty path segments of a URL. */
export function pathSegments(url: URL): string[] {
  return url.pathname
    .toLowerCase()
    .split('/')
    .filter((s) => s.length > 0);
}

/**
 * A page URL as beacons carry and events store it (privacy by default): origin and path
 * plus the `kept` query parameters (the providers' model, type and trim filters); every other query
 * parameter and the hash are dropped (a lead page's name, e-mail or phone never leaves the
 * browser). Null when not a URL.
 */
export function privacySafeUrl(pageUrl: string, kept: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    return null;
  }
  const q = new URLSearchParams();
  for (const [k, v] of url.searchParams) if (kept.includes(k)) q.append(k, v);
  const query = q.toString();
  return `${url.origin}${url.pathname}${query ? `?${query}` : ''}`;
}
