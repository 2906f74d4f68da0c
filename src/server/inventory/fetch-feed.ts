/**
 * Server-side inventory feed fetch (DECISIONS 20, spec 02 §5 Feed, §8): GET with
 * `Accept: application/json`, one deadline for the whole exchange (FEED_TIMEOUT_MS, 15 s by default), at most 3 redirects
 * (each target checked again), a 20 MB body cap, and a refusal of hosts that resolve to private,
 * loopback, link-local or other non-public addresses unless `allowPrivateHosts` is set, all through
 * the shared outbound guard (outbound/guard.ts), whose address check runs inside the
 * socket's DNS lookup (no window for DNS rebinding between check and connect).
 */
import { FEED_MAX_REDIRECTS, FEED_TIMEOUT_MS, INVENTORY_LIMIT_TEXT, INVENTORY_TEXT, JSON_TOO_DEEP, MAX_INVENTORY_BYTES, feedTimeoutText } from '../../domain/constants';
import { AppError, Invalid, OverLimit } from '../errors';
import { readJsonText } from './parse';
import { BlockedAddress, ResponseTooLarge, TooManyRedirects, UnsupportedProtocol, guardedRequest, type PrivateHostPolicy } from '../outbound/guard';

export interface FetchFeedOptions {
  /** Non-public addresses allowed: all (true), none (false), or those inside the given CIDRs. */
  allowPrivateHosts: PrivateHostPolicy;
  /** Deadline of the whole exchange, ms; defaults to FEED_TIMEOUT_MS (15 s), the server passes config.feedTimeoutMs. */
  timeoutMs?: number;
  /** Defaults to MAX_INVENTORY_BYTES (20 MB). */
  maxBytes?: number;
  /** Aborts the fetch (the server is shutting down): fetchFeedJson then throws Invalid(INVENTORY_TEXT.runInterrupted). */
  signal?: AbortSignal;
}

/**
 * Fetches a feed URL and returns its parsed JSON document.
 * @throws Invalid with: the timeout text (feedTimeoutText(timeoutMs); INVENTORY_TEXT.timeout at 15 s), 'HTTP {status}: {statusText}', a refused
 * private address, too many redirects, a non-JSON or too deeply nested body, or
 * 'Failed to fetch inventory feed (reason)' for network errors, or INVENTORY_TEXT.runInterrupted when
 * `options.signal` aborted it; OverLimit(INVENTORY_LIMIT_TEXT.bytes('feed')) for a body over 20 MB
 * and OverLimit(INVENTORY_LIMIT_TEXT.vehicles('feed')) for a vehicle list over MAX_VEHICLES.
 */
export async function fetchFeedJson(feedUrl: string, options: FetchFeedOptions): Promise<unknown> {
  const { signal: stop, ...rest } = options;
  const opts = { timeoutMs: FEED_TIMEOUT_MS, maxBytes: MAX_INVENTORY_BYTES, ...rest };
  if (stop?.aborted) throw new Invalid(INVENTORY_TEXT.runInterrupted);
  let url: URL;
  try {
    url = new URL(feedUrl);
  } catch {
    throw new Invalid(`Feed URL is not a valid URL: ${feedUrl}`);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  try {
    const res = await guardedRequest(url, {
      allowPrivateHosts: opts.allowPrivateHosts,
      signal: stop ? AbortSignal.any([controller.signal, stop]) : controller.signal,
      headers: { Accept: 'application/json', 'User-Agent': 'dc-banners-feed/1.0' },
      maxRedirects: FEED_MAX_REDIRECTS,
      maxBytes: opts.maxBytes,
    });
    if (!res.body) throw new Invalid(`HTTP ${res.status}: ${res.statusText}`);
    // Scanned in slices before JSON.parse: a vehicle list past MAX_VEHICLES is refused unparsed.
    const text = await readJsonText([res.body], 'feed', (tooDeep) => {
      if (tooDeep) throw new Invalid(`Feed did not return valid JSON (${JSON_TOO_DEEP})`);
    });
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new Invalid(`Feed did not return valid JSON (${(e as Error).message})`);
    }
  } catch (e) {
    if (stop?.aborted) throw new Invalid(INVENTORY_TEXT.runInterrupted);
    if (controller.signal.aborted) throw new Invalid(feedTimeoutText(opts.timeoutMs));
    if (e instanceof AppError) throw e;
    if (e instanceof BlockedAddress) {
      throw new Invalid(`Feed URL host ${e.host} resolves to ${e.address}, a private, loopback or link-local address; such feeds are not allowed`);
    }
    if (e instanceof TooManyRedirects) throw new Invalid(`Feed redirected more than ${e.maxRedirects} times`);
    if (e instanceof ResponseTooLarge) {
      throw new OverLimit(
        e.maxBytes === MAX_INVENTORY_BYTES ? INVENTORY_LIMIT_TEXT.bytes('feed') : `Feed response is larger than ${e.maxBytes} bytes${e.declared ? ` (${e.declared} bytes)` : ''}`,
      );
    }
    if (e instanceof UnsupportedProtocol) throw new Invalid('Feed URL must use http or https');
    const code = (e as NodeJS.ErrnoException).code;
    throw new Invalid(`${INVENTORY_TEXT.fetchFailed} (${code ?? (e as Error).message})`);
  } finally {
    clearTimeout(timer);
  }
}
