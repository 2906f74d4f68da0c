/**
 * Sign-in abuse resistance : unknown and deactivated emails cost the same argon2
 * verify as real accounts, and failures are throttled per account and source (client IP, in the
 * database) with a doubling lock, for unknown emails the same way: a guesser locks the account for
 * itself only, while the owner signs in from elsewhere; enough locked sources lock it for everyone.
 * Each attempt names its client IP (the connection's address, no proxy trusted).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import argon2 from 'argon2';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../test-app';
import { hashPassword } from './password';
import { DEMO_ACCOUNTS } from '../db/seed';
import { loginThrottles, users } from '../db/schema';
import { LOGIN_THROTTLE, throttleKey } from '../../domain/login-throttle';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
afterEach(() => vi.restoreAllMocks());

const manager = DEMO_ACCOUNTS[1]!;
const viewer = DEMO_ACCOUNTS[2]!;
let ipCounter = 0;
/** A client IP no other attempt used. */
const newIp = () => `203.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
/** Signs in from `ip` (default: a new client IP each time). */
const attempt = (email: string, password: string, ip = newIp()) =>
  t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email, password } });

const throttleOf = async (email: string, ip: string) =>
  (await t.database.db.select().from(loginThrottles).where(eq(loginThrottles.emailLower, throttleKey(email.toLowerCase(), ip))))[0];
/** Moves the lock of the email for `ip` into the past, as if its time had passed. */
const endLock = (email: string, ip: string) =>
  t.database.db
    .update(loginThrottles)
    .set({ lockedUntil: new Date(Date.now() - 1000) })
    .where(eq(loginThrottles.emailLower, throttleKey(email.toLowerCase(), ip)));

describe('equal work for every email', () => {
  it('runs one argon2 verify for an unknown email, a deactivated account and a real one', async () => {
    const cookie = await t.userCookie('viewer', 'honda-of-demo');
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
    const deactivated = me.json().user.email as string;
    await t.database.db.update(users).set({ isActive: false }).where(eq(users.email, deactivated));
    // The test accounts' hashes are made at the smallest argon2 cost (test-snapshot.ts); here the
    // two real accounts get hashes the product makes, so the three verifies compare its parameters.
    const managerHash = await hashPassword(manager.password);
    await t.database.db.update(users).set({ passwordHash: managerHash }).where(eq(users.email, manager.email));
    await t.database.db.update(users).set({ passwordHash: await hashPassword('password123') }).where(eq(users.email, deactivated));
    const params = (hash: string) => hash.split('$').slice(0, 4).join('$'); // $argon2id$v=19$m=...,t=...,p=...
    const verify = vi.spyOn(argon2, 'verify');
    const cases: Array<[string, string]> = [
      ['nobody-here@example.com', 'password123'],
      [deactivated, 'password123'], // the right password of a deactivated account
      [manager.email, 'wrong-password'],
    ];
    for (const [email, password] of cases) {
      verify.mockClear();
      const res = await attempt(email, password);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toBe('Invalid credentials');
      expect(verify).toHaveBeenCalledTimes(1);
      expect(params(verify.mock.calls[0]![0])).toBe(params(managerHash)); // same argon2 parameters, so the same cost
    }
    await t.database.db.delete(loginThrottles);
  });
});

describe('per-account-and-source throttle', () => {
  it('locks an account for one IP after 5 wrong passwords from it, even for the right password; the lock doubles; success resets', async () => {
    const ip = newIp();
    for (let i = 0; i < 5; i++) expect((await attempt(manager.email, `wrong-${i}`, ip)).statusCode).toBe(401);

    const verify = vi.spyOn(argon2, 'verify');
    const locked = await attempt(manager.email, manager.password, ip);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error).toEqual({ code: 'RATE_LIMITED', message: 'Too many attempts, try again in 1 minute' });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(verify).not.toHaveBeenCalled(); // a locked attempt costs no argon2 run
    expect((await attempt(manager.email.toUpperCase(), manager.password, ip)).statusCode).toBe(429); // same account, any case

    // The lock passed; one more failure locks again, for twice as long.
    await endLock(manager.email, ip);
    expect((await attempt(manager.email, 'wrong-6', ip)).statusCode).toBe(401);
    const again = await attempt(manager.email, manager.password, ip);
    expect(again.statusCode).toBe(429);
    expect(again.json().error.message).toBe('Too many attempts, try again in 2 minutes');

    // The lock passed; the right password works and resets the count.
    await endLock(manager.email, ip);
    const ok = await attempt(manager.email, manager.password, ip);
    expect(ok.statusCode).toBe(200);
    expect(await throttleOf(manager.email, ip)).toBeUndefined();
    expect(await t.database.db.select().from(loginThrottles)).toEqual([]); // the email's own row too
    expect((await attempt(manager.email, 'wrong-again', ip)).statusCode).toBe(401);
    expect((await throttleOf(manager.email, ip))?.failures).toBe(1);
    expect((await attempt(manager.email, manager.password, ip)).statusCode).toBe(200);
  });

  it('lets the right password in from a clean IP while another IP keeps guessing, and keeps refusing the guesser', async () => {
    const attacker = newIp();
    const owner = newIp();
    const flood = async (n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) statuses.push((await attempt(manager.email, `guess-${i}`, attacker)).statusCode);
      return statuses;
    };
    expect(await flood(8)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Each time the guesser's lock ends it tries again, and the lock doubles.
    await endLock(manager.email, attacker);
    expect(await flood(2)).toEqual([401, 429]);

    const ok = await attempt(manager.email, manager.password, owner);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user.email).toBe(manager.email);

    // The guesser is still refused, with the right password too, and its count stayed.
    expect(await flood(3)).toEqual([429, 429, 429]);
    const refused = await attempt(manager.email, manager.password, attacker);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.message).toBe('Too many attempts, try again in 2 minutes');
    expect((await throttleOf(manager.email, attacker))?.failures).toBe(6);
    expect((await attempt(manager.email, manager.password, owner)).statusCode).toBe(200);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    const email = 'ipv6-guess@example.com';
    for (let i = 0; i < 5; i++) expect((await attempt(email, `guess-${i}`, `2001:db8:1:2::${i + 1}`)).statusCode).toBe(401);
    expect((await attempt(email, 'guess-5', '2001:db8:1:2:ffff::9')).statusCode).toBe(429);
    expect((await attempt(email, 'guess-6', '2001:db8:1:3::1')).statusCode).toBe(401);
  });

  it('throttles an unknown email exactly like an account, so the lock does not reveal which emails exist', async () => {
    const ghost = 'ghost@example.com';
    const ip = newIp();
    for (let i = 0; i < 5; i++) expect((await attempt(ghost, `guess-${i}`, ip)).statusCode).toBe(401);
    const locked = await attempt(ghost, 'guess-5', ip);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error.message).toBe('Too many attempts, try again in 1 minute');
    expect(await throttleOf(ghost, ip)).toMatchObject({ failures: 5 });
    // Other accounts are not affected, from the same IP either.
    expect((await attempt(viewer.email, viewer.password, ip)).statusCode).toBe(200);
  });

  it('lets no more than 5 of a burst of concurrent guesses from one IP reach the password check', async () => {
    const email = 'concurrent@example.com';
    const ip = newIp();
    const verify = vi.spyOn(argon2, 'verify');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(email, `guess-${i}`, ip)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
    expect(verify).toHaveBeenCalledTimes(5);
    expect((await throttleOf(email, ip))?.failures).toBe(5);
  });

  it(`while ${LOGIN_THROTTLE.accountLockSources} IPs have locked an account, refuses every IP that failed on it but lets a clean IP in`, { timeout: 90_000 }, async () => {
    const email = viewer.email;
    // All but one of the sources locked the email a moment ago (as 5 wrong passwords each would).
    const now = Date.now();
    const others = Array.from({ length: LOGIN_THROTTLE.accountLockSources - 1 }, newIp);
    await t.database.db.insert(loginThrottles).values(
      others.map((ip) => ({ emailLower: throttleKey(email, ip), failures: LOGIN_THROTTLE.maxFailures, lastFailureAt: new Date(now), lockedUntil: new Date(now + 60_000) })),
    );
    // One locked source short of the ceiling, an IP that failed once is still checked.
    const failedOnce = newIp();
    expect((await attempt(email, 'wrong', failedOnce)).statusCode).toBe(401);
    expect((await attempt(email, 'wrong', failedOnce)).statusCode).toBe(401);
    const last = newIp();
    for (let i = 0; i < LOGIN_THROTTLE.maxFailures; i++) expect((await attempt(email, `guess-${i}`, last)).statusCode).toBe(401);

    // The ceiling reached: a source that failed on the email is refused without a password check.
    const verify = vi.spyOn(argon2, 'verify');
    const refused = await attempt(email, viewer.password, failedOnce);
    expect(refused.statusCode).toBe(429);
    // Until the oldest lock (1 minute) has ended and been forgotten (15 minutes later).
    expect(refused.json().error.message).toMatch(/^Too many attempts, try again in 1[56] minutes$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(16 * 60);
    expect(verify).not.toHaveBeenCalled();
    // A fresh address gets one guess, then is held back like the others.
    const guesser = newIp();
    expect((await attempt(email, 'guess', guesser)).statusCode).toBe(401);
    expect((await attempt(email, 'guess-again', guesser)).statusCode).toBe(429);
    // The owner, from a clean address, signs in while the account is under attack.
    expect((await attempt(email, viewer.password, newIp())).statusCode).toBe(200);
    // Other accounts are not affected.
    expect((await attempt(manager.email, manager.password, newIp())).statusCode).toBe(200);
  });
});
