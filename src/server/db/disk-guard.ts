/**
 * Keeps the server answering when the PGlite data directory runs out of disk space:
 * "a write that fails for lack of disk answers a clear error, the
 * server keeps answering reads and health checks, and SIGTERM still stops it").
 *
 * What PGlite 0.5 does on a full disk (measured on a small tmpfs):
 * - a write that needs a table or index file to grow fails cleanly: SQLSTATE 53100 `could not
 *   extend file "base/5/16385": No space left on device` (severity ERROR); later reads and small
 *   writes that fit still work;
 * - a write that needs a new WAL segment fails with 53100 `could not write to file
 *   "pg_wal/xlogtemp.42": No space left on device`, severity PANIC. PostgreSQL would restart
 *   there; PGlite returns the error and its state is broken: the NEXT statement of any kind spins
 *   synchronously inside the WASM (XLogFlush, from CommitTransactionCommand) at ~95 % CPU, forever,
 *   even after space is freed. The JavaScript event loop never runs again, so neither the
 *   SIGTERM handler nor main.ts's 15 s force-exit timer can fire; only SIGKILL ends it.
 *
 * So three defences, PGlite with a data directory only (PostgreSQL manages its own disk):
 * 1. StorageGuard + storagePlugin: statfs(DATA_DIR) every STORAGE_CHECK_INTERVAL_MS; while the
 *    free space is below DATA_MIN_FREE_MB (default 64, more than a 16 MB WAL segment plus a
 *    checkpoint) every change is refused with 507 INSUFFICIENT_STORAGE before it reaches the
 *    database, reads keep working, and writes resume by themselves once space is back.
 *    `app.storage.writable` tells background writers (the tracking event writer) the same.
 * 2. failSafePglite: a 53100 error from PGlite also marks the guard not writable at once (until
 *    the next free-space check), and a PANIC or FATAL one (or the WASM aborting) marks the
 *    database stopped: from then on every statement is refused in JavaScript, before it can
 *    enter the broken WASM, with 503 UNAVAILABLE 'The database stopped ...', and close() skips
 *    PGlite's own shutdown (which would spin too). The server keeps answering (health checks,
 *    static files, the 503s) and SIGTERM exits; on restart PostgreSQL replays its WAL.
 * 3. storageFailure / isOutOfDisk: the app's error handler answers 507 for ENOSPC/53100 errors
 *    that still reach it (a write that was already running when the disk filled).
 *
 * 4. Reservations: the free space is measured only every few seconds, so concurrent uploads could
 *    each pass the floor and together fill the disk. Every change with a body reserves
 *    RESERVED_PER_BODY_BYTE times its declared size (Content-Length; for a chunked body the most it
 *    may send) against the free space at the last check minus what other requests hold, once the
 *    caller's access was checked; one that would cross DATA_MIN_FREE_MB is refused with 507 before
 *    anything is stored (and, for an upload, before its files are read). The reservation is
 *    released when the request ends, after the free space was measured again (so what it wrote is
 *    counted by then).
 *
 * Which requests are changes: every method but GET, HEAD and OPTIONS. Signing in counts (it
 * stores a session), so while the disk is low nobody new can sign in; users already signed in
 * keep reading. Exempt: sign-out (it only deletes a row, and must not leave a user stuck
 * signed in) and the tracking endpoint, whose own handler consults `app.storage.writable`.
 */
import { statfs } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { PGlite } from '@electric-sql/pglite';
import { AppError, InsufficientStorage } from '../errors';
import { causeChain } from './availability';
import { MAX_MULTIPART_REQUEST_BYTES } from '../security/limits';

/** How often the free space of DATA_DIR is checked. */
export const STORAGE_CHECK_INTERVAL_MS = 2000;
/** The 503 message once PGlite has stopped after a disk-full PANIC. */
export const DATABASE_STOPPED_MESSAGE = 'The database stopped after running out of disk space; free disk space and restart the server';
/** Changes that stay allowed while the disk is low (method and route pattern); see module doc. */
export const WRITES_ALLOWED_WHEN_FULL: ReadonlySet<string> = new Set(['POST /api/auth/logout', 'POST /api/analytics/track']);
/**
 * Disk bytes reserved per byte of a request body: the database writes new data twice (its WAL,
 * then the table), and a multipart body is its files plus a few hundred bytes.
 */
