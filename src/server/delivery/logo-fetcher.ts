/**
 * Dealer logos for placeholder banners: an SVG shown through <img> loads nothing
 * external, so a logo is inlined as a data: URI. The dealer's `branding.logoUrl` (set by admins) is
 * fetched in the background and cached, so banner delivery never waits on a third-party server:
 * the first placeholder for a dealer is drawn without the logo and starts the fetch; once it has
 * settled, placeholders include it (its `tag` is part of the banner bytes' cache key).
 *
 * Safety: the fetch goes through the shared outbound guard (outbound/guard.ts: no
 * private, loopback or link-local address unless FEED_ALLOW_PRIVATE_HOSTS allows it, every redirect
 * hop checked), with a timeout and a body cap. The bytes must be a JPEG, PNG or WebP (told from the
 * bytes, not the Content-Type; SVG is not inlined), at most LOGO_MAX_INPUT_PIXELS by its header,
 * decoded by sharp with limitInputPixels in the bounded image queue (behind delivery work) and
 * re-encoded as a downscaled PNG (metadata stripped), capped again in size. Anything else is "no
 * logo". Answers live in a size-bounded LRU cache: 1 hour when found, 10 minutes when not, then
 * fetched again (the old answer stands meanwhile).
 *
 * One instance per app (`app.caches.logos`, delivery/caches.ts), like the banner bytes cache it
 * feeds, with the app's outbound policy; the app waits for fetches in flight on close.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import { guardedRequest, outboundUrlProblem, type OutboundOptions, type PrivateHostPolicy } from '../outbound/guard';
import { runImageJob } from '../assets/image-queue';
import type { PlaceholderLogo } from './placeholder';

/** Largest logo download read, bytes. */
export const LOGO_MAX_BYTES = 1024 * 1024;
/** Largest logo decoded, pixels (by its header, and sharp's limitInputPixels). */
export const LOGO_MAX_INPUT_PIXELS = 16_000_000;
/** The box a logo is downscaled into, pixels (never enlarged). */
export const LOGO_BOX = { width: 400, height: 200 } as const;
/** Largest inlined PNG, bytes: a bigger result is no logo. */
export const LOGO_MAX_OUTPUT_BYTES = 128 * 1024;
const FOUND_TTL_MS = 3_600_000;
const MISSING_TTL_MS = 600_000;
const FETCH_TIMEOUT_MS = 5000;
const MAX_REDIRECTS = 3;
const MAX_ENTRIES = 2000;
/** Total size of the cached data URIs, characters. */
const MAX_CACHED_CHARS = 32 * 1024 * 1024;
const FORMATS = new Set(['jpeg', 'png', 'webp']);

/** A logo ready to inline, with a short hash of its bytes (changes when the logo does). */
export interface InlineLogo extends PlaceholderLogo {
  tag: string;
}

interface Entry {
  logo: InlineLogo | null;
  at: number;
  pending?: Promise<void>;
}

export interface LogoFetcherOptions {
  /** FEED_ALLOW_PRIVATE_HOSTS (config.feedAllowPrivateHosts). */
  allowPrivateHosts: PrivateHostPolicy;
  /** Name resolution for the guard (tests); defaults to dns.lookup. */
  lookup?: OutboundOptions['lookup'];
  /** Defaults to 5 s per fetch (all redirect hops). */
  timeoutMs?: number;
}

/**
 * Decodes and validates logo bytes and re-encodes them as a downscaled PNG data URI (see module
 * doc). Runs in the image queue. @returns null for anything that is not an acceptable image.
 */
