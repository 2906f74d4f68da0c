/**
 * Dealer settings and the import refuse base and fallback URLs on private,
 * loopback or link-local addresses (unless FEED_ALLOW_PRIVATE_HOSTS allows them); the import
 * validates with the settings schemas and applies the Users API's rules (never no active admin);
 * a deleted dealer's staff export and import back; new users are reported for a password reset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { IMPORT_NO_ACTIVE_ADMIN } from './platform';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  ({ t, cookie: admin } = await createSignedInTestApp('admin'));
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (app: TestApp, cookie: string, method: Method, url: string, payload?: unknown) =>
  app.app.inject({ method, url, payload: payload as object, headers: { cookie } });
const errorOf = (res: { json(): { error: { message: string } } }) => res.json().error.message as string;

async function storageOf(app: TestApp, cookie: string) {
  return (await call(app, cookie, 'GET', `/api/dealers/${DEMO_DEALER.id}`)).json().dealer.assetStorage;
}

/** A full export minus its timestamp, to compare the platform before and after a refused import. */
async function snapshot() {
  const { exportedAt: _e, ...rest } = (await call(t, admin, 'GET', '/api/admin/export')).json();
  return rest;
}

describe('dealer settings refuse private base URLs', () => {
  const privateUrls = [
    'http://127.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://10.0.0.1/',
    'http://localhost:8080/cdn',
    'http://2130706433/', // 127.0.0.1 as one number
    'http://[::ffff:127.0.0.1]/',
  ];

  it('answers 400 naming assetStorage.baseUrl and stores nothing', async () => {
    const before = await storageOf(t, admin);
    for (const baseUrl of privateUrls) {
      const res = await call(t, admin, 'PUT', `/api/admin/dealers/${DEMO_DEALER.id}/settings`, { assetStorage: { ...before, baseUrl } });
      expect(res.statusCode, baseUrl).toBe(400);
      expect(errorOf(res), baseUrl).toMatch(/^assetStorage\.baseUrl: must not point at a private, loopback or link-local address/);
      expect(res.json().error.fields, baseUrl).toEqual([{ path: 'assetStorage.baseUrl', code: 'private_address', message: expect.stringMatching(/^Must not point at a private/) }]);
    }
    expect(await storageOf(t, admin)).toEqual(before);
  });

  it('accepts public base URLs and an empty one', async () => {
    const before = await storageOf(t, admin);
    for (const baseUrl of ['https://cdn.example.com/banners', '']) {
      const res = await call(t, admin, 'PUT', `/api/admin/dealers/${DEMO_DEALER.id}/settings`, { assetStorage: { ...before, baseUrl } });
      expect(res.statusCode, baseUrl).toBe(200);
      expect(res.json().dealer.assetStorage.baseUrl).toBe(baseUrl);
    }
  });

  it('accepts private addresses inside FEED_ALLOW_PRIVATE_HOSTS only', async () => {
    const dev = await createTestApp({ env: { FEED_ALLOW_PRIVATE_HOSTS: '10.0.0.0/8' } });
    try {
      const cookie = await dev.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
      const storage = await storageOf(dev, cookie);
      const put = (baseUrl: string) => call(dev, cookie, 'PUT', `/api/admin/dealers/${DEMO_DEALER.id}/settings`, { assetStorage: { ...storage, baseUrl } });
      expect((await put('http://10.0.0.1/cdn')).statusCode).toBe(200);
      expect((await put('http://127.0.0.1/cdn')).statusCode).toBe(400);
    } finally {
      await dev.close();
    }
  });
});