export const RESERVED_PER_BODY_BYTE = 2;
/** SQLSTATE disk_full. */
const DISK_FULL_SQLSTATE = '53100';
const MIB = 1024 * 1024;

/** What the rest of the server may ask about storage: `app.storage`. */
export interface StorageStatus {
  /**
   * False while new data must not be written: the data directory is below DATA_MIN_FREE_MB, a
   * write just failed for lack of space, or the database stopped. Always true on PostgreSQL and
   * in-memory PGlite. Background writers (the tracking event writer) check it before queueing.
   */
  readonly writable: boolean;
  /** True once PGlite has stopped after a PANIC; only a restart brings it back. */
  readonly stopped: boolean;
  /** Free bytes of the data directory at the last check; null when not known (no guard). */
  readonly freeBytes: number | null;
  /** The configured floor in bytes (DATA_MIN_FREE_MB); 0 without a guard. */
  readonly minFreeBytes: number;
}

/** The part of a pino / Fastify logger the guard uses. */
export interface StorageLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** `app.storage` when there is no PGlite data directory to guard. */
export const ALWAYS_WRITABLE: StorageStatus = Object.freeze({ writable: true, stopped: false, freeBytes: null, minFreeBytes: 0 });

/** Thrown instead of running a statement once PGlite has stopped; answered 503 UNAVAILABLE. */
export class DatabaseStopped extends AppError {
  constructor(readonly reason: string) {
    super('UNAVAILABLE', DATABASE_STOPPED_MESSAGE);
    this.name = 'DatabaseStopped';
  }
}

/**
 * The storage state of one PGlite data directory (see module doc). It owns no timer: the
 * storagePlugin calls check() periodically and releases its timer on close.
 */
export class StorageGuard implements StorageStatus {
  freeBytes: number | null = null;
  /** Free space below the floor at the last check, or a disk-full error since. */
  lowSpace = false;
  stopped = false;
  /** PGlite's words when it stopped. */
  stopReason: string | null = null;
  /** Where state changes are logged; set by storagePlugin. */
  log: StorageLogger | undefined;
  /** Bytes held by requests in progress (reserve), counted as used until each ends. */
  reserved = 0;

  /**
   * @param dataDir the absolute data directory.
   * @param minFreeBytes the floor (DATA_MIN_FREE_MB in bytes); 0 refuses writes only after a disk-full error.
   * @param measure the free bytes of `dataDir` (statfs: space available to unprivileged users); tests pass their own.
   */
  constructor(
    readonly dataDir: string,
    readonly minFreeBytes: number,
    private readonly measure: (dataDir: string) => Promise<number> = freeBytesOf,
  ) {}

  get writable(): boolean {
    return !this.stopped && !this.lowSpace;
  }

  /**
   * Measures the free space (statfs, space available to unprivileged users) and updates
   * `lowSpace`; logs when writes stop or resume. Never throws: a failed statfs keeps the state.
   */
  async check(): Promise<void> {
    let free: number;
    try {
      free = await this.measure(this.dataDir);
    } catch (err) {
      this.log?.warn({ err, dataDir: this.dataDir }, 'cannot measure free disk space of the data directory');
      return;
    }
    this.freeBytes = free;
    const low = free < this.minFreeBytes;
    if (low !== this.lowSpace) {
      const detail = { dataDir: this.dataDir, freeMb: Math.floor(free / MIB), minFreeMb: Math.floor(this.minFreeBytes / MIB) };
      if (low) this.log?.warn(detail, 'data directory is low on disk space; refusing changes');
      else this.log?.info(detail, 'data directory has disk space again; accepting changes');
    }
    this.lowSpace = low;
  }

