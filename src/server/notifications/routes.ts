/**
 * The admin's Outbox: every notification e-mail the server wrote, sent or kept because
 * SMTP is not configured, newest first, with whether SMTP_URL is set (the settings screen says so).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { outboxResponseSchema } from '../../domain/contracts/notifications';
import { listOutbox } from './service';

export async function notificationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/admin/outbox',
    { config: { access: 'admin' }, schema: { tags: ['admin'], summary: 'Notification e-mails, newest first, and whether SMTP is configured', response: { 200: outboxResponseSchema } } },
    async () => ({ mailConfigured: app.notifications.mailer.configured, messages: await listOutbox(app.db) }),
  );
}
