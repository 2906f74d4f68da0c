/**
 * A screen whose code-split chunk fails to arrive (the server shed it under load, the network
 * dropped it, a deploy removed it): the web app tries the chunk once more, and when that fails too
 * it offers a reload instead of the full-page 'Something went wrong' screen. Driven in Chromium
 * against the real server, with the Analytics screen's chunk answered 503 by the browser's router
 * (what a shedding server answered before the web app's files were exempt). The reload prompt has
 * no serious or critical axe violation at 1280 or 390 px (screenshots chunk-reload-prompt{,-390}).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { launchBrowser, screenshotPath, startServer, type RunningServer } from './harness';
import { contextPage, DESKTOP, MOBILE, seriousViolations, settled, signInAs } from './a11y';

/** The Analytics screen's chunk (Vite names a chunk after its module). */
const ANALYTICS_CHUNK = /\/assets\/AnalyticsPage-[\w-]+\.js$/;

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: 'warn', FEED_SCHEDULER_INTERVAL_MS: '0' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * A dealer manager's page on the dashboard (in a context of its own, as axe needs, at `viewport`),
 * with the Analytics chunk's requests answered by `answer` (counted).
 */
async function dashboardWith(answer: (route: Route, nth: number) => Promise<void>, viewport: { width: number; height: number } = DESKTOP): Promise<{ page: Page; requests: () => number }> {
  const { context, page } = await contextPage(browser, viewport);
  await signInAs(context, server.origin, 'manager');
  let n = 0;
  await page.route(ANALYTICS_CHUNK, (route) => answer(route, ++n));
  await page.goto(`${server.origin}/dealer`);
  await page.getByRole('heading', { name: /^Welcome back/ }).waitFor();
  return { page, requests: () => n };
}

const shed = (route: Route) => route.fulfill({ status: 503, contentType: 'application/json', headers: { 'retry-after': '5' }, body: '{"error":{"code":"UNAVAILABLE","message":"Server overloaded, please retry shortly"}}' });

describe('a screen chunk that fails to load', () => {
  it('is tried once more, and the screen shows when the second try arrives', async () => {
    const { page, requests } = await dashboardWith((route, nth) => (nth === 1 ? shed(route) : route.continue()));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    await page.getByRole('heading', { name: 'Analytics Dashboard' }).waitFor();
    expect(requests()).toBe(2);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    await page.context().close();
  });

  it('offers a reload after the second failure, not the error screen, and the reload brings the screen', async () => {
    let failing = true;
    const { page, requests } = await dashboardWith((route) => (failing ? shed(route) : route.continue()));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    const reload = page.getByRole('button', { name: 'Reload' });
    await reload.waitFor();
    expect(requests()).toBe(2);
    expect(await page.getByText('This page could not be loaded').count()).toBe(1);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('chunk-reload-prompt'), fullPage: true });
    failing = false; // the server serves the chunk again
    await reload.click();
    await page.getByRole('heading', { name: 'Analytics Dashboard' }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Reload' }).count()).toBe(0);
    await page.context().close();
  });

  it('the reload prompt reads on a phone (390 px)', async () => {
    const { page } = await dashboardWith(shed, MOBILE);
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    await page.getByRole('button', { name: 'Reload' }).waitFor();
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('chunk-reload-prompt-390'), fullPage: true });
    await page.context().close();
  });
});
