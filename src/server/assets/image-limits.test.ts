/**
 * Images over MAX_IMAGE_PIXELS are refused with a message naming the limit, before any
 * decode; every sharp job runs in the bounded image queue (at most max(1, cores - 1) at once).
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { assets } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { MAX_IMAGE_PIXELS } from '../../domain/constants';
import { inspectImage, tooManyPixelsMessage } from './image';
import { IMAGE_CONCURRENCY, imageQueueIdle, imageQueueStats, raiseImageJob, runImageJob } from './image-queue';
import { Invalid } from '../errors';

/** A 16000x16000 PNG (256 MP) of one colour: it compresses to well under the 2 MB upload limit. */
function hugePng(): Promise<Buffer> {
  return sharp(Buffer.from([200, 0, 0]), { raw: { width: 1, height: 1, channels: 3 } })
    .resize(16000, 16000, { kernel: 'nearest' })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

describe('pixel limit', () => {
  let t: TestApp;
  let huge: Buffer;

  beforeAll(async () => {
    [t, huge] = await Promise.all([createTestApp(), hugePng()]);
  });
  afterAll(() => t.close());

  it('refuses a 16000x16000 upload naming the limit, and stores nothing', async () => {
    expect(huge.length).toBeLessThan(2_097_152);
    const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    const before = await t.database.db.$count(assets, eq(assets.dealerId, DEMO_DEALER.id));
    const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.png', data: huge, contentType: 'image/png' }]);
    const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
    const [r] = res.json().results;
    expect(r).toMatchObject({ ok: false, error: tooManyPixelsMessage(16000, 16000) });
    expect(r.error).toBe('Invalid file type or size: the image is 16000x16000 (256,000,000 pixels); the limit is 25,000,000 pixels (25 MP)');
    expect(await t.database.db.$count(assets, eq(assets.dealerId, DEMO_DEALER.id))).toBe(before);
  });

  it('inspectImage throws a 400 Invalid naming the limit', async () => {
    const err = await inspectImage(huge).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Invalid);
    expect((err as Invalid).statusCode).toBe(400);
    expect((err as Invalid).message).toContain(`${MAX_IMAGE_PIXELS.toLocaleString('en-US')} pixels`);
  });

  it('still accepts a normal banner', async () => {
    expect(await inspectImage(await makeBanner(1920, 300))).toEqual({ mimeType: 'image/jpeg', width: 1920, height: 300 });
  });
});

describe('image queue', () => {
  it('is bounded by max(1, cores - 1)', () => {
    const cores = os.availableParallelism?.() ?? os.cpus().length;
    expect(IMAGE_CONCURRENCY).toBe(Math.max(1, cores - 1));
    expect(imageQueueStats().concurrency).toBe(IMAGE_CONCURRENCY);
    expect(sharp.concurrency()).toBe(1); // one libvips thread per job
  });

  it('never runs more jobs at once than its bound; image inspection waits its turn', async () => {
    const total = IMAGE_CONCURRENCY * 3 + 2;
    let running = 0;
    let maxRunning = 0;
    const releases: Array<() => void> = [];
    const started: Promise<void>[] = [];
    const jobs = Array.from({ length: total }, () => {
      let markStarted!: () => void;
      started.push(new Promise<void>((r) => (markStarted = r)));
      return runImageJob(async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        markStarted();
        await new Promise<void>((r) => releases.push(r));
        running -= 1;
      });
    });
    await Promise.all(started.slice(0, IMAGE_CONCURRENCY));
    expect(imageQueueStats()).toMatchObject({ active: IMAGE_CONCURRENCY, pending: total - IMAGE_CONCURRENCY });

    // An upload's inspection queued behind them does not start while the queue is full.
    let inspected = false;
    const inspection = inspectImage(await makeBanner(320, 50)).then((info) => ((inspected = true), info));
    await new Promise((r) => setImmediate(r));
    expect(inspected).toBe(false);
    expect(imageQueueStats().pending).toBe(total - IMAGE_CONCURRENCY + 1);

    // A shopper's banner resize queued after it starts first: delivery goes ahead of waiting uploads.
    const order: string[] = [];
    void inspection.then(() => order.push('inspection'));
    const delivery = runImageJob(async () => void order.push('delivery'), 'delivery');

    // Release jobs one by one until all have run.
    for (let done = 0; done < total; done++) {
      while (releases.length === 0) await new Promise((r) => setImmediate(r));
      releases.shift()!();
      expect(running).toBeLessThanOrEqual(IMAGE_CONCURRENCY);
    }
    await Promise.all(jobs);
    expect((await inspection).width).toBe(320);
    await delivery;
    expect(order).toEqual(['delivery', 'inspection']);
    expect(maxRunning).toBe(IMAGE_CONCURRENCY);
    expect(imageQueueStats()).toMatchObject({ active: 0, pending: 0 });
  });

  it('runs speculative background jobs after uploads and deliveries, unless a request raises one', async () => {
    // Fill every slot, then queue: two background jobs, an upload, a delivery.
    const releases: Array<() => void> = [];
    const blockers = Array.from({ length: IMAGE_CONCURRENCY }, () => runImageJob(() => new Promise<void>((r) => releases.push(r))));
    while (releases.length < IMAGE_CONCURRENCY) await new Promise((r) => setImmediate(r));
    expect(imageQueueIdle()).toBe(false);
    const order: string[] = [];
    const job = (name: string) => async () => void order.push(name);
    const queued = [
      runImageJob(job('background a'), 'background', 'spec-a'),
      runImageJob(job('background b'), 'background', 'spec-b'),
      runImageJob(job('upload'), 'upload'),
      runImageJob(job('delivery'), 'delivery'),
    ];
    // A shopper now waits for "background b": it goes with the deliveries.
    raiseImageJob('spec-b', 'delivery');
    raiseImageJob('not-queued', 'delivery'); // nothing waits under this id: no error
    for (const release of releases) release();
    await Promise.all([...blockers, ...queued]);
    expect(order).toEqual(['delivery', 'background b', 'upload', 'background a']);
    expect(imageQueueIdle()).toBe(true);
  });
});
