/**
 * PGlite owned by one process, disk full: the classifier (507 for ENOSPC / 53100,
 * 503 once PGlite stopped), the storage plugin (changes refused with 507 while the data directory
 * is low, reads and sign-out kept, writes resuming by themselves, `app.storage.writable`), the
 * error handler's 507, and, where a tmpfs can be mounted (root), a real PGlite filling its disk:
 * the PANIC that would wedge the process is contained (later statements answer 503 at once,
 * close() returns). The tmpfs part skips when mounting is not permitted.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DrizzleQueryError, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ALWAYS_WRITABLE,
  DATABASE_STOPPED_MESSAGE,
  DatabaseStopped,
  RESERVED_PER_BODY_BYTE,
  StorageGuard,
  isOutOfDisk,
  isRefusedWhenFull,
  storageFailure,
} from './disk-guard';
import { openDatabase, type Database, type Db } from './client';
import { seedDemoData, DEMO_DEALER } from './seed';
import { LOCK_FILE_NAME } from './data-dir-lock';
import { assetBlobs } from './schema';
import { openTestDatabase, cookieHeader, createTestApp } from '../test-app';
import { loadConfig } from '../config';
import { buildApp } from '../app';
import { mountTmpfs, unmountTmpfs } from '../../../tests/fixtures/tmpfs';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

const OUT_OF_DISK = { error: { code: 'INSUFFICIENT_STORAGE', message: 'The server is out of disk space; changes are refused until space is freed' } };
const STOPPED = { error: { code: 'UNAVAILABLE', message: DATABASE_STOPPED_MESSAGE } };
const MANAGER = { email: 'manager@hondaofdemo.com', password: 'manager123' };
const configsUrl = `/api/dealers/${DEMO_DEALER.id}/configs`;

const pgError = (message: string, code: string, severity = 'ERROR') => Object.assign(new Error(message), { code, severity });
const wrapped = (cause: Error) => new DrizzleQueryError('update "dealers" set "name" = $1', ['x'], cause);

function appConfig() {
  return loadConfig({ FEED_SCHEDULER_INTERVAL_MS: '0', PUBLIC_ORIGIN: 'http://localhost:3000', LOG_LEVEL: 'silent', WEB_DIST_DIR: path.resolve('dist/web'), EMBED_DIST_FILE: path.resolve('dist/embed/dc-banners.js') });
}

async function signIn(app: FastifyInstance) {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: MANAGER });
  expect(res.statusCode).toBe(200);
  return cookieHeader(res);
}

describe('storageFailure / isOutOfDisk', () => {
  it.each([
    ['ENOSPC', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })],
    ['EDQUOT', Object.assign(new Error('EDQUOT: disk quota exceeded'), { code: 'EDQUOT' })],
    ['53100 from PGlite', pgError('could not extend file "base/5/16385": No space left on device', '53100')],
    ['53100 wrapped by Drizzle', wrapped(pgError('could not extend file "base/5/16385": No space left on device', '53100'))],
  ])('answers 507 INSUFFICIENT_STORAGE for %s', (_name, err) => {
    const failure = storageFailure(err);
    expect(failure?.statusCode).toBe(507);
    expect({ error: { code: failure?.code, message: failure?.message } }).toEqual(OUT_OF_DISK);
    expect(isOutOfDisk(err)).toBe(true);
  });

  it('answers 503 UNAVAILABLE once the database stopped, wrapped or not', () => {
    const stopped = new DatabaseStopped('PANIC');
    expect(storageFailure(stopped)).toBe(stopped);
    expect(storageFailure(wrapped(stopped))).toBe(stopped);
    expect(stopped.statusCode).toBe(503);
    expect(stopped.message).toBe(DATABASE_STOPPED_MESSAGE);
  });

  it.each([
    ['a constraint violation', pgError('duplicate key value violates unique constraint', '23505')],
    ['too many connections (53300, not disk)', pgError('sorry, too many clients already', '53300')],
    ['a plain error', new Error('boom')],
    ['a string', 'ENOSPC'],
    ['null', null],
  ])('leaves %s alone', (_name, err) => {
    expect(storageFailure(err)).toBeNull();
    expect(isOutOfDisk(err)).toBe(false);
  });
});

describe('isRefusedWhenFull', () => {
  const req = (method: string, url?: string) => ({ method, routeOptions: { url } });
  it('refuses every change but sign-out and tracking; never reads', () => {
    expect(isRefusedWhenFull(req('GET', configsUrl))).toBe(false);
    expect(isRefusedWhenFull(req('HEAD', '/'))).toBe(false);
    expect(isRefusedWhenFull(req('OPTIONS', '/api/analytics/track'))).toBe(false);
    expect(isRefusedWhenFull(req('PUT', '/api/dealers/:dealerId/configs'))).toBe(true);
    expect(isRefusedWhenFull(req('POST', '/api/auth/login'))).toBe(true);
    expect(isRefusedWhenFull(req('DELETE', '/api/dealers/:dealerId/assets/:assetId'))).toBe(true);
    expect(isRefusedWhenFull(req('POST', '/api/auth/logout'))).toBe(false);
    expect(isRefusedWhenFull(req('POST', '/api/analytics/track'))).toBe(false);
    expect(isRefusedWhenFull(req('POST'))).toBe(true); // no route: refused rather than guessed
  });
});

describe('storage plugin', () => {
  let database: Database & { dispose(): Promise<void> };
  let db: Db;
  const apps: FastifyInstance[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    db = database.db;
    await seedDemoData(db);
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(async () => {
    await database.dispose();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** An app on the shared test database whose data-directory guard watches a fresh temp dir. */
  async function appWithGuard(minFreeBytes: number) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-guard-'));
    dirs.push(dir);
    const guard = new StorageGuard(dir, minFreeBytes);
    const app = await buildApp({ config: appConfig(), db, logger: false, storage: guard });
    apps.push(app);
    return { app, guard };
  }

  it('without a data directory (PostgreSQL, in-memory PGlite) app.storage is always writable', async () => {
    const t = await createTestApp({ seed: false });
    try {
      expect(t.app.storage).toBe(ALWAYS_WRITABLE);
      expect(t.app.storage.writable).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('below DATA_MIN_FREE_MB: changes answer 507, reads 200, sign-in 507, sign-out allowed', async () => {
    // First sign in while there is room, then start a server whose floor is above any disk.
    const roomy = await appWithGuard(0);
    expect(roomy.app.storage.writable).toBe(true);
    expect(roomy.guard.freeBytes).toBeGreaterThan(0);
    const cookie = await signIn(roomy.app);

    const { app, guard } = await appWithGuard(Number.MAX_SAFE_INTEGER);
    expect(guard.writable).toBe(false);
    expect(app.storage.writable).toBe(false);
    expect(app.storage.freeBytes).toBeGreaterThan(0);

    const put = await app.inject({ method: 'PUT', url: configsUrl, headers: { cookie }, payload: { inventoryWeights: { civic: 5 } } });
    expect(put.statusCode).toBe(507);
    expect(put.json()).toEqual(OUT_OF_DISK);
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: MANAGER });
    expect(login.statusCode).toBe(507);
    expect(login.json()).toEqual(OUT_OF_DISK);
    // An unauthenticated change is refused too (before the access check: no body is read).
    expect((await app.inject({ method: 'PUT', url: configsUrl, payload: {} })).statusCode).toBe(507);

    expect((await app.inject({ method: 'GET', url: configsUrl, headers: { cookie } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/auth/demo-accounts' })).statusCode).toBe(200);
    const logout = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(logout.statusCode).toBe(204);
  });

  it('a disk-full error refuses changes until the next check finds space again', async () => {
    const { app, guard } = await appWithGuard(0);
    const cookie = await signIn(app);
    const change = () => app.inject({ method: 'PUT', url: configsUrl, headers: { cookie }, payload: { inventoryWeights: { civic: 5 } } });
    expect((await change()).statusCode).toBe(200);

    guard.noteDiskFull('could not extend file "base/5/16385": No space left on device');
    expect(app.storage.writable).toBe(false);
    expect((await change()).statusCode).toBe(507);
    expect((await app.inject({ method: 'GET', url: configsUrl, headers: { cookie } })).statusCode).toBe(200);

    await guard.check(); // what the plugin's timer does every STORAGE_CHECK_INTERVAL_MS
    expect(app.storage.writable).toBe(true);
    expect((await change()).statusCode).toBe(200);
  });

  it('once the database stopped, changes answer 503 with the restart message', async () => {
    const { app, guard } = await appWithGuard(0);
    guard.noteStopped('could not write to file "pg_wal/xlogtemp.42": No space left on device');
    await guard.check(); // free space does not bring a stopped database back
    expect(app.storage.writable).toBe(false);
    expect(app.storage.stopped).toBe(true);
    const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: MANAGER });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(STOPPED);
  });

  /** An app whose guard sees `free()` bytes free (a fake disk) and a floor of `minFreeBytes`. */
  async function appOnFakeDisk(free: () => number, minFreeBytes: number) {
    const guard = new StorageGuard('/fake-data-dir', minFreeBytes, async () => free());
    const app = await buildApp({ config: appConfig(), db, logger: false, storage: guard });
    apps.push(app);
    return { app, guard };
  }

  const assetNames = async (app: FastifyInstance, cookie: string) =>
    ((await app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/assets`, headers: { cookie } })).json().assets as { name: string }[]).map((a) => a.name);

  it('reserves each upload against the floor: the second of two concurrent uploads that would cross it answers 507 and stores nothing', async () => {
    const a = multipartBody([{ filename: 'new_2025_honda_civic_ex_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#113355') }]);
    const b = multipartBody([
      { filename: 'new_2025_honda_pilot_ex_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#335511') },
      { filename: 'new_2025_honda_accord_ex_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#551133') },
    ]);
    // Room above the floor for A's reservation and half of B's: each fits alone, not both at once.
    const floor = 64 * 1024 * 1024;
    const room = RESERVED_PER_BODY_BYTE * (a.body.length + b.body.length / 2);
    const { app, guard } = await appOnFakeDisk(() => floor + room, floor);
    const cookie = await signIn(app);
    await vi.waitFor(() => expect(guard.reserved).toBe(0)); // the sign-in's own reservation ended
    const upload = (body: Buffer | PassThrough, contentType: string, length: number) =>
      app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType, 'content-length': String(length) } });

    // A streams its body slowly: it holds its reservation until B was answered.
    const slow = new PassThrough();
    const first = upload(slow, a.contentType, a.body.length);
    slow.write(a.body.subarray(0, 100));
    await vi.waitFor(() => expect(guard.reserved).toBe(RESERVED_PER_BODY_BYTE * a.body.length));
    const second = await upload(b.body, b.contentType, b.body.length);
    expect(second.statusCode).toBe(507);
    expect(second.json().error.code).toBe('INSUFFICIENT_STORAGE');
    expect(second.json().error.message).toMatch(/^The server has not enough free disk space for this request \(about \d+ MB\); nothing was stored/);
    slow.end(a.body.subarray(100));
    expect((await first).statusCode).toBe(200);
    await vi.waitFor(() => expect(guard.reserved).toBe(0));
    const names = await assetNames(app, cookie);
    expect(names).toContain('new_2025_honda_civic_ex_1920x300.jpg');
    expect(names).not.toContain('new_2025_honda_pilot_ex_1920x300.jpg');
    expect(names).not.toContain('new_2025_honda_accord_ex_1920x300.jpg');

    // Once A ended, B fits alone.
    const again = await upload(b.body, b.contentType, b.body.length);
    expect(again.statusCode).toBe(200);
    expect(again.json().results.map((r: { ok: boolean }) => r.ok)).toEqual([true, true]);
  });

  it('stores a multi-file upload whole or not at all: a write failing for lack of disk space stores none of its files', async () => {
    const diskFull = wrapped(pgError('could not extend file "base/5/16385": No space left on device', '53100'));
    let blobs = 0;
    // The database as the app sees it, failing the upload's second file write as a full disk would.
    const failSecondFile = <T extends object>(target: T): T =>
      new Proxy(target, {
        get: (t, prop) => {
          const real = t as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
          if (prop === 'transaction') return (run: (tx: unknown) => unknown, config?: unknown) => real.transaction!((tx: unknown) => run(failSecondFile(tx as object)), config);
          if (prop === 'insert') {
            return (table: unknown) => {
              if (table === assetBlobs && ++blobs === 2) throw diskFull;
              return real.insert!(table);
            };
          }
          const value = Reflect.get(t, prop) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
        },
      });
    const app = await buildApp({ config: appConfig(), db: failSecondFile(db), logger: false });
    apps.push(app);
    const cookie = await signIn(app);
    const files = ['new_2025_honda_hr-v_lx_1920x300.jpg', 'new_2025_honda_odyssey_ex_1920x300.jpg', 'new_2025_honda_passport_ex_1920x300.jpg'];
    const { body, contentType } = multipartBody(await Promise.all(files.map(async (filename, i) => ({ filename, data: await makeBanner(1920, 300, 'jpeg', `#${i}${i}66aa`) }))));
    const res = await app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(OUT_OF_DISK);
    expect(blobs).toBe(2);
    const names = await assetNames(app, cookie);
    for (const f of files) expect(names).not.toContain(f);
  });

  it('the error handler answers 507 when a query fails for lack of disk space', async () => {
    const diskFull = wrapped(pgError('could not extend file "base/5/16385": No space left on device', '53100'));
    const failing = new Proxy(db, {
      get: (target, prop, receiver) =>
        prop === 'select'
          ? () => {
              throw diskFull;
            }
          : Reflect.get(target, prop, receiver),
    });
    const app = await buildApp({ config: appConfig(), db: failing, logger: false });
    apps.push(app);
    const res = await app.inject({ method: 'GET', url: '/api/auth/demo-accounts' });
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual(OUT_OF_DISK);
  });
});

/** Writes a file until the disk is full. */
function fillDisk(file: string) {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(1 << 20);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    try {
      for (;;) writeSync(fd, chunk.subarray(0, 4096));
    } catch {
      /* full */
    }
  } finally {
    closeSync(fd);
  }
}

