/**
 * The one priority scale of the product: how hard a model is pushed, an integer 1..10 read in three
 * bands everywhere (DECISIONS 22): 1-3 'Low Priority', 4-7 'Normal Priority', 8-10 'High Priority'.
 *
 * Two numbers per model live on this scale and every screen names them the same way:
 * - **Upsell priority** — the dealer's own number (the spec's inventory weight, spec 02 §3
 *   `inventoryWeights`, §5 "integers 1 to 10", default 5, 'Reset to Neutral' sets 5). It is the
 *   number that decides: among a model's upsell candidates the higher upsell priority is shown
 *   (domain/upsell.ts rankCandidates, domain/slot-plan.ts). It is edited in one place, the Upsell
 *   Rules screen; Configuration shows it read-only, Analytics' 'Raise upsell priority' moves it one
 *   band (raisedPriority), the Inventory screen shows it beside the stock's number.
 * - **Stock priority** — the inventory priority score computed from the dealer's stock (spec 02 §9,
 *   domain/priority-score.ts): what the stock suggests. It never overrides the dealer's number; it
 *   breaks ties between candidates of equal upsell priority, and the Upsell Rules screen can copy it
 *   into the upsell priorities ('Use stock priorities'), after which they are the same number.
 */

/** Lowest and highest value of the scale (spec 02 §5, §9). */
export const PRIORITY_MIN = 1;
export const PRIORITY_MAX = 10;

/** A band of the scale (DECISIONS 22). */
export type PriorityLabel = 'High Priority' | 'Normal Priority' | 'Low Priority';

/**
 * The band of a priority (DECISIONS 22): 8-10 'High Priority', 4-7 'Normal Priority', 1-3 'Low
 * Priority'. Values outside 1..10 take the nearest band; fractions are compared as is.
 */
export function priorityLabel(p: number): PriorityLabel {
  if (p >= 8) return 'High Priority';
  if (p >= 4) return 'Normal Priority';
  return 'Low Priority';
}

/** The band's short word: 'High', 'Normal' or 'Low'. */
export function priorityBand(p: number): 'High' | 'Normal' | 'Low' {
  return priorityLabel(p).replace(' Priority', '') as 'High' | 'Normal' | 'Low';
}

/** How a priority is written on every screen: '9 · High', '5 · Normal', '2 · Low'. */
export function formatPriority(p: number): string {
  return `${p} · ${priorityBand(p)}`;
}

/** The one colour of each band on every screen (a Mantine colour name): High red, Normal blue, Low gray. */
export function priorityColor(p: number): 'red' | 'blue' | 'gray' {
  const band = priorityBand(p);
  return band === 'High' ? 'red' : band === 'Normal' ? 'blue' : 'gray';
}

/**
 * The next upsell priority of the 'Raise upsell priority' action: a Low model moves to Normal (5),
 * a Normal one to High (8), a High one up by one; null at 10 (nothing to raise).
 */
export function raisedPriority(p: number): number | null {
  if (p >= PRIORITY_MAX) return null;
  if (p < 4) return 5;
  if (p < 8) return 8;
  return p + 1;
}

/**
 * The upsell priorities after 'Use stock priorities': each of `models` (standard model names) takes
 * its stock priority from `stock` (model -> 1..10, keys matched with `sameModel`), clamped and
 * rounded to the scale; a model the stock does not hold keeps its current priority (`current`, or
 * `fallback` when unset). Returns a new record keyed by `models`.
 */
export function priorityFromStock(
  models: string[],
  stock: Record<string, number>,
  current: Record<string, number>,
  sameModel: (a: string, b: string) => boolean,
  fallback: number,
): Record<string, number> {
  const find = (rec: Record<string, number>, m: string) => Object.entries(rec).find(([k]) => sameModel(k, m))?.[1];
  return Object.fromEntries(
    models.map((m) => {
      const s = find(stock, m);
      const now = find(current, m) ?? fallback;
      return [m, s === undefined ? now : Math.min(PRIORITY_MAX, Math.max(PRIORITY_MIN, Math.round(s)))];
    }),
  );
}
