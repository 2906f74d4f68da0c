/**
 * CDN auto-discovery answers (DECISIONS 14 b): whether a dealer's CDN serves an image at a URL,
 * found out by a HEAD request in the background and cached, so banner delivery never waits on a
 * third-party server. The first request for a URL starts the probe and gets the next choice
 * (fallback or placeholder); once the CDN has answered with an image, requests redirect to it.
 * Answers are kept 1 hour when found and 10 minutes when not, then probed again (the old answer
 * stands meanwhile). Base URLs are set by admins only (dealer settings).
 *
 * Probes go through the shared outbound guard (outbound/guard.ts): no private,
 * loopback or link-local address unless FEED_ALLOW_PRIVATE_HOSTS allows it, redirects followed by
 * hand with every hop checked again. A probe the guard refuses is a 'not served' answer, so
 * visitors are never redirected to an internal URL. Answers live in a size-bounded LRU cache owned
 * by the app (`app.cdnProbes`, settled in onClose).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { LRUCache } from 'lru-cache';
import { guardedRequest, type OutboundOptions, type PrivateHostPolicy } from '../outbound/guard';

const FOUND_TTL_MS = 3_600_000;
const MISSING_TTL_MS = 600_000;
const PROBE_TIMEOUT_MS = 3000;
/** Redirect hops a probe follows (each checked by the guard). */
export const CDN_PROBE_MAX_REDIRECTS = 3;
const MAX_ENTRIES = 10_000;

interface Entry {
  ok: boolean;
  at: number;
  pending?: Promise<void>;
}

export interface CdnProberOptions {
  /** FEED_ALLOW_PRIVATE_HOSTS (config.feedAllowPrivateHosts). */
  allowPrivateHosts: PrivateHostPolicy;
  /** Name resolution for the guard (tests); defaults to dns.lookup. */
  lookup?: OutboundOptions['lookup'];
  /** Defaults to 3 s per probe. */
  timeoutMs?: number;
}

/** The app's CDN auto-discovery cache and prober (see module doc). */
export class CdnProber {
  private readonly answers = new LRUCache<string, Entry>({ max: MAX_ENTRIES });
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: CdnProberOptions) {}

  private async probe(url: string, entry: Entry): Promise<void> {
    let ok = false;
    try {
      const res = await guardedRequest(url, {
        method: 'HEAD',
        allowPrivateHosts: this.options.allowPrivateHosts,
        lookup: this.options.lookup,
        maxRedirects: CDN_PROBE_MAX_REDIRECTS,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? PROBE_TIMEOUT_MS),
        headers: { 'User-Agent': 'dc-banners-cdn-probe/1.0' },
      });
      ok = res.status >= 200 && res.status < 300 && res.contentType.toLowerCase().startsWith('image/');
    } catch {
      ok = false; // refused by the guard, unreachable, timed out or too many redirects
    }
    entry.ok = ok;
    entry.at = Date.now();
    entry.pending = undefined;
  }

  /**
   * The cached answer for `url` (false while unknown). With `probe` (the default) it starts a
   * background probe when there is no answer yet or it has expired; with `probe: false` it only
   * reads (requests for models the dealer does not know must not make the server send requests
   * or fill the cache).
   */
  serves(url: string, opts: { now?: number; probe?: boolean } = {}): boolean {
    const now = opts.now ?? Date.now();
    let entry = this.answers.get(url);
    if (!entry) {
      if (opts.probe === false) return false;
      entry = { ok: false, at: 0 };
      this.answers.set(url, entry);
    }
    const ttl = entry.ok ? FOUND_TTL_MS : MISSING_TTL_MS;
    if (opts.probe !== false && !entry.pending && now - entry.at >= ttl) {
      const pending = this.probe(url, entry);
      entry.pending = pending;
      this.inFlight.add(pending);
      void pending.finally(() => this.inFlight.delete(pending));
    }
    return entry.ok;
  }

  /** Waits for every probe in flight (tests, and the app's onClose). */
  async settle(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** Forgets every answer (tests). */
  clear(): void {
    this.answers.clear();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** CDN auto-discovery answers, probed through the outbound guard (delivery/cdn-probe.ts). */
    cdnProbes: CdnProber;
  }
}

/** Plugin `cdn-probes`: decorates `app.cdnProbes` (FEED_ALLOW_PRIVATE_HOSTS applies to probes too); close waits for running probes. */
export const cdnProbesPlugin = fp(
  async (app: FastifyInstance) => {
    const prober = new CdnProber({ allowPrivateHosts: app.config.feedAllowPrivateHosts });
    app.decorate('cdnProbes', prober);
    app.addHook('onClose', () => prober.settle());
  },
  { name: 'cdn-probes' },
);
