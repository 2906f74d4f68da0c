/**
 * The outbound guard's address policy and stored-URL check. The request path is
 * covered through its users: inventory/feeds.test.ts and delivery/cdn-guard.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { isAllowedAddress, outboundUrlProblem } from './guard';

describe('isAllowedAddress', () => {
  it('allows public addresses and refuses private, loopback, link-local and mapped forms', () => {
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111']) expect(isAllowedAddress(a, false), a).toBe(true);
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '100.64.0.1', 'not-an-ip']) {
      expect(isAllowedAddress(a, false), a).toBe(false);
    }
  });

  it('follows the FEED_ALLOW_PRIVATE_HOSTS policy: true, or a list of CIDRs', () => {
    expect(isAllowedAddress('127.0.0.1', true)).toBe(true);
    expect(isAllowedAddress('127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(isAllowedAddress('127.0.0.2', ['127.0.0.1/32'])).toBe(false);
    expect(isAllowedAddress('::1', ['127.0.0.1/32'])).toBe(false);
  });
});

describe('outboundUrlProblem (settings and import)', () => {
  it('refuses IP literals outside the policy in every form the URL parser normalises, and localhost names', () => {
    for (const url of ['http://127.0.0.1/', 'http://169.254.169.254/', 'http://[::1]/', 'http://10.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:127.0.0.1]/', 'http://localhost:3000/', 'https://cdn.localhost/x']) {
      expect(outboundUrlProblem(url, false), url).toMatch(/^must not point at a private, loopback or link-local address/);
    }
  });

  it('accepts public hosts, names it cannot judge without DNS, and allowed private addresses', () => {
    expect(outboundUrlProblem('https://cdn.example.com/banners', false)).toBeNull();
    expect(outboundUrlProblem('http://93.184.216.34/', false)).toBeNull();
    expect(outboundUrlProblem('http://10.1.2.3/', ['10.0.0.0/8'])).toBeNull();
    expect(outboundUrlProblem('http://localhost/', true)).toBeNull();
  });

  it('refuses what is not an http(s) URL', () => {
    expect(outboundUrlProblem('javascript:alert(1)', true)).toMatch(/http/);
    expect(outboundUrlProblem('not a url', true)).toMatch(/http/);
  });
});
