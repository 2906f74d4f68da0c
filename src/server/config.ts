/**
 * Server configuration: every environment variable the server reads, parsed once with zod.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | PORT | 3000 | HTTP port |
 * | HOST | 0.0.0.0 | listen address (a name is bound at its first address only: the server is made by serverFactory, app.ts) |
 * | DATABASE_URL | (unset) | PostgreSQL connection string; unset = embedded PGlite in DATA_DIR |
 * | DATABASE_SCHEMA | (unset) | with DATABASE_URL: the PostgreSQL schema to use (created if missing); unset = the server's default search_path |
 * | DATA_DIR | ./data | where PGlite keeps its files; one server process at a time (a lock file, `dc-banners.lock`); with DATABASE_URL, the event journal (`event-journal/`: acknowledged beacons waiting out a database outage) |
 * | DATA_MIN_FREE_MB | 64 | PGlite only: while DATA_DIR's disk has less free space than this, changes answer 507 and reads keep working; 0 = only after a write failed for lack of space |
 * | PUBLIC_ORIGIN | http://localhost:PORT | the origin dealer sites load our script and images from |
 * | SESSION_SECRET | dev-only value | signs the session cookie; required (>= 32 chars) when NODE_ENV=production |
 * | SESSION_TTL_HOURS | 168 | session lifetime |
 * | SEED_DEMO | true; false when NODE_ENV=production | seed the catalogue, a demo dealer and the three demo accounts into an empty database (never by default in production, where the sign-in screen would publish admin@dc-banners.com / admin123) |
 * | TRUST_PROXY | false | which X-Forwarded-For/-Proto/-Host headers to believe: unset/`false` = none (request.ip is the socket's peer); a hop count such as `1` (one reverse proxy in front); or a comma-separated list of the proxies' IPs/CIDRs (e.g. `10.0.0.5,10.1.0.0/16`, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`). `true` is refused: it believes every hop, so any client picks its own IP and protocol and bypasses the sign-in limits, per-IP dealer limits and requireHttps |
 * | LOG_LEVEL | info | pino level (silent in tests) |
 * | WEB_DIST_DIR | ./dist/web | the built web app |
 * | EMBED_DIST_FILE | ./dist/embed/dc-banners.js | the built embed script |
 * | FEED_ALLOW_PRIVATE_HOSTS | false | every server-side fetch (inventory feeds, CDN auto-discovery probes; outbound/guard.ts) may reach private, loopback or link-local addresses, and dealer settings and imports accept such base and fallback URLs: `true`, or a comma-separated list of CIDRs (e.g. `127.0.0.1/32`) |
 * | FEED_TIMEOUT_MS | 15000 | deadline of one inventory feed fetch (Test Feed and scheduled runs), whole exchange; the timeout error names it (DECISIONS 20: 15 seconds) |
 * | FEED_SCHEDULER_INTERVAL_MS | 30000 | how often the feed scheduler looks for due feeds (and the maintenance scheduler for its hourly retention job); 0 turns both off |
 * | EVENT_RETENTION_DAYS | 90 | raw tracking events (and event dead letters) older than this many days are pruned; the daily rollups are kept (hourly ones for 92 days, domain/retention.ts) |
 * | EVENT_MAX_UNSECURED_MS | 250 | crash-loss bound: while the oldest acknowledged event neither written nor journaled is older than this, beacons answer 503 with Retry-After (tracking/service.ts); 0 = off (bounded by count only) |
 * | WORKERS | 1 | server processes (node:cluster) sharing PORT; more than 1 needs DATABASE_URL (PGlite's DATA_DIR belongs to one process) |
 * | REDIS_URL | (unset) | Redis for the rate-limit counters shared by every process (`redis://host:6379/0`); unset = counters in each process's memory, as while Redis does not answer within 400 ms |
 * | REDIS_KEY_PREFIX | dc-banners: | prefix of the rate-limit keys in Redis (one per deployment sharing a Redis) |
 * | REDIS_COMMAND_TIMEOUT_MS | 400 | a rate-limit command's deadline; past it the limits count in memory until Redis answers a probe |
 * | METRICS_TOKEN | (unset) | serves GET /metrics on PORT to `Authorization: Bearer <token>` (16+ chars); unset = /metrics is not on PORT |
 * | METRICS_PORT | (unset) | serves GET /metrics (no token unless METRICS_TOKEN is set) on its own port, for an internal network |
 * | METRICS_HOST | 127.0.0.1 | the address METRICS_PORT listens on |
 * | MAX_EVENT_LOOP_DELAY_MS | 1000 | above this mean event-loop delay (per second) requests answer 503 with Retry-After, /readyz too (load shedding; /healthz, /metrics and the web app's own files still answer); 0 = off |
 * | LOG_PUBLIC_SAMPLE_RATE | 0 | share (0..1) of the public beacon, banner image and embed script requests written to the request log (their 5xx always are); other requests log one line each |
 * | SHUTDOWN_GRACE_MS | 15000 | on SIGTERM/SIGINT: the time to stop accepting, abort feed fetches, flush events and close the database before the process exits 1 anyway |
 * | SMTP_URL | (unset) | where dealer notification e-mails go, e.g. `smtps://user:pass@mail.example.com:465` or `smtp://127.0.0.1:2525`; unset = every message is kept in the admin's Outbox only |
 * | MAIL_FROM | dc-banners <notifications@localhost> | the From of notification e-mails |
 * | NOTIFICATION_INTERVAL_MS | 300000 | how often the notification job looks for due alerts and weekly reports (each dealer once per interval across processes, which share the pass by shard leases); 0 = off |
 * | BANNER_WARM_UP | 200 | at start-up, the most banners of the hottest slots (last day's impressions, then live uploads) encoded before their first request (delivery/warm-up.ts); 0 = off |
 * | BANNER_WARM_UP_WAIT_MS | 2000 | the longest the start-up waits for that warm-up before listening; the rest runs in the background |
 * | DELIVERY_MAX_STALE_MS | 86400000 (24 h) | while the database is unreachable, banners, the embed script and beacons keep being served from a dealer's last good settings for at most this long after they were last read (stale-if-error, delivery/caches.ts); older, they answer 503 |
 * | TEST_CLOCK_FILE | (unset) | tests only, refused when NODE_ENV=production: a file holding an ISO instant that the app's clock (app.now: promotion windows, reporting periods) reads instead of the real time (test-clock.ts; the e2e tests) |
 */
