/**
 * Sign-in throttling rules, on top of the per-IP limit of the login route.
 *
 * Per account and source: after LOGIN_THROTTLE.maxFailures failed sign-ins for one email (known or
 * not, so the lock says nothing about whether the account exists) from one source (the client IP,
 * an IPv6 address by its /64 network), each further failure from that source locks the
 * email for that source for firstLockMs, doubling per failure up to maxLockMs. The count is
 * forgotten once windowMs has passed since the last failure and the end of the last lock, and on a
 * successful sign-in from that source. While locked, every attempt from the source (even with the
 * right password) gets tooManyAttemptsMessage. A guesser therefore locks only itself: the owner
 * signs in from anywhere else.
 *
 * Per account, against guessing from many sources: while LOGIN_THROTTLE.accountLockSources sources
 * or more have locked the email and are not forgotten, every source that has itself failed on the
 * email (and is not forgotten) is refused (accountLockRemainingMs). A source with no failure on it
 * is always checked, so the owner signing in from a clean source gets in however many addresses
 * keep guessing; a guesser gets one guess per fresh address while the account is under attack.
 * One source can never reach this ceiling, however long it keeps guessing.
 *
 * Pure functions: the server stores the state (login_throttles, one row per email and source,
 * keyed by throttleKey) and passes the clock.
 */
/** The sign-in throttle's numbers. */
export const LOGIN_THROTTLE = {
  /** Failures from one source that lock the email for it; the lock starts with the failure that reaches this count. */
  maxFailures: 5,
  /** A failure count is forgotten after this long without failures or locks (15 min). */
  windowMs: 15 * 60_000,
  /** Length of the first lock (1 min); doubled for every further failure. */
  firstLockMs: 60_000,
  /** Longest lock (15 min). */
  maxLockMs: 15 * 60_000,
  /** Sources with a lock (not forgotten) on one email that lock it for every source. */
  accountLockSources: 10,
} as const;

/** Per-IP limit of the login route: attempts per client IP per minute (any outcome). */
export const LOGIN_IP_LIMIT_PER_MINUTE = 20;

/** One email's throttle state for one source, as stored in login_throttles. */
export interface LoginThrottleState {
  failures: number;
  lastFailureAt: Date;
  lockedUntil: Date | null;
}

/**
 * The lock that follows the `failures`-th consecutive failure, in milliseconds: 0 below
 * LOGIN_THROTTLE.maxFailures, then firstLockMs doubled per further failure, at most maxLockMs.
 */
export function lockMsAfter(failures: number): number {
  const { maxFailures, firstLockMs, maxLockMs } = LOGIN_THROTTLE;
  if (failures < maxFailures) return 0;
  const doublings = Math.min(failures - maxFailures, 20); // 2^20 minutes is far past the cap
  return Math.min(maxLockMs, firstLockMs * 2 ** doublings);
}

/** When the state's failures are forgotten (windowMs after the last failure and the end of the last lock). */
function forgottenAt(state: LoginThrottleState): number {
  return Math.max(state.lastFailureAt.getTime(), state.lockedUntil?.getTime() ?? 0) + LOGIN_THROTTLE.windowMs;
}

/** True when the state's failures are old enough to forget at `now` (windowMs after the last failure and lock). */
export function throttleForgotten(state: LoginThrottleState, now: Date): boolean {
  return now.getTime() >= forgottenAt(state);
}

/**
 * The login_throttles key of `emailLower` from `source` (the client IP as the server normalises
 * it): "email source". An email accepted at sign-in has no space, so keys of different emails or
 * sources never collide, and `email + ' '` prefixes exactly the keys of one email.
 */
export function throttleKey(emailLower: string, source: string): string {
  return `${emailLower} ${source}`;
}

/**
 * Milliseconds the email stays locked for every source at `now`, given the states of its other
 * sources: 0 while fewer than accountLockSources of them have a lock (failures ≥ maxFailures) that
 * is not forgotten; else the time until enough of them are forgotten for the count to drop below.
 */
export function accountLockRemainingMs(states: readonly LoginThrottleState[], now: Date): number {
  const { accountLockSources, maxFailures } = LOGIN_THROTTLE;
  const ends = states
    .filter((s) => s.failures >= maxFailures && !throttleForgotten(s, now))
    .map(forgottenAt)
    .sort((a, b) => a - b);
  if (ends.length < accountLockSources) return 0;
  return Math.max(0, ends[ends.length - accountLockSources]! - now.getTime());
}

/** Milliseconds the email stays locked at `now`; 0 when it is not locked (or there is no state). */
export function lockRemainingMs(state: LoginThrottleState | null | undefined, now: Date): number {
  if (!state?.lockedUntil) return 0;
  return Math.max(0, state.lockedUntil.getTime() - now.getTime());
}

/**
 * The state after a failed sign-in at `now`: the count starts again at 1 when the previous state
 * is absent or forgotten, else grows by one; from maxFailures on, the email is locked until
 * `now + lockMsAfter(failures)`.
 */
export function throttleAfterFailure(previous: LoginThrottleState | null | undefined, now: Date): LoginThrottleState {
  const failures = previous && !throttleForgotten(previous, now) ? previous.failures + 1 : 1;
  const lockMs = lockMsAfter(failures);
  return {
    failures,
    lastFailureAt: now,
    lockedUntil: lockMs > 0 ? new Date(now.getTime() + lockMs) : null,
  };
}

/**
 * The 429 message of the login route, for the per-account, per-source and per-IP limits:
 * "Too many attempts, try again in N minutes", N = the wait in minutes rounded up, at least 1
 * ("1 minute" in the singular).
 */
export function tooManyAttemptsMessage(retryAfterMs: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `Too many attempts, try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
