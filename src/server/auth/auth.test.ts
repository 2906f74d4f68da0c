import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestApp, cookieHeader, type TestApp } from '../test-app';
import { users } from '../db/schema';
import { DEMO_ACCOUNTS } from '../db/seed';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const manager = DEMO_ACCOUNTS[1]!;

describe('sign-in', () => {
  it('signs in a demo account with an HttpOnly SameSite=Lax session cookie', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: manager.email, password: manager.password } });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ email: manager.email, role: 'dealer-manager', dealerId: 'honda-of-demo', dealerName: 'Honda of Demo' });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/dcb_session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie: cookieHeader(res) } });
    expect(me.json().user.email).toBe(manager.email);
  });

  it('matches the email case-insensitively', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: manager.email.toUpperCase(), password: manager.password } });
    expect(res.statusCode).toBe(200);
  });

  it("refuses a wrong password with 'Invalid credentials'", async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: manager.email, password: 'wrong' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toBe('Invalid credentials');
  });

  it('refuses a malformed email with a message naming the field', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'not-an-email', password: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^email: /);
  });

  it("stores argon2id hashes at argon2's default cost (64 MiB, 3 passes, 4 lanes), never the password", async () => {
    // A user the product creates (the seeded test accounts carry cheap test hashes, test-snapshot.ts).
    const admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/users',
      headers: { cookie: admin },
      payload: { email: 'hashed@example.com', name: 'Hashed Person', role: 'viewer', dealerId: 'honda-of-demo', password: 'hashed-secret-1' },
    });
    expect(created.statusCode).toBe(201);
    const [row] = await t.database.db.select().from(users).where(eq(users.email, 'hashed@example.com'));
    expect(row!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect(row!.passwordHash).not.toContain('hashed-secret-1');
  });

  it('logout ends the session server-side', async () => {
    const cookie = await t.login(manager.email, manager.password);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(out.statusCode).toBe(204);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ user: null });
  });

  it('refuses sign-in and ends sessions of a deactivated user', async () => {
    const cookie = await t.userCookie('viewer', 'honda-of-demo');
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
    const id = me.json().user.id as string;
    await t.database.db.update(users).set({ isActive: false }).where(eq(users.id, id));
    const after = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ user: null });
  });

  it('lists the demo accounts for the sign-in hint', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/demo-accounts' });
    expect(res.json().accounts.map((a: { email: string }) => a.email)).toEqual(DEMO_ACCOUNTS.map((a) => a.email));
  });

  it('lists a demo account only while it still has its demo password', async () => {
    const listed = async () => (await t.app.inject({ method: 'GET', url: '/api/auth/demo-accounts' })).json().accounts.map((a: { email: string }) => a.email);
    expect(await listed()).toHaveLength(3);
    const admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
    const [row] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, manager.email));
    const reset = await t.app.inject({ method: 'POST', url: `/api/admin/users/${row!.id}/password`, headers: { cookie: admin }, payload: { password: 'a-new-secret-1' } });
    expect(reset.statusCode).toBe(204);
    expect(await listed()).toEqual([DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[2]!.email]);
  });

  it('lists no demo accounts when SEED_DEMO is off', async () => {
    const off = await createTestApp({ env: { SEED_DEMO: 'false' } });
    try {
      expect((await off.app.inject({ method: 'GET', url: '/api/auth/demo-accounts' })).json()).toEqual({ accounts: [] });
    } finally {
      await off.close();
    }
  });
});
