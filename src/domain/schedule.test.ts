import { describe, expect, it } from 'vitest';
import { isValidTimeZone, nextBoundary, parseWindowInput, scheduleStatus, utcToZonedLocal, zonedLocalToUtc } from './schedule';

describe('promotion windows', () => {
  const w = { startsAt: '2026-07-01T00:00:00Z', endsAt: new Date('2026-07-08T00:00:00Z') };
  it('is scheduled before the start, live from it (inclusive), expired from the end (exclusive)', () => {
    expect(scheduleStatus(w, Date.parse('2026-06-30T23:59:59.999Z'))).toBe('scheduled');
    expect(scheduleStatus(w, Date.parse('2026-07-01T00:00:00Z'))).toBe('live');
    expect(scheduleStatus(w, new Date('2026-07-07T23:59:59.999Z'))).toBe('live');
    expect(scheduleStatus(w, Date.parse('2026-07-08T00:00:00Z'))).toBe('expired');
    expect(scheduleStatus({}, 0)).toBe('live');
    expect(scheduleStatus({ startsAt: null, endsAt: '2026-01-01T00:00:00Z' }, Date.parse('2027-01-01T00:00:00Z'))).toBe('expired');
  });

  it('finds the next boundary strictly after now', () => {
    expect(nextBoundary([30, 10, 20], 10)).toBe(20);
    expect(nextBoundary([30, 10, 20], 5)).toBe(10);
    expect(nextBoundary([30, 10, 20], 30)).toBeNull();
    expect(nextBoundary([], 0)).toBeNull();
  });
});

describe('local date-times in a time zone', () => {
  it('converts New York wall-clock times to UTC across daylight saving time', () => {
    expect(zonedLocalToUtc('2026-07-05T00:00', 'America/New_York')!.toISOString()).toBe('2026-07-05T04:00:00.000Z');
    expect(zonedLocalToUtc('2026-01-01T00:00', 'America/New_York')!.toISOString()).toBe('2026-01-01T05:00:00.000Z');
    // 02:30 on 8 March 2026 does not exist in New York: read with the offset before the change (03:30 EDT).
    expect(zonedLocalToUtc('2026-03-08T02:30', 'America/New_York')!.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    // 01:30 on 1 November 2026 happens twice: the earlier (EDT) one.
    expect(zonedLocalToUtc('2026-11-01T01:30', 'America/New_York')!.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(zonedLocalToUtc('2026-07-05T00:00', 'UTC')!.toISOString()).toBe('2026-07-05T00:00:00.000Z');
    expect(zonedLocalToUtc('2026-07-05T00:00', 'Asia/Kolkata')!.toISOString()).toBe('2026-07-04T18:30:00.000Z');
  });

  it('converts back for datetime-local inputs', () => {
    expect(utcToZonedLocal('2026-07-05T04:00:00.000Z', 'America/New_York')).toBe('2026-07-05T00:00');
    expect(utcToZonedLocal(new Date('2026-07-04T18:30:00Z'), 'Asia/Kolkata')).toBe('2026-07-05T00:00');
  });

  it('refuses impossible dates and unknown zones; takes offsets as given', () => {
    expect(zonedLocalToUtc('2026-02-30T10:00', 'UTC')).toBeNull();
    expect(parseWindowInput('2026-02-30T10:00:00Z', 'UTC')).toBeNull();
    expect(parseWindowInput('tomorrow', 'UTC')).toBeNull();
    expect(parseWindowInput('2026-07-05T00:00:00-04:00', 'Asia/Tokyo')!.toISOString()).toBe('2026-07-05T04:00:00.000Z');
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimeZone('+05:00')).toBe(false);
  });
});
