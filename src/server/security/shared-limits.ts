/**
 * The rate-limit store shared by every server process: with REDIS_URL set, @fastify/rate-limit
 * keeps its counters in Redis (through ioredis), so a limit of N per minute is N across all
 * processes behind the load balancer, not N per process. That covers every limit: the routes'
 * `config.rateLimit` (sign-in per IP, client errors, tracking per page view) and the limiters made
 * with `app.createRateLimit` (tracking's per-IP budget, delivery/public-policy.ts). Without
 * REDIS_URL each process counts in its own memory.
 *
 * Redis that goes away or stops answering does not take the site down, nor slow it: every command
 * has a deadline (REDIS_COMMAND_TIMEOUT_MS; no offline queue, no retries), and a command that
 * fails or misses it sends that check, and every check after it, to the per-process in-memory
 * counters (the plugin's own LocalStore) until a background PING answers again within the
 * deadline; then the limits count in Redis again, without a restart. One warning per outage. The
 * per-email sign-in throttle lives in the database and is not affected.
 */
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import fp from 'fastify-plugin';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';

/** How long connecting to Redis may take at start-up and per reconnection attempt. */
export const REDIS_CONNECT_TIMEOUT_MS = 2000;
/** While Redis is held unavailable, how often it is asked (PING) whether it answers again. */
export const REDIS_PROBE_INTERVAL_MS = 1000;
/** A connection that has commands waiting and receives nothing for this long is dropped and opened again. */
const REDIS_SOCKET_TIMEOUT_MS = 3000;

/**
 * Connects to Redis for the rate-limit store. The server starts even when Redis does not answer
 * yet (logged; limits are then counted in memory until it does).
 * @param url REDIS_URL.
 * @param commandTimeoutMs REDIS_COMMAND_TIMEOUT_MS (config.ts, where its default lives): each command's deadline, ms.
 * @returns the client; quit it when the app closes.
 */
export async function openRateLimitRedis(url: string, log: FastifyBaseLogger, commandTimeoutMs: number): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: commandTimeoutMs,
    socketTimeout: REDIS_SOCKET_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Errors are reported once per outage by the store's RedisHealth; this listener keeps ioredis
  // from reporting unhandled 'error' events.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (err) {
    log.warn({ redis: (err as Error).message }, 'Redis unavailable at start: rate limits count in memory per process until it answers');
  }
  return redis;
}

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
/** The stores of @fastify/rate-limit (store/RedisStore.js, store/LocalStore.js): incr, read and child. */
interface PluginStore extends FastifyRateLimitStore {
  read(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): PluginStore;
}
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key: string) => PluginStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => PluginStore;

/**
 * Whether the limits may ask Redis now: the connection is ready and no command has failed since
 * the last PING that answered in time. `failed` starts a PING every REDIS_PROBE_INTERVAL_MS
 * until one answers (the timer does not keep the process alive; `stop` ends it).
 */
class RedisHealth {
  private down = false;
  private probe: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly log: FastifyBaseLogger,
  ) {}

  usable(): boolean {
    if (this.down) return false;
    if (this.redis.status === 'ready') return true;
    this.failed(new Error(`Redis connection ${this.redis.status}`));
    return false;
  }

  failed(err: Error): void {
    if (this.down) return;
    this.down = true;
    this.log.warn({ redis: err.message }, 'Redis unavailable: rate limits count in memory per process until it answers again');
    this.probe = setInterval(() => {
      this.redis.ping().then(
        () => {
          if (!this.down) return;
          this.down = false;
          this.stop();
          this.log.info('Redis available again: rate limits count in Redis');
        },
        () => undefined,
      );
    }, REDIS_PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  stop(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }
}

/** One limit's store: Redis while RedisHealth says so, else (and for a check whose command fails) the in-memory one. */
class FallbackStore implements PluginStore {
  constructor(
    private readonly shared: PluginStore,
    private readonly local: PluginStore,
    private readonly health: RedisHealth,
  ) {}

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.run('incr', key, callback, timeWindow, max);
  }

  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.run('read', key, callback, timeWindow, max);
  }

  child(routeOptions: unknown): PluginStore {
    return new FallbackStore(this.shared.child(routeOptions), this.local.child(routeOptions), this.health);
  }

  private run(method: 'incr' | 'read', key: string, callback: Callback, timeWindow: number, max: number): void {
    if (!this.health.usable()) return this.local[method](key, callback, timeWindow, max);
    this.shared[method](
      key,
      (err, result) => {
        if (!err) return callback(null, result);
        this.health.failed(err);
        this.local[method](key, callback, timeWindow, max);
      },
      timeWindow,
      max,
    );
  }
}

/**
 * The `store` option of @fastify/rate-limit for a Redis client from openRateLimitRedis: counters
 * under `nameSpace` in Redis, in memory while Redis does not answer (module doc).
 * @returns the store class, and `stop` to call when the app closes (ends the PING timer).
 */
export function fallbackRateLimitStore(redis: Redis, nameSpace: string, log: FastifyBaseLogger) {
  const health = new RedisHealth(redis, log);
  const store = class extends FallbackStore {
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean; cache?: number }) {
      const continueExceeding = params.continueExceeding ?? false;
      const exponentialBackoff = params.exponentialBackoff ?? false;
      super(new RedisStore(continueExceeding, exponentialBackoff, redis, nameSpace), new LocalStore(continueExceeding, exponentialBackoff, params.cache), health);
    }
  };
  return { store, stop: () => health.stop() };
}

/** rateLimitsPlugin's options. */
export interface RateLimitsOptions {
  /** REDIS_URL: limits count in Redis across processes; absent = in this process's memory. */
  redisUrl?: string;
  /** REDIS_KEY_PREFIX: the counters live under `<prefix>rate-limit:`. */
  keyPrefix: string;
  /** REDIS_COMMAND_TIMEOUT_MS, ms. */
  commandTimeoutMs: number;
}

/**
 * Plugin `rate-limits`: registers @fastify/rate-limit (no global limit; checks in preHandler, so
 * per-dealer limits can read the dealer id from a parsed tracking body) with the shared store
 * when REDIS_URL is set (module doc), and on close stops the store's probe and quits Redis.
 * `app.createRateLimit` and the routes' `config.rateLimit` then count there.
 */
export const rateLimitsPlugin = fp(
  async (app: FastifyInstance, opts: RateLimitsOptions) => {
    const redis = opts.redisUrl ? await openRateLimitRedis(opts.redisUrl, app.log, opts.commandTimeoutMs) : null;
    const shared = redis ? fallbackRateLimitStore(redis, `${opts.keyPrefix}rate-limit:`, app.log) : null;
    if (redis) {
      app.addHook('onClose', async () => {
        shared?.stop();
        await redis.quit().catch(() => redis.disconnect());
      });
    }
    await app.register(rateLimit, { global: false, hook: 'preHandler', ...(shared ? { store: shared.store } : {}) });
  },
  { name: 'rate-limits' },
);
