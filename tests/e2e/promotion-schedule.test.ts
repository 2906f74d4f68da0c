/**
 * Promotion schedule proof in Chromium:
 * - a scheduled asset appears on the dealer's page only inside its window: the server's clock is
 *   moved through TEST_CLOCK_FILE (test-clock.ts; refused in production), never by sleeping, and
 *   nothing is written between the visits, so the server's choice caches must expire at the
 *   window's boundaries on their own;
 * - the Asset Manager shows Live / Scheduled / Expired cards (screenshot), says why its Upsell
 *   Banners group is empty (screenshot), finds banners by model or file name, filters by status,
 *   and deletes a selection after a confirmation, by keyboard.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { allowFixtureSites, apiSignIn, launchBrowser, newPage, screenshotPath, seedDealer, signedInPage, startDealerSite, startServer, type DealerSite, type RunningServer, type SeededDealer } from './harness';
import { makeBanner, multipartBody } from '../fixtures/images';

const clockDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-clock-'));
const CLOCK_FILE = path.join(clockDir, 'now');
/** Moves the server's clock (app.now) to `iso`. */
const setServerClock = (iso: string) => writeFileSync(CLOCK_FILE, iso);

let server: RunningServer;
let browser: Browser;
let dealer: SeededDealer;
let cookie = '';
let site: DealerSite;

