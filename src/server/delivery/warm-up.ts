/**
 * Banner warm-up at start-up: a process that has just started holds no encoded banner, so the
 * first requests for every hot banner would wait for its resize (and the dealer, candidate and
 * choice queries before it). The warm-up makes them itself, before and just after the process
 * listens, through the very functions the delivery route calls (`app.dealerSites.find`,
 * `slotChoice`, `bannerBytes`), so every cache a request reads is filled under the keys it reads:
 * the dealer's settings, the slot's choice and the encoded bytes (delivery/caches.ts).
 *
 * What is warmed, hottest first, at most BANNER_WARM_UP encodings:
 * - the slots (dealer × model × slot type) with impressions in the last WARM_UP_TRAFFIC_HOURS
 *   hours (event_rollups_hourly), by impressions;
 * - then the slots of live uploaded assets (active, inside their promotion window), newest first:
 *   a new banner, or a database with no traffic yet.
 * Each slot is warmed per request shape in WARM_UP_SHAPES order (desktop at 1x, mobile at 2x,
 * desktop at 2x; WebP, which every current browser accepts), every creative of its rotation.
 *
 * Start-up (`warmUpPlugin`, an onReady hook): the warm-up starts when the app is made ready, and
 * `listen` waits for it at most BANNER_WARM_UP_WAIT_MS; whatever is left goes on in the
 * background while requests are served, below their priority: each further encoding waits until
 * the process is idle (untilIdle: no image job running or waiting, and the event loop busy less than
 * BACKGROUND_MAX_UTILIZATION of the last BACKGROUND_IDLE_WINDOW_MS) and then runs at the image
 * queue's lowest priority, one at a time. Under sustained full load the rest therefore waits; a
 * request for one of its banners meanwhile encodes it at delivery priority (once, shared by every
 * request waiting for it), as without a warm-up. Failures (an asset deleted meanwhile, the database
 * away) are skipped and logged: the warm-up never fails a start. `app.close()` stops it after the
 * encoding in progress.
 */
