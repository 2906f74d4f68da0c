/**
 * A pass that runs every `intervalMs` in the server process (inventory feeds, retention): an
 * unref'd timer, overlapping calls sharing one pass, failures logged and never thrown, and a
 * stop() that waits for the running pass (ARCHITECTURE: state owned by the app, released in
 * onClose). What runs across processes only once is decided inside the pass (row claims).
 */
import type { FastifyBaseLogger } from 'fastify';

export class PeriodicTask<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T | null> | undefined;
  private stopping = false;

  /**
   * @param name what the log line calls a failed pass, e.g. 'feed scheduler pass'
   * @param pass one pass at `now`; `shouldStop` turns true when the server is closing
   * @param log where failures go
   */
  constructor(
    private readonly name: string,
    private readonly pass: (now: Date, shouldStop: () => boolean) => Promise<T>,
    protected readonly log?: FastifyBaseLogger,
  ) {}

  /** Runs a pass every `intervalMs` milliseconds; 0 (or less) leaves the task off. */
  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  /** True between start() with a positive interval and stop(). */
  get started(): boolean {
    return this.timer !== undefined;
  }

  /** One pass at `now` (tests inject it); resolves to its result, or null when it failed (logged). */
  tick(now = new Date()): Promise<T | null> {
    if (this.running) return this.running;
    this.running = (async () => {
      try {
        return await this.pass(now, () => this.stopping);
      } catch (e) {
        this.log?.error({ err: e }, `${this.name} failed`);
        return null;
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Stops the timer and waits for a running pass (told to stop early through shouldStop). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopping = true;
    await this.running;
  }
}
