/**
 * Sign-in throttling rules (issue 11 'Sign-in'): per account, on top of the per-IP limit of the
 * login route. After LOGIN_THROTTLE.maxFailures failed sign-ins for one email (known or not, so
 * the lock says nothing about whether the account exists), each further failure locks the email
 * for firstLockMs, doubling per failure up to maxLockMs. The count is forgotten once windowMs has
 * passed since the last failure and the end of the last lock, and on a successful sign-in.
 * While locked, every attempt (even with the right password) gets tooManyAttemptsMessage.
 * Pure functions: the server stores the state (login_throttles) and passes the clock.
 */

/** The per-account throttle's numbers (issue 11). */
export const LOGIN_THROTTLE = {
  /** Failures that lock the email; the lock starts with the failure that reaches this count. */
  maxFailures: 5,
  /** A failure count is forgotten after this long without failures or locks (15 min). */
  windowMs: 15 * 60_000,
  /** Length of the first lock (1 min); doubled for every further failure. */
  firstLockMs: 60_000,
  /** Longest lock (15 min). */
  maxLockMs: 15 * 60_000,
} as const;

/** Per-IP limit of the login route: attempts per client IP per minute (any outcome). */
export const LOGIN_IP_LIMIT_PER_MINUTE = 20;

/** One email's throttle state, as stored in login_throttles. */
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

/** True when the state's failures are old enough to forget at `now` (windowMs after the last failure and lock). */
export function throttleForgotten(state: LoginThrottleState, now: Date): boolean {
  const last = Math.max(state.lastFailureAt.getTime(), state.lockedUntil?.getTime() ?? 0);
  return now.getTime() - last >= LOGIN_THROTTLE.windowMs;
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
 * The 429 message of the login route (issue 11), for both the per-account and the per-IP limit:
 * "Too many attempts, try again in N minutes", N = the wait in minutes rounded up, at least 1
 * ("1 minute" in the singular).
 */
export function tooManyAttemptsMessage(retryAfterMs: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `Too many attempts, try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
