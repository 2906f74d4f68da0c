/** Dealer and manufacturer ids (DECISIONS 8, spec 01 §3). */

/**
 * Id slug of a dealer or manufacturer name (DECISIONS 8, spec 01 §3): lowercase, runs of
 * whitespace to one hyphen, characters outside a-z, 0-9 and '-' dropped, repeated hyphens collapsed,
 * leading and trailing hyphens removed. "Honda of Demo!" -> "honda-of-demo". May return "" (for
 * example for "!!!"); callers refuse an empty id.
 */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .trim()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * True when `id` is a dealer or manufacturer id as slugify makes them: non-empty, lowercase a-z,
 * 0-9 and single hyphens, no hyphen first or last ("honda-of-demo"; not "../admin", "A", "a--b").
 */
export function isSlug(id: string): boolean {
  return id !== '' && slugify(id) === id;
}
