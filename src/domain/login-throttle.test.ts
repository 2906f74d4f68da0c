import { describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE, accountLockRemainingMs, lockMsAfter, lockRemainingMs, throttleAfterFailure, throttleForgotten, throttleKey, tooManyAttemptsMessage } from './login-throttle';

const MIN = 60_000;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('per-account sign-in throttle', () => {
  it('locks from the 5th failure for 1 minute, doubling per further failure up to 15 minutes', () => {
    expect([1, 2, 3, 4].map(lockMsAfter)).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 50, 5000].map((n) => lockMsAfter(n) / MIN)).toEqual([1, 2, 4, 8, 15, 15, 15, 15]);
  });

  it('counts failures, locks at the 5th and reports the remaining lock', () => {
    let state = throttleAfterFailure(null, at(0));
    for (let i = 1; i < LOGIN_THROTTLE.maxFailures; i++) state = throttleAfterFailure(state, at(i * 1000));
    expect(state.failures).toBe(5);
    expect(state.lockedUntil).toEqual(at(4000 + MIN));
    expect(lockRemainingMs(state, at(4000))).toBe(MIN);
    expect(lockRemainingMs(state, at(4000 + MIN))).toBe(0);
    const sixth = throttleAfterFailure(state, at(4000 + MIN));
    expect(sixth).toEqual({ failures: 6, lastFailureAt: at(4000 + MIN), lockedUntil: at(4000 + 3 * MIN) });
  });

  it('forgets the count 15 minutes after the last failure and the end of the last lock', () => {
    const state = { failures: 9, lastFailureAt: at(0), lockedUntil: at(15 * MIN) };
    expect(throttleForgotten(state, at(29 * MIN))).toBe(false);
    expect(throttleAfterFailure(state, at(29 * MIN)).failures).toBe(10);
    expect(throttleForgotten(state, at(30 * MIN))).toBe(true);
    expect(throttleAfterFailure(state, at(30 * MIN))).toEqual({ failures: 1, lastFailureAt: at(30 * MIN), lockedUntil: null });
    expect(throttleForgotten({ failures: 2, lastFailureAt: at(0), lockedUntil: null }, at(15 * MIN))).toBe(true);
  });

  it("says 'Too many attempts, try again in N minutes' with N rounded up, at least 1", () => {
    expect(tooManyAttemptsMessage(0)).toBe('Too many attempts, try again in 1 minute');
    expect(tooManyAttemptsMessage(60_000)).toBe('Too many attempts, try again in 1 minute');
    expect(tooManyAttemptsMessage(60_001)).toBe('Too many attempts, try again in 2 minutes');
    expect(tooManyAttemptsMessage(15 * MIN)).toBe('Too many attempts, try again in 15 minutes');
  });

  it('keys a state by email and source', () => {
    expect(throttleKey('a@example.com', '203.0.113.5')).toBe('a@example.com 203.0.113.5');
  });

  it('locks the account for every source while 10 sources hold a lock that is not forgotten', () => {
    const locked = (endMin: number) => ({ failures: 5, lastFailureAt: at((endMin - 1) * MIN), lockedUntil: at(endMin * MIN) });
    const nine = Array.from({ length: LOGIN_THROTTLE.accountLockSources - 1 }, (_, i) => locked(i + 1));
    expect(accountLockRemainingMs(nine, at(0))).toBe(0);
    // Sources that failed without reaching a lock do not count.
    expect(accountLockRemainingMs([...nine, { failures: 4, lastFailureAt: at(0), lockedUntil: null }], at(0))).toBe(0);
    const ten = [...nine, locked(20)];
    // Until the oldest lock (ended at minute 1) is forgotten, 15 minutes later.
    expect(accountLockRemainingMs(ten, at(2 * MIN))).toBe(14 * MIN);
    expect(accountLockRemainingMs(ten, at(16 * MIN))).toBe(0);
    expect(accountLockRemainingMs([...ten, locked(30)], at(16 * MIN))).toBe(MIN);
  });
});
