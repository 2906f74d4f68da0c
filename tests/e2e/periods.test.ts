/**
 * Every admin figure says its period: the Admin Dashboard's totals are labelled All Time
 * and carry their last-30-days figure beside the trend; Platform Analytics labels its chart and
 * every dealer card with the selected period, and its 30-day figures equal the dashboard's.
 * Screenshots: test-results/90-periods-admin-dashboard.png, 91-periods-platform-analytics.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEALER_SITE_ORIGIN, DESKTOP_UA, launchBrowser, newPage, screenshotPath, startServer, type RunningServer } from './harness';

let server: RunningServer;
let browser: Browser;
let app: Page;

/** Records banner events for the demo dealer the way its script would. */
async function track(event: 'impression' | 'click', n: number) {
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify({ dealerId: 'honda-of-demo', event, type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?new=true&model=civic', pv: `view-periods-${i}` });
    const res = await fetch(`${server.origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN }, body });
    expect(res.status).toBe(204);
  }
}

beforeAll(async () => {
  server = await startServer();
  await track('impression', 20);
  await track('click', 1);
  browser = await launchBrowser();
  app = await newPage(browser);
  await app.goto(server.origin);
  await app.getByLabel(/^Email/).fill('admin@dc-banners.com');
  await app.getByLabel(/^Password/).fill('admin123');
  await app.getByRole('button', { name: 'Sign in' }).click();
  await app.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('figures say their period', () => {
  it('Admin Dashboard: all-time totals, the last 30 days beside the trend', async () => {
    await expect.poll(() => app.getByTestId('metric-Total Impressions').textContent()).toBe('20');
    expect(await app.getByTestId('metric-Total Impressions-period').textContent()).toBe('All Time');
    expect(await app.getByTestId('metric-Active Dealers-period').textContent()).toBe('Now');
    expect(await app.getByTestId('metric-Total Impressions-recent').textContent()).toBe('20');
    const note = await app.getByTestId('metric-Total Impressions-recent').locator('..').textContent();
    expect(note).toBe('Last 30 Days: 20 · -- vs previous 30 days');
    await app.screenshot({ path: screenshotPath('90-periods-admin-dashboard'), fullPage: true });
  });

  it('Platform Analytics: the chart and each card name the selected period', async () => {
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    const card = app.getByTestId('analytics-card-honda-of-demo');
    await card.waitFor();
    expect(await app.getByTestId('analytics-card-period-honda-of-demo').textContent()).toBe('Last 30 Days');
    expect(await app.getByTestId('analytics-chart-period').textContent()).toBe('Last 30 Days');
    expect(await card.textContent()).toContain('Impressions20');
    await app.locator('.recharts-surface').first().waitFor();
    await app.screenshot({ path: screenshotPath('91-periods-platform-analytics'), fullPage: true });
  });
});
