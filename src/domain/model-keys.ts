/**
 * Model-name comparison (DECISIONS 25, spec 01 §5, spec 02 §4 step 1): one key for comparing any
 * two model names, and the alias table mapping keys to the catalogue's canonical names.
 */

/**
 * Comparison key of a model name (DECISIONS 25): lowercase, with spaces, hyphens, underscores and
 * dots removed. "CR-V" -> "crv", "Santa Fe" -> "santafe", "F_150" -> "f150". Never throws.
 */
export function modelKey(name: string): string {
  return name.toLowerCase().replace(/[\s\-_.]+/g, '');
}

/**
 * The key a tracking beacon's model is compared and stored under (trackBodySchema): the comparison
 * key of its NFKC form with everything but letters and digits removed ("CR-V" -> "crv",
 * "=cmd" -> "cmd"); '' when nothing is left. Never throws.
 */
export function beaconModelKey(name: string): string {
  return modelKey(name.normalize('NFKC')).replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The one model key under which events are counted whose beacon named a model the dealer's page
 * plan does not know (per slot type, like any model): forged or mistyped models never become keys
 * of their own. Beacon keys are letters and digits only (beaconModelKey), so it never collides with
 * a real model key.
 */
export const UNKNOWN_MODEL_KEY = '(unknown)';

/**
 * How analytics answers name the sum of the models beyond their cap (MAX_ANALYTICS_MODELS); like
 * UNKNOWN_MODEL_KEY, no beacon key can be spelt so.
 */
export const OTHER_MODELS = '(other)';

/**
 * Known aliases of the six catalogue brands (Honda, Toyota, Ford, Chevrolet, Nissan, Hyundai):
 * comparison key -> canonical model name as the catalogue writes it (lowercase, hyphenated where
 * the brand hyphenates or spaces the name). Every value is its own canonical form
 * (canonicalModel(value) === value). Spec 01 §5 "known aliases", DECISIONS 25.
 */
export const MODEL_ALIASES: Record<string, string> = {
  // Honda
  crv: 'cr-v',
  crvhybrid: 'cr-v-hybrid',
  hrv: 'hr-v',
  civichatchback: 'civic-hatchback',
  civichybrid: 'civic-hybrid',
  civicsi: 'civic-si',
  civictyper: 'civic-type-r',
  accordhybrid: 'accord-hybrid',
  // Toyota
  rav4: 'rav4',
  rav4hybrid: 'rav4-hybrid',
  chr: 'c-hr',
  gr86: 'gr86',
  grcorolla: 'gr-corolla',
  grsupra: 'gr-supra',
  corollacross: 'corolla-cross',
  grandhighlander: 'grand-highlander',
  landcruiser: 'land-cruiser',
  bz4x: 'bz4x',
  // Ford
  f150: 'f-150',
  f150lightning: 'f-150-lightning',
  f250: 'f-250',
  f350: 'f-350',
  broncosport: 'bronco-sport',
  mustangmache: 'mustang-mach-e',
  etransit: 'e-transit',
  // Chevrolet
  silverado: 'silverado',
  silverado1500: 'silverado',
  silverado2500hd: 'silverado-2500hd',
  silveradoev: 'silverado-ev',
  equinoxev: 'equinox-ev',
  blazerev: 'blazer-ev',
  // Nissan
  gtr: 'gt-r',
  // Hyundai
  santafe: 'santa-fe',
  santacruz: 'santa-cruz',
  ioniq5: 'ioniq-5',
  ioniq6: 'ioniq-6',
  konaelectric: 'kona-electric',
};

/**
 * Canonical model name of an inventory, filename or page model (DECISIONS 25, spec 02 §3 modelMap).
 * Input: any spelling ("CR V", "crv", "Santa Fe"); optional dealer/manufacturer map of
 * source name -> canonical name whose keys are compared by modelKey.
 * Output: the map's value when a key matches, else MODEL_ALIASES' value, else the name trimmed,
 * lowercased, with runs of whitespace turned into one hyphen ("Grand Highlander" -> "grand-highlander").
 * Only the tables' own entries count, so "constructor" or "__proto__" are ordinary model names.
 */
export function canonicalModel(name: string, modelMap: Record<string, string> = {}): string {
  const key = modelKey(name);
  for (const [from, to] of Object.entries(modelMap)) {
    if (modelKey(from) === key) return to;
  }
  return Object.hasOwn(MODEL_ALIASES, key) ? MODEL_ALIASES[key]! : name.trim().toLowerCase().replace(/\s+/g, '-');
}

/** True when two model names have the same comparison key (DECISIONS 25): sameModel('CR-V', 'crv'). */
export function sameModel(a: string, b: string): boolean {
  return modelKey(a) === modelKey(b);
}
