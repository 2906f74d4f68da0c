/**
 * Invitation e-mails (DECISIONS 7, user management): creating a user e-mails a one-time link to
 * the web app's public set-password screen. The token travels in the URL's fragment
 * (`/set-password#token=…`), which browsers never send to a server, so it stays out of request
 * logs and Referer headers; the server keeps only its SHA-256.
 */
import type { MailContent } from './notifications';

/** How long an invitation link works, hours. */
export const INVITATION_TTL_HOURS = 72;
/** The web app's public path of the set-password screen. */
export const SET_PASSWORD_PATH = '/set-password';
/** What a used, expired, revoked or unknown link answers (the same text for each, so a link reveals nothing). */
export const INVITATION_INVALID = 'This invitation link is invalid, already used or expired. Ask your admin to send a new one.';

/** The set-password link for `token` at the app's public origin (`PUBLIC_ORIGIN`, no trailing slash). */
export function invitationLink(publicOrigin: string, token: string): string {
  return `${publicOrigin.replace(/\/+$/, '')}${SET_PASSWORD_PATH}#token=${encodeURIComponent(token)}`;
}

/** The token of a set-password link's fragment ('#token=…'), or null. */
export function tokenFromHash(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token && token.length > 0 ? token : null;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The invitation e-mail to `name` (signing in as `email`), with the set-password `link` that
 * works until `expiresAt` (written in UTC, as the recipient's zone is unknown).
 */
export function invitationMail(name: string, email: string, link: string, expiresAt: Date): MailContent {
  const subject = 'Your dc-banners account: set your password';
  const until = `${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const lines = [
    `Hello ${name},`,
    `An account on dc-banners was created for you. You sign in with ${email}.`,
    `Set your password with this link (it works once, until ${until}):`,
  ];
  const after = 'If you did not expect this e-mail, ignore it: nothing happens until the link is used.';
  const text = `${lines.join('\n\n')}\n\n${link}\n\n${after}\n`;
  const html = `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#222;max-width:640px"><h2>${escapeHtml(subject)}</h2>${lines
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('')}<p><a href="${escapeHtml(link)}">Set your password</a></p><p style="color:#777;font-size:12px">${escapeHtml(after)}</p></body></html>`;
  return { subject, text, html };
}
