/**
 * Campaigns in Chromium, as a dealer manager works: the empty Campaigns screen, a new campaign
 * created through the form by keyboard-usable controls (name, window in the dealer's time zone,
 * takeover, one slot, one model), a creative uploaded into it (a draft until published), an
 * existing asset of the dealer chosen as another (Choose creatives), publish,
 * Banner Preview "as of" the campaign's weekend showing its creative while now still shows the
 * regular one, and End now after a confirmation. The server's clock is pinned (TEST_CLOCK_FILE,
 * test-clock.ts). Screenshots at 1280 and 390 px; axe finds no serious or critical violation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, launchBrowser, screenshotPath, seedDealer, startServer, type RunningServer, type SeededDealer } from './harness';
import { animationsDone, contextPage, DESKTOP, MOBILE, seriousViolations } from './a11y';
import { makeBanner, multipartBody } from '../fixtures/images';

const clockDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-clock-'));
const CLOCK_FILE = path.join(clockDir, 'now');

let server: RunningServer;
let browser: Browser;
let dealer: SeededDealer;

beforeAll(async () => {
  writeFileSync(CLOCK_FILE, '2026-11-20T12:00:00Z');
  server = await startServer({ TEST_CLOCK_FILE: CLOCK_FILE });
  browser = await launchBrowser();
  dealer = await seedDealer(server.origin, 'Honda Campaign Motors');
  const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
  const current = (await (await fetch(`${server.origin}/api/dealers/${dealer.dealerId}`, { headers: { cookie: admin } })).json()) as { dealer: { security: Record<string, unknown> } };
  const saved = await fetch(`${server.origin}/api/admin/dealers/${dealer.dealerId}/settings`, {
    method: 'PUT',
    headers: { cookie: admin, 'content-type': 'application/json' },
    body: JSON.stringify({ security: current.dealer.security, timeZone: 'America/New_York' }),
  });
  expect(saved.status).toBe(200);
  // The regular Civic header banner.
  const cookie = await apiSignIn(server.origin, dealer.email, dealer.password);
  const { body, contentType } = multipartBody([{ filename: 'new_2026_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#2255aa') }]);
  const res = await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/assets`, { method: 'POST', headers: { cookie, 'content-type': contentType }, body: new Uint8Array(body) });
  expect(res.status).toBe(200);
  // A banner already in the library, newer than the regular one, that the campaign will take as a creative.
  const existing = multipartBody([{ filename: 'new_2026_honda_civic_lx_holiday_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#22aa77') }]);
  const res2 = await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/assets`, { method: 'POST', headers: { cookie, 'content-type': existing.contentType }, body: new Uint8Array(existing.body) });
  expect(res2.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(clockDir, { recursive: true, force: true });
});

/** A page in its own browser context (what axe needs) at `viewport`, signed in as the seeded dealer's manager. */
async function managerPage(viewport: { width: number; height: number }): Promise<Page> {
  const { context, page } = await contextPage(browser, viewport);
  const [name, value] = (await apiSignIn(server.origin, dealer.email, dealer.password)).split(/=(.*)/s) as [string, string];
  await context.addCookies([{ name, value, url: server.origin }]);
  return page;
}

/** The header slot's asset name in Preview's status row, once loaded. */
async function previewHeaderName(page: Page): Promise<string> {
  const status = page.getByTestId('status-header');
  await status.getByText(/\.jpg$/).waitFor({ timeout: 30_000 });
  return (await status.innerText()).replace(/^header:\s*/, '').trim();
}

