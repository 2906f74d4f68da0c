/**
 * The foundation's vertical slice, through the browser: a dealer manager signs in, uploads a real
 * 1920x300 JPEG, the dealer's search page (another origin, mxs-style URL) shows it through the
 * embed script with the mxs inventory link, a viewable impression and a click are recorded, and
 * the dashboard counts them. Its server starts on an empty DATA_DIR (creates the database, migrates,
 * seeds the demo accounts), as a first `npm run dev` would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { closeAll, launchBrowser, newPage, screenshotPath, startDealerSite, startServer, type DealerSite, type RunningServer, apiSignIn } from './harness';
import { makeBanner } from '../fixtures/images';

let server: RunningServer;
let site: DealerSite;
let browser: Browser;
let app: Page;
let managerCookie = '';

/** The dealer's totals as the API reports them to its manager. */
async function dealerStats(): Promise<{ impressions: number; clicks: number }> {
  if (!managerCookie) managerCookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  const res = await fetch(`${server.origin}/api/dealers/honda-of-demo/stats`, { headers: { cookie: managerCookie } });
  return res.json();
}

beforeAll(async () => {
  server = await startServer({}, { fresh: true });
  site = await startDealerSite(`${server.origin}/scripts/dc-banners-honda-of-demo.js`);
  browser = await launchBrowser();
  app = await newPage(browser);
});
afterAll(() => closeAll(browser, site, server));

describe('vertical slice', () => {
  it('signs in as the dealer manager', async () => {
    await app.goto(server.origin);
    await app.getByLabel(/^Email/).fill('manager@hondaofdemo.com');
    await app.getByLabel(/^Password/).fill('manager123');
    await app.screenshot({ path: screenshotPath('01-sign-in'), fullPage: true });
    await app.getByRole('button', { name: 'Sign in' }).click();
    await app.getByText('Welcome back, Morgan Manager!').waitFor();
    expect(new URL(app.url()).pathname).toBe('/dealer');
  });

  it('uploads a real 1920x300 JPEG banner in the Asset Manager', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-upload-'));
    const file = path.join(dir, 'new_2025_honda_civic_sport_1920x300.jpg');
    writeFileSync(file, await makeBanner(1920, 300));
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Assets' }).click();
    await app.getByRole('heading', { name: 'Asset Manager' }).waitFor();
    await app.getByRole('button', { name: 'Start Upload' }).first().click();
    await app.locator('input[type=file]').setInputFiles(file);
    await app.getByText('new_2025_honda_civic_sport_1920x300.jpg').first().waitFor();
    await app.getByText('SRP Header Banners').waitFor();
    await app.locator('img[src*="/assets/"]').first().waitFor();
    await app.screenshot({ path: screenshotPath('02-asset-manager'), fullPage: true });
  });

  it('shows the banner on the dealer search page with the mxs inventory link, and records a viewable impression and a click', async () => {
    const page = await newPage(browser);
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    const header = page.locator('.dc-banner[data-dc-type="header"]');
    const img = header.locator('img');
    await img.waitFor();
    await page.waitForFunction(() => {
      const i = document.querySelector<HTMLImageElement>('.dc-banner[data-dc-type="header"] img');
      return Boolean(i && i.complete && i.naturalWidth > 0);
    });
    const src = await img.getAttribute('src');
    expect(src).toContain(`${server.origin}/api/scripts/honda-of-demo/asset?`);
    expect(src).toContain('model=civic');
    expect(src).toContain('type=header');
    const served = await fetch(src!);
    expect(served.headers.get('x-banner-source')).toBe('asset');
    expect(await img.evaluate((i: HTMLImageElement) => [i.naturalWidth, i.naturalHeight])).toEqual([1920, 300]);
    const href = await header.locator('a').getAttribute('href');
    expect(href).toBe(`${site.origin}/new-inventory?new=true&model=civic&fq=1&min-year=2003&max-year=2026`);
    await expect.poll(() => dealerStats(), { timeout: 10_000 }).toMatchObject({ impressions: 1, clicks: 0 });
    await page.screenshot({ path: screenshotPath('03-dealer-search-page'), fullPage: false });
    await header.locator('a').click();
    await page.waitForURL(/fq=1/);
    await expect.poll(() => dealerStats(), { timeout: 10_000 }).toMatchObject({ impressions: 1, clicks: 1 });
    await page.close();
  });

  it('counts the impression and the click on the dashboard', async () => {
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await expect.poll(() => app.getByTestId('stat-impressions').innerText(), { timeout: 10_000 }).toBe('1');
    expect(await app.getByTestId('stat-clicks').innerText()).toBe('1');
    expect(await app.getByTestId('stat-ctr').innerText()).toBe('100.00%');
    await app.screenshot({ path: screenshotPath('04-dealer-dashboard'), fullPage: true });
  });
});
