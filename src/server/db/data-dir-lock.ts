/**
 * One process per PGlite data directory ('PGlite owned by one process').
 *
 * PGlite has no interlock of its own (its postmaster.pid says PID -42): two servers on one
 * DATA_DIR both run, each with its own view in memory, and their writes corrupt each other's files
 * (lost rows, duplicate primary keys after a restart). So before PGlite opens DATA_DIR the server
 * takes `DATA_DIR/dc-banners.lock`, a small JSON record of its PID, the process's start time and a
 * random token, created with O_CREAT|O_EXCL (`wx`) so exactly one creator wins.
 *
 * Who holds an existing lock:
 * - its PID answers `kill(pid, 0)` (EPERM counts as alive) and, where /proc exists, the process
 *   with that PID started at the recorded time: alive, start-up is refused (DataDirInUse);
 * - otherwise (no such process, PID reused by a later process, our own PID from a previous life,
 *   e.g. PID 1 in a restarted container, or an unreadable record older than a moment) it is stale
 *   and is taken over.
 *
 * Taking over a stale lock, and the race it must not lose: two starters that both saw the same
 * stale record must not both win. Plain "unlink, then create" would let the slower one unlink the
 * faster one's fresh lock. So the stale record is removed only while holding a second exclusive
 * file, `dc-banners.lock.takeover` (also `wx`), and only if the lock file still holds exactly the
 * bytes that were judged stale. While the takeover file is held nobody else can remove the lock
 * (removal needs the takeover file, or is the owner's own release, and a stale lock's owner is
 * gone), and nobody can create it (it exists), so the re-read and the unlink see the same file.
 * After the unlink every starter races on the `wx` create again, and the losers see a live holder.
 * A takeover file older than TAKEOVER_STALE_MS (its creator died within the few milliseconds it is
 * held) is broken by renaming it to a private name first, so two breakers cannot both remove it
 * unless a third starter created a new one between their two renames; that needs three starters,
 * a crash inside a takeover and a 10-second-old file at once, and is accepted.
 *
 * Limits: liveness is judged in this PID namespace and on this host. A holder in another container
 * (another PID namespace) or on another machine sharing the directory over the network looks
 * dead and would be taken over: do not share one DATA_DIR between containers or hosts. Without
 * /proc (macOS) PID reuse is not detected: a stale lock whose PID now belongs to an unrelated
 * live process refuses start-up until the file is removed by hand (the error names the PID).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The lock file's name inside DATA_DIR. */
export const LOCK_FILE_NAME = 'dc-banners.lock';
/** An unreadable lock file younger than this may still be being written by its creator: wait for it. */
export const LOCK_WRITE_GRACE_MS = 2000;
/** A takeover file older than this was left by a starter that died mid-takeover: break it. */
export const TAKEOVER_STALE_MS = 10_000;
/** How long a starter waits before looking again while another one is taking over or writing. */
const RETRY_WAIT_MS = 25;
/** Look-create rounds before giving up (each one a few milliseconds apart). */
const MAX_ATTEMPTS = 400;

/** What the lock file holds. */
export interface LockRecord {
  app: 'dc-banners';
  pid: number;
  /** The holder's start time in clock ticks since boot (/proc/<pid>/stat field 22), null without /proc. */
  startTicks: number | null;
  /** When the lock was taken (ISO 8601), for people reading the file. */
  startedAt: string;
  /** Random, tells this lock apart from a later one with the same PID. */
  token: string;
}

/** A held data-directory lock. */
export interface DataDirLock {
  /** Absolute data directory. */
  readonly dataDir: string;
  /** Absolute path of the lock file. */
  readonly path: string;
  /** What was written into the lock file. */
  readonly record: LockRecord;
  /**
   * Removes the lock file if it is still ours (same token); never someone else's. Idempotent,
   * synchronous (it also runs from the process 'exit' event) and never throws.
   */
  release(): void;
}

/** Start-up error: another live process holds the data directory. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`Data directory ${dataDir} is in use by another dc-banners process (PID ${pid}). Stop it first, or set DATA_DIR to another directory.`);
    this.name = 'DataDirInUse';
  }
}

/**
 * Lock files this process holds, by path. A process-wide fact (the lock is per process), so a
 * module-level set: it tells "held by this very process" (refuse) apart from "our PID in the file,
 * left by a previous process that had the same PID" (stale).
 */
const heldHere = new Set<string>();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const errno = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/**
 * A process's start time in clock ticks since boot, from /proc/<pid>/stat (field 22).
 * @returns null when /proc is missing or the process does not exist.
 */
export function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) is in parentheses and may contain spaces: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]); // fields[0] is field 3 (state), so field 22 is fields[19]
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/**
 * Whether the holder recorded in a lock file is a live process (see module doc).
 * @param record the parsed lock file.
 * @returns false for a dead PID, a reused PID (different start time) or our own PID (we do not
 *   hold it, or heldHere would have said so).
 */
