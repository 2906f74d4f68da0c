/**
 * The maintenance scheduler of one app as a plugin (maintenance/retention.ts
 * MaintenanceScheduler: retention pruning and event partitions): decorated as `app.maintenance`,
 * started at registration and stopped when the app closes (a running pass stops between batches).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { MaintenanceScheduler } from './retention';

declare module 'fastify' {
  interface FastifyInstance {
    /** The retention and partition maintenance scheduler (maintenance/retention.ts). */
    maintenance: MaintenanceScheduler;
  }
}

/**
 * Plugin `maintenance`: tries the retention job every FEED_SCHEDULER_INTERVAL_MS (0: never, tests
 * tick it) with EVENT_RETENTION_DAYS. Registered after `events`, so a pass that deletes events
 * has stopped before the event writer's last flush.
 */
export const maintenancePlugin = fp(
  async (app: FastifyInstance) => {
    const maintenance = new MaintenanceScheduler(app.db, app.config.eventRetentionDays, app.log);
    app.decorate('maintenance', maintenance);
    maintenance.start(app.config.feedSchedulerIntervalMs);
    app.addHook('onClose', () => maintenance.stop());
  },
  { name: 'maintenance', dependencies: ['events'] },
);