  /**
   * Holds `bytes` of the free space for one request (module doc, defence 4).
   * @returns the release function (call it once the request ended; it measures the free space
   *   again, then gives the bytes back; calling it again does nothing), or null when the free space
   *   at the last check minus every reservation would fall below the floor with these bytes too
   *   (never null while the free space is unknown).
   */
  reserve(bytes: number): (() => Promise<void>) | null {
    if (this.freeBytes !== null && this.freeBytes - this.reserved - bytes < this.minFreeBytes) return null;
    this.reserved += bytes;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      try {
        await this.check();
      } finally {
        this.reserved -= bytes;
      }
    };
  }

  /** A write failed for lack of space: refuse changes until the next check finds enough. */
  noteDiskFull(reason: string): void {
    if (!this.lowSpace) this.log?.warn({ dataDir: this.dataDir, reason }, 'a write failed for lack of disk space; refusing changes');
    this.lowSpace = true;
  }

  /** PGlite reported a PANIC or FATAL error (or aborted): refuse every statement from now on. */
  noteStopped(reason: string): void {
    if (!this.stopped) {
      this.log?.error({ dataDir: this.dataDir, reason }, 'the embedded database stopped; every request that needs it answers 503 until the server is restarted');
    }
    this.stopped = true;
    this.stopReason ??= reason;
  }
}

/** Free bytes of the file system holding `dir`, as an unprivileged user may use them. */
async function freeBytesOf(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

function fieldOf(err: object, name: string): string | undefined {
  const v = (err as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Node's WebAssembly.RuntimeError (PGlite's wasm trapped). Read through globalThis: the server's
 * TypeScript project has Node's types but not the DOM lib, which is where TypeScript declares the
 * WebAssembly global.
 */
const WasmRuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error } }).WebAssembly.RuntimeError;

/** Looks at an error PGlite threw and tells the guard (see module doc, defence 2). */
function observePgliteError(err: unknown, guard: StorageGuard): void {
  if (!err || typeof err !== 'object') return;
  const severity = fieldOf(err, 'severity');
  const message = fieldOf(err, 'message') ?? String(err);
  if (severity === 'PANIC' || severity === 'FATAL' || err instanceof WasmRuntimeError || fieldOf(err, 'name') === 'ExitStatus') {
    guard.noteStopped(message);
  } else if (fieldOf(err, 'code') === DISK_FULL_SQLSTATE) {
    guard.noteDiskFull(message);
  }
}

/**
 * Installs defence 2 on a PGlite instance: watches its errors and, once it has stopped, refuses
 * every statement before it enters the WASM. Every PGlite query, exec, transaction and close goes
 * through `execProtocolRawSync`, and their errors through `execProtocol` / `execProtocolStream`,
 * all called as instance methods, so wrapping those three on the instance covers them all.
 * @param client an open PGlite instance (on a data directory).
 * @param guard the data directory's guard, told about disk-full and stopped errors.
 * @throws nothing itself; a refused statement rejects with DatabaseStopped.
 */
export function failSafePglite(client: PGlite, guard: StorageGuard): void {
  const runSync = client.execProtocolRawSync.bind(client);
  client.execProtocolRawSync = (message: Uint8Array) => {
    if (guard.stopped) throw new DatabaseStopped(guard.stopReason ?? 'stopped');
    try {
      return runSync(message);
    } catch (err) {
      observePgliteError(err, guard);
      throw err;
    }
  };
  const observed = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      observePgliteError(err, guard);
      throw err;
    }
  };
  const execProtocol = client.execProtocol.bind(client);
  client.execProtocol = (...args: Parameters<PGlite['execProtocol']>) => observed(() => execProtocol(...args));
  const execProtocolStream = client.execProtocolStream.bind(client);
  client.execProtocolStream = (...args: Parameters<PGlite['execProtocolStream']>) => observed(() => execProtocolStream(...args));
}

/**
 * What to answer for an error caused by the storage (defence 3).
 * @param err anything thrown by a route or a database call, possibly wrapped (`cause`) by Drizzle.
 * @returns DatabaseStopped (503 UNAVAILABLE) once PGlite has stopped; InsufficientStorage (507
 *   INSUFFICIENT_STORAGE) for Node's ENOSPC or EDQUOT and SQLSTATE 53100 (disk_full); null for
 *   anything else. Never throws.
 */
export function storageFailure(err: unknown): AppError | null {
  for (const current of causeChain(err)) {
    if (current instanceof DatabaseStopped) return current;
    const code = fieldOf(current, 'code');
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === DISK_FULL_SQLSTATE) return new InsufficientStorage();
  }
  return null;
}

