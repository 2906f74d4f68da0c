/**
 * The app's in-memory caches, owned by the app and
 * decorated as `app.caches` by `cachesPlugin`: two apps in one process (tests build several) never
 * share an entry, and `app.close()` settles the logo fetches and empties every cache.
 *
 * Every cache is a bounded `lru-cache` (a flood of new keys evicts the least recently
 * used entries, never a hot banner in use); those holding images or scripts are bounded by their
 * size in bytes (`maxSize` + `sizeCalculation`).
 *
 * Invalidation needs no feature to remember anything:
 * - The database raises `dealers.version` on every delivery-affecting write (triggers of migration
 *   0007: dealer settings, assets, inventory, manufacturer catalogue). Every cache but the dealer
 *   settings is keyed by that version, so a new version simply misses the old entries.
 * - The dealer settings themselves (with the version) are trusted for a lifetime that depends on
 *   whether this process hears of changes. Migration 0013 makes the database notify every change
 *   of a dealer's version (any process's write, scheduled feeds, SQL by hand), and the app's
 *   listener (dealer-listener.ts) forgets the named dealer at once. While it listens, a copy is
 *   trusted for DEALER_CACHE_LISTENING_TTL_MS (5 min, a safety net only), so a dealer site with a
 *   request every few seconds is answered from memory. While it does not (the listening connection
 *   lost, or no listener), a copy is trusted for DEALER_CACHE_TTL_MS (1 s): the staleness bound
 *   across processes (tests/e2e/two-processes.test.ts). Each switch (`setListening`) distrusts
 *   every copy cached before it, as notifications may have been missed: its next read waits for a
 *   fresh query (`fetchDealer`), and the beacon hot path does not answer from it (`currentDealer`).
 * - Stale-if-error: when the refresh of a cached dealer fails (the database is unreachable, its
 *   schema missing, any error), the last good copy keeps answering, and every cache keyed by its
 *   version with it (choices, banner bytes, built scripts), until it is `maxStaleMs` old
 *   (DELIVERY_MAX_STALE_MS, 24 h by default) counted from the last successful read. A refresh is
 *   tried again after each DEALER_CACHE_TTL_MS (1 s, listening or not), so the first one after the database is back replaces it. Past
 *   the bound the refresh's error reaches the request (503).
 * - This process's own writes are seen at once: one `onSend` hook forgets the dealer a successful
 *   or failed (but not 503: the database away) state-changing request (POST, PUT, PATCH, DELETE) named in `:dealerId`, or every
 *   dealer when the route names none (admin imports, manufacturer and dealer edits). It runs after
 *   the handler's transaction committed and before the client sees the answer, so the client's next
 *   request reads the new row. Public routes (tracking beacons, sign-in) change no delivery data and
 *   are skipped. Writes outside HTTP requests (scheduled inventory feeds) are seen through the
 *   database's notification, as other processes see them (within the 1-s TTL without a listener).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Db } from '../db/client';
import { STATE_CHANGING_METHODS } from '../security/csrf';
import { encodedBytes, type Entity } from './encoding';
import { LogoFetcher, type LogoFetcherOptions } from './logo-fetcher';
import { DELIVERY_MAX_STALE_MS } from '../../domain/constants';
import { queryDealer, type BannerBytes, type Candidate, type DealerDelivery, type DeliveryChoice } from './service';

/** How long a process trusts its cached copy of a dealer's delivery settings when it hears of no changes (cross-process staleness bound). */
export const DEALER_CACHE_TTL_MS = 1000;
/** How long a process trusts its cached copy of a dealer's settings while its listener hears of every change (a safety net). */
export const DEALER_CACHE_LISTENING_TTL_MS = 5 * 60_000;
/** Dealers (and unknown dealer ids) whose delivery settings are kept. */
const MAX_DEALERS = 10_000;
/** (dealer, version) pairs whose set of asset model keys is kept. */
const MAX_ASSET_KEY_SETS = 2000;
/** Delivery choices and candidate lists kept (known models only, so the count is bounded by the dealers' catalogues and assets). */
const MAX_CHOICES = 5000;
/** Encoded banner bytes kept, by total size: hot banners stay, the least recently used go first. */
const MAX_BANNER_BYTES = 64 * 1024 * 1024;
/** Built dealer scripts kept (with their compressed copies), by total size. */
const MAX_SCRIPT_BYTES = 32 * 1024 * 1024;
/** Embed bundle files kept (one per provider and bundle kind). */
const MAX_BUNDLES = 64;
/** isbot answers kept, by user agent. */
const MAX_BOT_ANSWERS = 5000;

/** A dealer's delivery settings as cached: `value` null for an unknown dealer id (cached too, against id probing). */
export interface DealerEntry {
  value: DealerDelivery | null;
  /** When the database last answered for this dealer, ms since the epoch (the stale-if-error age). */
  readAt: number;
  /** AppCaches' trust generation when it was read: a copy of an older one is not trusted (see `setListening`). */
  generation: number;
}