export function isHolderAlive(record: Pick<LockRecord, 'pid' | 'startTicks'>): boolean {
  if (record.pid === process.pid) return false;
  try {
    process.kill(record.pid, 0);
  } catch (err) {
    if (errno(err) !== 'EPERM') return false; // ESRCH: no such process
  }
  if (record.startTicks !== null) {
    const now = processStartTicks(record.pid);
    if (now !== null && now !== record.startTicks) return false;
  }
  return true;
}

function parseRecord(raw: string): LockRecord | null {
  try {
    const value = JSON.parse(raw) as Partial<LockRecord> | null;
    if (!value || typeof value !== 'object' || !Number.isInteger(value.pid) || (value.pid as number) <= 0) return null;
    const startTicks = typeof value.startTicks === 'number' ? value.startTicks : null;
    return { app: 'dc-banners', pid: value.pid as number, startTicks, startedAt: String(value.startedAt ?? ''), token: String(value.token ?? '') };
  } catch {
    return null;
  }
}

/** The file's bytes as text and its age, or null when it does not exist. */
function readLockFile(file: string): { raw: string; ageMs: number } | null {
  try {
    const ageMs = Date.now() - statSync(file).mtimeMs;
    return { raw: readFileSync(file, 'utf8'), ageMs };
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
}

/** Creates `file` exclusively with `text`, flushed to disk. @returns false when it already exists. */
function createExclusive(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (err) {
    if (errno(err) === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(file); // e.g. ENOSPC: leave no empty lock behind
    throw err;
  }
  closeSync(fd);
  return true;
}

/**
 * Removes the stale lock whose bytes were `staleRaw`, under the takeover file (see module doc).
 * Returns without removing anything when another starter is taking over, or the lock changed.
 */
async function removeStaleLock(lockFile: string, staleRaw: string, token: string): Promise<void> {
  const takeoverFile = `${lockFile}.takeover`;
  if (!createExclusive(takeoverFile, `${process.pid}\n`)) {
    const takeover = readLockFile(takeoverFile);
    if (takeover && takeover.ageMs > TAKEOVER_STALE_MS) {
      const aside = `${takeoverFile}.${token}.broken`;
      try {
        renameSync(takeoverFile, aside); // only one breaker can move this file
        unlinkSync(aside);
      } catch (err) {
        if (errno(err) !== 'ENOENT') throw err;
      }
    } else {
      await sleep(RETRY_WAIT_MS);
    }
    return;
  }
  try {
    if (readLockFile(lockFile)?.raw === staleRaw) unlinkSync(lockFile);
  } finally {
    unlinkSync(takeoverFile);
  }
}

/**
 * Takes the exclusive lock of a PGlite data directory (creating the directory if needed).
 * Call it before PGlite opens the directory; release the lock after PGlite is closed. A 'exit'
 * listener releases it too when the process ends without closing (process.exit on a start-up
 * error); a crash or SIGKILL leaves a stale lock, which the next start takes over.
 * @param dataDir the data directory (relative paths resolve against the working directory).
 * @returns the held lock.
 * @throws DataDirInUse naming the absolute directory and the holder's PID when a live process
 *   (or this one) holds it; the fs error when the directory or the file cannot be written
 *   (e.g. ENOSPC, EACCES); a plain Error when the lock stays contended for seconds.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const dir = path.resolve(dataDir);
  const lockFile = path.join(dir, LOCK_FILE_NAME);
  mkdirSync(dir, { recursive: true });
  const record: LockRecord = {
    app: 'dc-banners',
    pid: process.pid,
    startTicks: processStartTicks(process.pid),
    startedAt: new Date().toISOString(),
    token: randomUUID(),
  };
  const text = `${JSON.stringify(record)}\n`;

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // Another acquire in this process may have won while this one waited: our PID is then alive.
    if (heldHere.has(lockFile)) throw new DataDirInUse(dir, process.pid);
    if (createExclusive(lockFile, text)) return holdLock(dir, lockFile, record);
    const current = readLockFile(lockFile);
    if (!current) continue; // released in the meantime: create again
    const holder = parseRecord(current.raw);
    if (!holder && current.ageMs < LOCK_WRITE_GRACE_MS) {
      await sleep(RETRY_WAIT_MS); // its creator may not have written it yet
      continue;
    }
    if (holder && isHolderAlive(holder)) throw new DataDirInUse(dir, holder.pid);
    await removeStaleLock(lockFile, current.raw, record.token);
  }
  throw new Error(`Could not lock data directory ${dir}: ${lockFile} stayed contended; is another dc-banners process starting?`);
}

function holdLock(dataDir: string, lockFile: string, record: LockRecord): DataDirLock {
  heldHere.add(lockFile);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldHere.delete(lockFile);
    process.removeListener('exit', release);
    try {
      const current = readLockFile(lockFile);
      if (current && parseRecord(current.raw)?.token === record.token) unlinkSync(lockFile);
    } catch {
      /* nothing more to do: a lock left behind is stale once we are gone */
    }
  };
  process.on('exit', release);
  return { dataDir, path: lockFile, record, release };
}
