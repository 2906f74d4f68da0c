/**
 * Admin API (spec 01 §2-§9; DECISIONS 3, 7-9, 18-19): dealers, manufacturers, users,
 * dashboard, platform analytics, export and import. Every route is `access: 'admin'`. Dealer
 * reads for the settings screen use GET /api/dealers/:dealerId (admins may read any dealer).
 * The one public route, POST /api/client-errors, takes the web app's render error reports
 * (small bodies): a signed-in user's report is stored with the user, rate-limited per user; a
 * signed-out page's report (the sign-in screen) goes to the server log only, rate-limited per IP,
 * so no anonymous caller can evict the stored entries.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  adminDashboardSchema,
  clientErrorListSchema,
  clientErrorSchema,
  createDealerSchema,
  createUserSchema,
  createdUserAnswerSchema,
  dealerAnswerSchema,
  dealerListQuery,
  dealerListSchema,
  dealerSettingsSchema,
  importAnswerSchema,
  importBodySchema,
  manufacturerAnswerSchema,
  manufacturerInputSchema,
  manufacturerListSchema,
  platformAnalyticsQuery,
  platformAnalyticsSchema,
  platformExportSchema,
  resetPasswordSchema,
  updateUserSchema,
  userAnswerSchema,
  userListSchema,
  userParams,
} from '../../domain/contracts/admin';
import { dealerParams, idParams } from '../../domain/contracts/common';
import { createDealer, deleteDealer, listDealers, updateDealerSettings } from './dealers';
import { createManufacturer, deleteManufacturer, listManufacturers, updateManufacturer } from './manufacturers';
import { createUserWithInvitation, listUsers, resetPassword, updateUser } from './users';
import { sendInvitation } from '../auth/invitations';
import { adminDashboard, exportPlatform, importPlatform, platformAnalytics } from './platform';
import { clientErrorRateLimit, clientErrorReporter, listClientErrors, recordClientError } from './client-errors';

const admin = { config: { access: 'admin' as const } };
const tags = ['admin'];
const noContent = { 204: z.void().describe('No content') };

export async function adminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/admin/dashboard', { ...admin, schema: { tags, summary: 'Dashboard figures', response: { 200: adminDashboardSchema } } }, async () => {
    await app.events.flush();
    return adminDashboard(app.db, app.now());
  });
  app.get(
    '/api/admin/analytics',
    { ...admin, schema: { tags, summary: 'Platform analytics of a period', querystring: platformAnalyticsQuery, response: { 200: platformAnalyticsSchema } } },
    async (request) => {
      await app.events.flush();
      return platformAnalytics(app.db, request.query.period, app.now());
    },
  );

  app.get(
    '/api/admin/dealers',
    { ...admin, schema: { tags, summary: 'One page of dealers with all-time figures; with period also the period\'s figures, trend and coverage gaps and the last 24 h of tag health (refused beacons by reason): searched, filtered and sorted on the server', querystring: dealerListQuery, response: { 200: dealerListSchema } } },
    async (request) => {
      await app.events.flush(); // the figures include events still buffered, as the dashboard's do
      if (request.query.period) await app.tagHealth.flush(); // and the tag health its counters still hold
      return listDealers(app.db, request.query, app.now());
    },
  );
  app.post(
    '/api/admin/dealers',
    { ...admin, schema: { tags, summary: 'Create a dealer', body: createDealerSchema, response: { 201: dealerAnswerSchema } } },
    async (request, reply) => {
      const dealer = await createDealer(app.db, request.body);
      return reply.status(201).send({ dealer });
    },
  );
  app.put(
    '/api/admin/dealers/:dealerId/settings',
    { ...admin, schema: { tags, summary: 'Save dealer settings sections', params: dealerParams, body: dealerSettingsSchema, response: { 200: dealerAnswerSchema } } },
    async (request) => ({
      dealer: await updateDealerSettings(app.db, request.params.dealerId, request.body, { allowPrivateHosts: app.config.feedAllowPrivateHosts }),
    }),
  );
  app.delete('/api/admin/dealers/:dealerId', { ...admin, schema: { tags, summary: 'Delete a dealer and its data', params: dealerParams, response: noContent } }, async (request, reply) => {
    await app.events.flush(); // buffered events of this dealer are stored before its rows go
    await deleteDealer(app.db, request.params.dealerId);
    return reply.status(204).send();
  });

  app.get('/api/admin/manufacturers', { ...admin, schema: { tags, summary: 'Manufacturers with usage counts', response: { 200: manufacturerListSchema } } }, async () => ({
    manufacturers: await listManufacturers(app.db),
  }));
  app.post(
    '/api/admin/manufacturers',
    { ...admin, schema: { tags, summary: 'Create a manufacturer', body: manufacturerInputSchema, response: { 201: manufacturerAnswerSchema } } },
    async (request, reply) => {
      const manufacturer = await createManufacturer(app.db, request.body);
      return reply.status(201).send({ manufacturer });
    },
  );
  app.put(
    '/api/admin/manufacturers/:id',
    { ...admin, schema: { tags, summary: 'Save a manufacturer', params: idParams, body: manufacturerInputSchema, response: { 200: manufacturerAnswerSchema } } },
    async (request) => ({ manufacturer: await updateManufacturer(app.db, request.params.id, request.body) }),
  );
  app.delete('/api/admin/manufacturers/:id', { ...admin, schema: { tags, summary: 'Delete an unused manufacturer', params: idParams, response: noContent } }, async (request, reply) => {
    await deleteManufacturer(app.db, request.params.id);
    return reply.status(204).send();
  });

  app.get('/api/admin/users', { ...admin, schema: { tags, summary: 'Users', response: { 200: userListSchema } } }, async () => ({ users: await listUsers(app.db) }));
  app.post(
    '/api/admin/users',
    { ...admin, schema: { tags, summary: 'Create a user and e-mail the invitation to set a password', body: createUserSchema, response: { 201: createdUserAnswerSchema } } },
    async (request, reply) => {
      const { user, invitation } = await createUserWithInvitation(app.db, request.body, app.now());
      const sent = await sendInvitation(app.db, app.notifications.mailer, user, invitation, app.config.publicOrigin);
      return reply.status(201).send({ user, invitation: sent });
    },
  );
  app.patch(
    '/api/admin/users/:id',
    { ...admin, schema: { tags, summary: 'Change a user', params: userParams, body: updateUserSchema, response: { 200: userAnswerSchema } } },
    async (request) => ({ user: await updateUser(app.db, request.params.id, request.body) }),
  );
  app.post(
    '/api/admin/users/:id/password',
    { ...admin, schema: { tags, summary: "Reset a user's password", params: userParams, body: resetPasswordSchema, response: noContent } },
    async (request, reply) => {
      await resetPassword(app.db, request.params.id, request.body.password);
      return reply.status(204).send();
    },
  );

  app.get('/api/admin/export', { ...admin, schema: { tags, summary: 'Export the platform (JSON attachment)', response: { 200: platformExportSchema } } }, async (_request, reply) => {
    const doc = await exportPlatform(app.db);
    return reply.header('Content-Disposition', `attachment; filename="dc-banners-export-${doc.exportedAt.slice(0, 10)}.json"`).send(doc);
  });
  app.post(
    '/api/admin/import',
    { ...admin, bodyLimit: 20 * 1024 * 1024, schema: { tags, summary: 'Import an export document', body: importBodySchema, response: { 200: importAnswerSchema } } },
    async (request) => ({ imported: await importPlatform(app.db, request.body, { allowPrivateHosts: app.config.feedAllowPrivateHosts }) }),
  );

  app.post(
    '/api/client-errors',
    {
      config: { access: 'public', rateLimit: clientErrorRateLimit },
      bodyLimit: 64 * 1024,
      schema: { tags: ['client errors'], summary: "Report a web app render error", body: clientErrorSchema, response: noContent },
    },
    async (request, reply) => {
      const report = request.body;
      const user = await clientErrorReporter(request);
      if (user) await recordClientError(app.db, report, user, request.headers['user-agent'] ?? null);
      else request.log.warn({ clientError: { message: report.message.slice(0, 500), url: report.url.slice(0, 500), stack: report.stack?.slice(0, 2000) ?? null } }, 'client error reported while signed out (server log only)');
      return reply.status(204).send();
    },
  );
  app.get('/api/admin/client-errors', { ...admin, schema: { tags, summary: 'The client error log, newest first', response: { 200: clientErrorListSchema } } }, async () => ({
    errors: await listClientErrors(app.db),
  }));
}