/** The caches of one app (see module doc). */
export class AppCaches {
  /**
   * Dealer settings by dealer id, fetched with the app's database as context. Past the TTL the old
   * copy answers while one query refreshes it, and concurrent misses share one query: a version
   * bump under load costs one dealer query, not one per waiting request.
   */
  readonly dealers: LRUCache<string, DealerEntry, Db>;
  /** Per `dealer|version`, the model keys that have uploaded assets (the negative cache). */
  readonly assetKeySets = new LRUCache<string, Promise<Set<string>>>({ max: MAX_ASSET_KEY_SETS });
  /** Per `dealer|version|modelKey`, the model's uploaded assets, newest first. */
  readonly candidates = new LRUCache<string, Promise<Candidate[]>>({ max: MAX_CHOICES });
  /** Per `dealer|version|modelKey|slot|variant|trim`, the choice made. */
  readonly choices = new LRUCache<string, DeliveryChoice>({ max: MAX_CHOICES });
  /** Encoded banner bytes (by asset id, or per dealer version for placeholders), by total size in bytes. */
  readonly bannerBytes = new LRUCache<string, BannerBytes>({
    maxSize: MAX_BANNER_BYTES,
    sizeCalculation: (b) => Math.max(1, b.body.length + encodedBytes(b.encoded)),
  });
  /** Built dealer scripts with their compressed copies, per `dealer|version`, by total size in bytes. */
  readonly scripts = new LRUCache<string, Entity>({
    maxSize: MAX_SCRIPT_BYTES,
    sizeCalculation: (e) => Math.max(1, e.body.length + encodedBytes(e.encoded)),
  });
  /** Embed bundle texts by file path (the build's output: read once). */
  readonly bundles = new LRUCache<string, string>({ max: MAX_BUNDLES });
  /** isbot's answer per user agent (visitors share few distinct user agents). */
  readonly botAnswers = new LRUCache<string, boolean>({ max: MAX_BOT_ANSWERS });
  /** Dealer logos for placeholders, fetched in the background (logo-fetcher.ts). */
  readonly logos: LogoFetcher;
  /** How long a dealer copy read now is trusted, ms: DEALER_CACHE_LISTENING_TTL_MS while listening, else DEALER_CACHE_TTL_MS. */
  private dealerTtlMs = DEALER_CACHE_TTL_MS;
  /** Raised by every `setListening`: copies of an older generation are not trusted. */
  private generation = 0;
  /** Per dealer, a version notified while no copy was settled (dealerChanged): the next read must reach it. */
  private readonly notifiedVersions = new LRUCache<string, number>({ max: MAX_DEALERS });

  /**
   * @param options.maxStaleMs how long past its last successful read a dealer's copy may answer
   *   while refreshes fail (stale-if-error, see the module doc); DELIVERY_MAX_STALE_MS by default.
   * @param options.onStale called when a failed refresh is answered with the stale copy (a log line).
   */
  constructor(options: { logos: LogoFetcherOptions; maxStaleMs?: number; onStale?: (dealerId: string, ageMs: number, err: unknown) => void }) {
    this.logos = new LogoFetcher(options.logos);
    const maxStaleMs = options.maxStaleMs ?? DELIVERY_MAX_STALE_MS;
    this.dealers = new LRUCache<string, DealerEntry, Db>({
      max: MAX_DEALERS,
      ttl: DEALER_CACHE_TTL_MS,
      allowStale: true,
      // forgetDealer during a query: the waiting requests get its answer, the cache does not keep it.
      ignoreFetchAbort: true,
      // Date.now on every read (no 1 ms debounce timer), so tests can move the clock with a fake Date.
      perf: { now: () => Date.now() },
      ttlResolution: 0,
      fetchMethod: async (dealerId, stale, { context, options: setOptions }) => {
        // The generation the query starts in: a switch while it runs leaves its answer untrusted.
        const generation = this.generation;
        try {
          let value = await queryDealer(context, dealerId);
          const notified = this.notifiedVersions.get(dealerId);
          if (notified !== undefined) {
            // A change was notified while this read ran (dealerChanged): it is committed, so a second read sees it.
            if ((value?.version ?? -1) < notified) value = await queryDealer(context, dealerId);
            this.notifiedVersions.delete(dealerId);
          }
          return { value, readAt: Date.now(), generation };
        } catch (err) {
          // Stale-if-error: the same entry object again (so the caches keyed by it still hit),
          // trusted for another DEALER_CACHE_TTL_MS, after which a refresh is tried again.
          const age = stale ? Date.now() - stale.readAt : Infinity;
          if (!stale || age > maxStaleMs) throw err;
          options.onStale?.(dealerId, age, err);
          stale.generation = generation;
          setOptions.ttl = DEALER_CACHE_TTL_MS;
          return stale;
        }
      },
    });
  }

