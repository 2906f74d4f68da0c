/**
 * Prometheus metrics, with prom-client. Two registries:
 * - `processMetrics`: what belongs to the process, whatever app runs in it: Node's default metrics
 *   (event-loop lag, heap, GC, CPU) and the image jobs' processing time (one image queue per
 *   process, assets/image-queue.ts). These are module-level on purpose: the heap, the event loop
 *   and the libvips thread pool they measure exist once per process, however many apps run in it;
 * - one per app (`AppMetrics`, decorated as `app.metrics` by `metricsPlugin`): request durations
 *   per route, the delivery caches' hits and misses and the banner encodings (each app owns its
 *   caches, delivery/caches.ts), the event writer (buffer depth, batch write latency, events
 *   accepted, stored, refused and dead-lettered) and feed runs. Two apps in one process (tests
 *   build several) never count into each other's.
 * `AppMetrics.text()` is the Prometheus text of both. In a cluster worker (WORKERS > 1) it is the
 * sum over every worker, gathered by the primary (prom-client's AggregatorRegistry, see
 * src/server/cluster.ts), so a scrape through the shared port sees the whole server.
 */
import { randomUUID } from 'node:crypto';
import cluster from 'node:cluster';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { IngestorStats } from '../tracking/service';

/** The registry of process-wide metrics (see module doc: per process by nature). */
export const processMetrics = new Registry();

/** Counts one cache's lookups in AppMetrics.cacheLookups (label children bound once, for the hot paths). */
export interface CacheCounter {
  hit(): void;
  miss(): void;
}

/**
 * The in-process caches whose lookups are counted, by name in the code -> the `cache` label:
 * delivery settings, the model keys with assets, asset candidates, banner choices, encoded banner
 * bytes, built embed scripts.
 */
const CACHE_LABELS = { dealer: 'dealer', assetKeys: 'asset_keys', candidates: 'candidates', choice: 'choice', bytes: 'bytes', script: 'script' } as const;
/** A cache counted in dcb_cache_lookups_total (see CACHE_LABELS). */
export type CountedCache = keyof typeof CACHE_LABELS;

