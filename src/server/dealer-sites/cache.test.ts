/**
 * Caches that invalidate themselves: every delivery-affecting write made through the
 * API is seen by the next banner or script request with no hand-placed invalidation. The database
 * raises dealers.version (migration 0007), the app that made the write forgets the dealer at once
 * (caches.ts onSend hook), and a second app on the same database (another process) sees the change
 * once its 1 s copy of the dealer expired, through the version in its cache keys. Two apps on two
 * databases share no cache entry.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../app';
import { dealers } from '../db/schema';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { createTestApp, type TestApp } from '../test-app';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DealerCache, DEALER_CACHE_TTL_MS } from './cache';
import type { Db } from '../db/client';

const D = DEMO_DEALER.id;
const CIVIC = 'model=civic&type=header&variant=desktop';
const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url });
const banner = (app: FastifyInstance, q: string) => get(app, `/api/scripts/${D}/asset?${q}`);
const source = (res: LightMyRequestResponse) => `${res.statusCode} ${res.headers['x-banner-source'] ?? ''}`;

function send(app: FastifyInstance, cookie: string, method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  return app.inject({ method, url, payload: payload as never, headers: { cookie } });
}
function upload(app: FastifyInstance, cookie: string, url: string, filename: string, data: Buffer) {
  const { body, contentType } = multipartBody([{ filename, data }]);
  return app.inject({ method: 'POST', url, payload: body, headers: { cookie, 'content-type': contentType } });
}

describe('every delivery-affecting write is seen by the next request, in this process and another (no hand call)', () => {
  let t: TestApp;
  /** A second app on the same database: another server process. */
  let other: FastifyInstance;
  let manager: string;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp();
    other = await buildApp({ config: t.config, db: t.database.db, logger: false });
    manager = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });
  // The dealer caches read Date.now: the other process's 1 s copy expires when the test moves the clock.
  beforeEach(() => void vi.useFakeTimers({ toFake: ['Date'], now: Date.now() }));
  afterEach(() => void vi.useRealTimers());

  const version = async () => (await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, D)))[0]!.v;

  /**
   * `c.read` of the other app's answer one dealer TTL later than the last look: its expired copy
   * answers while one query refreshes it (the frozen clock moves only here), so the new settings
   * show at the latest on the next look.
   */
  async function later<T>(app: FastifyInstance, c: { url: string; read: (res: LightMyRequestResponse) => T }): Promise<T> {
    vi.setSystemTime(Date.now() + DEALER_CACHE_TTL_MS + 1);
    return c.read(await get(app, c.url));
  }

  /**
   * Reads `url` on both apps (warming their caches), makes the write through this app's API, and
   * expects: the version raised by the database, this app's next answer `after` at once, and the
   * other app's once its dealer copy expired (it answers the old copy while one query refreshes it).
   */
  async function expectSeen<T>(c: { url: string; read: (res: LightMyRequestResponse) => T; write: () => Promise<LightMyRequestResponse>; after: T }) {
    const before = c.read(await get(t.app, c.url));
    // The other app may still hold a copy from before an earlier step: it settles within its TTL.
    await expect.poll(() => later(other, c), { timeout: 10_000 }).toEqual(before);
    expect(before).not.toEqual(c.after);
    const v0 = await version();
    const res = await c.write();
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await version()).toBeGreaterThan(v0);
    expect(c.read(await get(t.app, c.url))).toEqual(c.after);
    await expect.poll(() => later(other, c), { timeout: 10_000 }).toEqual(c.after);
  }

  const civic = { url: `/api/scripts/${D}/asset?${CIVIC}`, read: source };
  let assetId = '';

  it('asset upload', async () => {
    await expectSeen({
      ...civic,
      write: async () => {
        const res = await upload(t.app, manager, `/api/dealers/${D}/assets`, 'new_2025_honda_civic_sport_1920x300.jpg', await makeBanner(1920, 300));
        assetId = res.json().results[0].asset.id;
        return res;
      },
      after: '200 asset',
    });
  });

  it('asset toggle (off, then on again)', async () => {
    await expectSeen({ ...civic, write: () => send(t.app, manager, 'PATCH', `/api/dealers/${D}/assets/${assetId}`, { isActive: false }), after: '200 placeholder' });
    await expectSeen({ ...civic, write: () => send(t.app, manager, 'PATCH', `/api/dealers/${D}/assets/${assetId}`, { isActive: true }), after: '200 asset' });
  });

  it('asset delete', async () => {
    await expectSeen({ ...civic, write: () => send(t.app, manager, 'DELETE', `/api/dealers/${D}/assets/${assetId}`), after: '200 placeholder' });
  });

  it('config save (a new model mapping; the embed script changes too)', async () => {
    const configs = (await t.app.inject({ method: 'GET', url: `/api/dealers/${D}/configs`, headers: { cookie: manager } })).json();
    const save = () => send(t.app, manager, 'PUT', `/api/dealers/${D}/configs`, { modelMap: { ...configs.modelMap, 'civic-hatch': 'civic' } });
    await expectSeen({ url: `/api/scripts/${D}/asset?model=civic-hatch&type=header`, read: source, write: save, after: '200 placeholder' });
    await expectSeen({
      url: `/scripts/dc-banners-${D}.js`,
      read: (res) => res.body.includes('civichatch'),
      write: () => send(t.app, manager, 'PUT', `/api/dealers/${D}/configs`, { modelMap: configs.modelMap }),
      after: false,
    });
  });

  it('dealer settings save by an admin (branding colour of the placeholder)', async () => {
    const [row] = await t.database.db.select({ branding: dealers.branding }).from(dealers).where(eq(dealers.id, D));
    await expectSeen({
      ...civic,
      read: (res) => res.body.includes('fill="#123456"'),
      write: () => send(t.app, admin, 'PUT', `/api/admin/dealers/${D}/settings`, { branding: { ...row!.branding, primaryColor: '#123456' } }),
      after: true,
    });
  });

  it('platform import (the dealer branding changed in the imported document)', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/admin/export', headers: { cookie: admin } })).json();
    const dealer = doc.dealers.find((d: { id: string }) => d.id === D);
    dealer.branding = { ...dealer.branding, primaryColor: '#654321' };
    await expectSeen({ ...civic, read: (res) => res.body.includes('fill="#654321"'), write: () => send(t.app, admin, 'POST', '/api/admin/import', doc), after: true });
  });

  it('manufacturer catalogue change (every dealer of the manufacturer)', async () => {
    const list = (await t.app.inject({ method: 'GET', url: '/api/admin/manufacturers', headers: { cookie: admin } })).json().manufacturers;
    const { id, name: _name, createdAt: _c, updatedAt: _u, dealerCount: _n, ...rest } = list.find((m: { id: string }) => m.id === DEMO_DEALER.manufacturer);
    await expectSeen({
      ...civic,
      read: (res) => res.body.includes('Acme Civic'),
      write: () => send(t.app, admin, 'PUT', `/api/admin/manufacturers/${id}`, { ...rest, name: 'Acme' }),
      after: true,
    });
  });

  it('inventory upload (the inventory strategy picks the upsell from the new stock)', async () => {
    const strategy = await send(t.app, manager, 'PUT', `/api/dealers/${D}/configs`, { customUpsellLogic: 'inventory' });
    expect(strategy.statusCode).toBe(200);
    const csv = readFileSync(path.resolve('tests/fixtures/inventory/honda-inventory.csv'));
    await expectSeen({
      url: `/api/scripts/${D}/asset?model=accord&type=upsell`,
      read: (res) => res.headers['x-banner-model'],
      write: () => upload(t.app, manager, `/api/dealers/${D}/inventory`, 'honda-inventory.csv', csv),
      after: 'crv',
    });
  });
});

