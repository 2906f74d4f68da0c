import { describe, expect, it } from 'vitest';
import {
  allows,
  feedAlertDue,
  localParts,
  performanceAlertDue,
  weeklyReportDue,
  weeklyReportMail,
  PERFORMANCE_ALERT_MIN_IMPRESSIONS,
} from './notifications';

const on = { emailAlerts: true, performanceAlerts: true, errorAlerts: true, weeklyReports: true };

describe('allows (spec 01 §5 notifications)', () => {
  it('needs the master switch and the kind’s own switch', () => {
    expect(allows(on, 'performance-alert')).toBe(true);
    expect(allows({ ...on, emailAlerts: false }, 'weekly-report')).toBe(false);
    expect(allows({ ...on, errorAlerts: false }, 'feed-alert')).toBe(false);
    expect(allows({ ...on, errorAlerts: false }, 'dead-letter-alert')).toBe(false);
    expect(allows({ ...on, errorAlerts: false }, 'performance-alert')).toBe(true);
    expect(allows({ ...on, weeklyReports: false }, 'weekly-report')).toBe(false);
  });
});

describe('weeklyReportDue', () => {
  it('is due on Monday from 08:00 local time, for the 7 days before local Monday 00:00', () => {
    // Monday 2026-11-23 08:30 in New York (UTC-5) is 13:30 UTC.
    const due = weeklyReportDue(new Date('2026-11-23T13:30:00Z'), 'America/New_York');
    expect(due).toEqual({ key: 'weekly:2026-11-23', from: new Date('2026-11-16T05:00:00Z'), to: new Date('2026-11-23T05:00:00Z') });
    expect(weeklyReportDue(new Date('2026-11-23T12:59:59Z'), 'America/New_York')).toBeNull(); // 07:59 local
    expect(weeklyReportDue(new Date('2026-11-24T13:30:00Z'), 'America/New_York')).toBeNull(); // Tuesday
  });

  it('covers local Monday to Monday across a daylight-saving change (169 hours)', () => {
    // New York left daylight time on Sunday 2026-11-01: the week began at 00:00 EDT (04:00 UTC)
    // and ends at 00:00 EST (05:00 UTC), one hour longer than 7 × 24.
    const due = weeklyReportDue(new Date('2026-11-02T13:30:00Z'), 'America/New_York');
    expect(due).toEqual({ key: 'weekly:2026-11-02', from: new Date('2026-10-26T04:00:00Z'), to: new Date('2026-11-02T05:00:00Z') });
  });

  it('reads the weekday in the dealer’s zone, not UTC', () => {
    // Sunday 2026-11-22 23:30 UTC is already Monday 08:30 in Tokyo (UTC+9).
    expect(weeklyReportDue(new Date('2026-11-22T23:30:00Z'), 'Asia/Tokyo')?.key).toBe('weekly:2026-11-23');
    expect(weeklyReportDue(new Date('2026-11-22T23:30:00Z'), 'UTC')).toBeNull();
  });
});

describe('performanceAlertDue', () => {
  const now = new Date('2026-11-24T10:00:00Z');
  it('is due below the threshold with enough impressions, keyed by the local day', () => {
    expect(performanceAlertDue({ impressions: 200, clicks: 3 }, 2, now, 'UTC')).toEqual({ key: 'performance:2026-11-24', ctrPercent: 1.5 });
    expect(performanceAlertDue({ impressions: 200, clicks: 3 }, 2, now, 'Pacific/Auckland')?.key).toBe('performance:2026-11-24');
    expect(performanceAlertDue({ impressions: 200, clicks: 3 }, 2, new Date('2026-11-24T23:00:00Z'), 'Pacific/Auckland')?.key).toBe('performance:2026-11-25');
  });
  it('is not due at or above the threshold, or with too few impressions to judge', () => {
    expect(performanceAlertDue({ impressions: 200, clicks: 4 }, 2, now, 'UTC')).toBeNull();
    expect(performanceAlertDue({ impressions: PERFORMANCE_ALERT_MIN_IMPRESSIONS - 1, clicks: 0 }, 2, now, 'UTC')).toBeNull();
    expect(performanceAlertDue({ impressions: 0, clicks: 0 }, 2, now, 'UTC')).toBeNull();
  });
});

describe('feedAlertDue', () => {
  it('is due when the two newest finished runs failed, keyed by the newest', () => {
    expect(feedAlertDue([{ id: 9, status: 'error', error: 'HTTP 404' }, { id: 8, status: 'error', error: 'x' }])).toEqual({ key: 'feed-failed:9', error: 'HTTP 404' });
    expect(feedAlertDue([{ id: 9, status: 'error', error: null }, { id: 8, status: 'success', error: null }])).toBeNull();
    expect(feedAlertDue([{ id: 9, status: 'error', error: null }])).toBeNull();
  });
});

describe('weeklyReportMail', () => {
  it('writes the figures as text and as escaped HTML', () => {
    const mail = weeklyReportMail(
      'Kia <West>',
      { impressions: 0, clicks: 0, conversions: 0, models: [], creatives: [] },
      new Date('2026-11-16T00:00:00Z'),
      new Date('2026-11-23T00:00:00Z'),
      'UTC',
    );
    expect(mail.subject).toBe('Kia <West>: banner report for 2026-11-16 to 2026-11-22');
    expect(mail.text).toBe('Your banners from 2026-11-16 to 2026-11-22:\n\nImpressions: 0\nClicks: 0\nCTR: --\nConversions: 0\n\nNo banner was shown this week.\n');
    expect(mail.html).toContain('<h2>Kia &#60;West&#62;: banner report');
    expect(mail.html).not.toContain('<West>');
  });
  it('lists the top models and the top creatives by clicks, as text and as HTML tables', () => {
    const creatives = [
      { name: 'honda_civic_1920x300_a.jpg', model: 'Civic', slot: 'header', impressions: 1000, clicks: 30 },
      { name: 'honda_civic_1920x300_b.jpg', model: 'Civic', slot: 'header', impressions: 1000, clicks: 50 },
      { name: 'Placeholder', model: 'Pilot', slot: 'upsell', impressions: 400, clicks: 2 },
    ];
    const mail = weeklyReportMail(
      'Honda of Demo',
      { impressions: 2400, clicks: 82, conversions: 3, models: [{ model: 'Civic', impressions: 2000, clicks: 80 }, { model: 'Pilot', impressions: 400, clicks: 2 }], creatives },
      new Date('2026-11-16T00:00:00Z'),
      new Date('2026-11-23T00:00:00Z'),
      'UTC',
    );
    expect(mail.text).toContain(
      'Top creatives:\n- honda_civic_1920x300_b.jpg (Civic, header): 1,000 impressions, 50 clicks, CTR 5.00%\n- honda_civic_1920x300_a.jpg (Civic, header): 1,000 impressions, 30 clicks, CTR 3.00%\n- Placeholder (Pilot, upsell): 400 impressions, 2 clicks, CTR 0.50%\n',
    );
    expect(mail.html).toContain('>Top creatives</h3>');
    expect(mail.html.indexOf('honda_civic_1920x300_b.jpg')).toBeLessThan(mail.html.indexOf('honda_civic_1920x300_a.jpg'));
  });
  it('localParts reads the wall clock of the zone', () => {
    expect(localParts(new Date('2026-11-23T13:30:05Z'), 'America/New_York')).toEqual({ date: '2026-11-23', weekday: 1, hour: 8, minute: 30, second: 5 });
  });
});
