/**
 * The bounded queue every sharp (libvips) job runs in: upload inspection and banner
 * resizing. At most IMAGE_CONCURRENCY jobs run at once (max(1, cores - 1)) and each job uses one
 * libvips thread (sharp.concurrency(1)), so image work never holds every core or every slot of
 * libuv's thread pool, which argon2 sign-ins, DNS and file reads share. Banner resizing for
 * delivery (`priority: 'delivery'`) goes ahead of every waiting upload inspection, so a shopper's
 * banner waits at most for the job already running, never for a queue of uploads. Speculative
 * work nobody asked for yet (`'background'`: the start-up warm-up's encodings once the process
 * serves requests) comes after both; a request that comes to need a waiting background job raises
 * it to its own priority (raiseImageJob).
 *
 * One queue per process, like the thread pool and the cores it rations (not per app).
 */
import os from 'node:os';
import PQueue from 'p-queue';
import sharp from 'sharp';
import { imageJobSeconds } from '../observability/metrics';

/** Image jobs that may run at once: max(1, available cores - 1). */
export const IMAGE_CONCURRENCY = Math.max(1, (os.availableParallelism?.() ?? os.cpus().length) - 1);

sharp.concurrency(1);

const queue = new PQueue({ concurrency: IMAGE_CONCURRENCY });
const PRIORITY = { delivery: 2, upload: 1, background: 0 } as const;

/** Whose work an image job is, most urgent first: a shopper's banner, a dealer's upload, speculative warm-up. */
export type ImageJobPriority = keyof typeof PRIORITY;

/**
 * Runs `job` (a function doing sharp work) in the image queue and returns its result.
 * Input: the job, whose work it is ('upload' by default; 'delivery' jumps ahead of waiting
 * uploads, 'background' waits behind both) and an optional id by which raiseImageJob finds it while
 * it waits; output: its promise's value, after the jobs ahead of it ran. Its run time (not its
 * wait) goes to the `dcb_image_processing_seconds` metric.
 * @throws whatever `job` throws.
 */
export function runImageJob<T>(job: () => Promise<T>, priority: ImageJobPriority = 'upload', id?: string): Promise<T> {
  return queue.add(
    async () => {
      const stop = imageJobSeconds.startTimer({ kind: priority });
      try {
        return await job();
      } finally {
        stop();
      }
    },
    { priority: PRIORITY[priority], ...(id === undefined ? {} : { id }) },
  );
}

/**
 * Moves the waiting job added with `id` to `priority` (a request now waits for a background
 * encoding). A job that already runs, or is not in the queue, is left as it is.
 */
export function raiseImageJob(id: string, priority: ImageJobPriority): void {
  try {
    queue.setPriority(id, PRIORITY[priority]);
  } catch {
    // Not waiting (running, done, or not added yet): nothing to move.
  }
}

/** True when no image job runs or waits: the moment speculative work may start. */
export const imageQueueIdle = (): boolean => queue.pending === 0 && queue.size === 0;

/** The queue's state: jobs running, jobs waiting, and the bound (tests, diagnostics). */
export function imageQueueStats(): { active: number; pending: number; concurrency: number } {
  return { active: queue.pending, pending: queue.size, concurrency: queue.concurrency };
}
