/**
 * The tracking state of one app, as plugins:
 * - `eventsPlugin`: the event writer, `app.events` (an EventIngestor, tracking/service.ts); it
 *   stores a stopped process's journal once the app is ready and flushes the buffered events when
 *   the app closes;
 * - `tagHealthPlugin`: the tag health counters, `app.tagHealth` (tag-health.ts): what became of
 *   each beacon of a known dealer, written in batches every TAG_HEALTH_FLUSH_MS and at close;
 * - `beaconIntakePlugin`: what a beacon goes through once read, `app.beaconIntake` (intake.ts),
 *   for the route and the beacon hot path alike.
 *
 * Shutdown order: Fastify runs onClose hooks in reverse registration order, so the plugins that
 * write events or read them (the schedulers, registered after this one) stop first, and the final
 * flush runs before `app.close()` returns; the caller closes the database only after that
 * (main.ts, test-app.ts).
 */
import path from 'node:path';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { CLOSE_RETRY_MS, EventIngestor, PGLITE_STATEMENT_EVENTS } from './service';
import { EventJournal } from './journal';
import { BeaconIntake } from './intake';
import { TAG_HEALTH_FLUSH_MS, TagHealthRecorder } from './tag-health';

declare module 'fastify' {
  interface FastifyInstance {
    /** The tracking event writer (tracking/service.ts). */
    events: EventIngestor;
    /** What a tracking beacon goes through once read (tracking/intake.ts). */
    beaconIntake: BeaconIntake;
    /** The tag health counters (tracking/tag-health.ts). */
    tagHealth: TagHealthRecorder;
  }
}

/**
 * Plugin `events`: decorates `app.events` from `app.db` and `app.config`. Events wait in the
 * buffer while the data disk is low: `app.storage` (db/disk-guard.ts) is read at each write, not
 * at registration, because the storage plugin is registered later (its hooks must follow the
 * access check). Batch write latency goes to `app.metrics`.
 */
export const eventsPlugin = fp(
  async (app: FastifyInstance) => {
    const { config } = app;
    const events = new EventIngestor(app.db, app.log, {
      durableCommits: !config.databaseUrl,
      statementEvents: config.databaseUrl ? Infinity : PGLITE_STATEMENT_EVENTS,
      canWrite: () => app.storage.writable,
      // PostgreSQL can be away while this process runs: acknowledged events then wait on disk (tracking/journal.ts).
      journal: config.databaseUrl ? new EventJournal(path.join(config.dataDir, 'event-journal'), app.log) : null,
      // Retrying the last events at shutdown must end inside SHUTDOWN_GRACE_MS (5 s left for the rest).
      closeRetryMs: Math.min(CLOSE_RETRY_MS, Math.max(1000, config.shutdownGraceMs - 5000)),
      maxUnsecuredMs: config.eventMaxUnsecuredMs || Infinity,
      observeBatch: (seconds, ok) => app.metrics.batchWriteSeconds.observe({ result: ok ? 'ok' : 'error' }, seconds),
    });
    app.decorate('events', events);
    app.addHook('onReady', async () => void (await events.recover())); // a stopped process's journal
    app.addHook('onClose', () => events.close());
  },
  { name: 'events', dependencies: ['metrics'] },
);

/**
 * Plugin `tag-health`: decorates `app.tagHealth` (counters of what became of beacons, read with
 * the app's clock `app.now`), writes them every TAG_HEALTH_FLUSH_MS and once more when the app
 * closes, before the caller closes the database.
 */
export const tagHealthPlugin = fp(
  async (app: FastifyInstance) => {
    const tagHealth = new TagHealthRecorder(app.db, app.log, () => app.now());
    app.decorate('tagHealth', tagHealth);
    tagHealth.start(TAG_HEALTH_FLUSH_MS);
    app.addHook('onClose', () => tagHealth.close());
  },
  { name: 'tag-health' },
);

/**
 * Plugin `beacon-intake`: decorates `app.beaconIntake`. Its per-IP and per-page-view limits are
 * made with `app.createRateLimit`, so they count in the rate-limit plugin's store (Redis with
 * REDIS_URL); accepted beacons go to `app.events`, and what became of each to `app.tagHealth`.
 */
export const beaconIntakePlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('beaconIntake', new BeaconIntake(app));
  },
  { name: 'beacon-intake', dependencies: ['events', 'tag-health', 'public-policy', 'rate-limits'] },
);
