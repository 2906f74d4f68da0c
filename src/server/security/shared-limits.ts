/**
 * The rate-limit store shared by every server process (issue 17): with REDIS_URL set,
 * @fastify/rate-limit keeps its counters in Redis (its `redis` option, through ioredis), so a limit
 * of N per minute is N across all processes behind the load balancer, not N per process. That
 * covers every limit: the routes' `config.rateLimit` (sign-in per IP, client errors, tracking per
 * page view) and the limiters made with `app.createRateLimit` (tracking's per-IP budget,
 * delivery/public-policy.ts). Without REDIS_URL each process counts in its own memory.
 *
 * Redis going away does not take the site down: commands fail fast (no offline queue) and the
 * plugin lets requests through (`skipOnError`) until Redis answers again; one warning per outage.
 * The per-email sign-in throttle lives in the database and keeps working meanwhile.
 */
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

/** How long connecting to Redis may take at start-up and per reconnection attempt. */
export const REDIS_CONNECT_TIMEOUT_MS = 2000;

/**
 * Connects to Redis for the rate-limit store. The server starts even when Redis does not answer
 * yet (logged; limits are then not enforced until it does).
 * @param url REDIS_URL.
 * @returns the client; quit it when the app closes.
 */
export async function openRateLimitRedis(url: string, log: FastifyBaseLogger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ redis: err.message }, 'Redis unavailable: rate limits are not enforced until it answers again');
  });
  redis.on('ready', () => {
    if (down) log.info('Redis available again: rate limits enforced');
    down = false;
  });
  try {
    await redis.connect();
  } catch {
    /* logged by the 'error' listener; ioredis keeps reconnecting */
  }
  return redis;
}
