/**
 * The role matrix: every /api and /scripts route, called by each kind of caller, answers the
 * expected status (DECISIONS 5-6). A route missing from the table fails the test, so new routes
 * must join it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealers } from '../db/schema';
import { newDealerRow } from '../dealers/service';
import { CATALOGUE } from '../db/seed-catalogue';

const A = DEMO_DEALER.id;
const B = 'dealer-b';
const CALLERS = ['anonymous', 'admin', 'managerA', 'viewerA', 'managerB'] as const;
type Caller = (typeof CALLERS)[number];

interface Row {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  route: string;
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
  /** Expected status per caller, in CALLERS order. */
  expect: [number, number, number, number, number];
  /** Give each caller a fresh session (for routes that end it). */
  freshSession?: boolean;
}

const boundary = 'matrixboundary';
const badUpload =
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bad-name.jpg"\r\nContent-Type: image/jpeg\r\n\r\nxx\r\n--${boundary}--\r\n`;
const missing = randomUUID();
/** A custom analytics range of the last week (UTC days), within the detailed days the report reads. */
const lastWeek = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);

const ROWS: Row[] = [
  { method: 'POST', route: '/api/auth/login', url: '/api/auth/login', payload: { email: 'nobody@example.com', password: 'x' }, expect: [401, 401, 401, 401, 401] },
  { method: 'GET', route: '/api/auth/me', url: '/api/auth/me', expect: [200, 200, 200, 200, 200] },
  { method: 'GET', route: '/api/auth/demo-accounts', url: '/api/auth/demo-accounts', expect: [200, 200, 200, 200, 200] },
  // Invitation links are public: an unknown token is refused (400) whoever asks.
  { method: 'POST', route: '/api/auth/invitation', url: '/api/auth/invitation', payload: { token: 'unknown' }, expect: [400, 400, 400, 400, 400] },
  { method: 'POST', route: '/api/auth/invitation/accept', url: '/api/auth/invitation/accept', payload: { token: 'unknown', password: 'long-enough-1' }, expect: [400, 400, 400, 400, 400] },
  { method: 'GET', route: '/api/dealers/:dealerId', url: `/api/dealers/${A}`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/models', url: `/api/dealers/${A}/models`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/stats', url: `/api/dealers/${A}/stats`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/assets', url: `/api/dealers/${A}/assets`, expect: [401, 200, 200, 200, 403] },
  {
    method: 'POST',
    route: '/api/dealers/:dealerId/assets',
    url: `/api/dealers/${A}/assets`,
    payload: badUpload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    expect: [401, 200, 200, 403, 403],
  },
  // 'xx' is no image: refused (400) before the asset is looked up.
  {
    method: 'PUT',
    route: '/api/dealers/:dealerId/assets/:assetId/file',
    url: `/api/dealers/${A}/assets/${missing}/file`,
    payload: badUpload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    expect: [401, 400, 400, 403, 403],
  },
  { method: 'DELETE', route: '/api/dealers/:dealerId/assets/:assetId', url: `/api/dealers/${A}/assets/${missing}`, expect: [401, 404, 404, 403, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/assets/:assetId/image', url: `/api/dealers/${A}/assets/${missing}/image`, expect: [401, 404, 404, 404, 403] },
  { method: 'PATCH', route: '/api/dealers/:dealerId/assets/:assetId', url: `/api/dealers/${A}/assets/${missing}`, payload: { isActive: false }, expect: [401, 404, 404, 403, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/assets/cleanup', url: `/api/dealers/${A}/assets/cleanup`, expect: [401, 200, 200, 200, 403] },
  { method: 'POST', route: '/api/dealers/:dealerId/assets/cleanup', url: `/api/dealers/${A}/assets/cleanup`, payload: { assetIds: [missing] }, expect: [401, 200, 200, 403, 403] },
  // Bulk actions: an unknown id is skipped (200), so nothing changes for the callers that may write.
  { method: 'POST', route: '/api/dealers/:dealerId/assets/bulk', url: `/api/dealers/${A}/assets/bulk`, payload: { action: 'deactivate', assetIds: [missing] }, expect: [401, 200, 200, 403, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/configs', url: `/api/dealers/${A}/configs`, expect: [401, 200, 200, 200, 403] },
  { method: 'PUT', route: '/api/dealers/:dealerId/configs', url: `/api/dealers/${A}/configs`, payload: { inventoryWeights: { civic: 6 } }, expect: [401, 200, 200, 403, 403] },
  { method: 'POST', route: '/api/dealers/:dealerId/upsell-priorities/:model/raise', url: `/api/dealers/${A}/upsell-priorities/pilot/raise`, expect: [401, 200, 200, 403, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/configs/defaults', url: `/api/dealers/${A}/configs/defaults`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/upsell-rules', url: `/api/dealers/${A}/upsell-rules`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/campaigns', url: `/api/dealers/${A}/campaigns`, expect: [401, 200, 200, 200, 403] },
  { method: 'POST', route: '/api/dealers/:dealerId/campaigns', url: `/api/dealers/${A}/campaigns`, payload: { name: '', mode: 'takeover', startsAt: '2026-11-27T00:00' }, expect: [401, 400, 400, 403, 403] },
  { method: 'PATCH', route: '/api/dealers/:dealerId/campaigns/:campaignId', url: `/api/dealers/${A}/campaigns/${missing}`, payload: { name: 'x' }, expect: [401, 404, 404, 403, 403] },
  { method: 'POST', route: '/api/dealers/:dealerId/campaigns/:campaignId/status', url: `/api/dealers/${A}/campaigns/${missing}/status`, payload: { action: 'publish' }, expect: [401, 404, 404, 403, 403] },
  { method: 'POST', route: '/api/dealers/:dealerId/campaigns/:campaignId/assets', url: `/api/dealers/${A}/campaigns/${missing}/assets`, payload: { attach: [missing] }, expect: [401, 404, 404, 403, 403] },
  { method: 'DELETE', route: '/api/dealers/:dealerId/campaigns/:campaignId', url: `/api/dealers/${A}/campaigns/${missing}`, expect: [401, 404, 404, 403, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/preview', url: `/api/dealers/${A}/preview?model=civic&variant=mobile`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/coverage', url: `/api/dealers/${A}/coverage`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/stats/trend', url: `/api/dealers/${A}/stats/trend?days=7`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/analytics', url: `/api/dealers/${A}/analytics?period=30d`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/analytics/export.csv', url: `/api/dealers/${A}/analytics/export.csv`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/analytics/report', url: `/api/dealers/${A}/analytics/report?from=${lastWeek(7)}&to=${lastWeek(1)}`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/analytics/report.csv', url: `/api/dealers/${A}/analytics/report.csv?period=30d&table=creatives`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/script', url: `/api/dealers/${A}/script`, expect: [401, 200, 200, 200, 403] },
  { method: 'GET', route: '/api/dealers/:dealerId/tag-health', url: `/api/dealers/${A}/tag-health`, expect: [401, 200, 200, 200, 403] },
  {
    method: 'GET',
    route: '/api/dealers/:dealerId/tag-health/page-check',
    url: `/api/dealers/${A}/tag-health/page-check?url=${encodeURIComponent('https://www.hondaofdemo.com/new-inventory')}`,
    expect: [401, 200, 200, 200, 403],
  },
  { method: 'GET', route: '/api/dealers/:dealerId/inventory', url: `/api/dealers/${A}/inventory`, expect: [401, 200, 200, 200, 403] },
  {
    method: 'POST',
    route: '/api/dealers/:dealerId/inventory/preview',
    url: `/api/dealers/${A}/inventory/preview`,
    payload: badUpload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    expect: [401, 400, 400, 403, 403],
  },
  {
    method: 'POST',
    route: '/api/dealers/:dealerId/inventory',
    url: `/api/dealers/${A}/inventory`,
    payload: badUpload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    expect: [401, 400, 400, 403, 403],
  },
  { method: 'GET', route: '/api/dealers/:dealerId/inventory/feed', url: `/api/dealers/${A}/inventory/feed`, expect: [401, 200, 200, 200, 403] },
  { method: 'PUT', route: '/api/dealers/:dealerId/inventory/feed', url: `/api/dealers/${A}/inventory/feed`, payload: { feedUrl: '' }, expect: [401, 400, 400, 403, 403] },
  { method: 'PATCH', route: '/api/dealers/:dealerId/inventory/feed', url: `/api/dealers/${A}/inventory/feed`, payload: { isActive: false }, expect: [401, 404, 404, 403, 403] },
  { method: 'POST', route: '/api/dealers/:dealerId/inventory/feed/test', url: `/api/dealers/${A}/inventory/feed/test`, payload: { feedUrl: '' }, expect: [401, 400, 400, 403, 403] },
  { method: 'GET', route: '/api/admin/dashboard', url: '/api/admin/dashboard', expect: [401, 200, 403, 403, 403] },
  { method: 'GET', route: '/api/admin/analytics', url: '/api/admin/analytics?period=7d', expect: [401, 200, 403, 403, 403] },
  { method: 'GET', route: '/api/admin/dealers', url: '/api/admin/dealers', expect: [401, 200, 403, 403, 403] },
  { method: 'POST', route: '/api/admin/dealers', url: '/api/admin/dealers', payload: { name: '' }, expect: [401, 400, 403, 403, 403] },
  { method: 'PUT', route: '/api/admin/dealers/:dealerId/settings', url: `/api/admin/dealers/${A}/settings`, payload: {}, expect: [401, 400, 403, 403, 403] },
  { method: 'DELETE', route: '/api/admin/dealers/:dealerId', url: '/api/admin/dealers/no-such-dealer', expect: [401, 404, 403, 403, 403] },
  { method: 'GET', route: '/api/admin/manufacturers', url: '/api/admin/manufacturers', expect: [401, 200, 403, 403, 403] },
  { method: 'POST', route: '/api/admin/manufacturers', url: '/api/admin/manufacturers', payload: { name: '' }, expect: [401, 400, 403, 403, 403] },
  { method: 'PUT', route: '/api/admin/manufacturers/:id', url: '/api/admin/manufacturers/no-such', payload: { name: 'X' }, expect: [401, 404, 403, 403, 403] },
  { method: 'DELETE', route: '/api/admin/manufacturers/:id', url: '/api/admin/manufacturers/no-such', expect: [401, 404, 403, 403, 403] },
  { method: 'GET', route: '/api/admin/users', url: '/api/admin/users', expect: [401, 200, 403, 403, 403] },
  { method: 'POST', route: '/api/admin/users', url: '/api/admin/users', payload: { email: 'x' }, expect: [401, 400, 403, 403, 403] },
  { method: 'PATCH', route: '/api/admin/users/:id', url: `/api/admin/users/${missing}`, payload: { isActive: true }, expect: [401, 404, 403, 403, 403] },
  { method: 'POST', route: '/api/admin/users/:id/password', url: `/api/admin/users/${missing}/password`, payload: { password: 'long-enough-1' }, expect: [401, 404, 403, 403, 403] },
  { method: 'GET', route: '/api/admin/export', url: '/api/admin/export', expect: [401, 200, 403, 403, 403] },
  { method: 'POST', route: '/api/admin/import', url: '/api/admin/import', payload: { format: 'nope' }, expect: [401, 400, 403, 403, 403] },
  { method: 'POST', route: '/api/client-errors', url: '/api/client-errors', payload: { message: 'Boom', url: 'http://localhost/x' }, expect: [204, 204, 204, 204, 204] },
  { method: 'GET', route: '/api/admin/client-errors', url: '/api/admin/client-errors', expect: [401, 200, 403, 403, 403] },
  { method: 'GET', route: '/api/admin/outbox', url: '/api/admin/outbox', expect: [401, 200, 403, 403, 403] },
  { method: 'GET', route: '/api/openapi.json', url: '/api/openapi.json', expect: [401, 200, 403, 403, 403] },
  { method: 'GET', route: '/api/scripts/:dealerId/asset', url: `/api/scripts/${A}/asset?model=civic&type=header`, expect: [200, 200, 200, 200, 200] },
  {
    method: 'POST',
    route: '/api/analytics/track',
    url: '/api/analytics/track',
    payload: { dealerId: A, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: 'view-test-1' },
    headers: { origin: 'https://www.hondaofdemo.com' },
    expect: [204, 204, 204, 204, 204],
  },
  { method: 'GET', route: '/scripts/:file', url: `/scripts/dc-banners-${A}.js`, expect: [200, 200, 200, 200, 200] },
  { method: 'POST', route: '/api/auth/logout', url: '/api/auth/logout', expect: [401, 204, 204, 204, 204], freshSession: true },
];

let t: TestApp;
const cookies = {} as Record<Caller, string>;

async function cookieFor(caller: Caller): Promise<string> {
  switch (caller) {
    case 'anonymous':
      return '';
    case 'admin':
      return t.userCookie('admin', null);
    case 'managerA':
      return t.userCookie('dealer-manager', A);
    case 'viewerA':
      return t.userCookie('viewer', A);
    case 'managerB':
      return t.userCookie('dealer-manager', B);
  }
}

beforeAll(async () => {
  t = await createTestApp();
  await t.database.db.insert(dealers).values(
    newDealerRow({ id: B, name: 'Dealer B', manufacturer: 'honda', websiteUrl: 'https://dealer-b.example', provider: 'mxs', status: 'active' }, CATALOGUE.find((m) => m.id === 'honda')!),
  );
  for (const c of CALLERS) cookies[c] = await cookieFor(c);
});
afterAll(() => t.close());

describe('role matrix', () => {
  it('covers every /api and /scripts route', () => {
    const registered = t.app.routePolicies.map((r) => `${r.method} ${r.url}`).sort();
    const tabled = ROWS.map((r) => `${r.method} ${r.route}`).sort();
    expect(tabled).toEqual(registered);
  });

  for (const row of ROWS) {
    CALLERS.forEach((caller, i) => {
      it(`${row.method} ${row.url} as ${caller} -> ${row.expect[i]}`, async () => {
        const cookie = row.freshSession && caller !== 'anonymous' ? await cookieFor(caller) : cookies[caller];
        const res = await t.app.inject({
          method: row.method,
          url: row.url,
          payload: row.payload as string | object | undefined,
          headers: { ...(cookie ? { cookie } : {}), ...row.headers },
        });
        expect(res.statusCode, res.body.slice(0, 200)).toBe(row.expect[i]);
      });
    });
  }
});
