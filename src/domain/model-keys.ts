/**
 * Model-name comparison (DECISIONS 25, spec 01 §5, spec 02 §4 step 1): one key for comparing any
 * two model names, and the alias table mapping keys to the catalogue's canonical names.
 */

/** Comparison key: lowercase, with spaces, hyphens, underscores and dots removed. "CR-V" -> "crv". */
export function modelKey(name: string): string {
  return name.toLowerCase().replace(/[\s\-_.]+/g, '');
}

/** Known aliases: comparison key -> canonical (hyphenated) model name. */
export const MODEL_ALIASES: Record<string, string> = {
  crv: 'cr-v',
  hrv: 'hr-v',
  f150: 'f-150',
  f250: 'f-250',
  santafe: 'santa-fe',
  grandcherokee: 'grand-cherokee',
  chr: 'c-hr',
  gr86: 'gr86',
  rav4: 'rav4',
  ioniq5: 'ioniq-5',
  ioniq6: 'ioniq-6',
  kona: 'kona',
  silverado: 'silverado',
  silverado1500: 'silverado',
};

/**
 * The canonical model name of an inventory or filename model: the dealer's model map first
 * (keys compared by modelKey), then the alias table, else the name lowercased with spaces as hyphens.
 */
export function canonicalModel(name: string, modelMap: Record<string, string> = {}): string {
  const key = modelKey(name);
  for (const [from, to] of Object.entries(modelMap)) {
    if (modelKey(from) === key) return to;
  }
  return MODEL_ALIASES[key] ?? name.trim().toLowerCase().replace(/\s+/g, '-');
}

/** True when two model names have the same comparison key. */
export function sameModel(a: string, b: string): boolean {
  return modelKey(a) === modelKey(b);
}
