/**
 * The admin API (spec 01 §2-§9; DECISIONS 3, 7-9, 18-19) through HTTP: dealers (create
 * with defaults, duplicate id, settings validated per field and all-or-nothing, delete),
 * manufacturers (catalogue editing, delete refused while used), users (unique email, dealer
 * required, deactivation ends sessions, last admin protected, password reset), dashboard trends and
 * platform analytics from rollups, export and import.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { CATALOGUE } from '../db/seed-catalogue';
import { clientErrors, dealers, eventRollupsHourly } from '../db/schema';
import { clientErrorSchema, recordClientError } from './client-errors';

let t: TestApp;
let admin: string;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// The reporting clock is pinned (app.now) at 23:30 UTC, the hour in which the old windows disagreed.
const NOW = new Date('2026-03-10T23:30:00Z');

beforeAll(async () => {
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { now: () => NOW }));
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, cookie = admin) =>
  t.app.inject({ method, url, payload: payload as object, headers: { cookie } });
const errorOf = (res: { json(): { error: { message: string } } }) => res.json().error.message;

/** Rollup rows for the demo dealer at a given age. */
async function rollup(ageMs: number, impressions: number, clicks: number, dealerId = DEMO_DEALER.id) {
  const hour = new Date(Math.floor((NOW.getTime() - ageMs) / HOUR) * HOUR);
  await t.database.db.insert(eventRollupsHourly).values({ dealerId, hour, model: 'civic', slotType: 'header', impressions, clicks, conversions: 0 });
}

