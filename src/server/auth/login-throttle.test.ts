/**
 * Sign-in abuse resistance (issue 11 item 2): unknown and deactivated emails cost the same argon2
 * verify as real accounts, and failures are throttled per account (across IPs, in the database)
 * with a doubling lock, for unknown emails the same way. TRUST_PROXY=1 so each attempt can come
 * from its own client IP and the per-IP limit stays out of the way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import argon2 from 'argon2';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS } from '../db/seed';
import { loginThrottles, users } from '../db/schema';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: '1' } });
});
afterAll(() => t.close());
afterEach(() => vi.restoreAllMocks());

const manager = DEMO_ACCOUNTS[1]!;
let ipCounter = 0;
/** Signs in from a new client IP each time. */
const attempt = (email: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'x-forwarded-for': `203.0.113.${++ipCounter % 250}` }, payload: { email, password } });

const throttleOf = async (email: string) => (await t.database.db.select().from(loginThrottles).where(eq(loginThrottles.emailLower, email.toLowerCase())))[0];
/** Moves the email's lock into the past, as if its time had passed. */
const endLock = (email: string) =>
  t.database.db.update(loginThrottles).set({ lockedUntil: new Date(Date.now() - 1000) }).where(eq(loginThrottles.emailLower, email.toLowerCase()));

describe('equal work for every email', () => {
  it('runs one argon2 verify for an unknown email, a deactivated account and a real one', async () => {
    const cookie = await t.userCookie('viewer', 'honda-of-demo');
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
    const deactivated = me.json().user.email as string;
    await t.database.db.update(users).set({ isActive: false }).where(eq(users.email, deactivated));

    const [managerRow] = await t.database.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.email, manager.email));
    const managerHash = managerRow!.passwordHash;
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

describe('per-account throttle', () => {
  it('locks an account after 5 wrong passwords from different IPs, even for the right password; the lock doubles; success resets', async () => {
    for (let i = 0; i < 5; i++) expect((await attempt(manager.email, `wrong-${i}`)).statusCode).toBe(401);

    const verify = vi.spyOn(argon2, 'verify');
    const locked = await attempt(manager.email, manager.password);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error).toEqual({ code: 'RATE_LIMITED', message: 'Too many attempts, try again in 1 minute' });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(verify).not.toHaveBeenCalled(); // a locked attempt costs no argon2 run
    expect((await attempt(manager.email.toUpperCase(), manager.password)).statusCode).toBe(429); // same account, any case

    // The lock passed; one more failure locks again, for twice as long.
    await endLock(manager.email);
    expect((await attempt(manager.email, 'wrong-6')).statusCode).toBe(401);
    const again = await attempt(manager.email, manager.password);
    expect(again.statusCode).toBe(429);
    expect(again.json().error.message).toBe('Too many attempts, try again in 2 minutes');

    // The lock passed; the right password works and resets the count.
    await endLock(manager.email);
    const ok = await attempt(manager.email, manager.password);
    expect(ok.statusCode).toBe(200);
    expect(await throttleOf(manager.email)).toBeUndefined();
    expect((await attempt(manager.email, 'wrong-again')).statusCode).toBe(401);
    expect((await throttleOf(manager.email))?.failures).toBe(1);
    expect((await attempt(manager.email, manager.password)).statusCode).toBe(200);
  });

  it('throttles an unknown email exactly like an account, so the lock does not reveal which emails exist', async () => {
    const ghost = 'ghost@example.com';
    for (let i = 0; i < 5; i++) expect((await attempt(ghost, `guess-${i}`)).statusCode).toBe(401);
    const locked = await attempt(ghost, 'guess-5');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error.message).toBe('Too many attempts, try again in 1 minute');
    expect(await throttleOf(ghost)).toMatchObject({ failures: 5 });
    // Other accounts are not affected.
    expect((await attempt(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password)).statusCode).toBe(200);
  });

  it('lets no more than 5 of a burst of concurrent guesses from many IPs reach the password check', async () => {
    const email = 'concurrent@example.com';
    const verify = vi.spyOn(argon2, 'verify');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(email, `guess-${i}`)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
    expect(verify).toHaveBeenCalledTimes(5);
    expect((await throttleOf(email))?.failures).toBe(5);
  });
});
