/**
 * The per-app cache of dealer read models (read-model.ts), so hot public endpoints (banner images,
 * tracking beacons, the embed script) do not query the database on every request.
 *
 * - Every other delivery cache (choices, candidates, banner bytes, built scripts) is keyed by
 *   `dealers.version`, which the database raises on every delivery-affecting write (migration
 *   0007). This cache holds the version itself, so how long a copy is trusted is the staleness
 *   bound of everything keyed by it.
 * - Migration 0013 makes the database notify every change of a dealer's version, and the app's
 *   listener (listener.ts) forgets the named dealer at once (`dealerChanged`). While it listens, a
 *   copy is trusted for DEALER_CACHE_LISTENING_TTL_MS (5 min, a safety net only), so a dealer site
 *   with a request every few seconds is answered from memory. While it does not (the listening
 *   connection lost, or no listener), a copy is trusted for DEALER_CACHE_TTL_MS (1 s): the
 *   staleness bound across processes (tests/e2e/two-processes.test.ts). Each switch
 *   (`setListening`) distrusts every copy cached before it, as notifications may have been missed:
 *   its next read waits for a fresh query (`fetch`), and the hot paths do not answer from it
 *   (`current`).
 * - Concurrent misses share one query, and a copy past its lifetime answers while one query
 *   refreshes it (lru-cache `fetch`): a version bump under load costs one query, not one per request.
 * - Stale-if-error: when the refresh of a cached dealer fails (the database is unreachable, its
 *   schema missing, any error), the last good copy keeps answering, and every cache keyed by its
 *   version with it, until it is `maxStaleMs` old (DELIVERY_MAX_STALE_MS, 24 h by default) counted
 *   from the last successful read. A refresh is tried again after each DEALER_CACHE_TTL_MS (1 s,
 *   listening or not), so the first one after the database is back replaces it. Past the bound the
 *   refresh's error reaches the request (503).
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../db/client';
import { DELIVERY_MAX_STALE_MS } from '../../domain/constants';
import { queryDealer, type DealerDelivery } from './read-model';

/** How long a process trusts its cached copy of a dealer's read model when it hears of no changes (cross-process staleness bound). */
export const DEALER_CACHE_TTL_MS = 1000;
/** How long a process trusts its cached copy of a dealer's read model while its listener hears of every change (a safety net). */
export const DEALER_CACHE_LISTENING_TTL_MS = 5 * 60_000;
/** Dealers (and unknown dealer ids) whose read models are kept. */
const MAX_DEALERS = 10_000;

/** A dealer's read model as cached: `value` null for an unknown dealer id (cached too, against id probing). */
export interface DealerEntry {
  value: DealerDelivery | null;
  /** When the database last answered for this dealer, ms since the epoch (the stale-if-error age). */
  readAt: number;
  /** The cache's trust generation when it was read: a copy of an older one is not trusted (see `setListening`). */
  generation: number;
}

/** Options of a DealerCache. */
export interface DealerCacheOptions {
  /** How long past its last successful read a copy may answer while refreshes fail, ms; DELIVERY_MAX_STALE_MS by default. */
  maxStaleMs?: number;
  /** Called when a failed refresh is answered with the stale copy (a log line). */
  onStale?: (dealerId: string, ageMs: number, err: unknown) => void;
}

/** One app's cached dealer read models (see module doc). */
export class DealerCache {
  /**
   * Read models by dealer id, fetched with the app's database as context. Past the TTL the old
   * copy answers while one query refreshes it, and concurrent misses share one query.
   */
  readonly entries: LRUCache<string, DealerEntry, Db>;
  /** How long a copy read now is trusted, ms: DEALER_CACHE_LISTENING_TTL_MS while listening, else DEALER_CACHE_TTL_MS. */
  private ttlMs = DEALER_CACHE_TTL_MS;
  /** Raised by every `setListening`: copies of an older generation are not trusted. */
  private generation = 0;
  /** Per dealer, a version notified while no copy was settled (dealerChanged): the next read must reach it. */
  private readonly notifiedVersions = new LRUCache<string, number>({ max: MAX_DEALERS });

  constructor(options: DealerCacheOptions = {}) {
    const maxStaleMs = options.maxStaleMs ?? DELIVERY_MAX_STALE_MS;
    this.entries = new LRUCache<string, DealerEntry, Db>({
      max: MAX_DEALERS,
      ttl: DEALER_CACHE_TTL_MS,
      allowStale: true,
      // forget() during a query: the waiting requests get its answer, the cache does not keep it.
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
   * A dealer's read model, from the cache when trusted (see the module doc), else read with `db`;
   * concurrent reads share one query. A copy past its lifetime answers while one query refreshes
   * it; a copy cached before the last `setListening` does not (the read waits for the query, or
   * gets the copy back as stale-if-error when the query fails).
   * @param status filled by lru-cache: `status.fetch === 'miss'` when this read ran the query.
   * @returns the entry (`value` null for an unknown dealer id). @throws the query's error when no copy may answer.
   */
  fetch(db: Db, dealerId: string, status?: LRUCache.Status<string, DealerEntry, Db>): Promise<DealerEntry | undefined> {
    const cached = this.entries.peek(dealerId, { allowStale: true });
    const distrusted = cached !== undefined && cached.generation !== this.generation;
    return this.entries.fetch(dealerId, { context: db, status, ttl: this.ttlMs, ...(distrusted ? { forceRefresh: true, allowStale: false } : {}) });
  }

  /** A dealer's cached entry when current (within its lifetime, of the current generation), synchronously; else undefined. */
  current(dealerId: string): DealerEntry | undefined {
    const entry = this.entries.get(dealerId, { allowStale: false, noDeleteOnStaleGet: true });
    return entry?.generation === this.generation ? entry : undefined;
  }

  /**
   * Switches the copies' lifetime: DEALER_CACHE_LISTENING_TTL_MS when `listening` (this process
   * hears of every change, listener.ts), else DEALER_CACHE_TTL_MS. Either way every copy cached so
   * far is distrusted (changes may have gone unheard in between) but kept for stale-if-error: its
   * next read queries the database.
   */
  setListening(listening: boolean): void {
    this.ttlMs = listening ? DEALER_CACHE_LISTENING_TTL_MS : DEALER_CACHE_TTL_MS;
    this.generation++;
  }

  /** The lifetime, ms, of a copy read now (DEALER_CACHE_LISTENING_TTL_MS while listening). */
  get lifetimeMs(): number {
    return this.ttlMs;
  }

  /**
   * The database says dealer `dealerId` changed to `version` (null: deleted, or unknown): forgets
   * it unless the settled copy held here is already of that version or a later one (this process
   * read the row after its own write, before the notification arrived).
   */
  dealerChanged(dealerId: string, version: number | null): void {
    const cached = this.entries.peek(dealerId, { allowStale: true });
    if (version !== null && cached === undefined) {
      // Nothing settled: not cached, or a first read running, which may have started before the
      // change committed. Let that read finish, and read again if it got an older version.
      this.notifiedVersions.set(dealerId, version);
      return;
    }
    if (version !== null && cached?.value && cached.value.version >= version && cached.generation === this.generation) return;
    this.forget(dealerId);
  }

  /** Drops the cached copy of one dealer: its next request reads the row (and the version) again. */
  forget(dealerId: string): void {
    this.entries.delete(dealerId);
  }

  /** Drops the cached copy of every dealer. */
  forgetAll(): void {
    this.entries.clear();
  }
}
