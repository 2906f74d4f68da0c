/**
 * Sign-in and server-side sessions (spec 01 §4-§5, DECISIONS 4). A session is a random 32-byte
 * token held by the browser in an HttpOnly cookie; the database stores only its sha256.
 * Sign-in does equal work for every email and throttles failures per account (issue 11).
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealers, loginThrottles, sessions, users } from '../db/schema';
import type { SessionUser, Role } from '../../domain/schemas';
import { TEXT } from '../../domain/constants';
import { RateLimited, Unauthorized } from '../errors';
import { lockRemainingMs, throttleAfterFailure, tooManyAttemptsMessage } from '../../domain/login-throttle';
import { verifyPassword } from './password';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** What login() needs besides the credentials. */
export interface LoginOptions {
  /** Session lifetime (SESSION_TTL_HOURS). */
  ttlMs: number;
  /**
   * An argon2id hash of a random secret, made once per app with hashPassword (so with the same
   * parameters as real hashes): unknown emails are verified against it, so they cost the same
   * argon2 work as real accounts (issue 11).
   */
  dummyHash: Promise<string>;
  /** The throttle's clock (tests inject it); default the current time. Sessions always use the real time. */
  now?: Date;
}

/**
 * Checks the credentials and opens a session (spec 01 §5; issue 11 'Sign-in').
 *
 * Every attempt that is not refused for a lock does the same work whether the email is unknown,
 * deactivated or real: one throttle update and one argon2 verify (against the dummy hash when there
 * is no such user). Attempts are counted as failures per lower-cased email in login_throttles
 * (domain/login-throttle.ts) before the verify, for unknown emails too, so neither the timing nor
 * the lock tells whether an account exists, and a burst of concurrent guesses (from many IPs or
 * processes) cannot get more than maxFailures verifies past the lock. A success deletes the row.
 * @returns the new session token (for the cookie) and the signed-in user.
 * @throws RateLimited('Too many attempts, try again in N minutes') while the email is locked, even
 *   for the right password (no verify is run then);
 *   Unauthorized('Invalid credentials') for an unknown email, a wrong password or a deactivated user.
 */
export async function login(db: Db, email: string, password: string, opts: LoginOptions): Promise<{ token: string; user: SessionUser }> {
  const now = opts.now ?? new Date();
  const emailLower = email.trim().toLowerCase();
  const lockedMs = await countAttempt(db, emailLower, now);
  if (lockedMs > 0) throw new RateLimited(tooManyAttemptsMessage(lockedMs), Math.ceil(lockedMs / 1000));

  const [row] = await db
    .select({ id: users.id, passwordHash: users.passwordHash, isActive: users.isActive })
    .from(users)
    .where(eq(sql`lower(${users.email})`, emailLower));
  const matches = await verifyPassword(row ? row.passwordHash : await opts.dummyHash, password);
  if (!row || !row.isActive || !matches) throw new Unauthorized(TEXT.invalidCredentials); // already counted
  await db.delete(loginThrottles).where(eq(loginThrottles.emailLower, emailLower));

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
 * The per-account throttle's gate for one sign-in attempt for `emailLower` at `now`, atomic across
 * server processes (the row is created when missing, then read FOR UPDATE and written in one
 * transaction): when the email is locked, returns the milliseconds left and counts nothing; else
 * counts the attempt as a failure (throttleAfterFailure; a success deletes the row afterwards) and
 * returns 0.
 */
async function countAttempt(db: Db, emailLower: string, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.insert(loginThrottles).values({ emailLower, failures: 0, lastFailureAt: now }).onConflictDoNothing({ target: loginThrottles.emailLower });
    const [current] = await tx.select().from(loginThrottles).where(eq(loginThrottles.emailLower, emailLower)).for('update');
    const lockedMs = lockRemainingMs(current, now);
    if (lockedMs > 0) return lockedMs;
    const next = throttleAfterFailure(current && current.failures > 0 ? current : null, now);
    await tx.update(loginThrottles).set(next).where(eq(loginThrottles.emailLower, emailLower));
    return 0;
  });
}

/** The active user of an unexpired session, or null. */
export async function getSessionUser(db: Db, token: string): Promise<SessionUser | null> {
  const [row] = await db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
      dealerId: users.dealerId,
      dealerName: dealers.name,
    })
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
