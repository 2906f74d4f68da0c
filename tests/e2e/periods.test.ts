/**
 * Every admin figure says its period: the Admin Dashboard's totals are labelled All Time
 * and carry their last-30-days figure beside the trend; Platform Analytics labels its chart and
 * every dealer card with the selected period, and its 30-day figures equal the dashboard's.
 * Screenshots: test-results/90-periods-admin-dashboard.png, 91-periods-platform-analytics.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeAll, launchBrowser, newPage, screenshotPath, signInThroughForm, startServer, trackDemo, type RunningServer } from './harness';

let server: RunningServer;
let browser: Browser;
let app: Page;

beforeAll(async () => {
  server = await startServer();
  await trackDemo(server.origin, 'impression', 20, 'view-periods');
  await trackDemo(server.origin, 'click', 1, 'view-periods');
  browser = await launchBrowser();
  app = await newPage(browser);
  await signInThroughForm(app, server.origin, 'admin@dc-banners.com', 'admin123');
  await app.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
});
afterAll(() => closeAll(browser, server));

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

  it('Platform Analytics: the chart and the portfolio table name the selected period', async () => {
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    const row = app.getByTestId('portfolio-row-honda-of-demo');
    await row.waitFor();
    expect(await app.getByTestId('portfolio-period').textContent()).toBe('Last 30 Days');
    expect(await app.getByTestId('analytics-chart-period').textContent()).toBe('Last 30 Days');
    expect(await app.getByTestId('portfolio-impressions-honda-of-demo').textContent()).toBe('20');
    await app.locator('.recharts-surface').first().waitFor();
    await app.screenshot({ path: screenshotPath('91-periods-platform-analytics'), fullPage: true });
  });
});
