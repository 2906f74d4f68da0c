import { describe, expect, it } from 'vitest';
import { PRIORITY_GROUPS } from './constants';
import { DEFAULT_WEIGHT, weightLabel } from './defaults';
import { modelKey } from './model-keys';
import { formatPriority, priorityBand, priorityColor, priorityFromStock, priorityLabel, raisedPriority, PRIORITY_MAX, PRIORITY_MIN } from './priority-scale';
import { priorityScore } from './priority-score';
import { raisedWeight } from './ranges';

const scale = Array.from({ length: PRIORITY_MAX - PRIORITY_MIN + 1 }, (_, i) => i + PRIORITY_MIN);

describe('the priority scale (DECISIONS 22)', () => {
  it('is 1..10 in three bands, the same bands as the inventory priority groups', () => {
    expect([PRIORITY_MIN, PRIORITY_MAX]).toEqual([1, 10]);
    for (const p of scale) {
      const group = PRIORITY_GROUPS.find((g) => p >= g.min && p <= g.max)!;
      expect(priorityLabel(p), String(p)).toBe(group.label);
      expect(weightLabel(p)).toBe(priorityLabel(p));
    }
    expect(scale.map(priorityBand).join(',')).toBe('Low,Low,Low,Normal,Normal,Normal,Normal,High,High,High');
  });

  it('is written and coloured one way', () => {
    expect([formatPriority(9), formatPriority(5), formatPriority(2)]).toEqual(['9 · High', '5 · Normal', '2 · Low']);
    expect([priorityColor(10), priorityColor(4), priorityColor(3)]).toEqual(['red', 'blue', 'gray']);
  });

  it('the stock priority (inventory score) is a value of the same scale', () => {
    const extremes = [
      { totalUnits: 1, agedUnits: 0, avgDaysOnLot: 5, trimCount: 1, exteriorColorCount: 1, interiorColorCount: 1, yearCount: 1 },
      { totalUnits: 40, agedUnits: 40, avgDaysOnLot: 200, trimCount: 9, exteriorColorCount: 9, interiorColorCount: 9, yearCount: 3 },
    ].map(priorityScore);
    // 5 - 2 (few units) - 0.5 (fresh) = 2.5, rounded up to 3: Low; the other is clamped to 10: High.
    expect(extremes).toEqual([3, PRIORITY_MAX]);
    expect(extremes.map(priorityLabel)).toEqual(['Low Priority', 'High Priority']);
  });
});

describe('raisedPriority (Raise upsell priority)', () => {
  it('moves Low to Normal (5), Normal to High (8), High up by one, and stops at 10', () => {
    expect(scale.map(raisedPriority)).toEqual([5, 5, 5, 8, 8, 8, 8, 9, 10, null]);
    expect(raisedWeight).toBe(raisedPriority);
  });

  it('always lands in a higher band or higher within High', () => {
    for (const p of scale.slice(0, -1)) {
      const next = raisedPriority(p)!;
      expect(next).toBeGreaterThan(p);
      expect(next).toBeLessThanOrEqual(PRIORITY_MAX);
      if (p < 8) expect(priorityBand(next)).not.toBe(priorityBand(p));
    }
  });
});

describe('priorityFromStock (Use stock priorities)', () => {
  const same = (a: string, b: string) => modelKey(a) === modelKey(b);
  it('copies each model stock priority, matched by model key, and keeps the others', () => {
    const out = priorityFromStock(['cr-v', 'pilot', 'civic', 'odyssey'], { crv: 9, Pilot: 2, civic: 12 }, { civic: 7, odyssey: 3 }, same, DEFAULT_WEIGHT);
    expect(out).toEqual({ 'cr-v': 9, pilot: 2, civic: 10, odyssey: 3 });
  });

  it('leaves unset models at the neutral value without stock', () => {
    expect(priorityFromStock(['hr-v'], {}, {}, same, DEFAULT_WEIGHT)).toEqual({ 'hr-v': 5 });
  });
});
