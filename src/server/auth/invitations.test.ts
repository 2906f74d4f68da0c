/**
 * Invitation e-mails through a real SMTP server (smtp-server on 127.0.0.1, parsed with
 * mailparser): creating a user e-mails a one-time set-password link; the link's token is stored
 * hashed (never in the database or the Outbox), works once, not after INVITATION_TTL_HOURS and not
 * for a deactivated user; the password it sets signs the user in and follows the password rules.
 * Without SMTP the Outbox keeps the message and the admin gets the link.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { sql } from 'drizzle-orm';
import { startSmtpCapture, type SmtpCapture } from '../../../tests/fixtures/smtp';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { INVITATION_INVALID, INVITATION_TTL_HOURS, tokenFromHash } from '../../domain/invitations';
import { hashInvitationToken } from './invitations';

const HOUR = 3_600_000;
const ORIGIN = 'http://localhost:3000';

let smtp: SmtpCapture;
let t: TestApp;
let admin: string;
let now = new Date('2026-05-04T09:00:00Z');

beforeAll(async () => {
  smtp = await startSmtpCapture();
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { now: () => now, env: { SMTP_URL: smtp.url, MAIL_FROM: 'dc-banners <invites@dc-banners.test>' } }));
});
afterAll(async () => {
  await t.close();
  await smtp?.close();
});
beforeEach(() => {
  smtp.received.length = 0;
});

const post = (url: string, payload: object, cookie?: string) => t.app.inject({ method: 'POST', url, payload, headers: { origin: ORIGIN, ...(cookie ? { cookie } : {}) } });

async function invite(email: string, extra: object = {}) {
  const res = await post('/api/admin/users', { email, name: 'Pat Jones', role: 'dealer-manager', dealerId: DEMO_DEALER.id, ...extra }, admin);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { user: { id: string }; invitation: { status: string; expiresAt: string; link: string | null } };
}
/** The set-password link of a received invitation e-mail and its token. */
function linkOf(mail: ParsedMail) {
  const link = /(http:\/\/localhost:3000\/set-password#token=\S+)/.exec(mail.text ?? '')?.[1];
  expect(link, mail.text).toBeTruthy();
  return { link: link!, token: tokenFromHash(new URL(link!).hash)! };
}

describe('invitation e-mail', () => {
  it('e-mails a one-time link on user creation; the password it sets signs the user in', async () => {
    const { invitation } = await invite('pat@hondaofdemo.com');
    expect(invitation).toEqual({ status: 'sent', expiresAt: new Date(now.getTime() + INVITATION_TTL_HOURS * HOUR).toISOString(), link: null });
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(1);
    const mail = smtp.received[0]!;
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value.map((v) => v.address) : []).toEqual(['pat@hondaofdemo.com']);
    expect(mail.from?.text).toContain('invites@dc-banners.test');
    expect(mail.subject).toBe('Your dc-banners account: set your password');
    expect(mail.text).toContain('You sign in with pat@hondaofdemo.com.');
    expect(mail.text).toContain('until 2026-05-07 09:00 UTC');
    const { link, token } = linkOf(mail);
    expect(mail.html).toContain(`href="${link}"`);

    // Hashed at rest: neither the invitations table nor the Outbox holds the token.
    const stored = await t.database.db.execute(sql`SELECT token_hash FROM user_invitations`);
    expect((stored as unknown as { rows: Array<{ token_hash: string }> }).rows.map((r) => r.token_hash)).toContain(hashInvitationToken(token));
    const outbox = (await t.app.inject({ method: 'GET', url: '/api/admin/outbox', headers: { cookie: admin } })).json();
    const message = outbox.messages.find((m: { kind: string }) => m.kind === 'invitation');
    expect(message).toMatchObject({ kind: 'invitation', status: 'sent', recipients: ['pat@hondaofdemo.com'], dealerId: DEMO_DEALER.id });
    expect(message.text).not.toContain(token);
    expect(JSON.stringify(await t.database.db.execute(sql`SELECT * FROM mail_outbox`))).not.toContain(token);

    // The user cannot sign in before setting a password.
    expect((await post('/api/auth/login', { email: 'pat@hondaofdemo.com', password: 'whatever1' })).statusCode).toBe(401);
    const check = await post('/api/auth/invitation', { token });
    expect(check.statusCode, check.body).toBe(200);
    expect(check.json()).toEqual({ email: 'pat@hondaofdemo.com', name: 'Pat Jones' });

    const short = await post('/api/auth/invitation/accept', { token, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.fields[0].path).toBe('password');

    const set = await post('/api/auth/invitation/accept', { token, password: 'my-new-password' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ email: 'pat@hondaofdemo.com' });
    const cookie = await t.login('pat@hondaofdemo.com', 'my-new-password');
    const me = (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })).json();
    expect(me.user).toMatchObject({ email: 'pat@hondaofdemo.com', role: 'dealer-manager', dealerId: DEMO_DEALER.id });

    // Single use: the same link is refused afterwards, and the password stays.
    for (const [url, body] of [['/api/auth/invitation', { token }], ['/api/auth/invitation/accept', { token, password: 'another-password' }]] as const) {
      const again = await post(url, body);
      expect(again.statusCode, url).toBe(400);
      expect(again.json().error).toMatchObject({ code: 'INVALID', message: INVITATION_INVALID, fields: [{ path: 'token', code: 'invitation_invalid' }] });
    }
    await t.login('pat@hondaofdemo.com', 'my-new-password');
  });

  it('refuses an expired link, a deactivated user and an unknown token', async () => {
    const created = await invite('late@hondaofdemo.com');
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(1);
    const { token } = linkOf(smtp.received[0]!);
    const issued = now;
    try {
      now = new Date(issued.getTime() + INVITATION_TTL_HOURS * HOUR - 60_000); // a minute before it expires: still open
      expect((await post('/api/auth/invitation', { token })).statusCode).toBe(200);
      now = new Date(issued.getTime() + INVITATION_TTL_HOURS * HOUR);
      const expired = await post('/api/auth/invitation/accept', { token, password: 'too-late-password' });
      expect(expired.statusCode).toBe(400);
      expect(expired.json().error.message).toBe(INVITATION_INVALID);
    } finally {
      now = issued;
    }

    const other = await invite('gone@hondaofdemo.com');
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(2);
    const { token: goneToken } = linkOf(smtp.received[1]!);
    const off = await t.app.inject({ method: 'PATCH', url: `/api/admin/users/${other.user.id}`, payload: { isActive: false }, headers: { cookie: admin, origin: ORIGIN } });
    expect(off.statusCode, off.body).toBe(200);
    expect((await post('/api/auth/invitation/accept', { token: goneToken, password: 'inactive-password' })).statusCode).toBe(400);
    expect((await post('/api/auth/invitation', { token: 'not-a-token' })).statusCode).toBe(400);
    expect(created.user.id).toBeTruthy();
  });

  it('keeps the message in the Outbox and gives the admin the link when SMTP is not configured', async () => {
    const { t: plain, cookie } = await createSignedInTestApp('admin');
    try {
      const res = await plain.app.inject({ method: 'POST', url: '/api/admin/users', payload: { email: 'nosmtp@dc-banners.com', name: 'No Smtp', role: 'admin' }, headers: { cookie, origin: ORIGIN } });
      expect(res.statusCode, res.body).toBe(201);
      const { invitation } = res.json();
      expect(invitation).toMatchObject({ status: 'not-configured', link: expect.stringMatching(/^http:\/\/localhost:3000\/set-password#token=/) });
      const outbox = (await plain.app.inject({ method: 'GET', url: '/api/admin/outbox', headers: { cookie } })).json();
      expect(outbox.messages[0]).toMatchObject({ kind: 'invitation', status: 'not-configured', dealerId: null, recipients: ['nosmtp@dc-banners.com'] });
      const token = tokenFromHash(new URL(invitation.link).hash)!;
      expect(outbox.messages[0].text).not.toContain(token);
      const set = await plain.app.inject({ method: 'POST', url: '/api/auth/invitation/accept', payload: { token, password: 'admin-password' }, headers: { origin: ORIGIN } });
      expect(set.statusCode, set.body).toBe(200);
      await plain.login('nosmtp@dc-banners.com', 'admin-password');
    } finally {
      await plain.close();
    }
  });
});
