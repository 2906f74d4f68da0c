/**
 * Dealer sites: the one home of the dealer read model (what a dealer site's requests need to know
 * about a dealer, read-model.ts), its per-app cache (cache.ts) and its invalidation (the database's
 * version triggers and change notifications, listener.ts, and this app's own writes, below).
 * Banner delivery, tracking, the embed script, assets and configs read dealers through
 * `app.dealerSites`; nothing else queries or caches the read model.
 *
 * `dealerSitesPlugin` decorates `app.dealerSites` and `app.dealerListener`, and adds:
 * - one `onSend` hook so this process's own writes are seen at once: it forgets the dealer a
 *   successful or failed (but not 503: the database away) state-changing request (POST, PUT, PATCH,
 *   DELETE) names in `:dealerId`, or every dealer when the route names none (admin imports,
 *   manufacturer and dealer edits). It runs after the handler's transaction committed and before
 *   the client sees the answer, so the client's next request reads the new row. Public routes
 *   (tracking beacons, sign-in) change no dealer data and are skipped. Writes outside HTTP requests
 *   (scheduled inventory feeds) are heard through the database's notification, as other
 *   processes hear them (within DEALER_CACHE_TTL_MS without a listener);
 * - `onClose`: the listener stops and every cached copy is dropped.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LRUCache } from 'lru-cache';
import type { Database, Db } from '../db/client';
import type { CacheCounter } from '../observability/metrics';
import { STATE_CHANGING_METHODS } from '../security/csrf';
import { DealerCache, type DealerCacheOptions, type DealerEntry } from './cache';
import { DealerChangeListener } from './listener';
import type { DealerDelivery } from './read-model';

export type { DealerDelivery } from './read-model';
export { DEALER_CACHE_LISTENING_TTL_MS, DEALER_CACHE_TTL_MS } from './cache';

/** One app's dealer read models: looked up through its cache, forgotten when they change. */
export class DealerSites {
  /** The cached copies (cache.ts): their lifetime, the listener's switches, stale-if-error. */
  readonly cache: DealerCache;

  /**
   * @param lookups the app's hit and miss counter of the dealer read model
   *   (dcb_cache_lookups_total{cache="dealer"}); the hot paths count their hits there too.
   */
  constructor(
    private readonly db: Db,
    private readonly lookups: CacheCounter,
    options: DealerCacheOptions = {},
  ) {
    this.cache = new DealerCache(options);
  }

  /**
   * A dealer's read model, from the cache when trusted, else one query (shared by concurrent
   * requests); counted once in dcb_cache_lookups_total (a miss when this call ran the query).
   * @returns null for an unknown dealer (also cached, against id probing).
   * @throws the database's error when no cached copy may answer (stale-if-error, cache.ts).
   */
  async find(dealerId: string): Promise<DealerDelivery | null> {
    const status: LRUCache.Status<string, DealerEntry, Db> = {};
    const entry = await this.cache.fetch(this.db, dealerId, status);
    // 'miss' ran a query; a current or stale copy, or a query another request is already running, did not.
    if (status.fetch === 'miss') this.lookups.miss();
    else this.lookups.hit();
    return entry?.value ?? null;
  }

  /**
   * A dealer's read model when cached and current, synchronously (the hot paths); undefined when
   * it is not (a miss, a stale copy, a query running) and for a dealer id known to be unknown: the
   * caller then takes the route, which calls `find`. Not counted: a hot path counts its hits
   * (`app.metrics.lookups.dealer`) once it answers.
   */
  current(dealerId: string): DealerDelivery | undefined {
    return this.cache.current(dealerId)?.value ?? undefined;
  }

  /** Forgets one dealer's copy: its next lookup reads the row again. */
  forget(dealerId: string): void {
    this.cache.forget(dealerId);
  }

  /** Forgets every dealer's copy. */
  forgetAll(): void {
    this.cache.forgetAll();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The dealer read models of this app (dealer-sites/index.ts). */
    dealerSites: DealerSites;
    /** The dealer change listener (dealer-sites/listener.ts); null when the app was built without `listen`. */
    dealerListener: DealerChangeListener | null;
  }
}

/** The dealer a request's route names in `:dealerId`, else null. */
function dealerParam(request: FastifyRequest): string | null {
  const params = request.params as Record<string, unknown> | undefined;
  return typeof params?.dealerId === 'string' ? params.dealerId : null;
}

/**
 * Decorates `app.dealerSites` and `app.dealerListener` and starts the listener (see module doc).
 * With no `listen` (BuildOptions.listen absent) there is no listener and copies live
 * DEALER_CACHE_TTL_MS. The gauge `dcb_dealer_listener_connected` reads `app.dealerListener.connected`.
 * Reads `app.db` and `app.config` (deliveryMaxStaleMs).
 */
export const dealerSitesPlugin = fp(
  async (app: FastifyInstance, opts: { listen?: Database['listen'] }) => {
    // One warning per dealer and minute at most while its refreshes fail.
    const warned = new Map<string, number>();
    const onStale = (dealerId: string, ageMs: number, err: unknown) => {
      if (Date.now() - (warned.get(dealerId) ?? 0) < 60_000) return;
      warned.set(dealerId, Date.now());
      if (warned.size > 1000) warned.clear();
      app.log.warn({ err, dealerId, ageMs }, 'dealer settings not refreshed (database error); serving the last good copy');
    };
    const sites = new DealerSites(app.db, app.metrics.lookups.dealer, { maxStaleMs: app.config.deliveryMaxStaleMs, onStale });
    app.decorate('dealerSites', sites);
    app.addHook('onSend', (request, reply, payload, done) => {
      const access = request.routeOptions.config?.access;
      // A 503 (the database unavailable) wrote nothing: forgetting would drop the copies that keep delivery serving.
      if (STATE_CHANGING_METHODS.has(request.method) && access && access !== 'public' && reply.statusCode !== 503) {
        const dealerId = dealerParam(request);
        if (dealerId) sites.forget(dealerId);
        else sites.forgetAll();
      }
      done(null, payload);
    });
    const listener = opts.listen ? new DealerChangeListener(opts.listen, sites.cache, app.log) : null;
    app.decorate('dealerListener', listener);
    app.addHook('onClose', async () => {
      await listener?.close();
      sites.forgetAll();
    });
    await listener?.start();
  },
  { name: 'dealer-sites', decorators: { fastify: ['db', 'config', 'metrics'] } },
);