/** Time sharp (libvips) jobs take in the image queue, by kind (`upload` inspection or `delivery` resizing), queue wait excluded. */
export const imageJobSeconds = new Histogram({
  name: 'dcb_image_processing_seconds',
  help: 'Image processing time per sharp job, by kind (upload or delivery), without the queue wait',
  labelNames: ['kind'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [processMetrics],
});

/**
 * Whether Node's default metrics are collected. Per process by nature: collectDefaultMetrics
 * measures the process (and throws when its metrics are registered twice in one registry), so the
 * first app of a process starts it and the others share it.
 */
let defaultsCollected = false;

/** Starts Node's default metrics (event-loop lag, heap, GC, CPU) on processMetrics, once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: processMetrics, eventLoopMonitoringPrecision: 10 });
}

/** Route label of requests that matched no route (404s, the SPA's client-side paths). */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the per-app metrics read from the app when scraped. */
export interface AppMetricSources {
  /** The event writer's counters (EventIngestor.stats()). */
  events: () => IngestorStats;
  /** The event buffer's high-water mark (EventIngestor.highWater). */
  eventHighWater: () => number;
  /** Whether the dealer change listener listens (dealer-sites/listener.ts); absent = reported as 0. */
  dealerListenerConnected?: () => boolean;
}

/** A counter whose value is read from a source at scrape time (prom-client counters only count up, so it is reset and set). */
function readCounter<L extends string>(counter: Counter<L>, values: Array<[Partial<Record<L, string>>, number]>): void {
  counter.reset();
  for (const [labels, value] of values) counter.inc(labels, value);
}

/** The metrics of one app (see module doc); `app.metrics`. */
export class AppMetrics {
  readonly registry = new Registry();
  /** Request duration per method, route template and status code. */
  readonly requestSeconds: Histogram<'method' | 'route' | 'status_code'>;
  /** Event batch write latency, by result (`ok` or `error`). */
  readonly batchWriteSeconds: Histogram<'result'>;
  /** Inventory feed runs by result (`success`, `error`). */
  readonly feedRuns: Counter<'result'>;
  /**
   * Lookups in this app's caches, by cache and result (`hit` or `miss`): the hit ratio of a cache
   * is `rate(hit) / rate(hit + miss)`. Caches: `dealer` (delivery settings), `asset_keys`,
   * `candidates` (asset candidates), `choice` (banner choices), `bytes` (encoded banner bytes),
   * `script` (built embed scripts).
   */
  readonly cacheLookups: Counter<'cache' | 'result'>;
  /** cacheLookups' hit and miss counters per cache (see CACHE_LABELS). */
  readonly lookups: Record<CountedCache, CacheCounter>;
  /**
   * Banner encodings actually made by the delivery (bannerBytes in delivery/service.ts), by format:
   * `webp` or `orig` (an uploaded asset resized by sharp) and `svg` (a placeholder rendered). Requests
   * that arrive while the same encoding is running wait for it and count nothing, so after a restart
   * this grows by one per banner, format and size, whatever the concurrency.
   */
  readonly bannerEncodings: Counter<'format'>;
  /** Registries aggregated across cluster workers: this app's and the process's. */
  private readonly merged: Registry;

  constructor(private readonly sources: AppMetricSources) {
    collectProcessMetrics();
    const registers = [this.registry];
    this.requestSeconds = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.batchWriteSeconds = new Histogram({
      name: 'dcb_event_batch_write_seconds',
      help: 'Time to write one batch of tracking events and its rollups, by result (ok or error)',
      labelNames: ['result'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.feedRuns = new Counter({ name: 'dcb_feed_runs_total', help: 'Inventory feed runs by result (success or error)', labelNames: ['result'] as const, registers });
    this.cacheLookups = new Counter({
      name: 'dcb_cache_lookups_total',
      help: 'Lookups in the in-process delivery caches, by cache and result (hit or miss)',
      labelNames: ['cache', 'result'] as const,
      registers,
    });
    const counter = (cache: string): CacheCounter => {
      const hit = this.cacheLookups.labels({ cache, result: 'hit' });
      const miss = this.cacheLookups.labels({ cache, result: 'miss' });
      return { hit: () => hit.inc(), miss: () => miss.inc() };
    };
    this.lookups = Object.fromEntries(Object.entries(CACHE_LABELS).map(([name, label]) => [name, counter(label)])) as Record<CountedCache, CacheCounter>;
    this.bannerEncodings = new Counter({
      name: 'dcb_banner_encodings_total',
      help: 'Banner encodings made for delivery (resizes of uploaded assets, placeholder renders), by format',
      labelNames: ['format'] as const,
      registers,
    });
    const stats = () => this.sources.events();
    new Gauge({
      name: 'dcb_event_buffer_depth',
      help: 'Tracking events accepted and not yet stored (buffered or being written)',
      registers,
      collect() {
        this.set(stats().pending);
      },
    });
    const highWater = () => this.sources.eventHighWater();
    new Gauge({
      name: 'dcb_event_buffer_high_water_mark',
      help: 'Buffered events at which /readyz answers 503 (per process)',
      aggregator: 'max',
      registers,
      collect() {
        this.set(highWater());
      },
    });
    new Gauge({
      name: 'dcb_event_write_failures',
      help: 'Consecutive failed event batch writes (0 once a write succeeds)',
      aggregator: 'max',
      registers,
      collect() {
        this.set(stats().failures);
      },
    });
    new Counter({
      name: 'dcb_events_accepted_total',
      help: 'Tracking events accepted into the buffer (answered 204)',
      registers,
      collect() {
        readCounter(this, [[{}, stats().accepted]]);
      },
    });
    new Counter({
      name: 'dcb_events_stored_total',
      help: 'Tracking events written to the database',
      registers,
      collect() {
        readCounter(this, [[{}, stats().stored]]);
      },
    });
    new Counter({
      name: 'dcb_events_refused_total',
      help: 'Tracking events not stored, by reason: buffer_full and writer_behind (answered 503), duplicate_impression, click_refused, conversion_refused',
      labelNames: ['reason'] as const,
      registers,
      collect() {
        const s = stats();
        readCounter(this, [
          [{ reason: 'buffer_full' }, s.refusedFull],
          [{ reason: 'writer_behind' }, s.refusedBehind],
          [{ reason: 'duplicate_impression' }, s.impressionsIgnored],
          [{ reason: 'click_refused' }, s.clicksRefused],
          [{ reason: 'conversion_refused' }, s.conversionsRefused],
        ]);
      },
    });
    new Counter({
      name: 'dcb_events_dead_lettered_total',
      help: 'Tracking events the database refused, kept in event_dead_letters',
      registers,
      collect() {
        readCounter(this, [[{}, stats().deadLettered]]);
      },
    });
    const listening = this.sources.dealerListenerConnected;
    new Gauge({
      name: 'dcb_dealer_listener_connected',
      help: 'Whether this process hears of dealer changes (1: cached dealer settings are trusted for minutes) or not (0: re-read every second)',
      registers,
      collect() {
        this.set(listening?.() ? 1 : 0);
      },
    });
    this.merged = Registry.merge([processMetrics, this.registry]);
    if (cluster.isWorker) {
      // The primary asks each worker for its metrics (prom-client's IPC listener, set up by the
      // constructor). Per process by nature: a worker runs one app, whose registries it answers with.
      new AggregatorRegistry();
      AggregatorRegistry.setRegistries([this.merged]);
    }
  }

  /** The Prometheus text content type. */
  get contentType(): string {
    return this.merged.contentType;
  }

  /** Prometheus text of this process, or of every worker when it is a cluster worker (see module doc). */
  text(): Promise<string> {
    return cluster.isWorker ? clusterMetricsText() : this.merged.metrics();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Prometheus metrics of this app and process (observability/metrics.ts). */
    metrics: AppMetrics;
  }
}

/**
 * Decorates `app.metrics` (plugin `metrics`, registered first: the others record into it). The
 * gauges read the event writer (`app.events`) and the dealer change listener
 * (`app.dealerListener`) when scraped, so those may be registered after it.
 */
export const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate(
      'metrics',
      new AppMetrics({
        events: () => app.events.stats(),
        eventHighWater: () => app.events.highWater,
        dealerListenerConnected: () => app.dealerListener?.connected ?? false,
      }),
    );
  },
  { name: 'metrics' },
);

/** IPC message types between a worker and the primary for cluster-wide metrics (cluster.ts answers them). */
export const METRICS_IPC = { request: 'dcb:metrics-request', response: 'dcb:metrics-response' } as const;
/** How long a worker waits for the primary's aggregated metrics. */
const CLUSTER_METRICS_TIMEOUT_MS = 7000;

/**
 * Asks the cluster primary for the metrics of every worker (summed by prom-client's aggregators).
 * @throws Error when the primary does not answer within CLUSTER_METRICS_TIMEOUT_MS or reports an error.
 */
function clusterMetricsText(): Promise<string> {
  // A fresh id per request (no counter to share): the worker's IPC channel carries every app's requests.
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      const m = message as { type?: string; id?: string; text?: string; error?: string };
      if (m?.type !== METRICS_IPC.response || m.id !== id) return;
      done();
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve(m.text ?? '');
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('the cluster primary did not answer the metrics request'));
    }, CLUSTER_METRICS_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send?.({ type: METRICS_IPC.request, id });
  });
}
