/**
 * The dealer read model (read-model.ts, cache.ts, listener.ts, migrations 0007 and 0013), on
 * PGlite and on PostgreSQL:
 * - every column dealerQuery reads raises dealers.version when it changes (the triggers as the
 *   database catalogue holds them, against the columns in the query's own SQL), so no change can
 *   go unnoticed by the cache: a column added to the query but not to the triggers fails here;
 * - a change written straight to the database (another process, a scheduled feed, SQL by hand) is
 *   seen by a listening app through the notification while its copies live for minutes;
 * - a lost listening connection makes the app re-read dealer settings every second at once, and
 *   re-listening brings the long lifetime back after forgetting what may have gone unheard;
 * - a banner, a beacon naming its banner and Preview each look their dealer up once (one count in
 *   dcb_cache_lookups_total{cache="dealer"}), the choice being made from that lookup.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app';
import { dealers } from '../db/schema';
import { DEMO_DEALER } from '../db/seed';
import type { ChannelListener, Database } from '../db/client';
import { createTestApp, createSignedInTestApp, type TestApp } from '../test-app';
import { DEALER_CACHE_LISTENING_TTL_MS, DEALER_CACHE_TTL_MS } from './cache';
import { dealerQuery } from './read-model';

const D = DEMO_DEALER.id;
const onPostgres = process.env.TEST_DB_DRIVER === 'postgres';
const METRICS_TOKEN = 'read-model-test-token';
/** The placeholder of a model without assets is drawn in the dealer's branding colour. */
const PLACEHOLDER = `/api/scripts/${D}/asset?model=civic&type=header&variant=desktop`;

/** Rows of db.execute on either driver. */
async function rows<T>(t: TestApp, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = await t.database.db.execute(query);
  return ((result as { rows?: unknown[] }).rows ?? (result as unknown as unknown[])) as T[];
}

/** The placeholder colour `app` answers for the demo dealer now. */
async function colour(app: FastifyInstance): Promise<string | undefined> {
  const res = await app.inject({ method: 'GET', url: PLACEHOLDER });
  return /fill="(#[0-9a-f]{6})"/i.exec(res.body)?.[1]?.toLowerCase();
}

/** Sets the demo dealer's branding colour straight in the database, as another process would (no request to the app). */
async function writeColour(t: TestApp, value: string): Promise<void> {
  const [row] = await t.database.db.select({ branding: dealers.branding }).from(dealers).where(eq(dealers.id, D));
  await t.database.db.update(dealers).set({ branding: { ...row!.branding, primaryColor: value } }).where(eq(dealers.id, D));
}