/**
 * True when `err` means the disk (or quota) is full, or the database stopped because it was.
 * @param err anything thrown; see storageFailure for what is recognised.
 */
export function isOutOfDisk(err: unknown): boolean {
  return storageFailure(err) !== null;
}

/** Whether a request would change data and must be refused while the disk is low (module doc). */
export function isRefusedWhenFull(request: Pick<FastifyRequest, 'method'> & { routeOptions: { url?: string } }): boolean {
  const method = request.method;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return false;
  const route = request.routeOptions.url;
  return !(route && WRITES_ALLOWED_WHEN_FULL.has(`${method} ${route}`));
}

/** Each request's reservation release (storagePlugin). */
const reservations = new WeakMap<FastifyRequest, () => Promise<void>>();

/**
 * The most body bytes a request may send: its Content-Length, else (a chunked body) its cap (the
 * multipart request cap, or the route's body limit); 0 without a body.
 */
function bodyBytesAtMost(request: FastifyRequest): number {
  const declared = request.headers['content-length'];
  if (declared !== undefined) return Number(declared) || 0;
  if (request.headers['transfer-encoding'] === undefined) return 0;
  return /^multipart\//i.test(request.headers['content-type'] ?? '') ? MAX_MULTIPART_REQUEST_BYTES : request.routeOptions.bodyLimit ?? 1024 * 1024;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Storage state: `app.storage.writable` is false while changes must not be written. */
    storage: StorageStatus;
  }
}

export interface StoragePluginOptions {
  /** The data directory's guard (PGlite on disk); absent = always writable, no checks. */
  guard?: StorageGuard;
  /** Check interval; STORAGE_CHECK_INTERVAL_MS unless told (tests). */
  intervalMs?: number;
}

/**
 * Fastify plugin: decorates `app.storage`, checks the free space once at registration and then
 * every interval (an unref'd timer, cleared on close), refuses changes with 507 (or 503 once
 * the database stopped) while the guard is not writable, and reserves each change's body size
 * (module doc, defence 4): 507 naming the size when it does not fit.
 */
export const storagePlugin = fp(
  async (app: FastifyInstance, opts: StoragePluginOptions) => {
    const guard = opts.guard;
    app.decorate('storage', guard ?? ALWAYS_WRITABLE);
    if (!guard) return;
    guard.log = app.log;
    await guard.check();
    let checking = false;
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      void guard.check().finally(() => (checking = false));
    }, opts.intervalMs ?? STORAGE_CHECK_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
    app.addHook('onRequest', (request, _reply, done) => {
      if (guard.writable || !isRefusedWhenFull(request)) return done();
      done(guard.stopped ? new DatabaseStopped(guard.stopReason ?? 'stopped') : new InsufficientStorage());
    });
    // After the access check (accessPlugin's preValidation, registered before this plugin), so
    // nobody without the right to write can hold disk space; before the handler stores anything.
    app.addHook('preValidation', (request, _reply, done) => {
      if (!isRefusedWhenFull(request)) return done();
      const bytes = bodyBytesAtMost(request) * RESERVED_PER_BODY_BYTE;
      if (bytes === 0) return done();
      const release = guard.reserve(bytes);
      if (!release) {
        const neededMb = Math.ceil(bytes / MIB);
        request.log.warn({ neededMb, freeMb: Math.floor((guard.freeBytes ?? 0) / MIB), reservedMb: Math.ceil(guard.reserved / MIB) }, 'not enough disk space for a request; answered 507');
        return done(new InsufficientStorage(`The server has not enough free disk space for this request (about ${neededMb} MB); nothing was stored. Try again later or with fewer files`));
      }
      reservations.set(request, release);
      done();
    });
    // The request's reservation ends with it: answered, or abandoned by the client.
    const release = async (request: FastifyRequest) => {
      const held = reservations.get(request);
      reservations.delete(request);
      await held?.();
    };
    app.addHook('onResponse', release);
    app.addHook('onRequestAbort', release);
  },
  { name: 'dc-banners-storage' },
);
