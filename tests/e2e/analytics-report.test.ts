/**
 * The Analytics screen and the dealer dashboard in a browser, with data that came in the way a
 * dealer's would: an inventory file uploaded through the API and beacons sent to the track route.
 * The per-model table shows viewable impressions beside stock, 'Raise upsell priority' saves the
 * next weight band, the table shows it and the banner endpoint then serves the raised model in the
 * upsell slot of a page where it was the runner-up (Prologue: CR-V, then Pilot), the device
 * switch shows one device's figures (the CR-V beacons come from phones), every per-model row
 * matches the API's answer to the same query, 'Same period last year' asks for compare=year and
 * shows that comparison, the chart metric switch renames the chart and its legend, a custom range asks for the chosen days, and the dashboard shows
 * Conversions and the trend chart. Desktop (1280) and phone (390) screenshots; axe finds no
 * serious or critical violation on either screen, nor in the By slot and By creative tabs.
 * The Upsell Rules priority bands read whole at both widths.
 * Screenshots: test-results/analytics-report-{desktop,phone}.png, analytics-device-{desktop,phone}.png, analytics-raise-priority.png,
 * analytics-by-{slot,creative}-{desktop,phone}.png, analytics-compare-year-clicks.png, analytics-custom-range.png,
 * dashboard-trend-{desktop,phone}.png, inventory-aged-action-{desktop,phone}.png, upsell-priorities-{desktop,phone}.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator } from 'playwright-core';
import { apiSignIn, DEALER_SITE_ORIGIN, DESKTOP_UA, fetchUnlessShed, launchBrowser, screenshotPath, startServer, trackDemo, patchDealerSettings, type RunningServer } from './harness';
import { contextPage, DESKTOP, DEMO_DEALER_ID, MOBILE, seriousViolations, settled, signInAs } from './a11y';
import { multipartBody } from '../fixtures/images';
import type { AnalyticsReport } from '../../src/domain/contracts/analytics';
import { formatCtr, formatTrend } from '../../src/domain/metrics';
import { formatPriority } from '../../src/domain/priority-scale';

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

/**
 * The model the public banner endpoint shows in the upsell slot of a search page for `pageModel`
 * (X-Banner-Model, the model key), as the demo dealer's site asks for it (desktop, no dealer
 * version in the URL: the server's current choice).
 */
async function upsellServed(pageModel: string): Promise<string> {
  const res = await fetchUnlessShed(`${server.origin}/api/scripts/${DEMO_DEALER_ID}/asset?model=${pageModel}&type=upsell&variant=desktop`);
  expect(res.status).toBeLessThan(400);
  await res.arrayBuffer();
  return res.headers.get('x-banner-model') ?? '';
}

