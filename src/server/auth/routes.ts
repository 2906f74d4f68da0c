/**
 * Sign-in routes: login, logout, current user, demo-account hint (spec 01 §2, §5; DECISIONS 4).
 */
import type { FastifyInstance } from 'fastify';
import { loginBodySchema } from '../../domain/schemas';
import { parseInput } from '../validation';
import { SESSION_COOKIE } from './access';
import { login, logout } from './service';
import { DEMO_ACCOUNTS } from '../db/seed';
import { count } from 'drizzle-orm';
import { users } from '../db/schema';
import { eq, sql } from 'drizzle-orm';

export async function authRoutes(app: FastifyInstance) {
  const secure = app.config.publicOrigin.startsWith('https:');

  app.post(
    '/api/auth/login',
    { config: { access: 'public', rateLimit: { max: 20, timeWindow: '1 minute' } } },
    async (request, reply) => {
      const body = parseInput(loginBodySchema, request.body);
      const { token, user } = await login(app.db, body.email, body.password, app.config.sessionTtlMs);
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

  app.post('/api/auth/logout', { config: { access: 'signed-in' } }, async (request, reply) => {
    if (request.sessionToken) await logout(app.db, request.sessionToken);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.status(204).send();
  });

  app.get('/api/auth/me', { config: { access: 'signed-in' } }, async (request) => ({ user: request.user }));

  /** The sign-in hint lists the demo accounts only while they exist with their demo passwords seeded. */
  app.get('/api/auth/demo-accounts', { config: { access: 'public' } }, async () => {
    if (!app.config.seedDemo) return { accounts: [] };
    const [row] = await app.db
      .select({ n: count() })
      .from(users)
      .where(eq(sql`lower(${users.email})`, DEMO_ACCOUNTS[0]!.email));
    return { accounts: row && row.n > 0 ? DEMO_ACCOUNTS.map(({ email, password, role }) => ({ email, password, role })) : [] };
  });
}