describe('import validates like the settings screens', () => {
  const refusals: Array<[string, (d: Record<string, any>) => void, RegExp]> = [ // eslint-disable-line @typescript-eslint/no-explicit-any
    ['javascript: logo URL', (d) => (d.dealers[0].branding.logoUrl = 'javascript:alert(1)'), /dealers\.0\.branding\.logoUrl/],
    ['javascript: base URL', (d) => (d.dealers[0].assetStorage.baseUrl = 'javascript:alert(1)'), /dealers\.0\.assetStorage\.baseUrl/],
    ['javascript: manufacturer logo', (d) => (d.manufacturers[0].logoUrl = 'javascript:alert(1)'), /manufacturers\.0\.logoUrl/],
    [
      'javascript: fallback URL',
      (d) =>
        d.dealers[0].fallbackAssets.srpHeaderDesktop.push({ id: 'f1', name: 'f1', type: 'srpHeaderDesktop', url: 'javascript:alert(1)', isUploaded: false, createdAt: '2026-01-01T00:00:00.000Z', isActive: true, priority: 1 }),
      /dealers\.0\.fallbackAssets\.srpHeaderDesktop\.0\.url/,
    ],
    ['a 1e15 quota', (d) => (d.dealers[0].assetStorage.storageQuotaBytes = 1e15), /dealers\.0\.assetStorage\.storageQuotaBytes: must be at most 10 GB/],
    ['CSS in a dealer colour', (d) => (d.dealers[0].branding.primaryColor = 'red; background:url(x)'), /dealers\.0\.branding\.primaryColor: must be a hex color/],
    ['CSS in a manufacturer colour', (d) => (d.manufacturers[0].primaryColor = 'red; background:url(x)'), /manufacturers\.0\.primaryColor: must be a hex color/],
    ['a private base URL', (d) => (d.dealers[0].assetStorage.baseUrl = 'http://169.254.169.254/'), /dealers\.0\.assetStorage\.baseUrl: must not point at a private/],
    [
      'a loopback fallback URL',
      (d) =>
        d.dealers[0].fallbackAssets.inlineMobile.push({ id: 'f2', name: 'f2', type: 'inlineMobile', url: 'http://127.0.0.1:8080/x.jpg', isUploaded: false, createdAt: '2026-01-01T00:00:00.000Z', isActive: true, priority: 1 }),
      /dealers\.0\.fallbackAssets\.inlineMobile\.0\.url: must not point at a private/,
    ],
    ['a dealer id that is a path', (d) => (d.dealers[0].id = '../../admin'), /dealers\.0\.id: dealer id "\.\.\/\.\.\/admin" is not a slug/],
    ['a dealer id with markup', (d) => (d.dealers[0].id = '<img src=x onerror=alert(1)>'), /dealers\.0\.id: dealer id "<img src=x onerror=alert\(1\)>" is not a slug/],
    ['a dealer id in capitals or with a double hyphen', (d) => d.dealers.push({ ...d.dealers[0], id: 'Honda--Demo' }), /dealers\.1\.id: dealer id "Honda--Demo" is not a slug/],
    ['an empty dealer id', (d) => (d.dealers[0].id = ''), /dealers\.0\.id: dealer id "" is not a slug/],
    ['a dealer name on two lines', (d) => (d.dealers[0].name = 'Honda of Demo\r\nBcc: x@example.com'), /dealers\.0\.name: must be a single line/],
    ['a user name on two lines', (d) => (d.users[0].name = 'Admin\nBcc: x@example.com'), /users\.0\.name: must be a single line/],
    ['a manufacturer name on two lines', (d) => (d.manufacturers[0].name = 'Honda\r\nMotors'), /manufacturers\.0\.name: must be a single line/],
    ['the same email twice', (d) => d.users.push({ ...d.users[0], id: '2c5a4b1e-8a0f-4c55-9f0e-5d1c0b7a9e01', email: d.users[0].email.toUpperCase() }), /appears more than once/],
    ['an active viewer without a dealer', (d) => d.users.push({ id: '2c5a4b1e-8a0f-4c55-9f0e-5d1c0b7a9e02', email: 'lost@example.com', name: 'Lost', role: 'viewer', dealerId: null, isActive: true }), /"lost@example\.com" is active and needs a dealer/],
  ];

  it.each(refusals)('refuses %s with 400 naming the field, changing nothing', async (_name, edit, message) => {
    const before = await snapshot();
    const doc = (await call(t, admin, 'GET', '/api/admin/export')).json();
    doc.dealers[0].name = 'Renamed By Import';
    edit(doc);
    const res = await call(t, admin, 'POST', '/api/admin/import', doc);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatch(/^Invalid import data format: /);
    expect(errorOf(res)).toMatch(message);
    expect(await snapshot()).toEqual(before);
  });
});

describe('dealer names are one line', () => {
  it.each([
    ['a line feed', 'Honda of Demo\nSecond line'],
    ['a carriage return', 'Honda\rof Demo'],
    ['a tab', 'Honda\tof Demo'],
    ['a NUL', 'Honda\u0000'],
    ['a Unicode line separator', 'Honda\u2028Demo'],
  ])('refuses %s in the name on create and in the settings, naming the field', async (_name, name) => {
    const before = (await call(t, admin, 'GET', `/api/dealers/${DEMO_DEALER.id}`)).json().dealer.name;
    const created = await call(t, admin, 'POST', '/api/admin/dealers', { name, manufacturer: 'honda', websiteUrl: 'https://x.example', provider: 'dealeron' });
    expect(created.statusCode).toBe(400);
    expect(errorOf(created)).toMatch(/^name: must be a single line: no line breaks, tabs or other control characters/);
    const updated = await call(t, admin, 'PUT', `/api/admin/dealers/${DEMO_DEALER.id}/settings`, { name });
    expect(updated.statusCode).toBe(400);
    expect(errorOf(updated)).toMatch(/^name: must be a single line/);
    expect((await call(t, admin, 'GET', `/api/dealers/${DEMO_DEALER.id}`)).json().dealer.name).toBe(before);
  });

  it('refuses a line break in a user name and a manufacturer name too, naming the field', async () => {
    const user = await call(t, admin, 'POST', '/api/admin/users', { email: 'two-lines@example.com', name: 'Two\nLines', password: 'password123', role: 'admin', dealerId: null });
    expect(user.statusCode).toBe(400);
    expect(errorOf(user)).toMatch(/^name: must be a single line/);
    const manufacturer = (await call(t, admin, 'GET', '/api/admin/manufacturers')).json().manufacturers[0];
    const renamed = await call(t, admin, 'PUT', `/api/admin/manufacturers/${manufacturer.id}`, { ...manufacturer, name: 'Honda\u2028Motors' });
    expect(renamed.statusCode).toBe(400);
    expect(errorOf(renamed)).toMatch(/name: must be a single line/);
  });

  it('still takes a name with spaces, punctuation and accents, trimmed', async () => {
    const res = await call(t, admin, 'PUT', `/api/admin/dealers/${DEMO_DEALER.id}/settings`, { name: '  Honda of Démo & Sons, Inc.  ' });
    expect(res.statusCode).toBe(200);
    expect(res.json().dealer.name).toBe('Honda of Démo & Sons, Inc.');
  });
});

