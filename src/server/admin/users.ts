/**
 * User management (/admin/users; DECISIONS 4, 7): list, create (unique case-insensitive email,
 * role, dealer required for dealer roles, optional initial password of at least MIN_PASSWORD_LENGTH
 * characters, argon2-hashed; an invitation e-mail to set the password, auth/invitations.ts), change name, role, dealer or active state, reset password. A
 * deactivated user's sessions end at once and sign-in is refused (auth/service.ts). The last
 * active admin cannot be deactivated or demoted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '../db/client';
import { dealers, sessions, users } from '../db/schema';
import { type Role } from '../../domain/schemas';
import { Conflict, Invalid, NotFound } from '../errors';
import { hashPassword } from '../auth/password';
import { issueInvitation } from '../auth/invitations';
import { sessionUserColumns } from '../auth/service';
import type { AdminUser } from '../../domain/admin';
import type { createUserSchema, updateUserSchema } from '../../domain/contracts/admin';

// Request bodies: src/domain/contracts/admin.ts.
export { MIN_PASSWORD_LENGTH, createUserSchema, resetPasswordSchema, updateUserSchema } from '../../domain/contracts/admin';

const columns = {
  ...sessionUserColumns,
  isActive: users.isActive,
  createdAt: users.createdAt,
};

type Row = { [K in keyof typeof columns]: unknown } & { role: string; createdAt: Date };
const toUser = (r: Row): AdminUser => ({ ...(r as unknown as AdminUser), role: r.role as Role, createdAt: r.createdAt.toISOString() });

/** Every user, by name. */
export async function listUsers(db: Db): Promise<AdminUser[]> {
  const rows = await db.select(columns).from(users).leftJoin(dealers, eq(dealers.id, users.dealerId)).orderBy(users.name, users.email);
  return rows.map(toUser);
}

async function getUser(db: Db | Tx, id: string): Promise<AdminUser> {
  const [row] = await db.select(columns).from(users).leftJoin(dealers, eq(dealers.id, users.dealerId)).where(eq(users.id, id));
  if (!row) throw new NotFound('User not found');
  return toUser(row);
}

/** Dealer roles need an existing dealer; admins have none. @throws Invalid. */
async function checkDealer(tx: Tx, role: Role, dealerId: string | null): Promise<string | null> {
  if (role === 'admin') return null;
  if (!dealerId) throw Invalid.field('dealerId', 'a dealer is required for dealer-manager and viewer users', 'required');
  const [d] = await tx.select({ id: dealers.id }).from(dealers).where(eq(dealers.id, dealerId));
  if (!d) throw Invalid.field('dealerId', `unknown dealer "${dealerId}"`, 'unknown_reference');
  return dealerId;
}

async function emailTaken(tx: Tx, email: string, exceptId?: string): Promise<boolean> {
  const cond = eq(sql`lower(${users.email})`, email.toLowerCase());
  const [row] = await tx.select({ id: users.id }).from(users).where(exceptId ? and(cond, ne(users.id, exceptId)) : cond);
  return Boolean(row);
}

/** Creates a user. @throws Invalid, Conflict('A user with this email already exists'). */
export async function createUser(db: Db, body: z.infer<typeof createUserSchema>): Promise<AdminUser> {
  return (await insertUser(db, body)).user;
}

/**
 * Creates a user and, in the same transaction, its invitation to set a password valid from `now`
 * (auth/invitations.ts; the caller e-mails it). Without `body.password` the user has a random
 * password nobody knows until the invitation is used. @throws Invalid, Conflict as createUser.
 */
export async function createUserWithInvitation(db: Db, body: z.infer<typeof createUserSchema>, now: Date): Promise<{ user: AdminUser; invitation: { token: string; expiresAt: Date } }> {
  const { user, invitation } = await insertUser(db, body, now);
  return { user, invitation: invitation! };
}

async function insertUser(db: Db, body: z.infer<typeof createUserSchema>, inviteAt?: Date) {
  const passwordHash = await hashPassword(body.password ?? randomBytes(32).toString('base64url'));
  const id = randomUUID();
  const invitation = await db.transaction(async (tx) => {
    const dealerId = await checkDealer(tx, body.role, body.dealerId);
    if (await emailTaken(tx, body.email)) throw new Conflict('A user with this email already exists');
    await tx.insert(users).values({ id, email: body.email, name: body.name, role: body.role, dealerId, passwordHash });
    return inviteAt ? issueInvitation(tx, id, inviteAt) : null;
  });
  return { user: await getUser(db, id), invitation };
}

/**
 * Changes name, role, dealer or active state. Deactivating ends the user's sessions in the same
 * transaction. @throws NotFound, Invalid, Conflict when it would leave no active admin.
 */
export async function updateUser(db: Db, id: string, body: z.infer<typeof updateUserSchema>): Promise<AdminUser> {
  await db.transaction(async (tx) => {
    const [cur] = await tx.select().from(users).where(eq(users.id, id)).for('update');
    if (!cur) throw new NotFound('User not found');
    const role = body.role ?? (cur.role as Role);
    const isActive = body.isActive ?? cur.isActive;
    const dealerId = await checkDealer(tx, role, body.dealerId !== undefined ? body.dealerId : cur.dealerId);
    if (cur.role === 'admin' && cur.isActive && (role !== 'admin' || !isActive)) {
      // Lock the admin rows so two concurrent demotions cannot both pass the check.
      const others = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.role, 'admin'), eq(users.isActive, true), ne(users.id, id)))
        .for('update');
      if (others.length === 0) throw new Conflict('This is the last active admin: make another user admin first');
    }
    await tx
      .update(users)
      .set({ name: body.name ?? cur.name, role, dealerId, isActive, updatedAt: new Date() })
      .where(eq(users.id, id));
    if (!isActive || role !== cur.role || dealerId !== cur.dealerId) await tx.delete(sessions).where(eq(sessions.userId, id));
  });
  return getUser(db, id);
}

/** Sets a new password, clears the demo-password mark and ends the user's sessions. @throws NotFound. */
export async function resetPassword(db: Db, id: string, newPassword: string): Promise<void> {
  const passwordHash = await hashPassword(newPassword);
  await db.transaction(async (tx) => {
    // A new password is never the demo one: the sign-in hint stops listing the account.
    const updated = await tx
      .update(users)
      .set({ passwordHash, demoPassword: false, updatedAt: new Date() })
      .where(eq(users.id, id))
      .returning({ id: users.id });
    if (updated.length === 0) throw new NotFound('User not found');
    await tx.delete(sessions).where(eq(sessions.userId, id));
  });
}
