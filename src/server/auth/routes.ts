/**
 * Sign-in routes: login, logout, current user, demo-account hint, invitation links (spec 01 §2, §5; DECISIONS 4, 7;
 * per-IP and per-account-and-source limits answer 429 'Too many attempts, try again in N minutes').
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { normalizeIP } from '@fastify/rate-limit';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { demoAccountsSchema, loginAnswerSchema, loginBodySchema, meAnswerSchema } from '../../domain/contracts/auth';
import { LOGIN_IP_LIMIT_PER_MINUTE, tooManyAttemptsMessage } from '../../domain/login-throttle';
import { DEMO_ACCOUNTS } from '../../domain/demo';
import { RateLimited } from '../errors';
import { SESSION_COOKIE, sessionToken } from './access';
import { getSessionUser, login, logout } from './service';
import { dummyPasswordHash } from './password';
import { acceptInvitation, invitationFor } from './invitations';
import { acceptInvitationSchema, acceptedInvitationSchema, invitationAnswerSchema, invitationTokenSchema } from '../../domain/contracts/admin';
import { users } from '../db/schema';

/** Registers the /api/auth routes on `app` (uses app.db and app.config; errors go to the app's error handler). */
export async function authRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['auth'];
  const secure = app.config.publicOrigin.startsWith('https:');
  // Unknown emails are verified against this hash (started here, so no sign-in waits for it).
  const dummyHash = dummyPasswordHash();

  app.post(
    '/api/auth/login',
    {
      config: {
        access: 'public',
        // Per client IP (TRUST_PROXY decides what the IP is), on top of the per-account-and-source throttle in login().
        rateLimit: {
          max: LOGIN_IP_LIMIT_PER_MINUTE,
          timeWindow: '1 minute',
          errorResponseBuilder: (_request, context) => new RateLimited(tooManyAttemptsMessage(context.ttl), Math.ceil(context.ttl / 1000)),
        },
      },
      schema: { tags, summary: 'Sign in (sets the session cookie)', body: loginBodySchema, response: { 200: loginAnswerSchema } },
    },
    async (request, reply) => {
      const body = request.body;
      const { token, user } = await login(app.db, body.email, body.password, { ttlMs: app.config.sessionTtlMs, dummyHash, source: normalizeIP(request.ip) });
      reply.setCookie(SESSION_COOKIE, token, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure,
        signed: true,
        maxAge: Math.floor(app.config.sessionTtlMs / 1000),
      });
      return { user };
    },
  );

  // Invitation links (auth/invitations.ts): public, the token in the body (never in a URL, so never in a log).
  const invitationLimit = {
    access: 'public' as const,
    rateLimit: {
      max: LOGIN_IP_LIMIT_PER_MINUTE,
      timeWindow: '1 minute',
      errorResponseBuilder: (_request: unknown, context: { ttl: number }) => new RateLimited(tooManyAttemptsMessage(context.ttl), Math.ceil(context.ttl / 1000)),
    },
  };
  app.post(
    '/api/auth/invitation',
    { config: invitationLimit, schema: { tags, summary: 'Whom an open invitation link is for', body: invitationTokenSchema, response: { 200: invitationAnswerSchema } } },
    async (request) => invitationFor(app.db, request.body.token, app.now()),
  );
  app.post(
    '/api/auth/invitation/accept',
    { config: invitationLimit, schema: { tags, summary: 'Set the password of an invitation link (once)', body: acceptInvitationSchema, response: { 200: acceptedInvitationSchema } } },
    async (request) => acceptInvitation(app.db, request.body.token, request.body.password, app.now()),
  );

  app.post('/api/auth/logout', { config: { access: 'signed-in' }, schema: { tags, summary: 'Sign out', response: { 204: z.void().describe('No content') } } }, async (request, reply) => {
    if (request.sessionToken) await logout(app.db, request.sessionToken);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.status(204).send();
  });

  /**
   * The session's user, or `{ user: null }` when signed out (no, a bad or an expired session
   * cookie): a 200 either way, so a signed-out page load logs no failed request.
   */
  app.get('/api/auth/me', { config: { access: 'public' }, schema: { tags, summary: "The session's user, null when signed out", response: { 200: meAnswerSchema } } }, async (request) => {
    const token = sessionToken(request);
    return { user: token ? await getSessionUser(app.db, token) : null };
  });

  /**
   * The sign-in hint: while SEED_DEMO is on, the demo accounts that are active and still
   * have their seeded demo password (users.demo_password; any password change clears it), in
   * DEMO_ACCOUNTS order; an empty list otherwise.
   */
  app.get('/api/auth/demo-accounts', { config: { access: 'public' }, schema: { tags, summary: 'Demo accounts for the sign-in hint', response: { 200: demoAccountsSchema } } }, async () => {
    if (!app.config.seedDemo) return { accounts: [] };
    const rows = await app.db
      .select({ email: sql<string>`lower(${users.email})` })
      .from(users)
      .where(and(inArray(sql`lower(${users.email})`, DEMO_ACCOUNTS.map((a) => a.email.toLowerCase())), eq(users.demoPassword, true), eq(users.isActive, true)));
    const listed = new Set(rows.map((r) => r.email));
    return { accounts: DEMO_ACCOUNTS.filter((a) => listed.has(a.email.toLowerCase())).map(({ email, password, role }) => ({ email, password, role })) };
  });
}