/** The texts of the labels among `labels` cut with '…': wider inside than the box they show in. */
const cutLabels = (labels: Locator) => labels.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent));

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  await patchDealerSettings(server.origin, DEMO_DEALER_ID, { rateLimitEnabled: false });
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

    // The other two tables, each checked with axe inside its tab panel.
    for (const [tab, tableName, shot] of [['By slot', 'Slot performance', 'analytics-by-slot'], ['By creative', 'Creative performance', 'analytics-by-creative']] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('table', { name: tableName }).waitFor();
      await settled(page);
      expect(await seriousViolations(page, '[role="tabpanel"]')).toEqual([]);
      await page.getByRole('tabpanel').screenshot({ path: screenshotPath(`${shot}-${name}`) });
    }
    await page.getByRole('tab', { name: 'By model' }).click();
    await table.waitFor();

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
  const reportUrls: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/analytics/report?')) reportUrls.push(r.url());
  });
  await page.goto(`${server.origin}/dealer/analytics`);
  const table = page.getByRole('table', { name: 'Model performance and inventory' });
  await table.waitFor({ timeout: 30_000 });
  const pilot = table.locator('[data-model="pilot"]');
  // Stock and upsell priority: one scale, written alike; Raise moves the upsell priority one band.
  await pilot.getByTestId('stock-priority').waitFor();
  expect(await pilot.getByTestId('stock-priority').textContent()).toMatch(/^\d+ · (Low|Normal|High)$/);
  expect(await pilot.getByTestId('upsell-priority').textContent()).toBe('5 · Normal');
  // The Prologue page's upsell candidates are CR-V (the manufacturer rule) and Pilot, both at 5: the rule's CR-V shows.
  expect(await upsellServed('prologue')).toBe('crv');
  await pilot.getByRole('button', { name: 'Raise upsell priority of Pilot to 8 (High Priority)' }).click();
  await pilot.getByTestId('upsell-priority').getByText('8 · High', { exact: true }).waitFor({ timeout: 15_000 });
  // Pilot now outranks CR-V: the banner endpoint serves Pilot in the Prologue page's upsell slot.
  expect(await upsellServed('prologue')).toBe('pilot');
  await page.screenshot({ path: screenshotPath('analytics-raise-priority'), fullPage: false });

  // Every row of the per-model table against the API's answer to the same query (the screen's
  // last report request, asked again): figures, units, aged share, days on lot and both priorities.
  const screenAsked = reportUrls.at(-1)!;
  const answer = (await page.evaluate(async (url) => (await fetch(url)).json(), screenAsked)) as AnalyticsReport;
  expect(answer.models.length).toBeGreaterThan(0);
  expect(await table.locator('tbody tr').count()).toBe(answer.models.length);
  for (const m of answer.models) {
    const row = table.locator(`[data-model="${m.model}"]`);
    const inv = m.inventory;
    expect((await row.locator('td').allTextContents()).slice(1, 9), m.model).toEqual([
      m.impressions.toLocaleString('en-US'),
      m.clicks.toLocaleString('en-US'),
      formatCtr(m.ctr),
      m.conversions.toLocaleString('en-US'),
      inv ? inv.units.toLocaleString('en-US') : '—',
      inv?.agedShare == null ? '—' : `${inv.agedShare.toFixed(0)} %`,
      inv?.medianDaysOnLot == null ? '—' : Math.round(inv.medianDaysOnLot).toLocaleString('en-US'),
      inv ? formatPriority(inv.priorityScore) : '—',
    ]);
    if (m.upsellWeight === null || !m.weightKey) expect(await row.locator('td').nth(9).textContent()).toBe('—');
    else expect(await row.getByTestId('upsell-priority').textContent()).toBe(formatPriority(m.upsellWeight));
  }
  expect(answer.models.find((m) => m.model === 'pilot')?.upsellWeight).toBe(8);

  // Same period last year: the screen asks for compare=year, and the comparison label and the
  // cards' changes follow the API's answer to it.
  const chartCaption = page.getByTestId('analytics-chart-range');
  expect(await chartCaption.textContent()).toBe(`${answer.range.label} ${answer.comparison.label}`);
  const yearAsked = page.waitForResponse((r) => r.url().includes('/analytics/report?') && new URL(r.url()).searchParams.get('compare') === 'year');
  await page.getByRole('textbox', { name: 'Compare with' }).click();
  await page.getByRole('option', { name: 'Same period last year' }).click();
  const yearReport = (await (await yearAsked).json()) as AnalyticsReport;
  expect(yearReport.comparison.compare).toBe('year');
  expect(yearReport.comparison.label).not.toBe(answer.comparison.label);
  expect(yearReport.comparison.from.slice(0, 4)).toBe(String(Number(answer.range.from.slice(0, 4)) - 1));
  await expect.poll(() => chartCaption.textContent(), { timeout: 15_000 }).toBe(`${yearReport.range.label} ${yearReport.comparison.label}`);
  await page.getByText(`${formatTrend(yearReport.trends.impressions)} ${yearReport.comparison.label}`, { exact: true }).first().waitFor();
  expect(await page.getByRole('link', { name: 'Export Data' }).getAttribute('href')).toContain('compare=year');

  // The chart's metric switch: its title and both legend entries name the chosen metric.
  // The legend's entries, in text order (the chart draws them in an order of its own).
  const legend = async () => (await page.locator('[class*="-legendItemName"]').allTextContents()).sort();
  const comparedWith = yearReport.comparison.label.replace(/^vs /, '');
  expect(await legend()).toEqual([`Viewable impressions (${yearReport.range.label})`, `Viewable impressions (${comparedWith})`].sort());
  await page.getByRole('radiogroup', { name: 'Chart metric' }).getByText('Clicks', { exact: true }).click();
  await expect.poll(legend, { timeout: 15_000 }).toEqual([`Clicks (${yearReport.range.label})`, `Clicks (${comparedWith})`].sort());
  await page.getByRole('heading', { name: 'Clicks', level: 4 }).waitFor();
  await settled(page);
  await page.screenshot({ path: screenshotPath('analytics-compare-year-clicks'), fullPage: true });

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