describe('the columns dealerQuery reads and the columns that raise dealers.version stay the same', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ seed: false });
  });
  afterAll(() => t?.close());

  /**
   * Columns a key, not a setting: a row with another key is another row, and inserting or deleting
   * rows fires the triggers of their own (dealers.version is the version itself).
   */
  const KEYS = new Set(['dealers.id', 'dealers.version', 'manufacturers.id', 'dealer_inventory.dealer_id']);

  /** Per table, the columns whose change raises a dealer's version ('*': any change), from pg_trigger. */
  async function watchedColumns(table: string): Promise<Set<string>> {
    const triggers = await rows<{ def: string; src: string }>(t, sql`
      select pg_get_triggerdef(t.oid) as def, p.prosrc as src
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace join pg_proc p on p.oid = t.tgfoid
      where not t.tgisinternal and c.relname = ${table} and n.nspname = current_schema()`);
    const watched = new Set<string>();
    for (const { def, src } of triggers) {
      // Only the triggers that raise a version, and only for updates (inserts and deletes always count).
      if (!/\bversion"?\s*:?=/i.test(src) || !/\bUPDATE\b/.test(def.split(' ON ')[0]!)) continue;
      const updateOf = /UPDATE OF ([\w", ]+?) ON/.exec(def);
      const when = /WHEN \((.*)\) EXECUTE/s.exec(def);
      const compared = [...src.matchAll(/NEW\.(\w+) IS DISTINCT FROM OLD\.\1/gi)].map((m) => m[1]!.toLowerCase());
      if (updateOf) for (const c of updateOf[1]!.split(',')) watched.add(c.trim().replace(/"/g, ''));
      else if (when) for (const m of when[1]!.matchAll(/(?:old|new)\.(\w+)/gi)) watched.add(m[1]!.toLowerCase());
      else if (compared.length) for (const c of compared) watched.add(c);
      else watched.add('*');
    }
    return watched;
  }

  it('every column the read query names fires a version trigger when it changes', async () => {
    // The columns the query names, as Drizzle renders them ("table"."column"), raw SQL parts included.
    const query = dealerQuery(t.database.db, D).toSQL().sql;
    const read = new Set([...query.matchAll(/"(\w+)"\."(\w+)"/g)].map((m) => `${m[1]}.${m[2]}`));
    const columnChecked = new Set([...read].map((c) => c.split('.')[0]!));
    // Tables read only through an alias (raw SQL subqueries such as the window boundaries): any change of theirs must count.
    const wholeTables = [...new Set([...query.matchAll(/\b(?:from|join) "(\w+)"/gi)].map((m) => m[1]!))].filter((table) => !columnChecked.has(table));
    expect(read.size, query).toBeGreaterThan(10);
    const missing: string[] = [];
    const watchedBy = new Map<string, Set<string>>();
    const watched = async (table: string) => watchedBy.get(table) ?? watchedBy.set(table, await watchedColumns(table)).get(table)!;
    for (const column of read) {
      if (KEYS.has(column)) continue;
      const [table, name] = column.split('.') as [string, string];
      const w = await watched(table);
      if (!w.has('*') && !w.has(name)) missing.push(column);
    }
    expect(wholeTables, query).toContain('assets');
    for (const table of wholeTables) {
      if (!(await watched(table)).has('*')) missing.push(`${table} (read in a subquery: any change must raise the version)`);
    }
    expect(
      missing,
      missing.map((c) => `${c} is read by dealerQuery (dealer-sites/read-model.ts) but a change to it does not raise dealers.version: add it to the version triggers (migration 0007) in a new migration`).join('\n'),
    ).toEqual([]);
  });
});

describe('a change written straight to the database reaches a listening app through the notification', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('is seen at once while the cached copy is trusted for minutes', async () => {
    expect(t.app.dealerListener?.connected).toBe(true);
    expect(t.app.dealerSites.cache.lifetimeMs).toBe(DEALER_CACHE_LISTENING_TTL_MS);
    const first = await colour(t.app);
    expect(first).toMatch(/^#/);
    // The copy now cached would be trusted for minutes: only the notification can replace it.
    expect(t.app.dealerSites.cache.entries.getRemainingTTL(D)).toBeGreaterThan(60_000);
    await writeColour(t, '#a1b2c3');
    // Far shorter than the copy's lifetime (the notification arrives in milliseconds; the wait allows for a busy machine).
    await expect.poll(() => colour(t.app), { timeout: 5000, interval: 20 }).toBe('#a1b2c3');
    expect(t.app.dealerListener!.notifications).toBeGreaterThan(0);
  });
});

describe('a request looks its dealer up once', () => {
  let t: TestApp;
  let manager: string;
  beforeAll(async () => {
    ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager'));
  });
  afterAll(() => t?.close());

  /** dcb_cache_lookups_total{cache="dealer"} now, hits and misses. */
  const dealerLookups = async () => (await t.app.metrics.cacheLookups.get()).values.filter((v) => v.labels.cache === 'dealer').reduce((sum, v) => sum + v.value, 0);
  const BANNER = 'model=civic&type=header&variant=desktop';
  const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36', origin: 'https://www.hondaofdemo.com' };

  it.each([
    ['the banner route answering the image', () => t.app.inject({ method: 'GET', url: `/api/scripts/${D}/asset?${BANNER}` }), 200],
    [
      'a beacon naming the banner it reports (its creative is chosen from the same lookup)',
      () =>
        t.app.inject({
          method: 'POST',
          url: '/api/analytics/track',
          headers: { ...browser, 'content-type': 'text/plain' },
          payload: JSON.stringify({ dealerId: D, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: 'view-one-lookup', asset: BANNER }),
        }),
      204,
    ],
    ['Preview of three slots', () => t.app.inject({ method: 'GET', url: `/api/dealers/${D}/preview?model=civic&variant=desktop`, headers: { cookie: manager } }), 200],
  ] as const)('%s', async (_name, send, status) => {
    expect((await send()).statusCode).toBe(status); // the dealer and the choice cached
    const before = await dealerLookups();
    const res = await send();
    expect(res.statusCode, res.body).toBe(status);
    expect(await dealerLookups()).toBe(before + 1);
  });
});

/**
 * Database.listen with a switch: `cut()` closes the current listening connection and reports it
 * lost, as a PostgreSQL restart or a network cut would; while `blocked` new connections fail, as
 * they would while the server is away.
 */
function switchableListen(listen: Database['listen']) {
  let current: { connection: ChannelListener; onLost: (err: Error) => void } | null = null;
  const control = {
    blocked: false,
    listen: (async (channel, onNotify, onLost) => {
      if (control.blocked) throw new Error('connection refused (test)');
      const connection = await listen(channel, onNotify, onLost);
      current = { connection, onLost };
      return connection;
    }) as Database['listen'],
    async cut() {
      const was = current!;
      current = null;
      await was.connection.close();
      was.onLost(new Error('connection cut (test)'));
    },
  };
  return control;
}

describe('a lost listening connection', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let control: ReturnType<typeof switchableListen>;
  beforeAll(async () => {
    t = await createTestApp();
    control = switchableListen(t.database.listen);
    // Another app on the same database whose listening connection the test controls.
    app = await buildApp({ config: { ...t.config, metricsToken: METRICS_TOKEN }, db: t.database.db, logger: false, listen: control.listen });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('re-reads dealer settings every second until it listens again, then trusts them for minutes', async () => {
    expect(app.dealerListener?.connected).toBe(true);
    await writeColour(t, '#111111');
    await expect.poll(() => colour(app), { timeout: 5000 }).toBe('#111111');

    control.blocked = true;
    await control.cut();
    // At once: the short lifetime, and the copy cached before is no longer served without a read.
    expect(app.dealerListener!.connected).toBe(false);
    expect(app.dealerSites.cache.lifetimeMs).toBe(DEALER_CACHE_TTL_MS);
    expect(app.dealerSites.current(D)).toBeUndefined();
    await writeColour(t, '#222222'); // unheard: nobody listens in this app
    expect(await colour(app)).toBe('#222222'); // the distrusted copy was re-read
    expect(app.dealerSites.cache.entries.getRemainingTTL(D)).toBeLessThanOrEqual(DEALER_CACHE_TTL_MS);
    await writeColour(t, '#333333'); // unheard again: seen once the 1-s copy expired
    await expect.poll(() => colour(app), { timeout: 10_000 }).toBe('#333333');
    expect(app.dealerListener!.connected).toBe(false);

    control.blocked = false;
    await expect.poll(() => app.dealerListener!.connected, { timeout: 30_000 }).toBe(true);
    expect(app.dealerSites.cache.lifetimeMs).toBe(DEALER_CACHE_LISTENING_TTL_MS);
    expect(app.dealerListener!.losses).toBe(1);
    expect(await colour(app)).toBe('#333333');
    expect(app.dealerSites.cache.entries.getRemainingTTL(D)).toBeGreaterThan(60_000);
    await writeColour(t, '#444444'); // heard again
    await expect.poll(() => colour(app), { timeout: 5000, interval: 20 }).toBe('#444444');
  });

  it.runIf(onPostgres)('on PostgreSQL: a terminated listening backend is replaced with backoff, and changes are heard again', async () => {
    const pid = app.dealerListener!.pid;
    expect(pid).toBeTypeOf('number');
    const losses = app.dealerListener!.losses;
    await rows(t, sql`select pg_terminate_backend(${pid}::int)`);
    await expect.poll(() => app.dealerListener!.losses, { timeout: 10_000 }).toBe(losses + 1);
    await expect.poll(() => app.dealerListener!.connected, { timeout: 30_000 }).toBe(true);
    expect(app.dealerListener!.pid).not.toBe(pid);
    expect(await colour(app)).toBe('#444444');
    expect(app.dealerSites.cache.entries.getRemainingTTL(D)).toBeGreaterThan(60_000);
    await writeColour(t, '#555555');
    await expect.poll(() => colour(app), { timeout: 5000, interval: 20 }).toBe('#555555');
  });

  it('reports the listener in the metrics', async () => {
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^dcb_dealer_listener_connected 1$/m);
  });
});