describe('PGlite on a disk that fills up (tmpfs, root only)', () => {
  let mount: string | null = null;
  beforeAll(() => {
    mount = mountTmpfs(96);
  });
  afterAll(() => {
    if (mount) unmountTmpfs(mount);
  });

  it('contains the PANIC: later statements answer 503 at once instead of spinning, close() returns', { timeout: 180_000 }, async (ctx) => {
    if (!mount) return ctx.skip();
    const dataDir = path.join(mount, 'data');
    mkdirSync(dataDir);
    const database = await openDatabase({ dataDir, dataMinFreeMb: 0 });
    const guard = database.storage!;
    let app: FastifyInstance | undefined;
    try {
      await database.migrate();
      await seedDemoData(database.db);
      app = await buildApp({ config: appConfig(), db: database.db, logger: false, storage: guard });
      const cookie = await signIn(app);
      await database.db.execute(sql.raw('create table filler_rows (id int primary key, v text) with (fillfactor = 50)'));
      await database.db.execute(sql.raw('insert into filler_rows select g, repeat(md5(g::text), 30) from generate_series(1, 200) g'));
      fillDisk(path.join(mount, 'filler'));

      // Rewrite the rows until PGlite fails; a new WAL segment cannot be created, which PostgreSQL
      // reports as a PANIC (measured: within a few hundred statements).
      const errors: unknown[] = [];
      for (let i = 0; i < 5000 && !guard.stopped && errors.length < 50; i++) {
        try {
          await database.db.execute(sql.raw("update filler_rows set v = md5(random()::text) || repeat('x', 900)"));
        } catch (err) {
          errors.push(err);
        }
      }
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every(isOutOfDisk)).toBe(true);
      expect(guard.writable).toBe(false);

      if (guard.stopped) {
        // Unguarded, this next statement would spin in XLogFlush forever and block the event loop.
        const started = Date.now();
        await expect(database.db.execute(sql`select 1`)).rejects.toSatisfy((err: unknown) => storageFailure(err) instanceof DatabaseStopped);
        expect(Date.now() - started).toBeLessThan(1000);
        const read = await app.inject({ method: 'GET', url: configsUrl, headers: { cookie } });
        expect(read.statusCode).toBe(503);
        expect(read.json()).toEqual(STOPPED);
        const change = await app.inject({ method: 'PUT', url: configsUrl, headers: { cookie }, payload: { inventoryWeights: { civic: 5 } } });
        expect(change.json()).toEqual(STOPPED);
      } else {
        // Only clean "could not extend file" errors: reads still work, changes answer 507.
        expect((await app.inject({ method: 'GET', url: configsUrl, headers: { cookie } })).statusCode).toBe(200);
        const change = await app.inject({ method: 'PUT', url: configsUrl, headers: { cookie }, payload: { inventoryWeights: { civic: 5 } } });
        expect(change.json()).toEqual(OUT_OF_DISK);
      }
    } finally {
      await app?.close();
      const started = Date.now();
      await database.close();
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
  });
});