/** Uploads one banner with an optional window (local times in the dealer's zone or ISO instants) as a dealer's manager (default: `dealer`). */
async function uploadBanner(filename: string, width: number, height: number, fields: Record<string, string> = {}, as = { dealerId: '', cookie: '' }): Promise<string> {
  const { body, contentType } = multipartBody([{ filename, data: await makeBanner(width, height) }], fields);
  const res = await fetch(`${server.origin}/api/dealers/${as.dealerId || dealer.dealerId}/assets`, {
    method: 'POST',
    headers: { cookie: as.cookie || cookie, 'content-type': contentType },
    body: new Uint8Array(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const [r] = ((await res.json()) as { results: Array<{ ok: boolean; asset: { id: string } }> }).results;
  expect(r!.ok).toBe(true);
  return r!.asset.id;
}

beforeAll(async () => {
  setServerClock('2026-06-15T12:00:00Z');
  server = await startServer({ TEST_CLOCK_FILE: CLOCK_FILE });
  browser = await launchBrowser();
  dealer = await seedDealer(server.origin, 'Honda Promo Motors');
  cookie = await apiSignIn(server.origin, dealer.email, dealer.password);
  // The fixture site runs on 127.0.0.1: allow it.
  await allowFixtureSites(server.origin, dealer.dealerId, 'America/New_York');
  site = await startDealerSite(`${server.origin}/scripts/dc-banners-${dealer.dealerId}.js`, 'provider-srp.html');
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await server?.stop();
  rmSync(clockDir, { recursive: true, force: true });
});

describe('a scheduled banner on the dealer page', () => {
  /** Opens the Civic search page in a fresh browser (no HTTP cache) and says where the header image came from. */
  async function headerSource(): Promise<string> {
    const page = await newPage(browser);
    try {
      const image = page.waitForResponse((r) => r.url().includes('/asset?') && new URL(r.url()).searchParams.get('type') === 'header');
      await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
      const source = (await image).headers()['x-banner-source'] ?? '';
      await page.waitForFunction(() => (document.querySelector('.dc-banner[data-dc-type="header"] img') as HTMLImageElement | null)?.complete === true);
      return source;
    } finally {
      await page.context().close();
    }
  }

  it('appears only from its start until its end (New York time), with no write in between', async () => {
    // July 4th weekend, entered in the dealer's zone: Fri 00:00 to Mon 00:00 New York = 04:00 UTC.
    await uploadBanner('new_2026_honda_civic_sport_july4_1920x300.jpg', 1920, 300, { startsAt: '2026-07-03T00:00', endsAt: '2026-07-06T00:00' });
    expect(await headerSource()).toBe('placeholder');
    setServerClock('2026-07-03T03:59:00Z'); // still Thursday evening in New York
    expect(await headerSource()).toBe('placeholder');
    setServerClock('2026-07-03T04:00:00Z');
    expect(await headerSource()).toBe('asset');
    setServerClock('2026-07-06T03:59:59Z');
    expect(await headerSource()).toBe('asset');
    setServerClock('2026-07-06T04:00:00Z');
    expect(await headerSource()).toBe('placeholder');
  });
});

describe('Asset Manager: statuses, search, filter and bulk delete', () => {
  it('shows Live, Scheduled and Expired cards and deletes a filtered selection after confirmation', async () => {
    setServerClock('2026-07-04T16:00:00Z');
    // A dealer of its own (the server's zone), so the other test's banners do not count here.
    const own = await seedDealer(server.origin, 'Honda Asset Motors');
    const as = { dealerId: own.dealerId, cookie: await apiSignIn(server.origin, own.email, own.password) };
    await uploadBanner('new_2026_honda_civic_sport_1920x300.jpg', 1920, 300, {}, as);
    await uploadBanner('new_2026_honda_accord_se_350x564.jpg', 350, 564, {}, as);
    await uploadBanner('new_2026_honda_accord_se_spring_350x564.jpg', 350, 564, { startsAt: '2026-04-01T00:00:00Z', endsAt: '2026-05-01T00:00:00Z' }, as);
    await uploadBanner('new_2026_honda_pilot_touring_labor-day_1920x300.jpg', 1920, 300, { startsAt: '2026-09-04T00:00', endsAt: '2026-09-08T00:00' }, as);

    const page = await signedInPage(browser, server.origin, own.email, own.password, { viewport: { width: 1280, height: 1400 } });
    await page.goto(`${server.origin}/dealer/assets`);
    const cards = page.getByTestId('asset-card');
    await cards.nth(3).waitFor();
    expect(await cards.count()).toBe(4);
    const statuses = async () => (await cards.locator('[data-testid="asset-status"]').allTextContents()).sort();
    expect(await statuses()).toEqual(['Expired', 'Live', 'Live', 'Scheduled']);
    // Every upload is stored as a header or an inline banner by its shape, so the Upsell Banners
    // group stays empty: it says where upsell slots take their banner from instead.
    const upsellGroup = page.getByRole('region', { name: 'Upsell Banners' });
    await upsellGroup.getByText('Upsell slots show your Inline banners of the model one step up (set on Upsell Rules): no separate upload is needed.', { exact: true }).waitFor();
    expect(await upsellGroup.getByTestId('asset-card').count()).toBe(0);
    await upsellGroup.screenshot({ path: screenshotPath('80-asset-manager-upsell-empty') });
    // The window in the dealer's zone, named (ICU may put a narrow no-break space before AM: \s).
    await expect.poll(() => page.getByText(/^Sep 4, 2026, 12:00\sAM – Sep 8, 2026, 12:00\sAM \(.+\)$/).count()).toBe(1);
    await page.screenshot({ path: screenshotPath('80-asset-manager-schedule'), fullPage: true });
    // The card's Schedule dialog holds the window as local date-times in the dealer's zone.
    await page.getByRole('button', { name: 'Schedule new_2026_honda_pilot_touring_labor-day_1920x300.jpg' }).click();
    const scheduleDialog = page.getByRole('dialog', { name: 'Schedule banner' });
    await scheduleDialog.waitFor();
    expect(await scheduleDialog.getByLabel('Starts').inputValue()).toBe('2026-09-04T00:00');
    expect(await scheduleDialog.getByLabel('Ends').inputValue()).toBe('2026-09-08T00:00');
    await page.screenshot({ path: screenshotPath('81-asset-schedule-dialog') });
    await scheduleDialog.getByRole('button', { name: 'Cancel' }).click();
    await scheduleDialog.waitFor({ state: 'hidden' });

    // Search by model, then narrow to Expired.
    await page.getByLabel('Search', { exact: true }).fill('accord');
    await expect.poll(() => cards.count()).toBe(2);
    // The Select arrives just after first paint (components/deferred.tsx): a disabled stand-in until then.
    const status = page.getByRole('textbox', { name: 'Status', exact: true });
    await expect.poll(() => status.isEnabled()).toBe(true);
    await status.click();
    await page.getByRole('option', { name: 'Expired' }).click();
    await expect.poll(() => cards.count()).toBe(1);
    // textContent: a file name is cut in the middle, its two parts laid out as separate boxes.
    expect(await cards.first().textContent()).toContain('spring');

    // Select what is shown and delete it, by keyboard: Space ticks, the dialog's confirm button has the focus.
    await page.getByLabel(/^Select all shown/).focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByText('1 selected').count()).toBe(1);
    await page.getByRole('group', { name: 'Actions for the selected banners' }).getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 1 banner?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('new_2026_honda_accord_se_spring_350x564.jpg');
    await expect.poll(() => dialog.getByRole('button', { name: 'Delete 1 banner' }).evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => cards.count()).toBe(0);
    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await expect.poll(() => cards.count()).toBe(3);
    expect((await cards.allTextContents()).join('\n')).not.toContain('spring');
    await page.context().close();
  });
});
