/**
 * Invitations to set a password (DECISIONS 7, user management; migration 0020): creating a user
 * issues a one-time token, e-mailed as a link through the Outbox and SMTP (notifications/service.ts
 * Mailer). Only the token's SHA-256 is stored; a token sets the password once, within
 * INVITATION_TTL_HOURS, and only while the user is active. Issuing a new token revokes the user's
 * earlier ones; setting a password ends the user's sessions.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { mailOutbox, sessions, userInvitations, users } from '../db/schema';
import { Invalid } from '../errors';
import { hashPassword } from './password';
import type { Mailer, MailStatus } from '../notifications/service';
import { INVITATION_INVALID, INVITATION_TTL_HOURS, invitationLink, invitationMail, SET_PASSWORD_PATH } from '../../domain/invitations';
import type { InvitationSent } from '../../domain/admin';

/** SHA-256 of a token, hex: what user_invitations stores. */
export const hashInvitationToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Issues an invitation for `userId` valid INVITATION_TTL_HOURS from `now`, revoking the user's
 * unused earlier ones. Returns the token (256 random bits, base64url): it exists only in this
 * answer and the e-mail.
 */
export async function issueInvitation(tx: Db | Tx, userId: string, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_HOURS * 3_600_000);
  await tx.update(userInvitations).set({ usedAt: now }).where(and(eq(userInvitations.userId, userId), isNull(userInvitations.usedAt)));
  await tx.insert(userInvitations).values({ tokenHash: hashInvitationToken(token), userId, createdAt: now, expiresAt });
  return { token, expiresAt };
}

/**
 * E-mails the invitation to `user` through `mailer`, written first to the Outbox (kind
 * 'invitation', under the user's dealer or none) with the link's token hidden, so the token is
 * never at rest. Answers the Outbox status and, when the e-mail did not go out (SMTP not
 * configured or the send failed), the link itself for the admin to hand over.
 */
export async function sendInvitation(
  db: Db,
  mailer: Mailer,
  user: { email: string; name: string; dealerId: string | null },
  invitation: { token: string; expiresAt: Date },
  publicOrigin: string,
): Promise<InvitationSent> {
  const link = invitationLink(publicOrigin, invitation.token);
  const mail = invitationMail(user.name, user.email, link, invitation.expiresAt);
  const hidden = `${publicOrigin.replace(/\/+$/, '')}${SET_PASSWORD_PATH}#token=…`;
  const status: MailStatus | 'sending' = mailer.configured ? 'sending' : 'not-configured';
  const [row] = await db
    .insert(mailOutbox)
    .values({
      dealerId: user.dealerId,
      kind: 'invitation',
      dedupeKey: `invitation:${hashInvitationToken(invitation.token).slice(0, 32)}`,
      recipients: [user.email],
      subject: mail.subject,
      textBody: mail.text.replace(link, hidden),
      htmlBody: mail.html.replaceAll(link, hidden), // the link's characters are none escapeHtml changes
      status,
    })
    .returning({ id: mailOutbox.id });
  let final: InvitationSent['status'] = 'not-configured';
  if (status === 'sending') {
    try {
      await mailer.send([user.email], mail);
      await db.update(mailOutbox).set({ status: 'sent', sentAt: new Date() }).where(eq(mailOutbox.id, row!.id));
      final = 'sent';
    } catch (e) {
      const error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
      await db.update(mailOutbox).set({ status: 'failed', error }).where(eq(mailOutbox.id, row!.id));
      final = 'failed';
    }
  }
  return { status: final, expiresAt: invitation.expiresAt.toISOString(), link: final === 'sent' ? null : link };
}

/** The open invitation of `token` at `now` with its active user, or null. */
async function openInvitation(tx: Db | Tx, token: string, now: Date) {
  const [row] = await tx
    .select({ userId: users.id, email: users.email, name: users.name })
    .from(userInvitations)
    .innerJoin(users, eq(users.id, userInvitations.userId))
    .where(and(eq(userInvitations.tokenHash, hashInvitationToken(token)), isNull(userInvitations.usedAt), gt(userInvitations.expiresAt, now), eq(users.isActive, true)));
  return row ?? null;
}

const invalid = () => new Invalid(INVITATION_INVALID, [{ path: 'token', code: 'invitation_invalid', message: INVITATION_INVALID }]);

/** Whom an open invitation is for (the set-password screen's greeting). @throws Invalid(INVITATION_INVALID) for a used, expired, revoked or unknown token. */
export async function invitationFor(db: Db, token: string, now: Date): Promise<{ email: string; name: string }> {
  const row = await openInvitation(db, token, now);
  if (!row) throw invalid();
  return { email: row.email, name: row.name };
}

/**
 * Sets the password of an open invitation's user and uses the invitation up, in one transaction
 * that takes the invitation row first (two requests with one token: one wins, the other is
 * refused); ends the user's sessions and clears the demo-password mark. Returns the user's email.
 * @throws Invalid(INVITATION_INVALID).
 */
export async function acceptInvitation(db: Db, token: string, password: string, now: Date): Promise<{ email: string }> {
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const used = await tx
      .update(userInvitations)
      .set({ usedAt: now })
      .where(and(eq(userInvitations.tokenHash, hashInvitationToken(token)), isNull(userInvitations.usedAt), gt(userInvitations.expiresAt, now)))
      .returning({ userId: userInvitations.userId });
    const userId = used[0]?.userId;
    if (!userId) throw invalid();
    const [user] = await tx
      .update(users)
      .set({ passwordHash, demoPassword: false, updatedAt: now })
      .where(and(eq(users.id, userId), eq(users.isActive, true)))
      .returning({ email: users.email });
    if (!user) throw invalid(); // deactivated since the invitation: the transaction rolls back
    await tx.delete(sessions).where(eq(sessions.userId, userId));
    await tx.update(userInvitations).set({ usedAt: now }).where(and(eq(userInvitations.userId, userId), isNull(userInvitations.usedAt), ne(userInvitations.tokenHash, hashInvitationToken(token))));
    return { email: user.email };
  });
}