import path from 'node:path';
import { z } from 'zod';
import ipaddr from 'ipaddr.js';
import { NOTIFICATION_INTERVAL_MS } from '../domain/notifications';
import { DELIVERY_MAX_STALE_MS, FEED_TIMEOUT_MS, MAX_UNSECURED_MS } from '../domain/constants';

function isCidr(v: string): boolean {
  try {
    ipaddr.parseCIDR(v);
    return true;
  } catch {
    return false;
  }
}

/** proxy-addr's (Fastify's trustProxy) names for address ranges, accepted in TRUST_PROXY lists. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** A plain IPv6 address or a four-part decimal IPv4 address (not ipaddr.js's looser 0x7f.1 forms). */
function isProxyAddress(v: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(v) || ipaddr.IPv6.isValid(v);
}

/**
 * Parses TRUST_PROXY (see the table above) into Fastify's `trustProxy` option.
 * @returns false (trust no proxy), a hop count >= 1, or the trusted proxy addresses/CIDRs.
 * Adds a zod issue (so loadConfig throws) for `true`, a negative or fractional count, or an entry
 * that is neither an IP, a CIDR nor a proxy-addr range name.
 */
function parseTrustProxy(v: string, ctx: z.RefinementCtx): false | number | string[] {
  const value = v.trim();
  if (/^(false|no|0|)$/i.test(value)) return false;
  if (/^(true|yes)$/i.test(value)) {
    ctx.addIssue({
      code: 'custom',
      message:
        'true is refused: it believes X-Forwarded-For/-Proto from any client, who can then pick its own IP and protocol; give the number of proxies in front (e.g. 1) or their addresses/CIDRs',
    });
    return false;
  }
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((c) => (PROXY_RANGE_NAMES.has(c.trim().toLowerCase()) ? c.trim().toLowerCase() : c.trim()))
    .filter(Boolean);
  const bad = entries.find((c) => !PROXY_RANGE_NAMES.has(c) && !isProxyAddress(c) && !isCidr(c));
  if (bad || entries.length === 0) {
    ctx.addIssue({ code: 'custom', message: `"${bad ?? value}" is not false, a hop count, an IP address or a CIDR such as 10.0.0.0/8` });
  }
  return entries;
}

