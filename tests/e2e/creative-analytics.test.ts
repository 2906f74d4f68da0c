/**
 * Creative analytics end to end: a dealer runs two Civic header creatives of the same
 * size (an A/B rotation). Shoppers' sessions on the mxs fixture search page each see one of them
 * (the same one on every page of the session); each impression beacon names the banner request
 * it counted, and the Analytics screen's creative table shows, per creative, exactly the
 * impressions of the sessions that saw it (X-Banner-Creative of the header image each page got);
 * Banner Preview shows the rotation.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, launchBrowser, newPage, recordBeacons, screenshotPath, seedAssets, signedInPage, sharedServer, type DealerSite, type ServerHandle } from './harness';
import { createDealerSite } from './page-speed';
import { makeBanner } from '../fixtures/images';
import { AB_MIN_IMPRESSIONS } from '../../src/domain/metrics';

let server: ServerHandle;
let browser: Browser;
let site: DealerSite;
let dealerId: string;
const manager = { email: 'creatives.manager@example.com', password: 'creatives-password-1' };
const SESSIONS = 6;

beforeAll(async () => {
  server = await sharedServer('dealers');
  browser = await launchBrowser();
  ({ id: dealerId, site } = await createDealerSite(server.origin, 'Creative Honda', 'civic', { ...manager, name: 'Creative Manager' }));
  // The B side of the header test: same model, trim and size as createDealerSite's civic header.
  const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
  await seedAssets(server.origin, admin, dealerId, [{ filename: 'new_2025_honda_civic_base_holiday_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#1b5e20') }]);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await server?.stop();
});

/** Loads the Civic search page in `page` until its header impression beacon is sent; returns the header creative the server answered and that beacon. */
async function viewHeader(page: Page): Promise<{ creative: string; beacon: { asset?: string; pv?: string } }> {
  let creative = '';
  const onResponse = (r: { url(): string; headers(): Record<string, string> }) => {
    const url = new URL(r.url());
    if (url.pathname.endsWith('/asset') && url.searchParams.get('type') === 'header') creative = r.headers()['x-banner-creative'] ?? creative;
  };
  page.on('response', onResponse);
  await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
  await expect.poll(async () => (await beaconsOf(page)).filter((b) => b.event === 'impression' && b.type === 'header').length, { timeout: 15_000 }).toBe(1);
  page.off('response', onResponse);
  const beacon = (await beaconsOf(page)).find((b) => b.event === 'impression' && b.type === 'header') as { asset?: string; pv?: string };
  expect(creative).not.toBe('');
  return { creative, beacon };
}

