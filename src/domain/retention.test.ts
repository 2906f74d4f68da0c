import { describe, expect, it } from 'vitest';
import { DETAIL_DAILY_DAYS, DETAIL_HOURLY_DAYS, HOURLY_ROLLUP_DAYS, detailDailyCutoff, detailHourlyCutoff, hourlyRollupCutoff } from './retention';
import { PERIOD_SPANS } from './periods';

describe('rollup retention windows', () => {
  const now = new Date('2026-03-10T23:59:59.999Z');

  it('cut at the start of a UTC day the window back from today, whatever the hour', () => {
    expect(detailHourlyCutoff(now).toISOString()).toBe('2026-02-28T00:00:00.000Z');
    expect(detailHourlyCutoff(new Date('2026-03-10T00:00:00.000Z')).toISOString()).toBe('2026-02-28T00:00:00.000Z');
    expect(hourlyRollupCutoff(now).toISOString()).toBe('2025-12-08T00:00:00.000Z');
    expect(detailDailyCutoff(now)).toBe('2025-12-08');
    expect(detailDailyCutoff(new Date('2026-03-11T00:00:00.000Z'))).toBe('2025-12-09');
  });

  it('keep the detail every screen reads: the 90-day period and its previous window, the weekly report', () => {
    const longest = Math.max(...Object.values(PERIOD_SPANS).map((s) => (s.unit === 'day' ? s.count : 1)));
    expect(DETAIL_DAILY_DAYS).toBeGreaterThanOrEqual(longest);
    expect(HOURLY_ROLLUP_DAYS).toBeGreaterThanOrEqual(longest + 1);
    // Seven local days before a Monday start at most 8 UTC days and 12 hours back.
    expect(DETAIL_HOURLY_DAYS).toBeGreaterThanOrEqual(9);
  });
});
