/**
 * The Analytics screen and the dealer dashboard in a browser, with data that came in the way a
 * dealer's would: an inventory file uploaded through the API and beacons sent to the track route.
 * The per-model table shows viewable impressions beside stock, 'Raise upsell priority' saves the
 * next weight band and the table shows it, the device switch shows one device's figures (the CR-V
 * beacons come from phones), a custom range asks for the chosen days, and the dashboard shows
 * Conversions and the trend chart. Desktop (1280) and phone (390) screenshots; axe finds no
 * serious or critical violation on either screen.
 * The Upsell Rules priority bands read whole at both widths.
 * Screenshots: test-results/analytics-report-{desktop,phone}.png, analytics-device-{desktop,phone}.png, analytics-custom-range.png,
 * dashboard-trend-{desktop,phone}.png, inventory-aged-action-{desktop,phone}.png, upsell-priorities-{desktop,phone}.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator } from 'playwright-core';
import { apiSignIn, DEALER_SITE_ORIGIN, DESKTOP_UA, fetchUnlessShed, launchBrowser, screenshotPath, startServer, trackDemo, withoutTrackingLimits, type RunningServer } from './harness';
import { contextPage, DESKTOP, DEMO_DEALER_ID, MOBILE, seriousViolations, settled, signInAs } from './a11y';
import { multipartBody } from '../fixtures/images';

let server: RunningServer;
let browser: Browser;

/** A phone's browser: Chrome on Android, with the client hint it sends. */
const PHONE = { 'user-agent': 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36', 'sec-ch-ua-mobile': '?1' };

/** Impression beacons of `model` in `type` for page views `${pv}-0`..; as the dealer site's script sends them (from a desktop browser unless `from` says otherwise). */
async function track(model: string, type: string, n: number, pv: string, event = 'impression', from: Record<string, string> = { 'user-agent': DESKTOP_UA }): Promise<void> {
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify({ dealerId: DEMO_DEALER_ID, event, type, model, url: `${DEALER_SITE_ORIGIN}/new-inventory?model=${model}`, pv: `${pv}-${i}` });
    const res = await fetchUnlessShed(`${server.origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', ...from, origin: DEALER_SITE_ORIGIN }, body });
    expect(res.status).toBe(204);
  }
}

/** The texts of the labels among `labels` cut with '…': wider inside than the box they show in. */
const cutLabels = (labels: Locator) => labels.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent));

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  await withoutTrackingLimits(server.origin, DEMO_DEALER_ID);
  const manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  const { body, contentType } = multipartBody([{ filename: 'honda-inventory.csv', data: readFileSync(new URL('../fixtures/inventory/honda-inventory.csv', import.meta.url)) }]);
  const up = await fetchUnlessShed(`${server.origin}/api/dealers/${DEMO_DEALER_ID}/inventory`, { method: 'POST', body: new Uint8Array(body), headers: { cookie: manager, 'content-type': contentType, origin: server.origin } });
  expect(up.status).toBe(200);
  await trackDemo(server.origin, 'impression', 40, 'e2e-civic');
  await trackDemo(server.origin, 'click', 3, 'e2e-civic');
  await track('civic', 'header', 1, 'e2e-civic', 'conversion');
  await track('crv', 'primary', 25, 'e2e-crv', 'impression', PHONE);
  await track('pilot', 'upsell', 12, 'e2e-pilot');
  await track('pilot', 'upsell', 1, 'e2e-pilot', 'click');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it('shows per-model figures beside stock, raises a model\'s upsell priority, and asks for a custom range', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer/analytics`);
    const table = page.getByRole('table', { name: 'Model performance and inventory' });
    await table.waitFor({ timeout: 30_000 });
    await settled(page);
    const civic = table.locator('[data-model="civic"]');
    await expect.poll(async () => (await civic.locator('td').allTextContents()).slice(0, 5), { timeout: 15_000 }).toEqual(['Civic', '40', '3', '7.50%', '1']);
    expect(await page.getByText('Viewable impressions only (50 % in view for 1 s)').count()).toBe(1);
    await page.screenshot({ path: screenshotPath(`analytics-report-${name}`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    // Every stock and upsell priority reads whole ('5 · Normal', not '5 · Nor…').
    expect(await cutLabels(table.locator('.mantine-Badge-label'))).toEqual([]);

    // Mobile only: the CR-V's 25 phone impressions, none of the Civic's (desktop) ones.
    const devices = page.getByRole('radiogroup', { name: 'Device' });
    await devices.getByText('Mobile', { exact: true }).click();
    await expect.poll(async () => (await civic.locator('td').allTextContents()).slice(0, 2), { timeout: 15_000 }).toEqual(['Civic', '0']);
    await page.getByText('25', { exact: true }).first().waitFor();
    expect(await page.getByRole('link', { name: 'Export Data' }).getAttribute('href')).toContain('device=mobile');
    await settled(page);
    await page.screenshot({ path: screenshotPath(`analytics-device-${name}`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  }

  const { context, page } = await contextPage(browser, DESKTOP);
  await signInAs(context, server.origin, 'manager');
  await page.goto(`${server.origin}/dealer/analytics`);
  const table = page.getByRole('table', { name: 'Model performance and inventory' });
  await table.waitFor({ timeout: 30_000 });
  const pilot = table.locator('[data-model="pilot"]');
  // Stock and upsell priority: one scale, written alike; Raise moves the upsell priority one band.
  await pilot.getByTestId('stock-priority').waitFor();
  expect(await pilot.getByTestId('stock-priority').textContent()).toMatch(/^\d+ · (Low|Normal|High)$/);
  expect(await pilot.getByTestId('upsell-priority').textContent()).toBe('5 · Normal');
  await pilot.getByRole('button', { name: 'Raise upsell priority of Pilot to 8 (High Priority)' }).click();
  await pilot.getByTestId('upsell-priority').getByText('8 · High', { exact: true }).waitFor({ timeout: 15_000 });

  // A custom range of local days: today and the 6 days before.
  await page.getByRole('textbox', { name: 'Period' }).click();
  await page.getByRole('option', { name: 'Custom range' }).click();
  const timeZone = (await page.evaluate(async () => (await (await fetch('/api/dealers/honda-of-demo')).json()).dealer.timeZone)) as string;
  const day = (offset: number) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date(Date.now() + offset * 86_400_000));
  const asked = page.waitForRequest((r) => r.url().includes('/analytics/report?') && r.url().includes(`from=${day(-6)}`));
  await page.getByRole('textbox', { name: 'From', exact: true }).fill(day(-6));
  await page.getByRole('textbox', { name: 'To', exact: true }).fill(day(0));
  await asked;
  await table.locator('[data-model="civic"]').getByText('40', { exact: true }).waitFor();
  await settled(page);
  await page.screenshot({ path: screenshotPath('analytics-custom-range'), fullPage: true });
  await context.close();
}, 180_000);

it('the dashboard shows Conversions and the viewable-impressions trend chart', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer`);
    await page.getByTestId('stat-conversions').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('stat-conversions').textContent()).toBe('1');
    await page.getByRole('heading', { name: 'Viewable impressions per day' }).waitFor();
    await page.locator('.recharts-surface').first().waitFor({ timeout: 30_000 });
    await settled(page);
    await page.screenshot({ path: screenshotPath(`dashboard-trend-${name}`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  }
}, 120_000);

it('the Inventory screen\'s aged inventory insight raises a model\'s upsell priority', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer/inventory?tab=upload`);
    const aged = page.getByTestId('aged-models');
    await aged.waitFor({ timeout: 30_000 });
    await settled(page);
    if (name === 'desktop') {
      // Accord: both units aged, upsell priority 5 (Normal) -> 8 (High).
      await aged.getByRole('button', { name: 'Raise upsell priority of Accord to 8 (High Priority)' }).click();
      await aged.getByText('Upsell priority 8 · High').first().waitFor({ timeout: 15_000 });
    }
    await aged.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath(`inventory-aged-action-${name}`), fullPage: false });
    expect(await seriousViolations(page, '[data-testid="aged-models"]')).toEqual([]);
    await context.close();
  }
}, 120_000);

it('Upsell Rules shows every upsell priority band whole, at 1280 and 390', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer/upsells`);
    await page.getByRole('heading', { name: 'Upsell Priorities (inventory weights)' }).waitFor({ timeout: 30_000 });
    const bands = page.locator('.mantine-Badge-label', { hasText: /^(Low|Normal|High) Priority$/ });
    await bands.first().waitFor();
    await settled(page);
    expect(await bands.count()).toBeGreaterThan(0);
    expect(await cutLabels(bands)).toEqual([]);
    await bands.first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: screenshotPath(`upsell-priorities-${name}`), fullPage: false });
    await context.close();
  }
}, 120_000);
