/**
 * The one outbound-request guard for every server-side HTTP request (DECISIONS 20):
 * inventory feeds (inventory/fetch-feed.ts) and CDN auto-discovery probes (delivery/cdn-probe.ts).
 *
 * - Only http and https.
 * - Hosts that resolve to private, loopback, link-local or other non-public addresses are refused
 *   unless the policy (`FEED_ALLOW_PRIVATE_HOSTS`: true, false or a list of CIDRs) allows them. The
 *   check runs inside the socket's DNS lookup, so the address checked is the one connected to (no
 *   window for DNS rebinding between check and connect); IP literals are checked before connecting.
 * - Redirects are never followed by the HTTP client: each `Location` is a new hop, checked again,
 *   up to `maxRedirects`.
 * - An optional response body cap (declared Content-Length and bytes read).
 *
 * `outboundUrlProblem` is the same policy for URLs an admin stores (settings, import), judged
 * without DNS: IP literals and `localhost` names. A stored name that resolves to a private address
 * later is still refused at connect time by the lookup guard.
 */
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Non-public addresses allowed: all (true), none (false), or those inside the given CIDRs. */
export type PrivateHostPolicy = boolean | string[];

/**
 * True when the server may connect to `address`: a public internet address (ipaddr.js range
 * 'unicast', IPv4-mapped IPv6 judged as IPv4), or any address when `allow` is true, or one inside
 * an allowed CIDR. Unparseable input is refused.
 */
export function isAllowedAddress(address: string, allow: PrivateHostPolicy): boolean {
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

/** A request the guard refused: the host is, or resolves to, a non-public address. */
export class BlockedAddress extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`host ${host} resolves to ${address}, a private, loopback or link-local address`);
  }
}

/** More redirects than allowed (`maxRedirects`). */
export class TooManyRedirects extends Error {
  constructor(readonly maxRedirects: number) {
    super(`redirected more than ${maxRedirects} times`);
  }
}

/** The body is larger than `maxBytes`; `declared` is the Content-Length when that told it first. */
export class ResponseTooLarge extends Error {
  constructor(
    readonly maxBytes: number,
    readonly declared?: number,
  ) {
    super(`response is larger than ${maxBytes} bytes${declared ? ` (${declared} bytes)` : ''}`);
  }
}

/** A URL that is not http or https (also after a redirect). */
export class UnsupportedProtocol extends Error {
  constructor(readonly protocol: string) {
    super(`URL must use http or https, not ${protocol}`);
  }
}

type LookupAll = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/** A dns.lookup replacement that fails for non-public addresses (see module doc). */
function guardedLookup(allow: PrivateHostPolicy, resolve: LookupAll): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, list) => {
      if (err) return callback(err, '', 0);
      const bad = list.find((a) => !isAllowedAddress(a.address, allow));
      if (bad) return callback(new BlockedAddress(hostname, bad.address), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`No address for ${hostname}`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

export interface OutboundOptions {
  /** FEED_ALLOW_PRIVATE_HOSTS (config.feedAllowPrivateHosts). */
  allowPrivateHosts: PrivateHostPolicy;
  /** Ends the whole exchange (all hops) when aborted. */
  signal: AbortSignal;
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** Redirect hops allowed after the first request (0 = none). */
  maxRedirects: number;
  /** Body cap for GET; absent = no body is read. */
  maxBytes?: number;
  /** Name resolution (tests inject one); defaults to dns.lookup. */
  lookup?: LookupAll;
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  /** The URL of the final hop. */
  url: URL;
  contentType: string;
  /** The body of a 2xx GET when `maxBytes` is set; else undefined. */
  body?: Buffer;
}

interface Hop {
  status: number;
  statusText: string;
  contentType: string;
  location?: string;
  body?: Buffer;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

function requestOnce(url: URL, opts: OutboundOptions): Promise<Hop> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new UnsupportedProtocol(url.protocol));
  const host = hostOf(url);
  if (net.isIP(host) && !isAllowedAddress(host, opts.allowPrivateHosts)) return Promise.reject(new BlockedAddress(host, host));
  const client = url.protocol === 'https:' ? https : http;
  const lookup = guardedLookup(opts.allowPrivateHosts, opts.lookup ?? (dns.lookup as unknown as LookupAll));
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: opts.method ?? 'GET', headers: opts.headers, lookup, signal: opts.signal }, (res) => {
      const status = res.statusCode ?? 0;
      const base = { status, statusText: res.statusMessage ?? '', contentType: String(res.headers['content-type'] ?? '') };
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return resolve({ ...base, location: res.headers.location });
      }
      if (status < 200 || status >= 300 || opts.maxBytes === undefined || opts.method === 'HEAD') {
        res.resume();
        return resolve(base);
      }
      const max = opts.maxBytes;
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > max) {
        res.destroy();
        return reject(new ResponseTooLarge(max, declared));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) {
          res.destroy();
          reject(new ResponseTooLarge(max));
        } else chunks.push(chunk);
      });
      res.on('end', () => resolve({ ...base, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Makes one guarded HTTP request (see module doc), following up to `maxRedirects` redirects by
 * hand, each hop's URL and resolved address checked again.
 * Input: an absolute URL and OutboundOptions. Output: the final hop's status, content type, URL
 * and (for a 2xx GET with `maxBytes`) body; non-2xx answers are returned, not thrown.
 * @throws BlockedAddress, TooManyRedirects, ResponseTooLarge, UnsupportedProtocol, TypeError for
 * an invalid URL, or the network error (an AbortError when `signal` fired).
 */
export async function guardedRequest(target: string | URL, opts: OutboundOptions): Promise<OutboundResponse> {
  let url = new URL(target);
  for (let redirects = 0; ; redirects += 1) {
    const hop = await requestOnce(url, opts);
    if (hop.location === undefined) return { status: hop.status, statusText: hop.statusText, url, contentType: hop.contentType, body: hop.body };
    if (redirects >= opts.maxRedirects) throw new TooManyRedirects(opts.maxRedirects);
    url = new URL(hop.location, url);
  }
}

/** Host names that always mean this machine (RFC 6761), whatever DNS says. */
const LOOPBACK_NAME = /^(localhost|.*\.localhost)\.?$/i;

/**
 * Why the server must not fetch `value` under `allow`, or null when it may (as far as can be told
 * without DNS): not an http(s) URL, an IP literal outside the policy (any form the URL parser
 * normalises: `http://2130706433/`, `http://[::ffff:127.0.0.1]/`), or a `localhost` name (judged as
 * 127.0.0.1). Empty strings are the caller's business. Used by the dealer settings and the import
 *.
 */
export function outboundUrlProblem(value: string, allow: PrivateHostPolicy): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL starting with http:// or https://';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be a URL starting with http:// or https://';
  const host = hostOf(url);
  const address = LOOPBACK_NAME.test(host) ? '127.0.0.1' : net.isIP(host) ? host : null;
  if (address && !isAllowedAddress(address, allow)) {
    return `must not point at a private, loopback or link-local address (${host}); FEED_ALLOW_PRIVATE_HOSTS allows such hosts`;
  }
  return null;
}
