/**
 * Server-side inventory feed fetch (DECISIONS 20, spec 02 §5 Feed, §8): GET with
 * `Accept: application/json`, one 15-second deadline for the whole exchange, at most 3 redirects
 * (each target checked again), a 20 MB body cap, and a refusal of hosts that resolve to private,
 * loopback, link-local or other non-public addresses unless `allowPrivateHosts` is set. The
 * address check runs inside the socket's DNS lookup, so the address checked is the one connected to
 * (no window for DNS rebinding between check and connect).
 */
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { FEED_MAX_REDIRECTS, FEED_TIMEOUT_MS, INVENTORY_TEXT, MAX_INVENTORY_BYTES } from '../../domain/constants';
import { Invalid } from '../errors';
import { assertJsonDepth } from '../validation';

export interface FetchFeedOptions {
  /** Non-public addresses allowed: all (true), none (false), or those inside the given CIDRs. */
  allowPrivateHosts: boolean | string[];
  /** Defaults to FEED_TIMEOUT_MS (15 s); tests may shorten it. */
  timeoutMs?: number;
  /** Defaults to MAX_INVENTORY_BYTES (20 MB). */
  maxBytes?: number;
}

/**
 * True when a feed may connect to `address`: a public internet address (ipaddr.js range
 * 'unicast'), or any address when `allow` is true, or one inside an allowed CIDR.
 */
export function isAllowedAddress(address: string, allow: boolean | string[]): boolean {
  if (allow === true) return true;
  try {
    const ip = ipaddr.process(address);
    if (ip.range() === 'unicast') return true;
    if (allow === false) return false;
    return allow.some((cidr) => {
      const range = ipaddr.parseCIDR(cidr);
      return ip.kind() === range[0].kind() && ip.match(range);
    });
  } catch {
    return false;
  }
}

class BlockedAddress extends Error {}

function refuse(host: string, address: string): BlockedAddress {
  return new BlockedAddress(
    `Feed URL host ${host} resolves to ${address}, a private, loopback or link-local address; such feeds are not allowed`,
  );
}

/** A dns.lookup replacement that fails for non-public addresses (see module doc). */
function guardedLookup(allow: boolean | string[]): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !isAllowedAddress(a.address, allow));
      if (bad) return callback(refuse(hostname, bad.address), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`No address for ${hostname}`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

interface RawResponse {
  status: number;
  statusText: string;
  location?: string;
  body?: Buffer;
}

function requestOnce(url: URL, opts: Required<FetchFeedOptions>, signal: AbortSignal): Promise<RawResponse> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !isAllowedAddress(host, opts.allowPrivateHosts)) {
    return Promise.reject(refuse(host, host));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(
      url,
      { headers: { Accept: 'application/json', 'User-Agent': 'dc-banners-feed/1.0' }, lookup: guardedLookup(opts.allowPrivateHosts), signal },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ status, statusText: res.statusMessage ?? '', location: res.headers.location });
        }
        if (status < 200 || status >= 300) {
          res.resume();
          return resolve({ status, statusText: res.statusMessage ?? '' });
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > opts.maxBytes) {
          res.destroy();
          return reject(new Invalid(`Feed response is larger than ${opts.maxBytes} bytes (${declared} bytes)`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxBytes) {
            res.destroy();
            reject(new Invalid(`Feed response is larger than ${opts.maxBytes} bytes`));
          } else chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, statusText: res.statusMessage ?? '', body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/**
 * Fetches a feed URL and returns its parsed JSON document.
 * @throws Invalid with: the 15-second timeout text, 'HTTP {status}: {statusText}', a refused
 * private address, too many redirects, an oversized, non-JSON or too deeply nested body, or
 * 'Failed to fetch inventory feed (reason)' for network errors.
 */
export async function fetchFeedJson(feedUrl: string, options: FetchFeedOptions): Promise<unknown> {
  const opts = { timeoutMs: FEED_TIMEOUT_MS, maxBytes: MAX_INVENTORY_BYTES, ...options };
  let url: URL;
  try {
    url = new URL(feedUrl);
  } catch {
    throw new Invalid(`Feed URL is not a valid URL: ${feedUrl}`);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  try {
    for (let redirects = 0; ; redirects += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Invalid('Feed URL must use http or https');
      const res = await requestOnce(url, opts, controller.signal);
      if (res.location) {
        if (redirects >= FEED_MAX_REDIRECTS) throw new Invalid(`Feed redirected more than ${FEED_MAX_REDIRECTS} times`);
        url = new URL(res.location, url);
        continue;
      }
      if (!res.body) throw new Invalid(`HTTP ${res.status}: ${res.statusText}`);
      try {
        const text = res.body.toString('utf8').replace(/^\uFEFF/, '');
        assertJsonDepth(text);
        return JSON.parse(text);
      } catch (e) {
        throw new Invalid(`Feed did not return valid JSON (${(e as Error).message})`);
      }
    }
  } catch (e) {
    if (controller.signal.aborted) throw new Invalid(INVENTORY_TEXT.timeout);
    if (e instanceof Invalid) throw e;
    if (e instanceof BlockedAddress) throw new Invalid(e.message);
    const code = (e as NodeJS.ErrnoException).code;
    throw new Invalid(`${INVENTORY_TEXT.fetchFailed} (${code ?? (e as Error).message})`);
  } finally {
    clearTimeout(timer);
  }
}
