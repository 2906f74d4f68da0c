/**
 * The inventory feed scheduler of one app as a plugin (inventory/feeds.ts FeedScheduler):
 * decorated as `app.feeds`, started at registration and stopped when the app closes (a running
 * fetch is aborted, its run recorded).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { FeedScheduler } from './feeds';

declare module 'fastify' {
  interface FastifyInstance {
    /** The inventory feed scheduler (inventory/feeds.ts). */
    feeds: FeedScheduler;
  }
}

/**
 * Plugin `feeds`: runs due feeds every FEED_SCHEDULER_INTERVAL_MS (0: never, tests tick it),
 * through the outbound guard's private-host policy and the feed timeout; each finished run counts
 * in `app.metrics` (dcb_feed_runs_total). Registered after `events`, so it stops before the event
 * writer's last flush.
 */
export const feedsPlugin = fp(
  async (app: FastifyInstance) => {
    const { config } = app;
    const countRun = (run: { status: string }) => app.metrics.feedRuns.inc({ result: run.status });
    const feeds = new FeedScheduler(app.db, { allowPrivateHosts: config.feedAllowPrivateHosts, timeoutMs: config.feedTimeoutMs }, app.log, countRun);
    app.decorate('feeds', feeds);
    feeds.start(config.feedSchedulerIntervalMs);
    app.addHook('onClose', () => feeds.stop());
  },
  { name: 'feeds', dependencies: ['metrics', 'events'] },
);
