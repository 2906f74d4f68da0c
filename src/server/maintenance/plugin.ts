/**
 * The maintenance schedulers of one app as a plugin: retention pruning and event partitions
 * (maintenance/retention.ts MaintenanceScheduler, `app.maintenance`) and the purge of deleted
 * dealers' traffic rows (maintenance/dealer-purge.ts, `app.dealerPurge`); started at registration
 * and stopped when the app closes (a running pass stops between batches).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { MaintenanceScheduler } from './retention';
import { DealerPurgeScheduler } from './dealer-purge';

declare module 'fastify' {
  interface FastifyInstance {
    /** The retention and partition maintenance scheduler (maintenance/retention.ts). */
    maintenance: MaintenanceScheduler;
    /** The deleted-dealer purge scheduler (maintenance/dealer-purge.ts). */
    dealerPurge: DealerPurgeScheduler;
  }
}

/**
 * Plugin `maintenance`: tries the retention job and the deleted-dealer purge every
 * FEED_SCHEDULER_INTERVAL_MS (0: never, tests tick them) with EVENT_RETENTION_DAYS. Registered after `events`, so a pass that deletes events
 * has stopped before the event writer's last flush.
 */
export const maintenancePlugin = fp(
  async (app: FastifyInstance) => {
    const maintenance = new MaintenanceScheduler(app.db, app.config.eventRetentionDays, app.log);
    app.decorate('maintenance', maintenance);
    maintenance.start(app.config.feedSchedulerIntervalMs);
    const purge = new DealerPurgeScheduler(app.db, app.log);
    app.decorate('dealerPurge', purge);
    purge.start(app.config.feedSchedulerIntervalMs);
    app.addHook('onClose', () => Promise.all([maintenance.stop(), purge.stop()]).then(() => undefined));
  },
  { name: 'maintenance', dependencies: ['events'] },
);
