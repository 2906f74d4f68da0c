/** The origin a beacon is counted under (domain/tag-health.ts beaconOrigin): an origin only, never a path, query or credentials. */
import { describe, expect, it } from 'vitest';
import { beaconOrigin, TAG_NO_ORIGIN, TAG_ORIGIN_MAX_LENGTH, TAG_OTHER_ORIGIN, TAG_REASON_TEXTS, TAG_HEALTH_REASONS } from './tag-health';

describe('beaconOrigin', () => {
  it('takes the Origin header, lower-cased, with its port', () => {
    expect(beaconOrigin('https://WWW.Example.com', undefined)).toBe('https://www.example.com');
    expect(beaconOrigin('http://localhost:8080', 'https://other.example/x')).toBe('http://localhost:8080');
  });

  it("falls back to the Referer's origin, dropping path, query and credentials", () => {
    expect(beaconOrigin(undefined, 'https://www.example.com/new-inventory?model=civic#top')).toBe('https://www.example.com');
    expect(beaconOrigin('null', 'https://user:secret@www.example.com/x')).toBe('https://www.example.com');
  });

  it("is 'none' without a usable http(s) address, and 'other' for an over-long one", () => {
    expect(beaconOrigin(undefined, undefined)).toBe(TAG_NO_ORIGIN);
    expect(beaconOrigin('null', undefined)).toBe(TAG_NO_ORIGIN);
    expect(beaconOrigin('chrome-extension://abc', undefined)).toBe(TAG_NO_ORIGIN);
    expect(beaconOrigin(`https://${'a'.repeat(TAG_ORIGIN_MAX_LENGTH)}.example`, undefined)).toBe(TAG_OTHER_ORIGIN);
  });
});

describe('TAG_REASON_TEXTS', () => {
  it('explains every reason and says what to do', () => {
    for (const reason of TAG_HEALTH_REASONS) {
      expect(TAG_REASON_TEXTS[reason].explanation.length).toBeGreaterThan(10);
      expect(TAG_REASON_TEXTS[reason].action.length).toBeGreaterThan(10);
    }
  });
});