  /**
   * A dealer's delivery settings, from the cache when trusted (see the module doc), else read with
   * `db`; concurrent reads share one query. A copy past its lifetime answers while one query
   * refreshes it; a copy cached before the last `setListening` does not (the read waits for the
   * query, or gets the copy back as stale-if-error when the query fails).
   * @returns the entry (`value` null for an unknown dealer id). @throws the query's error when no copy may answer.
   */
  fetchDealer(db: Db, dealerId: string, status?: LRUCache.Status<string, DealerEntry, Db>): Promise<DealerEntry | undefined> {
    const cached = this.dealers.peek(dealerId, { allowStale: true });
    const distrusted = cached !== undefined && cached.generation !== this.generation;
    return this.dealers.fetch(dealerId, { context: db, status, ttl: this.dealerTtlMs, ...(distrusted ? { forceRefresh: true, allowStale: false } : {}) });
  }

  /** A dealer's cached settings when current (within their lifetime, of the current generation), synchronously; else undefined. */
  currentDealer(dealerId: string): DealerEntry | undefined {
    const entry = this.dealers.get(dealerId, { allowStale: false, noDeleteOnStaleGet: true });
    return entry?.generation === this.generation ? entry : undefined;
  }

  /**
   * Switches the dealer copies' lifetime: DEALER_CACHE_LISTENING_TTL_MS when `listening` (this
   * process hears of every change, dealer-listener.ts), else DEALER_CACHE_TTL_MS. Either way every
   * copy cached so far is distrusted (changes may have gone unheard in between) but kept for
   * stale-if-error: its next read queries the database.
   */
  setListening(listening: boolean): void {
    this.dealerTtlMs = listening ? DEALER_CACHE_LISTENING_TTL_MS : DEALER_CACHE_TTL_MS;
    this.generation++;
  }

  /** The lifetime, ms, of a dealer copy read now (DEALER_CACHE_LISTENING_TTL_MS while listening). */
  get dealerLifetimeMs(): number {
    return this.dealerTtlMs;
  }

  /**
   * The database says dealer `dealerId` changed to `version` (null: deleted, or unknown): forgets
   * it unless the settled copy held here is already of that version or a later one (this process
   * read the row after its own write, before the notification arrived).
   */
  dealerChanged(dealerId: string, version: number | null): void {
    const cached = this.dealers.peek(dealerId, { allowStale: true });
    if (version !== null && cached === undefined) {
      // Nothing settled: not cached, or a first read running, which may have started before the
      // change committed. Let that read finish, and read again if it got an older version.
      this.notifiedVersions.set(dealerId, version);
      return;
    }
    if (version !== null && cached?.value && cached.value.version >= version && cached.generation === this.generation) return;
    this.forgetDealer(dealerId);
  }

  /** Drops the cached settings of one dealer: its next request reads the row (and the version) again. */
  forgetDealer(dealerId: string): void {
    this.dealers.delete(dealerId);
  }

  /** Drops the cached settings of every dealer. */
  forgetDealers(): void {
    this.dealers.clear();
  }

  /** Empties every cache (app close; tests). */
  clear(): void {
    this.dealers.clear();
    this.assetKeySets.clear();
    this.candidates.clear();
    this.choices.clear();
    this.bannerBytes.clear();
    this.scripts.clear();
    this.bundles.clear();
    this.botAnswers.clear();
    this.logos.clear();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's in-memory caches (delivery/caches.ts). */
    caches: AppCaches;
  }
}

/** The dealer a request's route names in `:dealerId`, else null. */
function dealerParam(request: FastifyRequest): string | null {
  const params = request.params as Record<string, unknown> | undefined;
  return typeof params?.dealerId === 'string' ? params.dealerId : null;
}

/** Decorates `app.caches` and adds the local invalidation hook and the clean-up on close (see module doc). */
export const cachesPlugin = fp(
  async (app: FastifyInstance) => {
    // One warning per dealer and minute at most while its refreshes fail.
    const warned = new Map<string, number>();
    const onStale = (dealerId: string, ageMs: number, err: unknown) => {
      if (Date.now() - (warned.get(dealerId) ?? 0) < 60_000) return;
      warned.set(dealerId, Date.now());
      if (warned.size > 1000) warned.clear();
      app.log.warn({ err, dealerId, ageMs }, 'dealer settings not refreshed (database error); serving the last good copy');
    };
    app.decorate('caches', new AppCaches({ logos: { allowPrivateHosts: app.config.feedAllowPrivateHosts }, maxStaleMs: app.config.deliveryMaxStaleMs, onStale }));
    app.addHook('onSend', (request, reply, payload, done) => {
      const access = request.routeOptions.config?.access;
      // A 503 (the database unavailable) wrote nothing: forgetting would drop the copies that keep delivery serving.
      if (STATE_CHANGING_METHODS.has(request.method) && access && access !== 'public' && reply.statusCode !== 503) {
        const dealerId = dealerParam(request);
        if (dealerId) app.caches.forgetDealer(dealerId);
        else app.caches.forgetDealers();
      }
      done(null, payload);
    });
    app.addHook('onClose', async () => {
      await app.caches.logos.settle();
      app.caches.clear();
    });
  },
  { name: 'app-caches' },
);
