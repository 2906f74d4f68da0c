/**
 * The event journal (docs/OPERATIONS.md "What a crash can lose"): where the event writer
 * (service.ts) puts acknowledged events while the database does not take them, so a crash of the
 * process (kill -9, OOM) during an outage loses none of them.
 *
 * Files live in one directory (DATA_DIR/event-journal), one JSON event per line, appended and
 * fdatasync'd in small batches; a file is named `<pid>-<ms>-<n>.ndjson` after the process writing
 * it. A file is deleted once every event in it is in the database and the writer has moved on to
 * another file (the outage ended). At start a process claims the files of processes that are not
 * running (a crashed server, a killed cluster worker, an earlier run with the same pid in a
 * container) by renaming them to its own name, which only one claimant can do, and writes their
 * events; writing an event twice is harmless (the unique indexes of `events` keep one impression,
 * click and conversion per page view).
 */
import { mkdir, open, readdir, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { AcceptedEvent } from './service';

/** One journal file; `outstanding` counts its events not yet in the database. */
export interface JournalSegment {
  readonly file: string;
  outstanding: number;
  /** Still appended to (the current file of the outage). */
  open: boolean;
  handle: FileHandle | null;
}

const FILE = /^(\d+)-\d+-\d+\.ndjson$/;

/** True when a process with this pid runs (EPERM: it runs as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The journal of one process (see the module doc). */
export class EventJournal {
  private current: JournalSegment | null = null;
  private seq = 0;
  /** Files this instance created or claimed (never claimed again by it). */
  private readonly own = new Set<string>();

  /** @param dir the journal directory, created on first use */
  constructor(
    private readonly dir: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  private nextName(): string {
    const name = `${process.pid}-${Date.now()}-${++this.seq}.ndjson`;
    this.own.add(name);
    return path.join(this.dir, name);
  }

  /**
   * Appends events to the current file (opened on first use) and waits until they are on disk
   * (fdatasync). The caller adds them to the returned segment's `outstanding`.
   * @throws the file system's error (nothing is then known to be on disk).
   */
  async append(events: AcceptedEvent[]): Promise<JournalSegment> {
    if (!this.current) {
      await mkdir(this.dir, { recursive: true });
      const file = this.nextName();
      this.current = { file, outstanding: 0, open: true, handle: await open(file, 'a') };
    }
    const segment = this.current;
    await segment.handle!.appendFile(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    await segment.handle!.datasync();
    return segment;
  }

  /** Ends appends to the current file (the outage is over): it is deleted once its events are in the database. */
  rotate(): void {
    const segment = this.current;
    if (!segment) return;
    this.current = null;
    segment.open = false;
    this.release(segment, 0);
  }

  /** `count` events of `segment` are in the database; the file goes once none is left and it is not appended to. */
  release(segment: JournalSegment, count: number): void {
    segment.outstanding -= count;
    if (segment.outstanding > 0 || segment.open) return;
    const handle = segment.handle;
    segment.handle = null;
    void (async () => {
      await handle?.close();
      await unlink(segment.file);
    })().catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ err, file: segment.file }, 'event journal file not deleted');
    });
  }

  /**
   * Claims the files of processes that no longer run (see the module doc) and reads their events.
   * A line that is not JSON (a crash in the middle of an append, before it was acknowledged as
   * written) is skipped. Never throws: a file that cannot be read is logged and left in place.
   * @returns each claimed file with its events, `outstanding` set to their count.
   */
  async claimOrphans(): Promise<Array<{ segment: JournalSegment; events: AcceptedEvent[] }>> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.error({ err, dir: this.dir }, 'event journal not readable');
      return [];
    }
    const claimed: Array<{ segment: JournalSegment; events: AcceptedEvent[] }> = [];
    for (const name of names) {
      const pid = Number(FILE.exec(name)?.[1]);
      if (!pid || this.own.has(name) || (pid !== process.pid && running(pid))) continue;
      const file = this.nextName();
      try {
        await rename(path.join(this.dir, name), file);
      } catch {
        this.own.delete(path.basename(file));
        continue; // another process claimed it first
      }
      try {
        const events: AcceptedEvent[] = [];
        for (const line of (await readFile(file, 'utf8')).split('\n')) {
          if (!line) continue;
          try {
            const e = JSON.parse(line) as AcceptedEvent & { occurredAt: string };
            events.push({ ...e, occurredAt: new Date(e.occurredAt) });
          } catch {
            /* a torn last line: see the doc */
          }
        }
        const segment: JournalSegment = { file, outstanding: events.length, open: false, handle: null };
        if (events.length === 0) this.release(segment, 0);
        else claimed.push({ segment, events });
      } catch (err) {
        this.log.error({ err, file }, 'event journal file not readable; left in place');
      }
    }
    return claimed;
  }

  /** Closes the current file; its events not in the database stay in it for the next start. */
  async close(): Promise<void> {
    const segment = this.current;
    this.current = null;
    if (!segment) return;
    segment.open = false;
    if (segment.outstanding <= 0) return this.release(segment, 0);
    await segment.handle?.close();
    segment.handle = null;
  }
}
