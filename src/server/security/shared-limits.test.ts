/**
 * Rate limits shared by every server process through Redis: two apps on one database
 * and one Redis (two processes, as far as the limits can tell) allow a per-IP limit once in total,
 * not once each: the sign-in limit (a route's config.rateLimit), the tracking per-IP budget
 * (app.createRateLimit, delivery/public-policy.ts) and the per-page-view limit. Needs
 * TEST_REDIS_URL (CI sets it). Without Redis at REDIS_URL the server starts and counts in memory;
 * a Redis that stops answering (frozen behind a TCP proxy the test controls) sends the limits to
 * memory after one command deadline, and they count in Redis again once it answers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { openTestDatabase, testAppConfig } from '../test-app';
import { buildApp } from '../app';
import { DEMO_DEALER, seedDemoData } from '../db/seed';
import { DEMO_ACCOUNTS } from '../../domain/demo';
import { dealers } from '../db/schema';
import { LOGIN_IP_LIMIT_PER_MINUTE } from '../../domain/login-throttle';
import { MAX_REQUESTS_PER_MINUTE, RATE_LIMIT_NAT_FACTOR } from '../../domain/constants';
import { CLIENT_ERRORS_PER_MINUTE } from '../admin/client-errors';

const redisUrl = process.env.TEST_REDIS_URL;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const ORIGIN = 'https://www.hondaofdemo.com';

const signIn = (app: FastifyInstance, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: `nobody-${randomUUID()}@example.com`, password: 'wrong' }, remoteAddress });

/** A signed-out browser's error report: CLIENT_ERRORS_PER_MINUTE.anonymous (10) a minute per IP. */
const clientError = (app: FastifyInstance, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/api/client-errors', payload: { message: 'Something went wrong', url: 'http://localhost:3000/' }, remoteAddress });

const beacon = (app: FastifyInstance, remoteAddress: string, pv: string) =>
  app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${ORIGIN}/new-inventory`, pv }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN },
    remoteAddress,
  });

describe.skipIf(!redisUrl)('rate limits on a shared Redis store', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let a: FastifyInstance;
  let b: FastifyInstance;
  beforeAll(async () => {
    database = await openTestDatabase();
    await seedDemoData(database.db);
    // The smallest dealer limit: 10 per page view, 10 x RATE_LIMIT_NAT_FACTOR per client IP.
    const [d] = await database.db.select({ security: dealers.security }).from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
    await database.db.update(dealers).set({ security: { ...d!.security, rateLimitEnabled: true, maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.min } }).where(eq(dealers.id, DEMO_DEALER.id));
    // A generous deadline: on a busy machine a late answer would switch a process to its in-memory
    // count, which is right for production and not what these tests measure (the freeze test below does).
    const env = { REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: `dcb-test-${randomUUID()}:`, REDIS_COMMAND_TIMEOUT_MS: '5000' };
    a = await buildApp({ config: testAppConfig(env), db: database.db, logger: false });
    b = await buildApp({ config: testAppConfig(env), db: database.db, logger: false });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.dispose();
  });

  it(`allows ${CLIENT_ERRORS_PER_MINUTE.anonymous} client error reports a minute per IP in total across both processes, not ${CLIENT_ERRORS_PER_MINUTE.anonymous} each`, async () => {
    const limit = CLIENT_ERRORS_PER_MINUTE.anonymous;
    const statuses: number[] = [];
    for (let i = 0; i < limit + 5; i++) statuses.push((await clientError(i % 2 === 0 ? a : b, '203.0.113.6')).statusCode);
    expect(statuses).toEqual([...Array(limit).fill(204), ...Array(5).fill(429)]);
  });

  // Each failed sign-in verifies an argon2 hash: slow on a busy machine.
  it('allows the sign-in limit per IP once across both processes', { timeout: 90_000 }, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_IP_LIMIT_PER_MINUTE + 6; i++) statuses.push((await signIn(i % 2 === 0 ? a : b, '203.0.113.7')).statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LOGIN_IP_LIMIT_PER_MINUTE);
    expect(statuses.slice(LOGIN_IP_LIMIT_PER_MINUTE)).toEqual(Array(6).fill(429));
    // Another client IP has its own count.
    expect((await signIn(b, '203.0.113.8')).statusCode).toBe(401);
  });

  it("shares tracking's per-IP budget (app.createRateLimit) and per-page-view limit", async () => {
    const budget = MAX_REQUESTS_PER_MINUTE.min * RATE_LIMIT_NAT_FACTOR;
    const statuses: number[] = [];
    for (let i = 0; i < budget + 20; i++) statuses.push((await beacon(i % 2 === 0 ? a : b, '198.51.100.77', `pv-shared-budget-${i}`)).statusCode);
    expect(statuses.filter((s) => s !== 204 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 204)).toHaveLength(budget);
    expect(statuses.slice(budget)).toEqual(Array(20).fill(429));

    const pv = `pv-shared-view-${randomUUID().slice(0, 8)}`;
    const perView: number[] = [];
    for (let i = 0; i < MAX_REQUESTS_PER_MINUTE.min + 2; i++) perView.push((await beacon(i % 2 === 0 ? a : b, `198.51.100.${100 + i}`, pv)).statusCode);
    expect(perView).toEqual([...Array(MAX_REQUESTS_PER_MINUTE.min).fill(204), 429, 429]);
  });
});

describe('rate limits when Redis does not answer', () => {
  it('starts and counts the limits in memory per process (the per-email throttle stays in the database)', { timeout: 60_000 }, async () => {
    const database = await openTestDatabase();
    await seedDemoData(database.db);
    const app = await buildApp({ config: testAppConfig({ REDIS_URL: 'redis://127.0.0.1:1' }), db: database.db, logger: false });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < CLIENT_ERRORS_PER_MINUTE.anonymous + 3; i++) statuses.push((await clientError(app, '203.0.113.9')).statusCode);
      expect(statuses).toEqual([...Array(CLIENT_ERRORS_PER_MINUTE.anonymous).fill(204), 429, 429, 429]);
    } finally {
      await app.close();
      await database.dispose();
    }
  });
});

/**
 * A TCP proxy to Redis that can be frozen: `freeze` stops reading from both sides of every
 * connection (and of connections opened meanwhile) without closing anything, as a stopped Redis
 * process or a black-holed route does; `resume` forwards again, what was held included.
 */
async function freezableProxy(target: URL) {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => to.write(chunk));
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
      from.on('error', () => undefined);
      if (frozen) from.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    resume: () => {
      frozen = false;
      for (const s of sockets) s.resume();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(!redisUrl)('rate limits when Redis freezes (connections open, no answers)', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let proxy: Awaited<ReturnType<typeof freezableProxy>>;
  let app: FastifyInstance;
  let watcher: Redis;
  const prefix = `dcb-test-${randomUUID()}:`;
  beforeAll(async () => {
    database = await openTestDatabase();
    await seedDemoData(database.db);
    proxy = await freezableProxy(new URL(redisUrl!));
    app = await buildApp({ config: testAppConfig({ REDIS_URL: proxy.url, REDIS_KEY_PREFIX: prefix }), db: database.db, logger: false });
    watcher = new Redis(redisUrl!);
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    watcher?.disconnect();
    await database?.dispose();
  });

  /** The rate-limit keys in Redis (through the direct connection) that end with this client IP. */
  const keysOf = (ip: string) => watcher.keys(`${prefix}*${ip}`);

  it('answers sign-in and beacons from in-memory limits while frozen, and counts in Redis again once it answers', { timeout: 60_000 }, async () => {
    expect((await clientError(app, '192.0.2.10')).statusCode).toBe(204);
    expect(await keysOf('192.0.2.10')).toHaveLength(1);

    proxy.freeze();
    const admin = DEMO_ACCOUNTS.find((a) => a.role === 'admin')!;
    const signIn = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: admin.email, password: admin.password }, remoteAddress: '192.0.2.11' });
    expect(signIn.statusCode).toBe(200);
    expect((await beacon(app, '192.0.2.12', 'pv-frozen-redis-1')).statusCode).toBe(204);
    // The limits still hold, counted in this process's memory.
    const statuses: number[] = [];
    for (let i = 0; i < CLIENT_ERRORS_PER_MINUTE.anonymous + 1; i++) statuses.push((await clientError(app, '192.0.2.13')).statusCode);
    expect(statuses).toEqual([...Array(CLIENT_ERRORS_PER_MINUTE.anonymous).fill(204), 429]);
    expect(await keysOf('192.0.2.13')).toEqual([]);

    proxy.resume();
    // Without a restart, the limits count in Redis again.
    await vi.waitFor(
      async () => {
        expect((await clientError(app, '192.0.2.14')).statusCode).toBe(204);
        expect(await keysOf('192.0.2.14')).toHaveLength(1);
      },
      { timeout: 20_000, interval: 250 },
    );
  });
});
