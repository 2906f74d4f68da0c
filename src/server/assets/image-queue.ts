/**
 * The bounded queue every sharp (libvips) job runs in (issue 11 §8): upload inspection and banner
 * resizing. At most IMAGE_CONCURRENCY jobs run at once (max(1, cores - 1)) and each job uses one
 * libvips thread (sharp.concurrency(1)), so image work never holds every core or every slot of
 * libuv's thread pool, which argon2 sign-ins, DNS and file reads share: uploads wait their turn,
 * delivery of cached banners and sign-ins do not wait on them.
 *
 * One queue per process, like the thread pool and the cores it rations (not per app).
 */
import os from 'node:os';
import pLimit from 'p-limit';
import sharp from 'sharp';

/** Image jobs that may run at once: max(1, available cores - 1). */
export const IMAGE_CONCURRENCY = Math.max(1, (os.availableParallelism?.() ?? os.cpus().length) - 1);

sharp.concurrency(1);

const limit = pLimit(IMAGE_CONCURRENCY);

/**
 * Runs `job` (a function doing sharp work) in the image queue and returns its result.
 * Input: the job; output: its promise's value, after any queued jobs ahead of it ran.
 * @throws whatever `job` throws. Issue 11 §8.
 */
export function runImageJob<T>(job: () => Promise<T>): Promise<T> {
  return limit(job);
}

/** The queue's state: jobs running, jobs waiting, and the bound (tests, diagnostics). */
export function imageQueueStats(): { active: number; pending: number; concurrency: number } {
  return { active: limit.activeCount, pending: limit.pendingCount, concurrency: limit.concurrency };
}