describe('Campaigns screen', () => {
  it('creates, fills, publishes, previews as of its start and ends a campaign', async () => {
    const page = await managerPage(DESKTOP);
    await page.goto(`${server.origin}/dealer/campaigns`);
    await page.getByRole('heading', { name: 'Campaigns', level: 2 }).waitFor();
    await page.getByText('No campaigns yet').waitFor();

    // The form: name, window (New York time), takeover, the header slot, Civic only.
    await page.getByRole('button', { name: 'New campaign' }).click();
    const form = page.getByRole('dialog', { name: 'New campaign' });
    await form.waitFor();
    await form.getByRole('button', { name: 'Create draft' }).click();
    await form.getByText('Name the campaign').waitFor(); // the form's own check, before any request
    await form.getByLabel(/^Name/).fill('Black Friday');
    await form.getByLabel('Starts').fill('2026-11-27T00:00');
    await form.getByLabel('Ends').fill('2026-11-30T00:00');
    await form.getByRole('checkbox', { name: 'Header', exact: true }).check();
    await form.getByRole('checkbox', { name: 'Civic', exact: true }).check();
    await animationsDone(page, '[role="dialog"]');
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await page.screenshot({ path: screenshotPath('90-campaign-form') });
    await form.getByRole('button', { name: 'Create draft' }).click();
    await form.waitFor({ state: 'hidden' });

    const card = page.getByRole('article', { name: 'Black Friday' });
    await expect.poll(() => card.getByTestId('campaign-state').textContent(), { timeout: 30_000 }).toBe('Draft');
    await card.getByText(/^Nov 27, 2026, 12:00\sAM – Nov 30, 2026, 12:00\sAM \(America\/New_York\)$/).waitFor();

    // A creative uploaded into the campaign.
    const chooser = page.waitForEvent('filechooser');
    await card.getByRole('button', { name: 'Upload creatives' }).click();
    await (await chooser).setFiles([{ name: 'new_2026_honda_civic_sport_blackfriday_1920x300.jpg', mimeType: 'image/jpeg', buffer: await makeBanner(1920, 300, 'jpeg', '#aa2222') }]);
    await card.getByText('1 creative').waitFor({ timeout: 30_000 });

    // An existing asset chosen as a creative too: the library's holiday banner leaves the regular rotation.
    await card.getByRole('button', { name: 'Choose creatives' }).click();
    const picker = page.getByRole('dialog', { name: 'Creatives of Black Friday' });
    await picker.getByRole('checkbox', { name: 'new_2026_honda_civic_lx_holiday_1920x300.jpg' }).check();
    await animationsDone(page, '[role="dialog"]');
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await picker.getByRole('button', { name: 'Save creatives' }).click();
    await picker.waitFor({ state: 'hidden' });
    await card.getByText('2 creatives').waitFor({ timeout: 30_000 });

    await card.getByRole('button', { name: 'Publish' }).click();
    await expect.poll(() => card.getByTestId('campaign-state').textContent(), { timeout: 30_000 }).toBe('Scheduled');
    await animationsDone(page);
    // The screen itself (the toasts above it come and go).
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await page.screenshot({ path: screenshotPath('91-campaigns-desktop'), fullPage: true });

    // Preview now: the regular banner; as of the campaign's Saturday: its creative.
    await page.goto(`${server.origin}/dealer/preview`);
    // The coverage matrix's Civic header cell (desktop) opens Civic in Preview.
    await page.getByRole('button', { name: /^Preview header for Civic:/ }).first().click();
    expect(await previewHeaderName(page)).toBe('new_2026_honda_civic_sport_1920x300.jpg');
    await page.getByTestId('preview-as-of').fill('2026-11-28T10:00');
    await expect.poll(() => previewHeaderName(page), { timeout: 30_000 }).toBe('new_2026_honda_civic_sport_blackfriday_1920x300.jpg');
    await page.getByTestId('coverage-civic-header').first().waitFor();
    await animationsDone(page);
    // The screen itself (the toasts above it come and go).
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await page.screenshot({ path: screenshotPath('92-preview-as-of'), fullPage: true });

    // End now, after a confirmation.
    await page.goto(`${server.origin}/dealer/campaigns`);
    await card.getByRole('button', { name: 'End now' }).click();
    const confirm = page.getByRole('dialog', { name: 'End campaign now?' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'End now' }).click();
    await expect.poll(() => card.getByTestId('campaign-state').textContent(), { timeout: 30_000 }).toBe('Ended');
    await page.context().close();
  });

  it('reads well on a phone (390 px)', async () => {
    const page = await managerPage(MOBILE);
    await page.goto(`${server.origin}/dealer/campaigns`);
    await page.getByRole('article', { name: 'Black Friday' }).waitFor({ timeout: 30_000 });
    await animationsDone(page);
    // The screen itself (the toasts above it come and go).
    expect(await seriousViolations(page, 'main')).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: screenshotPath('93-campaigns-phone'), fullPage: true });
    await page.context().close();
  });
});
