/**
 * The bounded queue every sharp (libvips) job runs in: upload inspection and banner
 * resizing. At most IMAGE_CONCURRENCY jobs run at once (max(1, cores - 1)) and each job uses one
 * libvips thread (sharp.concurrency(1)), so image work never holds every core or every slot of
 * libuv's thread pool, which argon2 sign-ins, DNS and file reads share. Banner resizing for
 * delivery (`priority: 'delivery'`) goes ahead of every waiting upload inspection, so a shopper's
 * banner waits at most for the job already running, never for a queue of uploads.
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
const PRIORITY = { delivery: 1, upload: 0 } as const;

/**
 * Runs `job` (a function doing sharp work) in the image queue and returns its result.
 * Input: the job and whose work it is ('upload' by default; 'delivery' jumps ahead of waiting
 * uploads); output: its promise's value, after the jobs ahead of it ran. Its run time (not its
 * wait) goes to the `dcb_image_processing_seconds` metric.
 * @throws whatever `job` throws.
 */
export function runImageJob<T>(job: () => Promise<T>, priority: keyof typeof PRIORITY = 'upload'): Promise<T> {
  return queue.add(
    async () => {
      const stop = imageJobSeconds.startTimer({ kind: priority });
      try {
        return await job();
      } finally {
        stop();
      }
    },
    { priority: PRIORITY[priority] },
  );
}

/** The queue's state: jobs running, jobs waiting, and the bound (tests, diagnostics). */
export function imageQueueStats(): { active: number; pending: number; concurrency: number } {
  return { active: queue.pending, pending: queue.size, concurrency: queue.concurrency };
}
