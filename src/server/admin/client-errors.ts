/**
 * The client error log (spec 01 §2, §8: render errors "logged for debugging", last 50 entries):
 * the web app's error screen reports each render error (timestamp, message, stack,
 * component stack, page URL, user); the server keeps the newest CLIENT_ERROR_LOG_LIMIT and admins
 * read them. Over-long texts are cut rather than refused, so a report is never lost for its size.
 */
import { desc, notInArray } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/client';
import { clientErrors } from '../db/schema';
import { CLIENT_ERROR_LOG_LIMIT } from '../../domain/constants';
import type { ClientErrorEntry } from '../../domain/admin';
import type { ClientErrorReport } from '../../domain/contracts/admin';
import type { SessionUser } from '../../domain/schemas';
import { sessionToken } from '../auth/access';
import { getSessionUser } from '../auth/service';

/**
 * Reports per minute: per signed-in user for the stored log, per client IP for
 * reports from signed-out pages (which only reach the server log). The web app sends at most 5
 * per page load.
 */
export const CLIENT_ERRORS_PER_MINUTE = { user: 10, anonymous: 10 } as const;

/**
 * The signed-in user posting a report, or null (the route is public so that sign-in screen
 * errors still reach the server log). Resolved once per request and kept on `request.user`.
 */
export async function clientErrorReporter(request: FastifyRequest): Promise<SessionUser | null> {
  if (request.user) return request.user;
  const token = sessionToken(request);
  const user = token ? await getSessionUser(request.server.db, token) : null;
  request.user = user;
  request.sessionToken = user ? token : null;
  return user;
}

/**
 * @fastify/rate-limit route config of POST /api/client-errors: keyed by user id
 * for a session, by IP otherwise; CLIENT_ERRORS_PER_MINUTE each. Over it: 429 RATE_LIMITED.
 */
export const clientErrorRateLimit = {
  timeWindow: 60_000,
  keyGenerator: async (request: FastifyRequest) => {
    const user = await clientErrorReporter(request);
    return user ? `client-errors|user|${user.id}` : `client-errors|ip|${request.ip}`;
  },
  max: (_request: FastifyRequest, key: string) =>
    key.startsWith('client-errors|user|') ? CLIENT_ERRORS_PER_MINUTE.user : CLIENT_ERRORS_PER_MINUTE.anonymous,
};

// The request body: src/domain/contracts/admin.ts.
export { clientErrorSchema } from '../../domain/contracts/admin';

/** Stores one report and drops all but the newest CLIENT_ERROR_LOG_LIMIT, in one transaction. */
export async function recordClientError(db: Db, report: ClientErrorReport, user: SessionUser | null, userAgent: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(clientErrors).values({
      message: report.message,
      stack: report.stack ?? null,
      componentStack: report.componentStack ?? null,
      url: report.url,
      userAgent: userAgent?.slice(0, 500) ?? null,
      userId: user?.id ?? null,
      userEmail: user?.email ?? null,
    });
    const keep = tx.select({ id: clientErrors.id }).from(clientErrors).orderBy(desc(clientErrors.id)).limit(CLIENT_ERROR_LOG_LIMIT);
    await tx.delete(clientErrors).where(notInArray(clientErrors.id, keep));
  });
}

/** The kept reports, newest first. */
export async function listClientErrors(db: Db): Promise<ClientErrorEntry[]> {
  const rows = await db.select().from(clientErrors).orderBy(desc(clientErrors.id)).limit(CLIENT_ERROR_LOG_LIMIT);
  return rows.map((r) => ({
    id: r.id,
    timestamp: r.createdAt.toISOString(),
    message: r.message,
    stack: r.stack,
    componentStack: r.componentStack,
    url: r.url,
    userAgent: r.userAgent,
    user: r.userEmail,
  }));
}
