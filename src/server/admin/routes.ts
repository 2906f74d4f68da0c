/**
 * Admin API (issue 3; spec 01 §2-§9; DECISIONS 3, 7-9, 18-19): dealers, manufacturers, users,
 * dashboard, platform analytics, export and import. Every route is `access: 'admin'`. Dealer
 * reads for the settings screen use GET /api/dealers/:dealerId (admins may read any dealer).
 * The one public route, POST /api/client-errors, takes the web app's render error reports
 * (small bodies): a signed-in user's report is stored with the user, rate-limited per user; a
 * signed-out page's report (the sign-in screen) goes to the server log only, rate-limited per IP,
 * so no anonymous caller can evict the stored entries (issue 11 §10).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { analyticsPeriodSchema } from '../../domain/schemas';
import { parseInput } from '../validation';
import { NotFound } from '../errors';
import { createDealer, createDealerSchema, deleteDealer, listDealers, parseDealerSettings, updateDealerSettings } from './dealers';
import { createManufacturer, deleteManufacturer, listManufacturers, manufacturerInputSchema, updateManufacturer } from './manufacturers';
import { createUser, createUserSchema, listUsers, resetPassword, resetPasswordSchema, updateUser, updateUserSchema } from './users';
import { adminDashboard, exportPlatform, importPlatform, platformAnalytics } from './platform';
import { clientErrorRateLimit, clientErrorReporter, clientErrorSchema, listClientErrors, recordClientError } from './client-errors';

type Dealer = { Params: { dealerId: string } };
type Id = { Params: { id: string } };
const admin = { config: { access: 'admin' as const } };
const periodQuery = z.object({ period: analyticsPeriodSchema.default('30d') });

/** The :id of a user route; a malformed id is simply not found. */
function userId(params: { id: string }): string {
  if (!z.uuid().safeParse(params.id).success) throw new NotFound('User not found');
  return params.id;
}

export async function adminRoutes(app: FastifyInstance) {
  app.get('/api/admin/dashboard', admin, async () => {
    await app.events.flush();
    return adminDashboard(app.db);
  });
  app.get('/api/admin/analytics', admin, async (request) => {
    const { period } = parseInput(periodQuery, request.query);
    await app.events.flush();
    return platformAnalytics(app.db, period);
  });

  app.get('/api/admin/dealers', admin, async () => ({ dealers: await listDealers(app.db) }));
  app.post('/api/admin/dealers', admin, async (request, reply) => {
    const dealer = await createDealer(app.db, parseInput(createDealerSchema, request.body));
    return reply.status(201).send({ dealer });
  });
  app.put<Dealer>('/api/admin/dealers/:dealerId/settings', admin, async (request) => ({
    dealer: await updateDealerSettings(app.db, request.params.dealerId, parseDealerSettings(request.body), { allowPrivateHosts: app.config.feedAllowPrivateHosts }),
  }));
  app.delete<Dealer>('/api/admin/dealers/:dealerId', admin, async (request, reply) => {
    await app.events.flush(); // buffered events of this dealer are stored before its rows go
    await deleteDealer(app.db, request.params.dealerId);
    return reply.status(204).send();
  });

  app.get('/api/admin/manufacturers', admin, async () => ({ manufacturers: await listManufacturers(app.db) }));
  app.post('/api/admin/manufacturers', admin, async (request, reply) => {
    const manufacturer = await createManufacturer(app.db, parseInput(manufacturerInputSchema, request.body));
    return reply.status(201).send({ manufacturer });
  });
  app.put<Id>('/api/admin/manufacturers/:id', admin, async (request) => ({
    manufacturer: await updateManufacturer(app.db, request.params.id, parseInput(manufacturerInputSchema, request.body)),
  }));
  app.delete<Id>('/api/admin/manufacturers/:id', admin, async (request, reply) => {
    await deleteManufacturer(app.db, request.params.id);
    return reply.status(204).send();
  });

  app.get('/api/admin/users', admin, async () => ({ users: await listUsers(app.db) }));
  app.post('/api/admin/users', admin, async (request, reply) => {
    const user = await createUser(app.db, parseInput(createUserSchema, request.body));
    return reply.status(201).send({ user });
  });
  app.patch<Id>('/api/admin/users/:id', admin, async (request) => ({
    user: await updateUser(app.db, userId(request.params), parseInput(updateUserSchema, request.body)),
  }));
  app.post<Id>('/api/admin/users/:id/password', admin, async (request, reply) => {
    await resetPassword(app.db, userId(request.params), parseInput(resetPasswordSchema, request.body).password);
    return reply.status(204).send();
  });

  app.get('/api/admin/export', admin, async (_request, reply) => {
    const doc = await exportPlatform(app.db);
    return reply.header('Content-Disposition', `attachment; filename="dc-banners-export-${doc.exportedAt.slice(0, 10)}.json"`).send(doc);
  });
  app.post('/api/admin/import', { ...admin, bodyLimit: 20 * 1024 * 1024 }, async (request) => ({
    imported: await importPlatform(app.db, request.body, { allowPrivateHosts: app.config.feedAllowPrivateHosts }),
  }));

  app.post(
    '/api/client-errors',
    { config: { access: 'public', rateLimit: clientErrorRateLimit }, bodyLimit: 64 * 1024 },
    async (request, reply) => {
      const report = parseInput(clientErrorSchema, request.body);
      const user = await clientErrorReporter(request);
      if (user) await recordClientError(app.db, report, user, request.headers['user-agent'] ?? null);
      else request.log.warn({ clientError: { message: report.message.slice(0, 500), url: report.url.slice(0, 500), stack: report.stack?.slice(0, 2000) ?? null } }, 'client error reported while signed out (server log only)');
      return reply.status(204).send();
    },
  );
  app.get('/api/admin/client-errors', admin, async () => ({ errors: await listClientErrors(app.db) }));
}
