import { describe, expect, it } from 'vitest';
import { abSampleProgress, notEnoughDataText, conversionRate, ctr, AB_MIN_IMPRESSIONS, ctrBetter, rotationVerdicts, formatConversionRate, formatCount, formatCtr, formatTrend, isAboveAverage, performanceScore, plural, trendPercent } from './metrics';

describe('ctr (spec 01 §9)', () => {
  it('is clicks / impressions x 100', () => {
    expect(ctr(7, 200)).toBe(3.5);
    expect(ctr(0, 100)).toBe(0);
    expect(ctr(1, 3)).toBeCloseTo(33.333, 3);
  });
  it('is null without impressions', () => {
    expect(ctr(0, 0)).toBeNull();
    expect(ctr(5, 0)).toBeNull();
  });
});

describe('performanceScore (spec 01 §9)', () => {
  it('is min(100, 20 x CTR)', () => {
    expect(performanceScore(3.5)).toBe(70);
    expect(performanceScore(0)).toBe(0);
    expect(performanceScore(5)).toBe(100);
    expect(performanceScore(12)).toBe(100);
  });
  it('is 0 for a null CTR', () => {
    expect(performanceScore(null)).toBe(0);
  });
});

describe('formatCtr', () => {
  it('shows a CTR with two decimals, whatever the screen (FIGURE_DECIMALS)', () => {
    expect(formatCtr(3.5)).toBe('3.50%');
    expect(formatCtr(3.456)).toBe('3.46%');
    expect(formatCtr(5)).toBe('5.00%');
    expect(formatCtr(0)).toBe('0.00%');
    expect(formatCtr(100)).toBe('100.00%');
  });
  it("shows '--' for null", () => {
    expect(formatCtr(null)).toBe('--');
  });
});

describe('formatConversionRate', () => {
  it('shows a conversion rate with one decimal', () => {
    expect(formatConversionRate(12.5)).toBe('12.5%');
    expect(formatConversionRate(0)).toBe('0.0%');
    expect(formatConversionRate(null)).toBe('--');
  });
});

describe('formatCount', () => {
  it('groups thousands', () => {
    expect(formatCount(12345)).toBe('12,345');
    expect(formatCount(0)).toBe('0');
  });
});

describe('trendPercent (DECISIONS 18)', () => {
  it('is the change versus the previous period in percent', () => {
    expect(trendPercent(112.5, 100)).toBe(12.5);
    expect(trendPercent(97, 100)).toBe(-3);
    expect(trendPercent(0, 50)).toBe(-100);
    expect(trendPercent(100, 100)).toBe(0);
  });
  it('is null without previous data', () => {
    expect(trendPercent(10, 0)).toBeNull();
    expect(trendPercent(0, 0)).toBeNull();
  });
});

describe('formatTrend', () => {
  it.each([
    [12.5, '+12.5%'],
    [-3, '-3.0%'],
    [0, '+0.0%'],
    [-0.04, '+0.0%'],
    [-0.05, '-0.1%'],
    [150, '+150.0%'],
    [null, '--'],
  ])('%j -> %j', (p, text) => {
    expect(formatTrend(p)).toBe(text);
  });
});

describe('isAboveAverage (DECISIONS 19)', () => {
  it('is true only over 3 percent', () => {
    expect(isAboveAverage(3.01)).toBe(true);
    expect(isAboveAverage(3)).toBe(false);
    expect(isAboveAverage(1)).toBe(false);
    expect(isAboveAverage(null)).toBe(false);
  });
});

describe('conversionRate (spec 02 §2)', () => {
  it('is conversions / clicks x 100', () => {
    expect(conversionRate(3, 40)).toBe(7.5);
    expect(conversionRate(0, 10)).toBe(0);
  });
  it('is null without clicks', () => {
    expect(conversionRate(0, 0)).toBeNull();
  });
});