describe('two apps in one process share no cache', () => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    one = await createTestApp();
    two = await createTestApp();
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('each app answers from its own database, and closing one empties its caches only', async () => {
    expect(one.app.caches).not.toBe(two.app.caches);
    // Same seed, so the same dealer id at the same version in both databases.
    expect(source(await banner(one.app, CIVIC))).toBe('200 placeholder');
    expect(source(await banner(two.app, CIVIC))).toBe('200 placeholder');
    const cookie = await two.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    const res = await upload(two.app, cookie, `/api/dealers/${D}/assets`, 'new_2025_honda_civic_sport_1920x300.jpg', await makeBanner(1920, 300));
    expect(res.json().results[0].ok).toBe(true);
    // The first app reads its dealer first: a shared cache would hand its old copy to the second.
    expect(source(await banner(one.app, CIVIC))).toBe('200 placeholder');
    expect(source(await banner(two.app, CIVIC))).toBe('200 asset');
    expect(source(await banner(one.app, CIVIC))).toBe('200 placeholder');

    await one.app.close();
    expect(one.app.dealerSites.cache.entries.size).toBe(0);
    expect(one.app.caches.bannerBytes.size).toBe(0);
    expect(two.app.dealerSites.cache.entries.size).toBeGreaterThan(0);
    expect(two.app.caches.bannerBytes.size).toBeGreaterThan(0);
    expect(source(await banner(two.app, CIVIC))).toBe('200 asset');
  });
});

describe('stale-if-error: a dealer copy whose refresh fails keeps answering up to maxStaleMs after its last read', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => void vi.useRealTimers());

  it('answers the same copy while the database fails, throws its error past the bound, and takes a fresh read when it answers again', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const cache = new DealerCache({ maxStaleMs: 60_000 });
    const failing = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const down = {
      select: () => {
        throw failing;
      },
    } as unknown as Db;
    // allowStale false: wait for the refresh's outcome instead of the stale copy it starts from.
    const read = (db: Db) => cache.entries.fetch(D, { context: db, allowStale: false });

    const first = await read(t.database.db);
    expect(first?.value?.id).toBe(D);
    vi.advanceTimersByTime(DEALER_CACHE_TTL_MS + 1);
    expect(await read(down)).toBe(first); // the refresh failed: the same copy, trusted for another TTL
    vi.advanceTimersByTime(59_000 - DEALER_CACHE_TTL_MS);
    expect(await read(down)).toBe(first); // 59 s after the last read: still served
    vi.advanceTimersByTime(2000);
    await expect(read(down)).rejects.toBe(failing); // 61 s: past the bound, the error reaches the request

    const fresh = await read(t.database.db);
    expect(fresh).not.toBe(first);
    expect(fresh?.value?.id).toBe(D);
  });
});
