/** Dealer and manufacturer ids (DECISIONS 8, spec 01 §3). */

/** Slug of a name: lowercase, spaces to hyphens, characters outside a-z0-9- dropped, repeated and edge hyphens removed. "Honda of Demo!" -> "honda-of-demo". */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .trim()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}
