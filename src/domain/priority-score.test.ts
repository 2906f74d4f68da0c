import { describe, expect, it } from 'vitest';
import { priorityScore, type PriorityInput } from './priority-score';

/** A model that scores exactly 5: 10 units, none aged, 45 days, few trims/colours, one year. */
const base: PriorityInput = {
  totalUnits: 10,
  agedUnits: 0,
  avgDaysOnLot: 45,
  trimCount: 2,
  exteriorColorCount: 3,
  interiorColorCount: 2,
  yearCount: 1,
};
const score = (p: Partial<PriorityInput>) => priorityScore({ ...base, ...p });

describe('priorityScore (spec 02 §9)', () => {
  it('starts at 5', () => {
    expect(score({})).toBe(5);
  });

  it('adds min(4, 5 x aged share) with aged units', () => {
    expect(score({ agedUnits: 2 })).toBe(6); // +1
    expect(score({ agedUnits: 5 })).toBe(8); // 5 + 2.5 = 7.5 -> 8
    expect(score({ agedUnits: 10 })).toBe(9); // +min(4, 5) = +4
  });

  it('adds 2 above 15 units and subtracts 2 below 5', () => {
    expect(score({ totalUnits: 16 })).toBe(7);
    expect(score({ totalUnits: 15 })).toBe(5);
    expect(score({ totalUnits: 5 })).toBe(5);
    expect(score({ totalUnits: 4 })).toBe(3);
  });

  it('days on lot: +3 over 90, +2 over 60, -0.5 under 30', () => {
    expect(score({ avgDaysOnLot: 91 })).toBe(8);
    expect(score({ avgDaysOnLot: 90 })).toBe(7);
    expect(score({ avgDaysOnLot: 61 })).toBe(7);
    expect(score({ avgDaysOnLot: 60 })).toBe(5);
    expect(score({ avgDaysOnLot: 30 })).toBe(5);
    expect(score({ avgDaysOnLot: 29 })).toBe(5); // 4.5 rounds up to 5
    expect(score({ avgDaysOnLot: 29, trimCount: 4 })).toBe(5); // 4.5 + 0.5
  });

  it('variety: +0.5 trims over 3, +0.5 colours, +0.3 years; rounded', () => {
    expect(score({ trimCount: 4 })).toBe(6); // 5.5 -> 6
    expect(score({ exteriorColorCount: 5 })).toBe(6);
    expect(score({ interiorColorCount: 4 })).toBe(6);
    expect(score({ exteriorColorCount: 5, interiorColorCount: 4 })).toBe(6); // only +0.5 once
    expect(score({ yearCount: 2 })).toBe(5); // 5.3 -> 5
    expect(score({ trimCount: 4, yearCount: 2 })).toBe(6); // 5.8 -> 6
    expect(score({ trimCount: 4, exteriorColorCount: 5, yearCount: 2 })).toBe(6); // 6.3 -> 6
  });

  it('clamps to 1..10', () => {
    expect(score({ totalUnits: 20, agedUnits: 20, avgDaysOnLot: 120, trimCount: 5, exteriorColorCount: 6, yearCount: 2 })).toBe(10);
    expect(score({ totalUnits: 1, avgDaysOnLot: 5 })).toBe(3); // 5 - 2 - 0.5 = 2.5 -> 3
    expect(priorityScore({ ...base, totalUnits: 0, agedUnits: 0, avgDaysOnLot: 0 })).toBe(3);
  });

  it('never goes below 1 or above 10 for extreme input', () => {
    expect(priorityScore({ ...base, totalUnits: -100, avgDaysOnLot: -5 })).toBeGreaterThanOrEqual(1);
    expect(priorityScore({ ...base, totalUnits: 1000, agedUnits: 1000, avgDaysOnLot: 1000, trimCount: 9, exteriorColorCount: 9, yearCount: 3 })).toBe(10);
  });

  it('handles zero units with aged units without dividing by zero', () => {
    expect(priorityScore({ ...base, totalUnits: 0, agedUnits: 3 })).toBe(3);
  });
});