describe('dealers', () => {
  it('creates a dealer with the slug id, every default and the manufacturer defaults', async () => {
    const res = await call('POST', '/api/admin/dealers', { name: 'Toyota of Springfield!', manufacturer: 'toyota', websiteUrl: 'https://www.toyotaspringfield.com', provider: 'dealer-inspire', status: 'active' });
    expect(res.statusCode).toBe(201);
    const d = res.json().dealer;
    const toyota = CATALOGUE.find((m) => m.id === 'toyota')!;
    expect(d).toMatchObject({ id: 'toyota-of-springfield', manufacturerName: toyota.name, provider: 'dealer-inspire' });
    expect(d.configs.modelMap).toEqual(toyota.defaultModelMappings);
    expect(d.configs.upsellMap).toEqual(toyota.defaultUpsellRules);
    expect(d.configs.trimPatterns).toEqual(toyota.defaultTrimPatterns);
    expect(d.security).toMatchObject({ allowedDomains: ['www.toyotaspringfield.com'], enableCors: true, requireHttps: true, rateLimitEnabled: true, maxRequestsPerMinute: 100 });
    expect(d.notifications).toMatchObject({ emailAlerts: true, alertThreshold: 2 });
    expect(d.branding).toMatchObject({ primaryColor: '#000000', secondaryColor: '#666666', fontFamily: 'Arial, sans-serif' });
  });

  it('takes the time zone on creation, and refuses one that is not an IANA zone', async () => {
    const res = await call('POST', '/api/admin/dealers', { name: 'Ford of Denver', manufacturer: 'ford', websiteUrl: 'https://www.forddenver.com', provider: 'mxs', timeZone: 'America/Denver' });
    expect(res.statusCode).toBe(201);
    expect(res.json().dealer.timeZone).toBe('America/Denver');
    const bad = await call('POST', '/api/admin/dealers', { name: 'Ford of Mars', manufacturer: 'ford', websiteUrl: 'https://www.fordmars.com', provider: 'mxs', timeZone: 'Mars/Olympus' });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toContain('timeZone');
    expect((await call('DELETE', '/api/admin/dealers/ford-of-denver')).statusCode).toBe(204);
  });

  it('refuses a duplicate id, an unknown manufacturer and a bad website URL with clear messages', async () => {
    const dup = await call('POST', '/api/admin/dealers', { name: 'Toyota of  Springfield', manufacturer: 'toyota', websiteUrl: 'https://x.example.com', provider: 'mxs' });
    expect(dup.statusCode).toBe(409);
    expect(errorOf(dup)).toBe('A dealer with the id "toyota-of-springfield" already exists. Choose a different name.');
    const unknown = await call('POST', '/api/admin/dealers', { name: 'Kia Town', manufacturer: 'kia', websiteUrl: 'https://kia.example.com', provider: 'mxs' });
    expect(unknown.statusCode).toBe(400);
    expect(errorOf(unknown)).toBe('manufacturer: unknown manufacturer "kia"');
    const badUrl = await call('POST', '/api/admin/dealers', { name: 'Ford Town', manufacturer: 'ford', websiteUrl: 'fordtown', provider: 'mxs' });
    expect(errorOf(badUrl)).toContain('websiteUrl');
  });

  it('lists dealers oldest first with all-time impressions, clicks and CTR from the rollups', async () => {
    await rollup(2 * DAY, 400, 10);
    const res = await call('GET', '/api/admin/dealers');
    const list = res.json().items as Array<{ id: string; impressions: number; clicks: number; ctr: number | null }>;
    expect(list.map((d) => d.id)).toEqual([DEMO_DEALER.id, 'toyota-of-springfield']);
    expect(list[0]).toMatchObject({ impressions: 400, clicks: 10, ctr: 2.5 });
    expect(list[1]).toMatchObject({ impressions: 0, clicks: 0, ctr: null });
  });

  it('saves settings all-or-nothing, naming the bad field, and bumps the dealer version', async () => {
    const url = '/api/admin/dealers/toyota-of-springfield/settings';
    const before = (await call('GET', '/api/dealers/toyota-of-springfield')).json().dealer;
    const bad = await call('PUT', url, {
      branding: { ...before.branding, primaryColor: '#112233' },
      security: { ...before.security, maxRequestsPerMinute: 5 },
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toContain('security.maxRequestsPerMinute');
    expect((await call('GET', '/api/dealers/toyota-of-springfield')).json().dealer.branding.primaryColor).toBe('#000000');

    const [{ version: v0 }] = (await t.database.db.select({ version: dealers.version }).from(dealers).where(eq(dealers.id, 'toyota-of-springfield'))) as [{ version: number }];
    const ok = await call('PUT', url, {
      branding: { ...before.branding, primaryColor: '#112233', fontFamily: 'Georgia, serif' },
      security: { ...before.security, allowedDomains: ['www.toyotaspringfield.com', 'toyotaspringfield.com'], maxRequestsPerMinute: 250 },
      notifications: { ...before.notifications, weeklyReports: false, alertThreshold: 1.5 },
      assetStorage: { ...before.assetStorage, storageQuotaBytes: 100 * 1024 * 1024 },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().dealer).toMatchObject({
      branding: { primaryColor: '#112233', fontFamily: 'Georgia, serif' },
      security: { maxRequestsPerMinute: 250, allowedDomains: ['www.toyotaspringfield.com', 'toyotaspringfield.com'] },
      notifications: { weeklyReports: false, alertThreshold: 1.5 },
      assetStorage: { storageQuotaBytes: 100 * 1024 * 1024 },
    });
    const [{ version: v1 }] = (await t.database.db.select({ version: dealers.version }).from(dealers).where(eq(dealers.id, 'toyota-of-springfield'))) as [{ version: number }];
    expect(v1).toBeGreaterThan(v0);

    const badSize = await call('PUT', url, { assetStorage: { ...before.assetStorage, bannerSizes: { ...before.assetStorage.bannerSizes, srpHeaderDesktop: { width: 50, height: 300 } } } });
    expect(errorOf(badSize)).toContain('assetStorage.bannerSizes.srpHeaderDesktop.width');
    const unknown = await call('PUT', '/api/admin/dealers/nope/settings', { notifications: before.notifications });
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown)).toBe('Dealer not found');
  });
});

describe('dealer settings validation', () => {
  it('refuses each bad value with a 400 naming the field, and stores nothing', async () => {
    const url = '/api/admin/dealers/toyota-of-springfield/settings';
    const d = (await call('GET', '/api/dealers/toyota-of-springfield')).json().dealer;
    const cases: Array<[string, unknown]> = [
      ['websiteUrl', { websiteUrl: 'ftp://toyota.example.com' }],
      ['name', { name: '   ' }],
      ['status', { status: 'closed' }],
      ['provider', { provider: 'cdk' }],
      ['security.maxRequestsPerMinute', { security: { ...d.security, maxRequestsPerMinute: 1001 } }],
      ['security.maxRequestsPerMinute', { security: { ...d.security, maxRequestsPerMinute: 'many' } }],
      ['security.allowedDomains', { security: { ...d.security, allowedDomains: [''] } }],
      ['notifications.alertThreshold', { notifications: { ...d.notifications, alertThreshold: -1 } }],
      ['branding.primaryColor', { branding: { ...d.branding, primaryColor: 'blue' } }],
      ['branding.fontFamily', { branding: { ...d.branding, fontFamily: 'Comic Sans MS' } }],
      ['branding.logoUrl', { branding: { ...d.branding, logoUrl: 'logo.png' } }],
      ['assetStorage.baseUrl', { assetStorage: { ...d.assetStorage, baseUrl: 'cdn/assets' } }],
      ['assetStorage.storageQuotaBytes', { assetStorage: { ...d.assetStorage, storageQuotaBytes: 1000 } }],
      ['assetStorage.bannerSizes.inlineMobile.height', { assetStorage: { ...d.assetStorage, bannerSizes: { ...d.assetStorage.bannerSizes, inlineMobile: { width: 350, height: 5000 } } } }],
      ['configs', { configs: { modelMap: {} } }],
    ];
    for (const [field, body] of cases) {
      const res = await call('PUT', url, body);
      expect(res.statusCode, field).toBe(400);
      expect(errorOf(res), field).toContain(field);
      // The same field for a program, by path (an unknown key is a problem of the whole body, path '').
      const fields = (res.json() as { error: { fields: Array<{ path: string; code: string; message: string }> } }).error.fields;
      expect(fields.length, field).toBeGreaterThan(0);
      for (const f of fields) expect(f.message, field).toMatch(/^[A-Z]/);
      if (field !== 'configs') expect(fields.map((f) => f.path).some((p) => p === field || p.startsWith(`${field}.`)), field).toBe(true);
    }
    const after = (await call('GET', '/api/dealers/toyota-of-springfield')).json().dealer;
    expect(after).toEqual(d);
  });
});

describe('over-limit writes (DECISIONS 1)', () => {
  it("answers a settings body over the 1 MB limit 413 'Storage quota exceeded or data too large', storing nothing", async () => {
    const url = '/api/admin/dealers/toyota-of-springfield/settings';
    const d = (await call('GET', '/api/dealers/toyota-of-springfield')).json().dealer;
    const res = await call('PUT', url, { branding: { ...d.branding, customCss: 'x'.repeat(1_100_000) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'Storage quota exceeded or data too large' } });
    expect((await call('GET', '/api/dealers/toyota-of-springfield')).json().dealer).toEqual(d);
  });
});

describe('manufacturers', () => {
  const civicLike = {
    id: 'ev6',
    name: 'ev6',
    displayName: 'EV6',
    category: 'suv',
    msrp: { min: 42600, max: 61600 },
    trims: [{ id: 'light', name: 'light', displayName: 'Light', msrp: 42600, isPopular: true, priority: 1 }],
    isActive: true,
    priority: 1,
    upsellTargets: [],
  };

  it('creates, edits the catalogue, and lists with counts', async () => {
    const res = await call('POST', '/api/admin/manufacturers', { name: 'Kia', primaryColor: '#05141F', providerCompatibility: ['mxs'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().manufacturer).toMatchObject({ id: 'kia', name: 'Kia', models: [] });
    const dup = await call('POST', '/api/admin/manufacturers', { name: 'KIA' });
    expect(dup.statusCode).toBe(409);

    const upd = await call('PUT', '/api/admin/manufacturers/kia', {
      name: 'Kia',
      primaryColor: '#05141F',
      models: [civicLike],
      defaultModelMappings: { ev6: 'ev6' },
      defaultTrimPatterns: { ev6: ['light'] },
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().manufacturer.models[0].trims[0].displayName).toBe('Light');
    const badColour = await call('PUT', '/api/admin/manufacturers/kia', { name: 'Kia', primaryColor: 'red' });
    expect(errorOf(badColour)).toContain('primaryColor');
    const badMsrp = await call('PUT', '/api/admin/manufacturers/kia', { name: 'Kia', models: [{ ...civicLike, msrp: { min: 2, max: 1 } }] });
    expect(errorOf(badMsrp)).toContain('MSRP');

    const list = (await call('GET', '/api/admin/manufacturers')).json().manufacturers as Array<{ id: string; dealerCount: number; models: unknown[] }>;
    expect(list.find((m) => m.id === 'honda')).toMatchObject({ dealerCount: 1 });
    expect(list.find((m) => m.id === 'kia')).toMatchObject({ dealerCount: 0 });
    expect(list.find((m) => m.id === 'honda')!.models).toHaveLength(15);
  });

  it('refuses to delete a manufacturer still used by dealers, saying how many', async () => {
    const res = await call('DELETE', '/api/admin/manufacturers/honda');
    expect(res.statusCode).toBe(409);
    expect(errorOf(res)).toBe('This manufacturer is used by 1 dealer; move or delete it first.');
    expect((await call('DELETE', '/api/admin/manufacturers/kia')).statusCode).toBe(204);
    expect((await call('DELETE', '/api/admin/manufacturers/kia')).statusCode).toBe(404);
  });
});

describe('users', () => {
  let userId: string;

  it('creates a user; email unique case-insensitively; dealer required for dealer roles; minimum password length', async () => {
    const res = await call('POST', '/api/admin/users', { email: 'Sam@Example.com', name: 'Sam Seller', role: 'dealer-manager', dealerId: DEMO_DEALER.id, password: 'springfield1' });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ email: 'Sam@Example.com', role: 'dealer-manager', dealerName: 'Honda of Demo', isActive: true });
    expect(res.json().user.passwordHash).toBeUndefined();
    userId = res.json().user.id;
    const dup = await call('POST', '/api/admin/users', { email: 'sam@example.COM', name: 'Other', role: 'admin', password: 'springfield1' });
    expect(dup.statusCode).toBe(409);
    expect(errorOf(dup)).toBe('A user with this email already exists');
    const noDealer = await call('POST', '/api/admin/users', { email: 'v@example.com', name: 'V', role: 'viewer', password: 'springfield1' });
    expect(errorOf(noDealer)).toBe('dealerId: a dealer is required for dealer-manager and viewer users');
    expect(noDealer.json().error.fields).toEqual([{ path: 'dealerId', code: 'required', message: 'A dealer is required for dealer-manager and viewer users' }]);
    const short = await call('POST', '/api/admin/users', { email: 'w@example.com', name: 'W', role: 'admin', password: 'short' });
    expect(errorOf(short)).toBe('password: must be at least 8 characters');
    // The new user signs in.
    await t.login('sam@example.com', 'springfield1');
  });

  it('deactivating ends the sessions at once and refuses sign-in', async () => {
    const session = await t.login('sam@example.com', 'springfield1');
    expect((await call('GET', '/api/auth/me', undefined, session)).statusCode).toBe(200);
    const res = await call('PATCH', `/api/admin/users/${userId}`, { isActive: false });
    expect(res.json().user.isActive).toBe(false);
    expect((await call('GET', '/api/auth/me', undefined, session)).json()).toEqual({ user: null });
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'sam@example.com', password: 'springfield1' } });
    expect(login.statusCode).toBe(401);
  });

  it('resets a password', async () => {
    await call('PATCH', `/api/admin/users/${userId}`, { isActive: true });
    expect((await call('POST', `/api/admin/users/${userId}/password`, { password: 'new-password-2' })).statusCode).toBe(204);
    await t.login('sam@example.com', 'new-password-2');
    expect((await call('POST', `/api/admin/users/${userId}/password`, { password: 'x' })).statusCode).toBe(400);
    expect((await call('PATCH', '/api/admin/users/not-a-uuid', { isActive: true })).statusCode).toBe(404);
  });

  it('changes role and dealer (ending the sessions); refuses an unknown dealer and a dealer role without dealer', async () => {
    const session = await t.login('sam@example.com', 'new-password-2');
    const res = await call('PATCH', `/api/admin/users/${userId}`, { role: 'viewer', dealerId: 'toyota-of-springfield' });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ role: 'viewer', dealerId: 'toyota-of-springfield', dealerName: 'Toyota of Springfield!' });
    expect((await call('GET', '/api/auth/me', undefined, session)).json()).toEqual({ user: null });
    const me = (await call('GET', '/api/auth/me', undefined, await t.login('sam@example.com', 'new-password-2'))).json();
    expect(JSON.stringify(me)).toContain('toyota-of-springfield');

    const unknown = await call('PATCH', `/api/admin/users/${userId}`, { dealerId: 'nope' });
    expect(unknown.statusCode).toBe(400);
    expect(errorOf(unknown)).toBe('dealerId: unknown dealer "nope"');
    const none = await call('PATCH', `/api/admin/users/${userId}`, { dealerId: null });
    expect(errorOf(none)).toBe('dealerId: a dealer is required for dealer-manager and viewer users');
    const badRole = await call('PATCH', `/api/admin/users/${userId}`, { role: 'owner' });
    expect(errorOf(badRole)).toContain('role');
    await call('PATCH', `/api/admin/users/${userId}`, { role: 'dealer-manager', dealerId: DEMO_DEALER.id });
  });

  it('will not deactivate or demote the last active admin', async () => {
    const users = (await call('GET', '/api/admin/users')).json().users as Array<{ id: string; email: string }>;
    const adminId = users.find((u) => u.email === DEMO_ACCOUNTS[0]!.email)!.id;
    for (const body of [{ isActive: false }, { role: 'viewer', dealerId: DEMO_DEALER.id }]) {
      const res = await call('PATCH', `/api/admin/users/${adminId}`, body);
      expect(res.statusCode).toBe(409);
      expect(errorOf(res)).toBe('This is the last active admin: make another user admin first');
    }
    // With a second admin, the first may be demoted.
    await call('PATCH', `/api/admin/users/${userId}`, { role: 'admin' });
    const second = await t.login('sam@example.com', 'new-password-2');
    const demote = await call('PATCH', `/api/admin/users/${adminId}`, { role: 'viewer', dealerId: DEMO_DEALER.id }, second);
    expect(demote.statusCode).toBe(200);
    await call('PATCH', `/api/admin/users/${adminId}`, { role: 'admin' }, second);
    admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
  });
});

