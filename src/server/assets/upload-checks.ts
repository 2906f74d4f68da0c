/**
 * Upload checks: what a dealer should hear before a stored file turns
 * out to be a dead banner. Delivery looks assets up by the comparison key of the model a slot shows
 * (the page plans' standard models and upsell targets, domain/slot-plan.ts), so a file whose model
 * is none of those (a typo such as `civc`, or another make's `camry`) can never show: it is stored
 * (the dealer may fix the mapping later) with a warning naming the nearest model of the dealer, by
 * edit distance on the comparison keys. A file whose make is not the dealer's manufacturer is
 * flagged too (it may still show if its model matches, so the warning says to check it).
 */
import { distance } from 'fastest-levenshtein';
import type { ParsedFilename } from '../../domain/schemas';
import { modelKey } from '../../domain/model-keys';
import type { DealerDelivery } from '../dealer-sites';

/** The dealer facts the checks read: its page plans and manufacturer name (DealerDelivery). */
export type UploadCheckDealer = Pick<DealerDelivery, 'plans' | 'manufacturerName'>;

/**
 * The standard model of `dealer` nearest to `key` (a comparison key), as its display name, or null
 * when none is within max(2, a third of the key's length) edits.
 */
export function nearestModel(key: string, dealer: UploadCheckDealer): string | null {
  let best: { name: string; d: number } | null = null;
  for (const plan of dealer.plans.values()) {
    const d = distance(key, plan.model.key);
    if (!best || d < best.d) best = { name: plan.model.displayName, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.name : null;
}

/** The keys delivery can ever look an asset up by: every planned model and upsell target. */
function showableKeys(dealer: UploadCheckDealer): Set<string> {
  return new Set([...dealer.plans.values()].flatMap((p) => [p.model.key, p.upsell.key]));
}

/** How the "can never be chosen" warning starts (the upload result and the Asset Manager card). */
export const NEVER_SHOWS = 'Will never show:';

/**
 * Warnings for a file about to be stored (empty when it will show): a make other than the dealer's
 * manufacturer, and a model delivery can never choose, with the nearest model suggested.
 */
export function deadBannerWarnings(parsed: ParsedFilename, dealer: UploadCheckDealer): string[] {
  const warnings: string[] = [];
  if (modelKey(parsed.manufacturer) !== modelKey(dealer.manufacturerName)) {
    warnings.push(`The file name names the make "${parsed.manufacturer}", but this dealer's banners are for ${dealer.manufacturerName}: check it is the right file.`);
  }
  const key = modelKey(parsed.model);
  if (!showableKeys(dealer).has(key)) {
    const near = nearestModel(key, dealer);
    warnings.push(`${NEVER_SHOWS} "${parsed.model}" is not a model of this dealer.${near ? ` Did you mean ${near}?` : ' Check the model in the file name or add a model mapping.'}`);
  }
  return warnings;
}
