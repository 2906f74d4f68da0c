/**
 * Sign-in and server-side sessions (spec 01 §4-§5, DECISIONS 4). A session is a random 32-byte
 * token held by the browser in an HttpOnly cookie; the database stores only its sha256.
 * Sign-in does equal work for every email and throttles failures per account and source.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealers, loginThrottles, sessions, users } from '../db/schema';
import type { SessionUser, Role } from '../../domain/schemas';
import { TEXT } from '../../domain/constants';
import { RateLimited, Unauthorized } from '../errors';
import { accountLockRemainingMs, lockRemainingMs, throttleAfterFailure, throttleForgotten, throttleKey, tooManyAttemptsMessage } from '../../domain/login-throttle';
import { verifyPassword } from './password';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** What login() needs besides the credentials. */
export interface LoginOptions {
  /** Session lifetime (SESSION_TTL_HOURS). */
  ttlMs: number;
  /**
   * An argon2id hash of a random secret with the same parameters as real hashes
   * (dummyPasswordHash): unknown emails are verified against it, so they cost the same argon2
   * work as real accounts.
   */
  dummyHash: Promise<string>;
  /**
   * Where the attempt comes from, as the throttle counts it: the client IP (request.ip, so
   * TRUST_PROXY decides), an IPv6 address reduced to its /64 network (normalizeIP of @fastify/rate-limit).
   */
  source: string;
  /** The throttle's clock (tests inject it); default the current time. Sessions always use the real time. */
  now?: Date;
}

/**
 * Checks the credentials and opens a session (spec 01 §5).
 *
 * Every attempt that is not refused for a lock does the same work whether the email is unknown,
 * deactivated or real: one throttle update and one argon2 verify (against the dummy hash when there
 * is no such user). Attempts are counted as failures per lower-cased email and source in
 * login_throttles (domain/login-throttle.ts) before the verify, for unknown emails too, so neither
 * the timing nor the lock tells whether an account exists, and a burst of concurrent guesses from
 * one source cannot get more than maxFailures verifies past its lock. A success deletes the row of
 * its source only: a guesser elsewhere stays locked, and locks nobody else out.
 * @returns the new session token (for the cookie) and the signed-in user.
 * @throws RateLimited('Too many attempts, try again in N minutes') while the email is locked for
 *   this source, or account-wide (accountLockSources) and this source failed on it before, even for the right password (no verify
 *   is run then);
 *   Unauthorized('Invalid credentials') for an unknown email, a wrong password or a deactivated user.
 */
export async function login(db: Db, email: string, password: string, opts: LoginOptions): Promise<{ token: string; user: SessionUser }> {
  const now = opts.now ?? new Date();
  const emailLower = email.trim().toLowerCase();
  const key = throttleKey(emailLower, opts.source);
  const lockedMs = await countAttempt(db, emailLower, key, now);
  if (lockedMs > 0) throw new RateLimited(tooManyAttemptsMessage(lockedMs), Math.ceil(lockedMs / 1000));

  const [row] = await db
    .select({ id: users.id, passwordHash: users.passwordHash, isActive: users.isActive })
    .from(users)
    .where(eq(sql`lower(${users.email})`, emailLower));
  const matches = await verifyPassword(row ? row.passwordHash : await opts.dummyHash, password);
  if (!row || !row.isActive || !matches) throw new Unauthorized(TEXT.invalidCredentials); // already counted
  await db.delete(loginThrottles).where(eq(loginThrottles.emailLower, key));
  // The email's own row (countAttempt) holds no count: gone too once no other source has one.
  await db
    .delete(loginThrottles)
    .where(and(eq(loginThrottles.emailLower, emailLower), sql`not exists (select 1 from ${loginThrottles} where starts_with(${loginThrottles.emailLower}, ${`${emailLower} `}))`));

  const token = randomBytes(32).toString('base64url');
  await db.insert(sessions).values({
    id: hashToken(token),
    userId: row.id,
    expiresAt: new Date(Date.now() + opts.ttlMs),
  });
  await db.delete(sessions).where(lt(sessions.expiresAt, new Date()));
  const user = await getSessionUser(db, token);
  if (!user) throw new Unauthorized(TEXT.invalidCredentials);
  return { token, user };
}

/**
 * The throttle's gate for one sign-in attempt for `emailLower` under the source key `key` at
 * `now`, atomic across server processes: in one transaction, the email's own row (key
 * `emailLower`, created when missing) is read FOR UPDATE so that attempts on one email take turns,
 * then the rows of all its sources are read. When the email is locked for this source, or (for a
 * source that failed on it before) account-wide (accountLockRemainingMs of the others), returns the milliseconds left and counts
 * nothing; else counts the attempt as a failure of this source (throttleAfterFailure; a success
 * deletes the row afterwards) and returns 0.
 */
async function countAttempt(db: Db, emailLower: string, key: string, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.insert(loginThrottles).values({ emailLower, failures: 0, lastFailureAt: now }).onConflictDoNothing({ target: loginThrottles.emailLower });
    await tx.select({ emailLower: loginThrottles.emailLower }).from(loginThrottles).where(eq(loginThrottles.emailLower, emailLower)).for('update');
    const sources = await tx
      .select()
      .from(loginThrottles)
      .where(sql`starts_with(${loginThrottles.emailLower}, ${`${emailLower} `})`);
    const current = sources.find((s) => s.emailLower === key);
    // The account-wide lock holds back sources that failed on this email, never a clean one.
    const failedBefore = current !== undefined && current.failures > 0 && !throttleForgotten(current, now);
    const lockedMs = Math.max(
      lockRemainingMs(current, now),
      failedBefore
        ? accountLockRemainingMs(
            sources.filter((s) => s !== current),
            now,
          )
        : 0,
    );
    if (lockedMs > 0) return lockedMs;
    const next = throttleAfterFailure(current, now);
    await tx
      .insert(loginThrottles)
      .values({ emailLower: key, ...next })
      .onConflictDoUpdate({ target: loginThrottles.emailLower, set: next });
    return 0;
  });
}

/** The columns of a SessionUser, from `users` left-joined with its dealer (`dealers`). */
export const sessionUserColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  dealerId: users.dealerId,
  dealerName: dealers.name,
};

/** The active user of an unexpired session, or null. */
export async function getSessionUser(db: Db, token: string): Promise<SessionUser | null> {
  const [row] = await db
    .select(sessionUserColumns)
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(dealers, eq(dealers.id, users.dealerId))
    .where(and(eq(sessions.id, hashToken(token)), gt(sessions.expiresAt, new Date()), eq(users.isActive, true)));
  if (!row) return null;
  return { ...row, role: row.role as Role, dealerId: row.dealerId ?? null, dealerName: row.dealerName ?? null };
}

/** Ends the session of this token (no error when it does not exist). */
export async function logout(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, hashToken(token)));
}
