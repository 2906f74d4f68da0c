/**
 * The one authorization mechanism (ARCHITECTURE "Rules of the house", DECISIONS 5-6).
 *
 * Every route declares `config: { access }`:
 * - `public`: anyone (the public endpoints apply their own rate limits and origin checks);
 * - `signed-in`: any active session;
 * - `admin`: role admin;
 * - `dealer-read`: admin, or a user of the dealer named by the route's `:dealerId` param;
 * - `dealer-write`: as dealer-read, but never the read-only `viewer` role.
 * A route under /api or /scripts without a policy makes the app fail to start.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { SessionUser } from '../../domain/schemas';
import { Forbidden, Unauthorized } from '../errors';
import { getSessionUser } from './service';

export type Access = 'public' | 'signed-in' | 'admin' | 'dealer-read' | 'dealer-write';

export const SESSION_COOKIE = 'dcb_session';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyInstance {
    /** Every /api and /scripts route with its policy, for the role matrix test. */
    routePolicies: Array<{ method: string; url: string; access: Access }>;
  }
  interface FastifyRequest {
    user: SessionUser | null;
    sessionToken: string | null;
  }
}

/** The session token of the request's signed cookie, or null. */
export function sessionToken(request: FastifyRequest): string | null {
  const raw = request.cookies[SESSION_COOKIE];
  if (!raw) return null;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid ? unsigned.value : null;
}

/** Throws unless the request's user may read (or write, with `write`) the given dealer's data. */
export function assertDealerAccess(user: SessionUser | null, dealerId: string, write: boolean): SessionUser {
  if (!user) throw new Unauthorized();
  if (user.role === 'admin') return user;
  if (user.dealerId !== dealerId) throw new Forbidden('You can only access your own dealer');
  if (write && user.role === 'viewer') throw new Forbidden('Viewers have read-only access');
  return user;
}

export const accessPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('user', null);
  app.decorateRequest('sessionToken', null);
  app.decorate('routePolicies', []);

  app.addHook('onRoute', (route) => {
    const url = route.url;
    if (!(url.startsWith('/api') || url.startsWith('/scripts/'))) return;
    if (route.method === 'HEAD' || route.method === 'OPTIONS') return;
    if (!route.config?.access) {
      throw new Error(`Route ${String(route.method)} ${url} has no access policy`);
    }
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') app.routePolicies.push({ method, url, access: route.config.access });
    }
  });

  // preValidation: who may call is decided before the route schema judges the input, so a caller
  // without access gets 401/403 whatever it sent.
  // A callback hook: public routes (beacons, banners: most requests) pay no promise for it.
  app.addHook('preValidation', (request, _reply, done) => {
    const access = request.routeOptions.config.access;
    if (!access || access === 'public') return done();
    authorize(request, access).then(() => done(), done);
  });

  /** Signs the request's session in and checks its role and dealer against the route's policy. @throws Unauthorized, Forbidden. */
  async function authorize(request: FastifyRequest, access: Access): Promise<void> {
    const token = sessionToken(request);
    const user = token ? await getSessionUser(app.db, token) : null;
    if (!user) throw new Unauthorized();
    request.user = user;
    request.sessionToken = token;
    if (access === 'admin' && user.role !== 'admin') throw new Forbidden('Admins only');
    if (access === 'dealer-read' || access === 'dealer-write') {
      const dealerId = (request.params as { dealerId?: string }).dealerId ?? '';
      assertDealerAccess(user, dealerId, access === 'dealer-write');
    }
  }
});
