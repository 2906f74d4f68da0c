/** Inventory priority score (spec 02 §9, spec 01 §5). */

/** One model's inventory figures (spec 02 §3 ModelBreakdown); counts are distinct values, days are days on lot. */
export interface PriorityInput {
  totalUnits: number;
  agedUnits: number;
  avgDaysOnLot: number;
  trimCount: number;
  exteriorColorCount: number;
  interiorColorCount: number;
  yearCount: number;
}

/**
 * Integer score 1..10 of how hard a model should be pushed (spec 02 §9): start at 5;
 * + min(4, 5 x agedUnits / totalUnits) when there are aged units (skipped when totalUnits is 0);
 * +2 above 15 units, -2 below 5; +3 when average days on lot exceed 90, else +2 above 60, else
 * -0.5 below 30; +0.5 for more than 3 trims; +0.5 for more than 4 exterior or more than 3
 * interior colours; +0.3 for more than one model year; then Math.round (halves round up) and
 * clamp to 1..10.
 */
export function priorityScore(b: PriorityInput): number {
  let s = 5;
  if (b.agedUnits > 0 && b.totalUnits > 0) s += Math.min(4, 5 * (b.agedUnits / b.totalUnits));
  if (b.totalUnits > 15) s += 2;
  else if (b.totalUnits < 5) s -= 2;
  if (b.avgDaysOnLot > 90) s += 3;
  else if (b.avgDaysOnLot > 60) s += 2;
  else if (b.avgDaysOnLot < 30) s -= 0.5;
  if (b.trimCount > 3) s += 0.5;
  if (b.exteriorColorCount > 4 || b.interiorColorCount > 3) s += 0.5;
  if (b.yearCount > 1) s += 0.3;
  return Math.min(10, Math.max(1, Math.round(s)));
}
