/**
 * The dealer notification e-mails of one app as a plugin (notifications/service.ts
 * NotificationScheduler with its Mailer): decorated as `app.notifications`, started at
 * registration and stopped when the app closes (the running pass stops, the mail transport closes).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Mailer, NotificationScheduler } from './service';

declare module 'fastify' {
  interface FastifyInstance {
    /** Dealer notification e-mails (notifications/service.ts). */
    notifications: NotificationScheduler;
  }
}

/**
 * Plugin `notifications`: a pass every NOTIFICATION_INTERVAL_MS (0: never, tests tick it), sending
 * through SMTP_URL as MAIL_FROM (no SMTP_URL: messages are kept in the outbox only). Registered
 * after `events`, so it stops before the event writer's last flush.
 */
export const notificationsPlugin = fp(
  async (app: FastifyInstance) => {
    const { config } = app;
    const notifications = new NotificationScheduler(app.db, new Mailer(config.smtpUrl, config.mailFrom), config.notificationIntervalMs, app.log);
    app.decorate('notifications', notifications);
    notifications.start(config.notificationIntervalMs);
    app.addHook('onClose', () => notifications.stop());
  },
  { name: 'notifications', dependencies: ['events'] },
);