describe('dashboard and platform analytics', () => {
  it('dashboard: totals, real trends against the previous 30 days, first 5 dealers', async () => {
    // Already: 400 impressions / 10 clicks two days ago. Previous period: 200 / 10 forty days ago.
    await rollup(40 * DAY, 200, 10);
    const d = (await call('GET', '/api/admin/dashboard')).json();
    expect(d).toMatchObject({ activeDealers: 2, impressions: 600, clicks: 20 });
    expect(d.ctr).toBeCloseTo(3.33, 2);
    expect(d.trends.impressions).toBe(100); // 400 vs 200
    expect(d.trends.clicks).toBe(0); // 10 vs 10
    expect(d.trends.ctr).toBe(-50); // 2.5 % vs 5 %
    expect(d.recentDealers.map((r: { id: string }) => r.id)).toEqual([DEMO_DEALER.id, 'toyota-of-springfield']);
  });

  it('dashboard: says which totals are all-time and gives the trend beside the last-30-days figures, which Platform Analytics repeats', async () => {
    const d = (await call('GET', '/api/admin/dashboard')).json();
    expect(d.period).toBe('all');
    expect(d.recent).toEqual({ period: '30d', from: '2026-02-09T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z', impressions: 400, clicks: 10, ctr: 2.5 });
    const a = (await call('GET', '/api/admin/analytics?period=30d')).json();
    expect({ period: a.period, from: a.from, to: a.to }).toEqual({ period: '30d', from: d.recent.from, to: d.recent.to });
    const sum = (k: 'impressions' | 'clicks') => a.dealers.reduce((s: number, x: Record<string, number>) => s + x[k]!, 0);
    expect({ impressions: sum('impressions'), clicks: sum('clicks') }).toEqual({ impressions: d.recent.impressions, clicks: d.recent.clicks });
    expect(d.impressions).toBeGreaterThan(d.recent.impressions); // the all-time total also holds the rollup 40 days ago
  });

  it('platform analytics: per dealer figures and score for the period, series per day', async () => {
    const a = (await call('GET', '/api/admin/analytics?period=7d')).json();
    const demo = a.dealers.find((d: { id: string }) => d.id === DEMO_DEALER.id);
    expect(demo).toMatchObject({ impressions: 400, clicks: 10, ctr: 2.5, score: 50 });
    expect(a.series.reduce((s: number, p: { impressions: number }) => s + p.impressions, 0)).toBe(400);
    expect(a.series.map((p: { bucket: string }) => p.bucket)).toEqual(['2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10']);
    const day = (await call('GET', '/api/admin/analytics?period=24h')).json();
    expect(day.series).toHaveLength(24);
    expect(day.series.at(-1).bucket).toBe('2026-03-10T23:00');
    expect((await call('GET', '/api/admin/analytics?period=1y')).statusCode).toBe(400);
  });
});