describe('plural', () => {
  it('uses the singular for exactly one and the plural otherwise, with grouped digits', () => {
    expect(plural(1, 'conversion')).toBe('1 conversion');
    expect(plural(0, 'conversion')).toBe('0 conversions');
    expect(plural(2, 'click')).toBe('2 clicks');
    expect(plural(1234, 'impression')).toBe('1,234 impressions');
    expect(plural(1.5, 'day')).toBe('1.5 days');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });
});

describe('ctrBetter', () => {
  it('is true only when the higher CTR is significant at 95 % (one-sided z >= 1.645)', () => {
    expect(ctrBetter({ clicks: 41, impressions: 401 }, { clicks: 2, impressions: 401 })).toBe(true);
    // 3.0 % vs 2.5 % over 1,000 impressions each: z = 0.68, not yet.
    expect(ctrBetter({ clicks: 30, impressions: 1000 }, { clicks: 25, impressions: 1000 })).toBe(false);
    // The same rates over 20,000 each: z = 3.05.
    expect(ctrBetter({ clicks: 600, impressions: 20000 }, { clicks: 500, impressions: 20000 })).toBe(true);
    expect(ctrBetter({ clicks: 2, impressions: 401 }, { clicks: 41, impressions: 401 })).toBe(false);
    expect(ctrBetter({ clicks: 0, impressions: 0 }, { clicks: 0, impressions: 10 })).toBe(false);
    expect(ctrBetter({ clicks: 0, impressions: 10 }, { clicks: 0, impressions: 10 })).toBe(false);
  });
});

describe('rotationVerdicts', () => {
  it('waits for AB_MIN_IMPRESSIONS per creative before naming a leader', () => {
    expect(rotationVerdicts([{ clicks: 2, impressions: 6 }, { clicks: 0, impressions: 6 }])).toEqual(['collecting', 'collecting']);
    expect(rotationVerdicts([{ clicks: 9, impressions: AB_MIN_IMPRESSIONS }, { clicks: 0, impressions: AB_MIN_IMPRESSIONS - 1 }])).toEqual(['collecting', 'collecting']);
  });

  it('names the best at 95 % confidence, else the leader, and the rest trailing, in the order given', () => {
    expect(rotationVerdicts([{ clicks: 2, impressions: 401 }, { clicks: 41, impressions: 401 }])).toEqual(['trailing', 'best']);
    expect(rotationVerdicts([{ clicks: 30, impressions: 1000 }, { clicks: 25, impressions: 1000 }, { clicks: 20, impressions: 1000 }])).toEqual(['leading', 'trailing', 'trailing']);
  });

  it('calls equal CTRs even', () => {
    expect(rotationVerdicts([{ clicks: 5, impressions: 100 }, { clicks: 10, impressions: 200 }])).toEqual(['even', 'even']);
  });
});

describe('abSampleProgress and its text', () => {
  it('counts each arm up to AB_MIN_IMPRESSIONS out of AB_MIN_IMPRESSIONS per arm', () => {
    expect(AB_MIN_IMPRESSIONS).toBe(100);
    expect(abSampleProgress([{ impressions: 6 }, { impressions: 240 }])).toEqual({ seen: 106, needed: 200 });
    expect(abSampleProgress([{ impressions: 0 }, { impressions: 3 }, { impressions: 99 }])).toEqual({ seen: 102, needed: 300 });
    expect(notEnoughDataText(abSampleProgress([{ impressions: 6 }, { impressions: 6 }]))).toBe('Not enough data yet (12 of 200 impressions)');
    expect(notEnoughDataText({ seen: 1500, needed: 2000 })).toBe('Not enough data yet (1,500 of 2,000 impressions)');
  });

  it('is complete exactly when the verdicts stop collecting', () => {
    const arms = [[6, 6], [99, 500], [100, 99], [100, 100], [100, 101, 250], [0, 100]];
    for (const imps of arms) {
      const group = imps.map((impressions, i) => ({ impressions, clicks: Math.floor(impressions / (i + 5)) }));
      const { seen, needed } = abSampleProgress(group);
      expect(seen === needed, imps.join(',')).toBe(!rotationVerdicts(group).includes('collecting'));
    }
  });
});
