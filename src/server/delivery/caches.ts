/**
 * The app's in-memory delivery caches, owned by the app and
 * decorated as `app.caches` by `cachesPlugin`: two apps in one process (tests build several) never
 * share an entry, and `app.close()` settles the logo fetches and empties every cache.
 *
 * Every cache is a bounded `lru-cache` (a flood of new keys evicts the least recently
 * used entries, never a hot banner in use); those holding images or scripts are bounded by their
 * size in bytes (`maxSize` + `sizeCalculation`).
 *
 * Invalidation needs no feature to remember anything: the database raises `dealers.version` on
 * every delivery-affecting write (triggers of migration 0007: dealer settings, assets, inventory,
 * manufacturer catalogue), and every cache here is keyed by that version (or, for an asset's
 * encodings, by the asset's id and content hash), so a new version simply misses the old entries.
 * The version itself comes from the dealer read model (dealer-sites/): its cache, how long a copy
 * is trusted, the change listener and the forgetting of this app's own writes live there.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { LRUCache } from 'lru-cache';
import { encodedBytes, type Entity } from './encoding';
import { LogoFetcher, type LogoFetcherOptions } from './logo-fetcher';
import type { BannerBytes, Candidate, DeliveryChoice } from './service';

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

/** The caches of one app (see module doc). */
export class AppCaches {
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

  /** @param options.logos the placeholder logo fetcher's options (logo-fetcher.ts). */
  constructor(options: { logos: LogoFetcherOptions }) {
    this.logos = new LogoFetcher(options.logos);
  }

  /** Empties every cache (app close; tests). */
  clear(): void {
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

/** Decorates `app.caches` and empties it on close (see module doc). */
export const cachesPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('caches', new AppCaches({ logos: { allowPrivateHosts: app.config.feedAllowPrivateHosts } }));
    app.addHook('onClose', async () => {
      await app.caches.logos.settle();
      app.caches.clear();
    });
  },
  { name: 'app-caches', decorators: { fastify: ['config'] } },
);