describe('export and import', () => {
  it('exports everything without password hashes and imports it back in one transaction', async () => {
    const res = await call('GET', '/api/admin/export');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="dc-banners-export-/);
    const doc = res.json();
    expect(doc).toMatchObject({ format: 'dc-banners-export', version: 1 });
    expect(doc.manufacturers).toHaveLength(CATALOGUE.length);
    expect(doc.dealers.map((d: { id: string }) => d.id).sort()).toEqual([DEMO_DEALER.id, 'toyota-of-springfield']);
    expect(res.body).not.toContain('argon2');
    expect(doc.users[0].passwordHash).toBeUndefined();

    doc.dealers.find((d: { id: string }) => d.id === 'toyota-of-springfield').name = 'Toyota of Shelbyville';
    doc.users.push({ id: '7f1c2f55-5a43-4e5a-9a53-5b8f2f0b1c11', email: 'new@example.com', name: 'New Person', role: 'viewer', dealerId: DEMO_DEALER.id, isActive: true });
    const imp = await call('POST', '/api/admin/import', doc);
    expect(imp.statusCode).toBe(200);
    expect(imp.json().imported).toEqual({ manufacturers: CATALOGUE.length, dealers: 2, users: doc.users.length, passwordResetRequired: ['new@example.com'] });
    expect((await call('GET', '/api/dealers/toyota-of-springfield')).json().dealer.name).toBe('Toyota of Shelbyville');
    expect(((await call('GET', '/api/admin/users')).json().users as Array<{ email: string }>).some((u) => u.email === 'new@example.com')).toBe(true);
  });

  it('refuses a bad document whole, changing nothing', async () => {
    const wrongFormat = await call('POST', '/api/admin/import', { format: 'something-else', version: 1 });
    expect(wrongFormat.statusCode).toBe(400);
    expect(errorOf(wrongFormat)).toBe('Invalid export format');

    const doc = (await call('GET', '/api/admin/export')).json();
    doc.dealers[0].name = 'Changed Name';
    doc.dealers[1].security.maxRequestsPerMinute = 'lots';
    const bad = await call('POST', '/api/admin/import', doc);
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toMatch(/^Invalid import data format: dealers\.1\.security\.maxRequestsPerMinute/);
    expect(bad.json().error.fields).toContainEqual({ path: 'dealers.1.security.maxRequestsPerMinute', code: 'invalid_type', message: 'Enter a number' });

    const doc2 = (await call('GET', '/api/admin/export')).json();
    doc2.dealers[0].name = 'Changed Name';
    doc2.dealers[1].manufacturer = 'unknown-brand';
    const orphan = await call('POST', '/api/admin/import', doc2);
    expect(errorOf(orphan)).toContain('uses unknown manufacturer "unknown-brand"');
    const names = ((await call('GET', '/api/admin/dealers')).json().items as Array<{ name: string }>).map((d) => d.name);
    expect(names).not.toContain('Changed Name');
  });

  it('leaves the database exactly as it was after each refused document (full export before and after)', async () => {
    const snapshot = async () => {
      const { exportedAt: _e, ...rest } = (await call('GET', '/api/admin/export')).json();
      return rest;
    };
    const before = await snapshot();
    const valid = (await call('GET', '/api/admin/export')).json();
    const edits: Array<(d: typeof valid) => void> = [
      (d) => (d.version = 2),
      (d) => delete d.format,
      (d) => (d.dealers = 'none'),
      (d) => (d.manufacturers[0].models[0].msrp = { min: 'cheap' }),
      (d) => (d.users[0].role = 'superuser'),
      (d) => d.users.push({ ...d.users[0], id: '0b7a4d7e-47a5-4b8e-8c38-8c4a3a0f7a11', email: 'orphan@example.com', role: 'viewer', dealerId: 'no-such-dealer' }),
    ];
    for (const edit of edits) {
      const doc = structuredClone(valid);
      doc.manufacturers[1].name = 'Renamed Brand';
      doc.dealers[0].branding.primaryColor = '#123456';
      edit(doc);
      const res = await call('POST', '/api/admin/import', doc);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res)).toMatch(/^Invalid (export format|import data format)/);
      expect(await snapshot()).toEqual(before);
    }
    for (const payload of ['"just a string"', '[]', 'null']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/admin/import', payload, headers: { cookie: admin, 'content-type': 'application/json' } });
      expect(errorOf(res)).toBe('Invalid export format');
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('client error log', () => {
  const report = (n: number) => ({ message: `Render failed ${n}`, stack: `Error: Render failed ${n}\n    at Widget`, componentStack: '\n    at Widget\n    at App', url: `http://localhost/admin/x?n=${n}` });

  it('keeps signed-in reports with time, message, stacks, page URL, user agent and user; signed-out ones only reach the server log; admins only read them', async () => {
    const anon = await t.app.inject({ method: 'POST', url: '/api/client-errors', payload: report(1), headers: { 'user-agent': 'TestBrowser/1.0' } });
    expect(anon.statusCode).toBe(204);
    const viewer = await t.userCookie('viewer', DEMO_DEALER.id);
    const fromViewer = await t.app.inject({ method: 'POST', url: '/api/client-errors', payload: report(1), headers: { cookie: viewer, 'user-agent': 'TestBrowser/1.0' } });
    expect(fromViewer.statusCode).toBe(204);
    expect((await call('POST', '/api/client-errors', report(2))).statusCode).toBe(204);
    const bad = await call('POST', '/api/client-errors', { url: 'http://localhost/' });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toContain('message');

    const log = (await call('GET', '/api/admin/client-errors')).json().errors;
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ message: 'Render failed 2', url: 'http://localhost/admin/x?n=2', user: DEMO_ACCOUNTS[0]!.email, componentStack: '\n    at Widget\n    at App' });
    expect(log[0].stack).toContain('at Widget');
    expect(Date.now() - Date.parse(log[0].timestamp)).toBeLessThan(60_000);
    expect(log[1]).toMatchObject({ message: 'Render failed 1', userAgent: 'TestBrowser/1.0' });
    expect(log[1].user).toMatch(/^viewer-/);
    const manager = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    expect((await call('GET', '/api/admin/client-errors', undefined, manager)).statusCode).toBe(403);
  });

  it('keeps only the newest 50 and cuts over-long texts', async () => {
    for (let n = 3; n <= 60; n++) await recordClientError(t.database.db, clientErrorSchema.parse(report(n)), null, null);
    await call('POST', '/api/client-errors', { ...report(61), message: 'x'.repeat(5000) });
    const log = (await call('GET', '/api/admin/client-errors')).json().errors as Array<{ message: string }>;
    expect(log).toHaveLength(50);
    expect(log[0]!.message).toBe('x'.repeat(2000));
    expect(log[1]!.message).toBe('Render failed 60');
    expect(log[49]!.message).toBe('Render failed 12');
    expect(await t.database.db.$count(clientErrors)).toBe(50);
  });
});

describe('dealer delete', () => {
  it('deletes a dealer and what it owns; its users are deactivated and signed out; the id is then unknown', async () => {
    const created = await call('POST', '/api/admin/users', { email: 'staff@toyota.example.com', name: 'Toyota Staff', role: 'viewer', dealerId: 'toyota-of-springfield', password: 'toyota-staff-1' });
    const staffId = created.json().user.id;
    const session = await t.login('staff@toyota.example.com', 'toyota-staff-1');
    expect((await call('DELETE', '/api/admin/dealers/toyota-of-springfield')).statusCode).toBe(204);
    expect((await call('GET', '/api/auth/me', undefined, session)).json()).toEqual({ user: null });
    const staff = ((await call('GET', '/api/admin/users')).json().users as Array<{ id: string }>).find((u) => u.id === staffId);
    expect(staff).toMatchObject({ isActive: false, dealerId: null });
    const reactivate = await call('PATCH', `/api/admin/users/${staffId}`, { isActive: true });
    expect(errorOf(reactivate)).toBe('dealerId: a dealer is required for dealer-manager and viewer users');
    expect((await call('PATCH', `/api/admin/users/${staffId}`, { isActive: true, dealerId: DEMO_DEALER.id })).json().user.isActive).toBe(true);
    expect((await call('GET', '/api/dealers/toyota-of-springfield')).statusCode).toBe(404);
    expect((await call('DELETE', '/api/admin/dealers/toyota-of-springfield')).statusCode).toBe(404);
  });
});
