/**
 * WORKERS=N: the primary process of a node:cluster server on PostgreSQL. It migrates and
 * seeds once (under the database's startup advisory lock, so separate deployments starting together
 * do not race either), forks N workers that each run the whole app on the shared PORT (connections
 * are spread round-robin), replaces a worker that dies, serves METRICS_PORT with the sum of every
 * worker's metrics, answers the workers' requests for those sums (a scrape of /metrics through
 * PORT), and on SIGTERM/SIGINT asks every worker to shut down gracefully and exits 0 once all did.
 *
 * Replacement: starting a worker (loading the modules, building the app) takes seconds, and tens
 * of seconds while the surviving workers keep the CPUs busy with load (35 s measured). So the
 * primary keeps one *standby* worker started and built but not listening; when a serving worker
 * dies the standby is told to listen (STANDBY_LISTEN_MESSAGE) and serves at once, reads back the
 * dead worker's event journal, and a new standby is forked after the restart delay. Without a
 * ready standby (it died too, or is still starting) a serving worker is forked as before. The
 * restart delay doubles while workers keep dying young (a crash loop), from RESTART_MIN_MS.
 *
 * What the workers share: the database (events, sessions, caches bounded by dealers.version, feed
 * and job claims), and with REDIS_URL the rate-limit counters. What each keeps: its event buffer
 * (flushed every 100 ms) and its caches.
 */
import cluster, { type Worker } from 'node:cluster';
import type http from 'node:http';
import closeWithGrace from 'close-with-grace';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config';
import { openDatabase } from './db/client';
import { seedCatalogue, seedDemoData } from './db/seed';
import { METRICS_IPC } from './observability/metrics';
import { metricsListener } from './observability/health';
import { warnOfBlockedPublicOrigin } from './scripts/blocklist-warning';

/** IPC message from the primary asking a worker to shut down gracefully (as SIGTERM would). */
export const SHUTDOWN_MESSAGE = 'dcb:shutdown';
/** IPC message from a standby worker: its app is built, it can listen at once. */
export const STANDBY_READY_MESSAGE = 'dcb:standby-ready';
/** IPC message from the primary telling the standby worker to listen (a serving worker died). */
export const STANDBY_LISTEN_MESSAGE = 'dcb:standby-listen';
/** Environment variable the primary sets to 'standby' for the standby worker. */
export const WORKER_ROLE_ENV = 'DCB_WORKER_ROLE';

/** Delay before a dead worker is replaced; doubles while workers keep dying young, up to RESTART_MAX_MS. */
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A worker that ran at least this long resets the restart delay. */
const HEALTHY_RUN_MS = 10_000;

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

/** The primary's logger: JSON lines in pino's format (level, time, pid, msg), at LOG_LEVEL. */
export interface PrimaryLog {
  log(level: Level, obj: object, msg: string): void;
}

/** A PrimaryLog writing to stdout at `level`. */
export function primaryLogger(level: string): PrimaryLog {
  const min = LEVELS[level as keyof typeof LEVELS] ?? LEVELS.info;
  return {
    log(l, obj, msg) {
      if (LEVELS[l] < min) return;
      process.stdout.write(`${JSON.stringify({ level: LEVELS[l], time: Date.now(), pid: process.pid, role: 'primary', ...obj, msg })}\n`);
    },
  };
}

/**
 * Migrates and seeds (once, under the startup lock), then runs the cluster (see module doc).
 * Resolves once the workers are forked; the process then lives until a signal or a fatal error.
 * @throws when the database cannot be reached or migrated (main.ts reports it and exits 1).
 */