const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * An optional URL of `scheme` or its TLS form (`scheme` 'redis': redis:// or rediss://); any other
 * is refused with a message naming both ('must be a redis:// or rediss:// URL', `article` 'a').
 */
const optionalUrlOfScheme = (scheme: string, article: 'a' | 'an') =>
  z
    .string()
    .url()
    .refine((v) => [`${scheme}:`, `${scheme}s:`].includes(new URL(v).protocol), `must be ${article} ${scheme}:// or ${scheme}s:// URL`)
    .optional();

const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lowercase SQL identifier')
    .optional(),
  DATA_DIR: z.string().default('./data'),
  DATA_MIN_FREE_MB: z.coerce.number().min(0).default(64),
  PUBLIC_ORIGIN: z.string().url().optional(),
  SESSION_SECRET: z.string().min(16).default('dc-banners-development-secret-change-me'),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(168),
  SEED_DEMO: booleanString.optional(),
  TRUST_PROXY: z.string().default('false').transform(parseTrustProxy),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST_DIR: z.string().default('./dist/web'),
  EMBED_DIST_FILE: z.string().default('./dist/embed/dc-banners.js'),
  FEED_ALLOW_PRIVATE_HOSTS: z
    .string()
    .default('false')
    .transform((v, ctx): boolean | string[] => {
      if (/^(true|1|yes)$/i.test(v)) return true;
      if (/^(false|0|no|)$/i.test(v)) return false;
      const cidrs = v.split(',').map((c) => c.trim()).filter(Boolean);
      const bad = cidrs.find((c) => !isCidr(c));
      if (bad) ctx.addIssue({ code: 'custom', message: `"${bad}" is not true, false or a CIDR such as 127.0.0.1/32` });
      return cidrs;
    }),
  FEED_TIMEOUT_MS: z.coerce.number().int().min(1).default(FEED_TIMEOUT_MS),
  FEED_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).default(90),
  EVENT_MAX_UNSECURED_MS: z.coerce.number().int().min(0).default(MAX_UNSECURED_MS),
  WORKERS: z.coerce.number().int().min(1).max(256).default(1),
  REDIS_URL: optionalUrlOfScheme('redis', 'a'),
  REDIS_KEY_PREFIX: z.string().min(1).max(100).default('dc-banners:'),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(400),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(1000),
  LOG_PUBLIC_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(0),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(1000).default(15_000),
  SMTP_URL: optionalUrlOfScheme('smtp', 'an'),
  MAIL_FROM: z.string().min(3).max(200).default('dc-banners <notifications@localhost>'),
  NOTIFICATION_INTERVAL_MS: z.coerce.number().int().min(0).default(NOTIFICATION_INTERVAL_MS),
  DELIVERY_MAX_STALE_MS: z.coerce.number().int().min(0).default(DELIVERY_MAX_STALE_MS),
  BANNER_WARM_UP: z.coerce.number().int().min(0).max(100_000).default(200),
  BANNER_WARM_UP_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  TEST_CLOCK_FILE: z.string().min(1).optional(),
});

