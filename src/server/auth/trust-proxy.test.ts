/**
 * TRUST_PROXY: by default X-Forwarded-For and X-Forwarded-Proto from a client
 * change neither the sign-in limit's IP nor requireHttps; with TRUST_PROXY=1 (one proxy in front)
 * they are honoured. Every wrong login uses its own unknown email, so only the per-IP limit counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { LOGIN_IP_LIMIT_PER_MINUTE } from '../../domain/login-throttle';

/** The default configuration (no TRUST_PROXY) and one reverse proxy in front (TRUST_PROXY=1). */
let direct: TestApp;
let proxied: TestApp;
beforeAll(async () => {
  // A public deployment: plain HTTP is exempt from requireHttps only when PUBLIC_ORIGIN is this machine.
  const env = { PUBLIC_ORIGIN: 'https://banners.example.com' };
  [direct, proxied] = await Promise.all([createTestApp({ env }), createTestApp({ env: { ...env, TRUST_PROXY: '1' } })]);
});
afterAll(() => Promise.all([direct.close(), proxied.close()]));

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/** `n` wrong logins, each for its own unknown email, with the headers `headersOf(i)`; resolves their responses in order. */
async function wrongLogins(t: TestApp, n: number, headersOf: (i: number) => Record<string, string>) {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      t.app.inject({ method: 'POST', url: '/api/auth/login', headers: headersOf(i), payload: { email: `nobody-${i}@example.com`, password: 'guess' } }),
    ),
  );
}

const statusCounts = (responses: Array<{ statusCode: number }>) =>
  responses.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.statusCode]: (acc[r.statusCode] ?? 0) + 1 }), {});

describe('TRUST_PROXY', () => {
  it('by default limits 25 wrong logins with rotating X-Forwarded-For like logins without the header', async () => {
    const rotated = await wrongLogins(direct, 25, (i) => ({ 'x-forwarded-for': `203.0.113.${i + 1}` }));
    expect(statusCounts(rotated)).toEqual({ 401: LOGIN_IP_LIMIT_PER_MINUTE, 429: 25 - LOGIN_IP_LIMIT_PER_MINUTE });
    const limited = rotated.find((r) => r.statusCode === 429)!;
    expect(limited.json().error).toEqual({ code: 'RATE_LIMITED', message: 'Too many attempts, try again in 1 minute' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The client without the header is in the same, exhausted bucket: the header changed nothing.
    const plain = await wrongLogins(direct, 1, () => ({}));
    expect(plain[0]!.statusCode).toBe(429);
    expect(plain[0]!.json().error.message).toBe('Too many attempts, try again in 1 minute');
  });

  it('with TRUST_PROXY=1 honours X-Forwarded-For: each forwarded client has its own limit', async () => {
    const rotated = await wrongLogins(proxied, 25, (i) => ({ 'x-forwarded-for': `198.51.100.7, 203.0.113.${i + 1}` }));
    expect(statusCounts(rotated)).toEqual({ 401: 25 });
  });

  it('requireHttps cannot be bypassed with X-Forwarded-Proto by default, and is satisfied by it behind a trusted proxy', async () => {
    // The demo dealer requires HTTPS (default security settings).
    const image = (t: TestApp) =>
      t.app.inject({
        method: 'GET',
        url: `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header`,
        headers: { host: 'banners.example.com', 'x-forwarded-proto': 'https', referer: 'https://www.hondaofdemo.com/new-inventory?model=civic', 'user-agent': UA },
      });
    const spoofed = await image(direct);
    expect(spoofed.statusCode).toBe(403);
    expect(spoofed.json().error.message).toBe('HTTPS is required for this dealer');
    expect((await image(proxied)).statusCode).not.toBe(403);
  });
});