export async function runPrimary(config: Config): Promise<void> {
  const log = primaryLogger(config.logLevel);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, schemaName: config.databaseSchema });
  let seeded: boolean;
  try {
    seeded = await database.withStartupLock(async () => {
      await database.migrate();
      return config.seedDemo ? seedDemoData(database.db) : (await seedCatalogue(database.db), false);
    });
  } finally {
    await database.close();
  }
  log.log('info', { driver: 'postgres', seeded, workers: config.workers }, 'database ready; starting workers');
  warnOfBlockedPublicOrigin(config.publicOrigin, (obj, msg) => log.log('warn', obj, msg)); // once here, not per worker

  const aggregator = new AggregatorRegistry();
  const clusterMetrics = () => aggregator.clusterMetrics();
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type === STANDBY_READY_MESSAGE && worker === standby) {
      standbyReady = true;
      up.add(worker);
      return;
    }
    if (message?.type !== METRICS_IPC.request) return;
    clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: METRICS_IPC.response, id: message.id, text }),
      (err: Error) => worker.isConnected() && worker.send({ type: METRICS_IPC.response, id: message.id, error: err.message }),
    );
  });

  let stopping = false;
  let everListening = false;
  let restartDelay = RESTART_MIN_MS;
  const startedAt = new Map<Worker, number>();
  /** Workers whose app is built (listening, or a ready standby): they take the shutdown message. */
  const up = new Set<Worker>();
  const fork = () => startedAt.set(cluster.fork(), Date.now());
  /** The standby worker (see module doc), and whether its app is built. */
  let standby: Worker | null = null;
  let standbyReady = false;
  const forkStandby = () => {
    standby = cluster.fork({ [WORKER_ROLE_ENV]: 'standby' });
    standbyReady = false;
    startedAt.set(standby, Date.now());
  };

  cluster.on('listening', (worker, address) => {
    everListening = true;
    up.add(worker);
    log.log('info', { worker: worker.id, workerPid: worker.process.pid, port: address.port }, 'worker listening');
  });
  cluster.on('exit', (worker, code, signal) => {
    const ranMs = Date.now() - (startedAt.get(worker) ?? Date.now());
    startedAt.delete(worker);
    if (stopping) return;
    if (!everListening) {
      // Every worker fails before serving (port in use, bad configuration): restarting cannot help.
      log.log('fatal', { worker: worker.id, code, signal }, 'worker exited before any worker listened; stopping');
      void grace.close();
      return;
    }
    restartDelay = ranMs >= HEALTHY_RUN_MS ? RESTART_MIN_MS : Math.min(restartDelay * 2, RESTART_MAX_MS);
    const later = (start: () => void) => setTimeout(() => !stopping && start(), restartDelay).unref();
    if (worker === standby) {
      standby = null;
      log.log('error', { worker: worker.id, workerPid: worker.process.pid, code, signal, restartInMs: restartDelay }, 'standby worker exited; replacing it');
      later(forkStandby);
      return;
    }
    const taking = standbyReady && standby?.isConnected() ? standby : null;
    log.log(
      'error',
      { worker: worker.id, workerPid: worker.process.pid, code, signal, ...(taking ? { standby: taking.id } : { restartInMs: restartDelay }) },
      'worker exited; replacing it',
    );
    if (taking) {
      taking.send({ type: STANDBY_LISTEN_MESSAGE });
      standby = null;
      standbyReady = false;
      later(forkStandby);
    } else later(fork);
  });

  let metricsServer: http.Server | null = null;
  /** Workers asked to stop that have not exited yet (for the timeout's log line). */
  const stillRunning = new Set<Worker>();
  const grace = closeWithGrace(
    {
      // The workers' own grace period, plus the time to see them exit.
      delay: config.shutdownGraceMs + 5000,
      logger: { error: (m: unknown) => log.log('error', {}, String(m)) },
      // Names the workers that never exited, so a hung shutdown can be traced to one process.
      onTimeout: (delay: number) => {
        const left = [...stillRunning].map((w) => ({ worker: w.id, workerPid: w.process.pid, built: up.has(w), connected: w.isConnected() }));
        log.log('error', { delayMs: delay, workersLeft: left }, `killed by timeout (${delay}ms)`);
      },
    },
    async ({ signal, err }) => {
      stopping = true;
      if (err) log.log('fatal', { err: { message: err.message, stack: err.stack } }, 'primary failed; stopping workers');
      else log.log('info', { signal }, 'shutting down workers');
      metricsServer?.close();
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      for (const w of workers) {
        stillRunning.add(w);
        w.once('exit', () => stillRunning.delete(w));
      }
      const codes = await Promise.all(
        workers.map(
          (w) =>
            new Promise<number | null>((resolve) => {
              if (w.isDead()) return resolve(up.has(w) ? w.process.exitCode : 0);
              if (!up.has(w)) {
                // Still loading (a replacement or standby forked moments ago): nothing to drain.
                w.once('exit', () => resolve(0));
                return void w.process.kill('SIGKILL');
              }
              w.once('exit', (code) => resolve(code));
              if (w.isConnected()) w.send({ type: SHUTDOWN_MESSAGE });
              else w.process.kill('SIGTERM');
            }),
        ),
      );
      const failed = codes.filter((c) => c !== 0);
      if (failed.length > 0) throw new Error(`${failed.length} worker(s) did not shut down cleanly (exit codes ${failed.join(', ')})`);
      log.log('info', {}, 'all workers stopped');
    },
  );

  for (let i = 0; i < config.workers; i++) fork();
  forkStandby();
  if (config.metricsPort !== undefined) {
    metricsServer = await metricsListener({
      host: config.metricsHost,
      port: config.metricsPort,
      token: config.metricsToken,
      text: clusterMetrics,
      contentType: aggregator.contentType,
    });
    log.log('info', { host: config.metricsHost, port: config.metricsPort }, 'metrics listening');
  }
}
