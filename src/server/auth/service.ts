/**
 * Sign-in and server-side sessions (spec 01 §4-§5, DECISIONS 4). A session is a random 32-byte
 * token held by the browser in an HttpOnly cookie; the database stores only its sha256.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dealers, sessions, users } from '../db/schema';
import type { SessionUser, Role } from '../../domain/schemas';
import { TEXT } from '../../domain/constants';
import { Unauthorized } from '../errors';
import { verifyPassword } from './password';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Checks the credentials and opens a session.
 * @returns the new session token (for the cookie) and the signed-in user.
 * @throws Unauthorized('Invalid credentials') for an unknown email, a wrong password or a deactivated user.
 */
export async function login(
  db: Db,
  email: string,
  password: string,
  ttlMs: number,
): Promise<{ token: string; user: SessionUser }> {
  const [row] = await db
    .select({ id: users.id, passwordHash: users.passwordHash, isActive: users.isActive })
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()));
  // Verify even for unknown emails would cost an argon2 run; we accept the timing difference
  // because the login route is rate-limited.
  if (!row || !row.isActive || !(await verifyPassword(row.passwordHash, password))) {
    throw new Unauthorized(TEXT.invalidCredentials);
  }
  const token = randomBytes(32).toString('base64url');
  await db.insert(sessions).values({
    id: hashToken(token),
    userId: row.id,
    expiresAt: new Date(Date.now() + ttlMs),
  });
  await db.delete(sessions).where(lt(sessions.expiresAt, new Date()));
  const user = await getSessionUser(db, token);
  if (!user) throw new Unauthorized(TEXT.invalidCredentials);
  return { token, user };
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
