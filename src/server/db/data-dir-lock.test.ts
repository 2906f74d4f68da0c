/**
 * The PGlite data-directory lock ('PGlite owned by one process'): one holder at a time,
 * a clear refusal naming the directory and the holder's PID, stale locks (dead PID, reused PID,
 * our own PID from a previous life, garbage) taken over, racing starters never both winning, and
 * release touching only our own lock. Needs no database, so it runs the same on both projects.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUse, LOCK_FILE_NAME, acquireDataDirLock, isHolderAlive, processStartTicks, type DataDirLock, type LockRecord } from './data-dir-lock';
import { openDatabase } from './client';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-lock-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function acquire(dir: string): Promise<DataDirLock> {
  const lock = await acquireDataDirLock(dir);
  cleanups.push(() => lock.release());
  return lock;
}

const readLock = (dir: string) => JSON.parse(readFileSync(path.join(dir, LOCK_FILE_NAME), 'utf8')) as LockRecord;
const writeLock = (dir: string, record: Partial<LockRecord>) =>
  writeFileSync(path.join(dir, LOCK_FILE_NAME), JSON.stringify({ app: 'dc-banners', startedAt: new Date().toISOString(), token: 'other', startTicks: null, ...record }));

/** A PID that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** A live process (killed after the test). */
function liveProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  cleanups.push(() => void child.kill('SIGKILL'));
  return child;
}

describe('data directory lock', () => {
  it('writes our PID, start time and a token into DATA_DIR/dc-banners.lock', async () => {
    const dir = tempDir();
    const lock = await acquire(dir);
    expect(lock.path).toBe(path.join(dir, LOCK_FILE_NAME));
    const record = readLock(dir);
    expect(record).toMatchObject({ app: 'dc-banners', pid: process.pid, token: lock.record.token });
    expect(record.startTicks).toBe(processStartTicks(process.pid));
  });

  it('refuses a second acquire of the same directory, naming the directory and the PID', async () => {
    const dir = tempDir();
    await acquire(dir);
    const err = await acquireDataDirLock(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirInUse);
    expect((err as Error).message).toBe(
      `Data directory ${dir} is in use by another dc-banners process (PID ${process.pid}). Stop it first, or set DATA_DIR to another directory.`,
    );
    // Relative paths are resolved, so the message names the absolute directory.
    const relative = path.relative(process.cwd(), dir);
    await expect(acquireDataDirLock(relative)).rejects.toThrow(`Data directory ${dir} is in use`);
  });

  it('refuses a lock held by another live process, naming its PID', async () => {
    const dir = tempDir();
    const child = liveProcess();
    await new Promise((r) => child.once('spawn', r));
    writeLock(dir, { pid: child.pid!, startTicks: processStartTicks(child.pid!) });
    await expect(acquireDataDirLock(dir)).rejects.toThrow(`Data directory ${dir} is in use by another dc-banners process (PID ${child.pid})`);
    expect(readLock(dir).pid).toBe(child.pid); // untouched
  });

  it('takes over a stale lock whose PID is dead', async () => {
    const dir = tempDir();
    const pid = await deadPid();
    writeLock(dir, { pid });
    expect(isHolderAlive({ pid, startTicks: null })).toBe(false);
    const lock = await acquire(dir);
    expect(readLock(dir)).toMatchObject({ pid: process.pid, token: lock.record.token });
    expect(existsSync(`${lock.path}.takeover`)).toBe(false);
  });

  it('takes over a lock whose PID now belongs to a different process (start time differs)', async () => {
    const dir = tempDir();
    const child = liveProcess();
    await new Promise((r) => child.once('spawn', r));
    const ticks = processStartTicks(child.pid!);
    if (ticks === null) return; // no /proc on this system: PID reuse is not detectable (documented limit)
    writeLock(dir, { pid: child.pid!, startTicks: ticks - 1 });
    const lock = await acquire(dir);
    expect(readLock(dir).token).toBe(lock.record.token);
  });

  it('takes over a lock carrying our own PID that this process does not hold (a restarted container)', async () => {
    const dir = tempDir();
    writeLock(dir, { pid: process.pid, startTicks: processStartTicks(process.pid) });
    const lock = await acquire(dir);
    expect(readLock(dir).token).toBe(lock.record.token);
  });

  it('takes over an unreadable lock file once it is older than a moment', async () => {
    const dir = tempDir();
    const file = path.join(dir, LOCK_FILE_NAME);
    writeFileSync(file, 'not json');
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    const lock = await acquire(dir);
    expect(readLock(dir).token).toBe(lock.record.token);
  });

  it('release removes our lock, and a released directory can be locked again', async () => {
    const dir = tempDir();
    const lock = await acquireDataDirLock(dir);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lock.release(); // idempotent
    const again = await acquire(dir);
    expect(existsSync(again.path)).toBe(true);
  });

  it('release does not remove a lock that is no longer ours', async () => {
    const dir = tempDir();
    const lock = await acquireDataDirLock(dir);
    writeLock(dir, { pid: 999_999, token: 'someone-else' }); // e.g. taken over while we were frozen
    lock.release();
    expect(readLock(dir).token).toBe('someone-else');
  });

  it('lets exactly one of several processes racing over a stale lock win', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    writeLock(dir, { pid: await deadPid() });
    const moduleUrl = new URL('./data-dir-lock.ts', import.meta.url).href;
    const script = `
      const { acquireDataDirLock } = await import(${JSON.stringify(moduleUrl)});
      await new Promise((r) => setTimeout(r, Number(process.env.START_AT) - Date.now()));
      try { await acquireDataDirLock(process.env.DIR); console.log('won'); }
      catch (e) { console.log('lost: ' + e.message); }
      setInterval(() => {}, 1000); // hold until killed
    `;
    const startAt = String(Date.now() + 4000); // all children past their start-up by then
    const children = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, DIR: dir, START_AT: startAt },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      cleanups.push(() => void child.kill('SIGKILL'));
      return child;
    });
    const outcomes = await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve, reject) => {
            let out = '';
            child.stdout!.on('data', (d) => {
              out += d;
              if (out.includes('\n')) resolve(out.trim());
            });
            child.stderr!.on('data', (d) => (out += d));
            child.once('exit', (code) => reject(new Error(`child exited ${code}: ${out}`)));
          }),
      ),
    );
    const winners = children.filter((_, i) => outcomes[i] === 'won');
    expect(winners).toHaveLength(1);
    expect(readLock(dir).pid).toBe(winners[0]!.pid);
    for (const outcome of outcomes.filter((o) => o !== 'won')) {
      expect(outcome).toBe(`lost: Data directory ${dir} is in use by another dc-banners process (PID ${winners[0]!.pid}). Stop it first, or set DATA_DIR to another directory.`);
    }
  });
});

describe('openDatabase on a data directory', () => {
  it('holds the lock while open and releases it on close', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const database = await openDatabase({ dataDir: dir });
    try {
      expect(readLock(dir).pid).toBe(process.pid);
      await expect(openDatabase({ dataDir: dir })).rejects.toThrow(`Data directory ${dir} is in use by another dc-banners process (PID ${process.pid})`);
      expect(database.storage?.writable).toBe(true);
    } finally {
      await database.close();
    }
    expect(existsSync(path.join(dir, LOCK_FILE_NAME))).toBe(false);
  });
});