import { performance } from 'node:perf_hooks';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { and, desc, eq, gte, gt, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { assets, eventRollupsHourly } from '../db/schema';
import type { SlotType, Variant } from '../../domain/schemas';
import { SLOT_TYPES } from '../../domain/enums';
import { bannerBytes, slotChoice, type DeliveryChoice, type DeliveryContext } from './service';
import type { DealerSites } from '../dealer-sites';
import type { CdnProber } from './cdn-probe';
import { imageQueueIdle } from '../assets/image-queue';

/** How far back traffic makes a slot hot, hours. */
export const WARM_UP_TRAFFIC_HOURS = 24;

/** The request shapes warmed per slot, most requested first (the embed script's srcset: 1x and 2x). */
export const WARM_UP_SHAPES: ReadonlyArray<{ variant: Variant; scale: 1 | 2 }> = [
  { variant: 'desktop', scale: 1 },
  { variant: 'mobile', scale: 2 },
  { variant: 'desktop', scale: 2 },
];

/** The window over which the background warm-up judges the event loop idle, ms. */
export const BACKGROUND_IDLE_WINDOW_MS = 250;
/** The event-loop utilization (0-1) under which the process counts as idle for background encodings. */
export const BACKGROUND_MAX_UTILIZATION = 0.5;

/**
 * Resolves once the process is idle enough for speculative work: no image job runs or waits and
 * the event loop was busy less than `maxUtilization` (0-1) of the last `windowMs` ms
 * (performance.eventLoopUtilization); checks once per window, so it waits at least one. Also
 * resolves as soon as `shouldStop()` says so (checked once per window).
 */
export async function untilIdle(shouldStop: () => boolean, windowMs = BACKGROUND_IDLE_WINDOW_MS, maxUtilization = BACKGROUND_MAX_UTILIZATION): Promise<void> {
  for (;;) {
    const before = performance.eventLoopUtilization();
    await new Promise<void>((resolve) => setTimeout(resolve, windowMs));
    if (shouldStop()) return;
    if (imageQueueIdle() && performance.eventLoopUtilization(before).utilization < maxUtilization) return;
  }
}

/** A slot to warm: the page model a request names, as beacons report it. */
export interface HotSlot {
  dealerId: string;
  model: string;
  type: SlotType;
}

/** What one warm-up did. */
export interface WarmUpResult {
  /** Slots looked at. */
  slots: number;
  /** Banner bytes made or found cached (one per creative, shape and slot; an SVG placeholder counts too). */
  banners: number;
  /** Slots or banners skipped for an error (a deleted asset or dealer, the database away). */
  failed: number;
  /** True when it stopped early (app closing). */
  stopped: boolean;
}

const isSlotType = (t: string): t is SlotType => (SLOT_TYPES as readonly string[]).includes(t);

/**
 * The slots to warm, hottest first, without repeats: those with impressions in the
 * WARM_UP_TRAFFIC_HOURS before `now` by impressions, then those of live uploaded assets, newest
 * first. Two queries, each bounded by `limit`.
 * @param now the app's clock (promotion windows, the traffic window)
 * @param limit the most slots returned
 */
export async function hotSlots(db: Db, now: Date, limit: number): Promise<HotSlot[]> {
  if (limit <= 0) return [];
  const h = eventRollupsHourly;
  const since = new Date(now.getTime() - WARM_UP_TRAFFIC_HOURS * 3600_000);
  const impressions = sql<number>`sum(${h.impressions})`;
  const traffic = await db
    .select({ dealerId: h.dealerId, model: h.model, type: h.slotType })
    .from(h)
    .where(gte(h.hour, since))
    .groupBy(h.dealerId, h.model, h.slotType)
    .having(gt(impressions, 0))
    .orderBy(desc(impressions), h.dealerId, h.model, h.slotType)
    .limit(limit);
  const live = await db
    .select({ dealerId: assets.dealerId, model: assets.modelKey, type: assets.type })
    .from(assets)
    .where(and(eq(assets.isActive, true), or(isNull(assets.startsAt), lte(assets.startsAt, now)), or(isNull(assets.endsAt), gt(assets.endsAt, now))))
    .groupBy(assets.dealerId, assets.modelKey, assets.type)
    .orderBy(desc(sql`max(${assets.createdAt})`), assets.dealerId, assets.modelKey, assets.type)
    .limit(limit);
  const seen = new Set<string>();
  const slots: HotSlot[] = [];
  for (const s of [...traffic, ...live]) {
    const key = `${s.dealerId}|${s.model}|${s.type}`;
    if (!isSlotType(s.type) || seen.has(key) || slots.length >= limit) continue;
    seen.add(key);
    slots.push({ dealerId: s.dealerId, model: s.model, type: s.type });
  }
  return slots;
}

/** What the warm-up works with: the app's database, caches, clock and CDN prober (the Fastify app is one). */
export interface WarmUpContext extends DeliveryContext {
  cdnProbes: CdnProber;
  dealerSites: Pick<DealerSites, 'find'>;
}

/**
 * Warms the banners of `slots` (see the module doc): for each request shape, then each slot, the
 * choice a request of that shape gets and the WebP bytes of every creative of its rotation, one
 * encoding at a time, until `budget` banners were made or `shouldStop()` says so.
 * `opts.background()`, asked before each slot and each banner, says whether the process already
 * serves requests: then the step first waits for `opts.idle()` (untilIdle by default) and the
 * encoding runs at background priority (bannerBytes).
 * @returns the counts; never throws (each failure is counted in `failed` and passed to `onError`).
 */
export async function warmBanners(
  ctx: WarmUpContext,
  slots: HotSlot[],
  opts: {
    budget: number;
    shouldStop?: () => boolean;
    onError?: (slot: HotSlot, err: unknown) => void;
    background?: () => boolean;
    idle?: () => Promise<void>;
  },
): Promise<WarmUpResult> {
  const result: WarmUpResult = { slots: slots.length, banners: 0, failed: 0, stopped: false };
  const stop = () => {
    if (opts.shouldStop?.()) result.stopped = true;
    return result.stopped || result.banners >= opts.budget;
  };
  const background = () => opts.background?.() ?? false;
  const idle = opts.idle ?? (() => untilIdle(() => opts.shouldStop?.() ?? false));
  /** Before a step: in the background, wait for an idle moment; true when the warm-up must end. */
  const pace = async () => {
    if (stop()) return true;
    if (background()) await idle();
    return stop();
  };
  for (const shape of WARM_UP_SHAPES) {
    for (const slot of slots) {
      if (await pace()) return result;
      let choice: DeliveryChoice;
      try {
        // The route's own steps: an unknown dealer or a model it does not show is skipped.
        const dealer = await ctx.dealerSites.find(slot.dealerId);
        if (!dealer) continue;
        choice = await slotChoice(ctx, dealer, { model: slot.model, type: slot.type, variant: shape.variant, scale: shape.scale }, ctx.cdnProbes);
      } catch (err) {
        result.failed++;
        opts.onError?.(slot, err);
        continue;
      }
      if (choice.url) continue; // a CDN image or fallback: redirected, nothing to encode
      // Every creative the slot rotates (the rotation bucket picks one per visitor); a placeholder has none.
      const creatives = choice.rotation.length > 0 ? choice.rotation : [null];
      for (const a of creatives) {
        if (await pace()) return result;
        const shown = a ? { ...choice, assetId: a.id, assetHash: a.hash, creative: { width: a.width, height: a.height } } : choice;
        try {
          await bannerBytes(ctx, shown, { type: slot.type, acceptsWebp: true, scale: shape.scale }, { background: background() });
          result.banners++;
        } catch (err) {
          result.failed++;
          opts.onError?.(slot, err);
        }
      }
    }
  }
  return result;
}

/** warmUpPlugin's options: BANNER_WARM_UP and BANNER_WARM_UP_WAIT_MS (config.ts). */
export interface WarmUpOptions {
  /** The most banners encoded; 0 turns the warm-up off. */
  banners: number;
  /** The longest the app's ready (and so `listen`) waits for the warm-up, ms; the rest runs in the background. */
  waitMs: number;
}

/**
 * Starts the warm-up when the app is made ready (see the module doc): ready waits for it at most
 * `waitMs`; from then on the rest is background work (idle moments, lowest image-queue priority);
 * one info line says what it did when it ends. On close it stops after the encoding in
 * progress, and close waits for that. Needs `app.caches` and `app.cdnProbes`.
 */
export const warmUpPlugin = fp(
  async (app: FastifyInstance, opts: WarmUpOptions) => {
    if (opts.banners <= 0) return;
    let closing = false;
    let listening = false; // set when ready stops waiting: the rest of the warm-up is background work
    let running: Promise<void> | null = null;
    app.addHook('onReady', async () => {
      const started = performance.now();
      running = (async () => {
        try {
          const slots = await hotSlots(app.db, app.now(), opts.banners);
          if (closing) return;
          const result = await warmBanners(app, slots, {
            budget: opts.banners,
            shouldStop: () => closing,
            background: () => listening,
            onError: (slot, err) => app.log.debug({ err, ...slot }, 'banner warm-up skipped a slot'),
          });
          app.log.info({ ...result, ms: Math.round(performance.now() - started) }, 'banners warmed');
        } catch (err) {
          app.log.warn({ err }, 'banner warm-up failed; banners are encoded on their first request');
        }
      })();
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, opts.waitMs)));
      await Promise.race([running, bound]).finally(() => clearTimeout(timer));
      listening = true;
    });
    app.addHook('onClose', async () => {
      closing = true;
      await running;
    });
  },
  { name: 'banner-warm-up', dependencies: ['app-caches'] },
);