export interface Config {
  env: string;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  dataDir: string;
  /** Free space (MiB) DATA_DIR keeps; below it changes are refused (db/disk-guard.ts). */
  dataMinFreeMb: number;
  publicOrigin: string;
  sessionSecret: string;
  sessionTtlMs: number;
  /** SEED_DEMO; defaults to false when NODE_ENV=production. */
  seedDemo: boolean;
  /** Fastify's trustProxy (TRUST_PROXY): false, a hop count, or trusted proxy IPs/CIDRs. */
  trustProxy: false | number | string[];
  logLevel: string;
  webDistDir: string;
  embedDistFile: string;
  /** true, false, or the private CIDRs feeds may reach. */
  feedAllowPrivateHosts: boolean | string[];
  /** Deadline of one feed fetch, ms (FEED_TIMEOUT_MS; DECISIONS 20: 15 s). */
  feedTimeoutMs: number;
  feedSchedulerIntervalMs: number;
  /** Days raw events are kept. */
  eventRetentionDays: number;
  /** Server processes; > 1 only with databaseUrl. */
  workers: number;
  /** Redis for the shared rate-limit store; undefined = in-memory per process. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** REDIS_COMMAND_TIMEOUT_MS: a rate-limit command's deadline, ms. */
  redisCommandTimeoutMs: number;
  /** Bearer token that opens GET /metrics on the main port; undefined = not served there. */
  metricsToken: string | undefined;
  /** Port of the internal metrics listener; undefined = none. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** Load shedding bound (ms of mean event-loop delay); 0 = off. */
  maxEventLoopDelayMs: number;
  /** EVENT_MAX_UNSECURED_MS: the crash-loss bound of acknowledged events, ms; 0 = off. */
  eventMaxUnsecuredMs: number;
  /** Share of the public delivery requests (beacons, banner images, scripts) that get a request log line. */
  logPublicSampleRate: number;
  /** How long a graceful shutdown may take before the process exits 1. */
  shutdownGraceMs: number;
  /** SMTP server of the notification e-mails; undefined = Outbox only. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** How often the notification job runs; 0 = off. */
  notificationIntervalMs: number;
  /** Longest a dealer's cached delivery settings serve while their refresh fails, ms (DELIVERY_MAX_STALE_MS). */
  deliveryMaxStaleMs: number;
  /** BANNER_WARM_UP: the most banners encoded at start-up (delivery/warm-up.ts); 0 = off. */
  bannerWarmUp: number;
  /** BANNER_WARM_UP_WAIT_MS: the longest start-up waits for the warm-up, ms. */
  bannerWarmUpWaitMs: number;
  /** TEST_CLOCK_FILE: the file app.now reads (e2e tests only; never in production). */
  testClockFile: string | undefined;
}

/**
 * The Fastify `trustProxy` option for Config.trustProxy. Fastify's types have no hop
 * count, so a count n becomes proxy-addr's own rule for it: the n nearest hops are trusted.
 */
export function fastifyTrustProxy(trustProxy: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== 'number') return trustProxy;
  return (_address, hop) => hop < trustProxy;
}

/**
 * Parses the environment into a Config.
 * @throws Error naming every invalid variable, e.g. "Invalid configuration: PORT: ...".
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${detail}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && (!env.SESSION_SECRET || e.SESSION_SECRET.length < 32)) {
    throw new Error('Invalid configuration: SESSION_SECRET must be set to at least 32 characters in production');
  }
  if (e.NODE_ENV === 'production' && e.TEST_CLOCK_FILE) {
    throw new Error('Invalid configuration: TEST_CLOCK_FILE is a test hook that moves the server clock; it is refused when NODE_ENV=production');
  }
  if (e.WORKERS > 1 && !e.DATABASE_URL) {
    throw new Error(
      `Invalid configuration: WORKERS=${e.WORKERS} needs PostgreSQL (DATABASE_URL): the embedded PGlite database in DATA_DIR belongs to one process; set DATABASE_URL or WORKERS=1`,
    );
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseSchema: e.DATABASE_SCHEMA,
    dataDir: path.resolve(e.DATA_DIR),
    dataMinFreeMb: e.DATA_MIN_FREE_MB,
    publicOrigin: (e.PUBLIC_ORIGIN ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    sessionSecret: e.SESSION_SECRET,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600_000,
    seedDemo: e.SEED_DEMO ?? e.NODE_ENV !== 'production',
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    webDistDir: path.resolve(e.WEB_DIST_DIR),
    embedDistFile: path.resolve(e.EMBED_DIST_FILE),
    feedAllowPrivateHosts: e.FEED_ALLOW_PRIVATE_HOSTS,
    feedTimeoutMs: e.FEED_TIMEOUT_MS,
    feedSchedulerIntervalMs: e.FEED_SCHEDULER_INTERVAL_MS,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    eventMaxUnsecuredMs: e.EVENT_MAX_UNSECURED_MS,
    workers: e.WORKERS,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    metricsToken: e.METRICS_TOKEN,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    maxEventLoopDelayMs: e.MAX_EVENT_LOOP_DELAY_MS,
    logPublicSampleRate: e.LOG_PUBLIC_SAMPLE_RATE,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    notificationIntervalMs: e.NOTIFICATION_INTERVAL_MS,
    deliveryMaxStaleMs: e.DELIVERY_MAX_STALE_MS,
    bannerWarmUp: e.BANNER_WARM_UP,
    bannerWarmUpWaitMs: e.BANNER_WARM_UP_WAIT_MS,
    testClockFile: e.TEST_CLOCK_FILE,
  };
}