describe("import applies the Users API's rules", () => {
  it('refuses whole, with a clear message, an import that would leave no active admin', async () => {
    const before = await snapshot();
    const deactivate = (await call(t, admin, 'GET', '/api/admin/export')).json();
    deactivate.dealers[0].name = 'Renamed By Import';
    for (const u of deactivate.users) if (u.role === 'admin') u.isActive = false;
    const res = await call(t, admin, 'POST', '/api/admin/import', deactivate);
    expect(res.statusCode).toBe(409);
    expect(errorOf(res)).toBe(IMPORT_NO_ACTIVE_ADMIN);
    expect(await snapshot()).toEqual(before);

    const demote = (await call(t, admin, 'GET', '/api/admin/export')).json();
    for (const u of demote.users) if (u.role === 'admin') Object.assign(u, { role: 'viewer', dealerId: DEMO_DEALER.id });
    expect(errorOf(await call(t, admin, 'POST', '/api/admin/import', demote))).toBe(IMPORT_NO_ACTIVE_ADMIN);
    expect(await snapshot()).toEqual(before);
    expect((await call(t, admin, 'GET', '/api/auth/me')).statusCode).toBe(200); // still signed in
  });

  it('lists the new users that need a password reset, and signs out a user it deactivates', async () => {
    const viewer = await t.login(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password);
    const doc = (await call(t, admin, 'GET', '/api/admin/export')).json();
    doc.users.find((u: { email: string }) => u.email === DEMO_ACCOUNTS[2]!.email).isActive = false;
    doc.users.push({ id: '2c5a4b1e-8a0f-4c55-9f0e-5d1c0b7a9e03', email: 'fresh@example.com', name: 'Fresh Staff', role: 'dealer-manager', dealerId: DEMO_DEALER.id, isActive: true });
    const res = await call(t, admin, 'POST', '/api/admin/import', doc);
    expect(res.statusCode).toBe(200);
    expect(res.json().imported.passwordResetRequired).toEqual(['fresh@example.com']);
    expect((await call(t, viewer, 'GET', '/api/auth/me')).json()).toEqual({ user: null });
    // Importing the same file again creates nobody.
    expect((await call(t, admin, 'POST', '/api/admin/import', doc)).json().imported.passwordResetRequired).toEqual([]);
  });

  it("imports back its own export after a dealer with staff was deleted (the staff stay inactive, with no dealer)", async () => {
    const created = await call(t, admin, 'POST', '/api/admin/dealers', { name: 'Short Lived Motors', manufacturer: 'toyota', websiteUrl: 'https://short.example.com', provider: 'mxs' });
    expect(created.statusCode).toBe(201);
    const staff = await call(t, admin, 'POST', '/api/admin/users', { email: 'staff@short.example.com', name: 'Short Staff', role: 'dealer-manager', dealerId: 'short-lived-motors', password: 'short-staff-1' });
    expect(staff.statusCode).toBe(201);
    expect((await call(t, admin, 'DELETE', '/api/admin/dealers/short-lived-motors')).statusCode).toBe(204);

    const exported = (await call(t, admin, 'GET', '/api/admin/export')).json();
    expect(exported.users.find((u: { email: string }) => u.email === 'staff@short.example.com')).toMatchObject({ isActive: false, dealerId: null, role: 'dealer-manager' });
    const res = await call(t, admin, 'POST', '/api/admin/import', exported);
    expect(res.statusCode).toBe(200);
    expect(res.json().imported.passwordResetRequired).toEqual([]);
    const after = ((await call(t, admin, 'GET', '/api/admin/users')).json().users as Array<{ email: string }>).find((u) => u.email === 'staff@short.example.com');
    expect(after).toMatchObject({ isActive: false, dealerId: null });
  });
});
