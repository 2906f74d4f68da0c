import { afterEach, describe, expect, it } from 'vitest';
import { ANALYTICS_PERIODS } from './schemas';
import { PERIOD_LABELS } from './constants';
import {
  PERIOD_SPANS,
  bucketKey,
  bucketLabel,
  bucketKeys,
  periodLabel,
  periodWindow,
  previousLabel,
  previousWindow,
  spanLabel,
  spanWindow,
} from './periods';

const at = (iso: string) => new Date(iso);
const iso = (w: { from: Date; to: Date }) => ({ from: w.from.toISOString(), to: w.to.toISOString() });
const HOUR = 3_600_000;

describe('periodWindow', () => {
  it('covers the current UTC hour and the 23 before for 24h, ending at the end of the current hour', () => {
    expect(iso(periodWindow('24h', at('2026-03-10T14:25:00Z')))).toEqual({ from: '2026-03-09T15:00:00.000Z', to: '2026-03-10T15:00:00.000Z' });
  });

  it('covers today (UTC) and the 6 days before for 7d', () => {
    expect(iso(periodWindow('7d', at('2026-03-10T14:25:00Z')))).toEqual({ from: '2026-03-04T00:00:00.000Z', to: '2026-03-10T15:00:00.000Z' });
  });

  // The old analytics window ([end of hour - 7 days, end of hour)) touched 8 days except from 23:00
  // to 23:59 UTC, when it started at midnight and touched 7: analytics.test.ts failed in that hour.
  it.each(['2026-03-10T00:00:00Z', '2026-03-10T00:30:00Z', '2026-03-10T12:00:00Z', '2026-03-10T23:00:00Z', '2026-03-10T23:30:00Z', '2026-03-10T23:59:59.999Z'])(
    'has exactly one bucket per unit of the period at %s',
    (now) => {
      for (const period of ANALYTICS_PERIODS) {
        const span = PERIOD_SPANS[period];
        const keys = bucketKeys(periodWindow(period, at(now)), span.unit);
        expect(keys).toHaveLength(span.count);
        expect(keys.at(-1)).toBe(bucketKey(at(now), span.unit)); // ends with the bucket holding now
      }
    },
  );

  it('ends the 7d window at the next midnight at 23:30 UTC, still on today', () => {
    const w = periodWindow('7d', at('2026-03-10T23:30:00Z'));
    expect(iso(w)).toEqual({ from: '2026-03-04T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' });
    expect(bucketKeys(w, 'day')).toEqual(['2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10']);
  });

  it('crosses month and year ends and leap days by UTC calendar', () => {
    expect(iso(periodWindow('30d', at('2024-03-01T05:00:00Z')))).toEqual({ from: '2024-02-01T00:00:00.000Z', to: '2024-03-01T06:00:00.000Z' });
    expect(bucketKeys(periodWindow('7d', at('2027-01-02T10:00:00Z')), 'day')).toEqual(['2026-12-27', '2026-12-28', '2026-12-29', '2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(bucketKeys(periodWindow('24h', at('2026-01-01T00:10:00Z')), 'hour').slice(0, 2)).toEqual(['2025-12-31T01:00', '2025-12-31T02:00']);
  });

  it('has no DST: every day is 24 hours across the European and US clock changes', () => {
    // 2026-03-29 (EU) and 2026-03-08 (US): a local-time calendar would give a 23-hour day.
    for (const now of ['2026-03-29T12:00:00Z', '2026-03-08T12:00:00Z', '2026-10-25T12:00:00Z']) {
      const w = periodWindow('7d', at(now));
      expect(w.to.getTime() - w.from.getTime()).toBe((6 * 24 + 13) * HOUR);
      expect(w.from.toISOString().slice(11)).toBe('00:00:00.000Z');
    }
  });

  describe('in another process time zone', () => {
    const original = process.env.TZ;
    afterEach(() => {
      process.env.TZ = original;
    });
    it.each(['Asia/Kolkata', 'America/New_York', 'Pacific/Chatham'])('computes the same UTC windows and buckets in %s', (zone) => {
      const now = at('2026-03-29T23:30:00Z');
      process.env.TZ = 'UTC';
      const expected = ANALYTICS_PERIODS.map((p) => ({ w: iso(periodWindow(p, now)), keys: bucketKeys(periodWindow(p, now), PERIOD_SPANS[p].unit) }));
      process.env.TZ = zone;
      expect(new Date(0).getTimezoneOffset()).not.toBe(0); // the zone really applies
      const actual = ANALYTICS_PERIODS.map((p) => ({ w: iso(periodWindow(p, now)), keys: bucketKeys(periodWindow(p, now), PERIOD_SPANS[p].unit) }));
      expect(actual).toEqual(expected);
    });
  });
});

describe('previousWindow', () => {
  it('is the same window one period earlier, of equal length', () => {
    for (const period of ANALYTICS_PERIODS) {
      const span = PERIOD_SPANS[period];
      const w = periodWindow(period, at('2026-03-10T23:30:00Z'));
      const p = previousWindow(w, span);
      expect(p.to.getTime() - p.from.getTime()).toBe(w.to.getTime() - w.from.getTime());
      expect(bucketKeys(p, span.unit)).toHaveLength(span.count);
    }
    expect(iso(previousWindow(periodWindow('7d', at('2026-03-10T14:25:00Z')), PERIOD_SPANS['7d']))).toEqual({
      from: '2026-02-25T00:00:00.000Z',
      to: '2026-03-03T15:00:00.000Z',
    });
    expect(iso(previousWindow(periodWindow('24h', at('2026-03-10T14:25:00Z')), PERIOD_SPANS['24h']))).toEqual({
      from: '2026-03-08T15:00:00.000Z',
      to: '2026-03-09T15:00:00.000Z',
    });
  });

  it('works for any day count (the dealer dashboard asks for days)', () => {
    const span = { unit: 'day' as const, count: 3 };
    const w = spanWindow(span, at('2026-03-01T08:15:00Z'));
    expect(iso(w)).toEqual({ from: '2026-02-27T00:00:00.000Z', to: '2026-03-01T09:00:00.000Z' });
    expect(iso(previousWindow(w, span))).toEqual({ from: '2026-02-24T00:00:00.000Z', to: '2026-02-26T09:00:00.000Z' });
  });
});

describe('labels', () => {
  it('names each analytics period as the spec selector does and all-time figures as All Time', () => {
    for (const p of ANALYTICS_PERIODS) {
      expect(spanLabel(PERIOD_SPANS[p])).toBe(PERIOD_LABELS[p]);
      expect(periodLabel(p)).toBe(PERIOD_LABELS[p]);
    }
    expect(periodLabel('all')).toBe('All Time');
    expect(previousLabel(PERIOD_SPANS['30d'])).toBe('vs previous 30 days');
    expect(previousLabel(PERIOD_SPANS['24h'])).toBe('vs previous 24 hours');
  });
});

describe('bucketLabel', () => {
  it('labels UTC day and hour buckets as the charts show them', () => {
    expect(bucketLabel(bucketKey(at('2026-03-10T23:30:00Z'), 'day'))).toBe('Mar 10');
    expect(bucketLabel(bucketKey(at('2026-12-01T07:59:00Z'), 'hour'))).toBe('Dec 1, 07:00 UTC');
  });
});
