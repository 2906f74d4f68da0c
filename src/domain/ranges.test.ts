import { describe, expect, it } from 'vitest';
import { comparisonRange, isDayText, quickRanges, raisedWeight, rangeDays, rangeLabel, zonedDay, zonedDayStart, zonedRangeWindow } from './ranges';

describe('custom date ranges', () => {
  it('reads local days in the dealer time zone, across a daylight-saving change', () => {
    expect(zonedDayStart('2026-03-07', 'America/New_York').toISOString()).toBe('2026-03-07T05:00:00.000Z');
    expect(zonedRangeWindow({ from: '2026-03-07', to: '2026-03-08' }, 'America/New_York')).toEqual({
      from: new Date('2026-03-07T05:00:00Z'),
      to: new Date('2026-03-09T04:00:00Z'), // 8 March is 23 hours long there
    });
    expect(zonedDay(new Date('2026-03-10T03:30:00Z'), 'America/New_York')).toBe('2026-03-09');
    expect(zonedDay(new Date('2026-03-10T03:30:00Z'), 'Europe/Berlin')).toBe('2026-03-10');
  });

  it('compares with the same number of days before, or the same dates last year', () => {
    expect(comparisonRange({ from: '2026-03-01', to: '2026-03-10' }, 'previous')).toEqual({ from: '2026-02-19', to: '2026-02-28' });
    expect(comparisonRange({ from: '2028-02-29', to: '2028-03-01' }, 'year')).toEqual({ from: '2027-02-28', to: '2027-03-01' });
    expect(rangeDays({ from: '2026-03-01', to: '2026-03-01' })).toBe(1);
  });

  it('labels ranges and offers quick ranges ending today', () => {
    expect(rangeLabel({ from: '2026-03-01', to: '2026-03-10' })).toBe('Mar 1 – Mar 10, 2026');
    expect(rangeLabel({ from: '2025-12-28', to: '2026-01-03' })).toBe('Dec 28, 2025 – Jan 3, 2026');
    expect(quickRanges('2026-03-10').map((q) => [q.label, q.range.from, q.range.to])).toEqual([
      ['Today', '2026-03-10', '2026-03-10'],
      ['Yesterday', '2026-03-09', '2026-03-09'],
      ['This month', '2026-03-01', '2026-03-10'],
      ['Last month', '2026-02-01', '2026-02-28'],
    ]);
    expect(isDayText('2026-02-29')).toBe(false);
    expect(isDayText('2028-02-29')).toBe(true);
  });

  it('raises an upsell weight one priority band (Low -> Normal -> High), then by one up to 10', () => {
    expect([1, 3, 4, 5, 7, 8, 9, 10].map(raisedWeight)).toEqual([5, 5, 8, 8, 8, 9, 10, null]);
  });
});