export async function inlineLogo(bytes: Buffer): Promise<InlineLogo | null> {
  return runImageJob(async () => {
    try {
      const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
      if (!meta.format || !FORMATS.has(meta.format) || !meta.width || !meta.height) return null;
      if (meta.width * meta.height > LOGO_MAX_INPUT_PIXELS) return null;
      const encode = (palette: boolean) =>
        sharp(bytes, { failOn: 'error', limitInputPixels: LOGO_MAX_INPUT_PIXELS, animated: false })
          .rotate()
          .resize({ ...LOGO_BOX, fit: 'inside', withoutEnlargement: true })
          .png({ compressionLevel: 9, palette })
          .toBuffer({ resolveWithObject: true });
      let out = await encode(false);
      if (out.data.length > LOGO_MAX_OUTPUT_BYTES) out = await encode(true);
      if (out.data.length > LOGO_MAX_OUTPUT_BYTES) return null;
      return {
        dataUri: `data:image/png;base64,${out.data.toString('base64')}`,
        width: out.info.width,
        height: out.info.height,
        tag: createHash('sha256').update(out.data).digest('base64url').slice(0, 12),
      };
    } catch {
      return null; // corrupt, truncated or over the pixel limit
    }
  });
}

/** An app's logo cache and background fetcher (see module doc). */
export class LogoFetcher {
  private readonly answers = new LRUCache<string, Entry>({
    max: MAX_ENTRIES,
    maxSize: MAX_CACHED_CHARS,
    sizeCalculation: (e) => 64 + (e.logo?.dataUri.length ?? 0),
  });
  private readonly inFlight = new Set<Promise<void>>();
  /** Bumped by configure/clear: fetches started before do not store their answer. */
  private generation = 0;

  constructor(private options: LogoFetcherOptions) {}

  /** Sets the outbound policy (the app's config); forgets answers found under another policy. */
  configure(options: LogoFetcherOptions): void {
    this.options = options;
    this.clear();
  }

  private async fetchLogo(url: string): Promise<InlineLogo | null> {
    if (outboundUrlProblem(url, this.options.allowPrivateHosts)) return null;
    try {
      const res = await guardedRequest(url, {
        method: 'GET',
        allowPrivateHosts: this.options.allowPrivateHosts,
        lookup: this.options.lookup,
        maxRedirects: MAX_REDIRECTS,
        maxBytes: LOGO_MAX_BYTES,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? FETCH_TIMEOUT_MS),
        headers: { 'User-Agent': 'dc-banners-logo/1.0', Accept: 'image/png,image/jpeg,image/webp' },
      });
      if (res.status < 200 || res.status >= 300 || !res.body) return null;
      return await inlineLogo(res.body);
    } catch {
      return null; // refused by the guard, unreachable, timed out, too large or too many redirects
    }
  }

  private start(url: string, entry: Entry): void {
    const generation = this.generation;
    const pending = this.fetchLogo(url).then((logo) => {
      entry.pending = undefined;
      if (generation !== this.generation) return;
      // A new entry object, so the cache re-measures it (the data URI counts towards maxSize).
      this.answers.set(url, { logo, at: Date.now() });
    });
    entry.pending = pending;
    this.inFlight.add(pending);
    void pending.finally(() => this.inFlight.delete(pending));
  }

  /**
   * The cached logo of `url` (null while unknown, for an empty URL, or when it could not be used).
   * Never waits: without an answer, or with an expired one, it starts a background fetch (one per
   * URL at a time) and answers what it has.
   */
  logo(url: string, opts: { now?: number } = {}): InlineLogo | null {
    const target = url.trim();
    if (!target) return null;
    const now = opts.now ?? Date.now();
    let entry = this.answers.get(target);
    if (!entry) {
      entry = { logo: null, at: 0 };
      this.answers.set(target, entry);
    }
    const ttl = entry.logo ? FOUND_TTL_MS : MISSING_TTL_MS;
    if (!entry.pending && now - entry.at >= ttl) this.start(target, entry);
    return entry.logo;
  }

  /** Waits for every fetch in flight (tests, and the app's onClose). */
  async settle(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** Forgets every answer (tests; configure). */
  clear(): void {
    this.generation += 1;
    this.answers.clear();
  }
}