it('counts each session\'s impressions for the creative it saw, and the Analytics screen lists both creatives', async () => {
  const seen = new Map<string, number>();
  // Each shopper's tab stays open until the counts are read: closing its context could cut off
  // the last impression beacon in flight, which a shopper's browser would still deliver.
  const sessions: Page[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const page = await newPage(browser, { viewport: { width: 1366, height: 900 } });
    await recordBeacons(page);
    // The first two sessions drew buckets 0 and 1 (so both creatives are seen); the others draw their own.
    if (i < 2) await page.addInitScript((r) => sessionStorage.setItem('dcb_r', r), String(i));
    const first = await viewHeader(page);
    const img = await page.locator('.dc-banner[data-dc-type="header"] img').getAttribute('src');
    expect(first.beacon.asset).toBe(new URL(img!, site.origin).href);
    expect(new URL(first.beacon.asset!).searchParams.get('r')).toMatch(/^\d+$/);
    // The next page of the same session shows the same creative (the bucket is kept for the session).
    const second = await viewHeader(page);
    expect(second.creative).toBe(first.creative);
    expect(new URL(second.beacon.asset!).searchParams.get('r')).toBe(new URL(first.beacon.asset!).searchParams.get('r'));
    seen.set(first.creative, (seen.get(first.creative) ?? 0) + 2);
    sessions.push(page);
  }
  const cookie = await apiSignIn(server.origin, manager.email, manager.password);
  const headerCounts = async () => {
    const a = (await (await fetch(`${server.origin}/api/dealers/${dealerId}/analytics?period=24h`, { headers: { cookie } })).json()) as {
      creatives: Array<{ creative: string; slot: string; impressions: number }>;
    };
    return Object.fromEntries(a.creatives.filter((c) => c.slot === 'header').map((c) => [c.creative, c.impressions]));
  };
  await expect.poll(headerCounts).toEqual(Object.fromEntries(seen));
  for (const page of sessions) await page.context().close();

  const app = await signedInPage(browser, server.origin, manager.email, manager.password, { viewport: { width: 1366, height: 1000 } });
  await app.goto(`${server.origin}/dealer/analytics`);
  // The creatives are the Analytics screen's third table tab.
  await app.getByRole('tab', { name: 'By creative' }).click();
  const table = app.getByRole('table', { name: 'Creative performance' });
  await table.waitFor();
  for (const creative of seen.keys()) await table.locator(`[data-creative="${creative}"]`).first().waitFor();
  expect(seen.size).toBe(2);
  await table.getByText('new_2025_honda_civic_base_holiday_1920x300.jpg').waitFor();
  // A handful of impressions on either side of the rotation: too few to compare, and the screen says how far it is.
  const total = [...seen.values()].reduce((n, v) => n + v, 0);
  const waiting = `Not enough data yet (${total} of ${2 * AB_MIN_IMPRESSIONS} impressions)`;
  expect(await table.getByText(waiting, { exact: true }).count()).toBe(2);
  expect(await table.getByText(/^(Leading|Best CTR|Trailing)$/).count()).toBe(0);
  await table.scrollIntoViewIfNeeded();
  await app.screenshot({ path: screenshotPath('creative-analytics'), fullPage: true });

  // Banner Preview: the coverage matrix marks the rotating header, and opening it lists both creatives.
  await app.goto(`${server.origin}/dealer/preview`);
  const cell = app.getByTestId('coverage-civic-header').first();
  await cell.getByText('A/B: 2 rotate').waitFor();
  await cell.getByRole('button', { name: /^Preview header for Civic/ }).click();
  const rotation = app.getByTestId('rotation-header');
  await rotation.getByText('new_2025_honda_civic_base_holiday_1920x300.jpg').waitFor();
  await rotation.getByText('new_2025_honda_civic_base_1920x300.jpg', { exact: true }).waitFor();
  await expect.poll(() => rotation.locator('img').evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
  await rotation.scrollIntoViewIfNeeded();
  await app.screenshot({ path: screenshotPath('preview-rotation'), fullPage: false });

  // Replacing the holiday creative's file in place keeps its figures (the same creative id).
  const holiday = 'new_2025_honda_civic_base_holiday_1920x300.jpg';
  const before = await headerCounts();
  await app.goto(`${server.origin}/dealer/assets`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-replace-'));
  const file = path.join(dir, 'civic-holiday-v2.png');
  writeFileSync(file, await makeBanner(1920, 300, 'png', '#4a148c'));
  const chooser = app.waitForEvent('filechooser');
  await app.getByRole('button', { name: `Replace the file of ${holiday}` }).click();
  await (await chooser).setFiles(file);
  const dialog = app.getByRole('dialog', { name: `Replace the file of ${holiday}?` });
  await dialog.getByRole('button', { name: 'Replace file' }).click();
  await dialog.waitFor({ state: 'detached' });
  const card = app.getByTestId('asset-card').filter({ hasText: holiday });
  await card.getByTestId('asset-replaced').waitFor();
  expect(await card.getByTestId('asset-replaced').textContent()).toMatch(/^File replaced once, last .+: statistics kept$/);
  await card.scrollIntoViewIfNeeded();
  await app.screenshot({ path: screenshotPath('asset-replaced'), fullPage: false });
  expect(await headerCounts()).toEqual(before);
  await app.context().close();
});
