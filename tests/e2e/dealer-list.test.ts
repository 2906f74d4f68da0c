/**
 * Dealer Management with more dealers than one page (spec 01 §2), through the browser: the server
 * pages, sorts and searches; the page, sort and search live in the URL, so reload and Back (from a
 * dealer's settings) keep them; the sort buttons say which one is on and in which order. Screenshots
 * at 1280 and 390 px in test-results/ (85-admin-dealer-list-*). Any console error fails the test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiSignIn, screenshotPath } from './harness';
import { ACCOUNTS, DESKTOP, MOBILE, settled, screenSuite } from './a11y';

const suite = screenSuite({ ownServer: true });
/** Dealers this file adds to the ones the suite seeds: enough for two pages of 24. */
const ADDED = 30;
let total = 0;

beforeAll(async () => {
  const cookie = await apiSignIn(suite.origin, ACCOUNTS.admin.email, ACCOUNTS.admin.password);
  for (let i = 1; i <= ADDED; i++) {
    const name = `Lot ${String(i).padStart(2, '0')} Motors`;
    const res = await fetch(`${suite.origin}/api/admin/dealers`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: suite.origin },
      body: JSON.stringify({ name, manufacturer: i % 2 ? 'toyota' : 'ford', websiteUrl: `https://lot${i}.example.com`, provider: 'mxs' }),
    });
    expect(res.status, await res.text()).toBe(201);
  }
  const list = await fetch(`${suite.origin}/api/admin/dealers?pageSize=1`, { headers: { cookie } });
  total = ((await list.json()) as { total: number }).total;
  expect(total).toBeGreaterThan(ADDED);
});

const cards = (page: Page) => page.locator('[data-testid^="dealer-card-"]');
const firstCardId = async (page: Page) => (await cards(page).first().getAttribute('data-testid'))?.replace('dealer-card-', '');
const query = (page: Page) => new URL(page.url()).searchParams;

async function openList(page: Page, search = '') {
  await page.goto(`${suite.origin}/admin/dealers${search}`);
  await page.getByRole('heading', { name: 'Dealer Management' }).waitFor();
  await cards(page).first().waitFor();
}

describe('Dealer Management over several pages', () => {
  it('pages on the server, keeps page, sort and search in the URL across reload and Back', async () => {
    const page = await suite.open('admin', DESKTOP);
    await openList(page);
    await expect.poll(() => cards(page).count()).toBe(24);
    expect(await page.getByTestId('dealer-count').textContent()).toBe(`Showing 1–24 of ${total} dealers`);
    await expect.poll(() => page.getByTestId('sort-created').getAttribute('aria-pressed')).toBe('true');

    await page.getByRole('button', { name: 'Page 2', exact: true }).click();
    await expect.poll(() => query(page).get('page')).toBe('2');
    await expect.poll(() => page.getByTestId('dealer-count').textContent()).toBe(`Showing 25–${total} of ${total} dealers`);
    expect(await cards(page).count()).toBe(total - 24);
    const secondPageFirst = await firstCardId(page);
    await page.reload();
    await cards(page).first().waitFor();
    expect(await firstCardId(page)).toBe(secondPageFirst);
    expect(await page.getByRole('button', { name: 'Page 2', exact: true }).getAttribute('aria-current')).toBe('page');

    // Sorting starts again on page 1; the active sort button says its order.
    await page.getByRole('button', { name: /^Name/ }).click();
    await expect.poll(() => query(page).get('sort')).toBe('name');
    expect(query(page).get('page')).toBeNull();
    await expect.poll(() => page.getByTestId('sort-name').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('sort-name').textContent()).toContain('ascending');
    await expect.poll(() => firstCardId(page)).toBe('honda-of-demo');
    await page.getByRole('button', { name: /^Name/ }).click();
    await expect.poll(() => query(page).get('order')).toBe('desc');
    await expect.poll(() => firstCardId(page)).toBe('lot-30-motors');
    await page.screenshot({ path: screenshotPath('85-admin-dealer-list-1280'), fullPage: false });

    // Search: typed text reaches the URL and the server once typing pauses.
    await page.getByLabel('Search').fill('LOT 1');
    await expect.poll(() => query(page).get('q')).toBe('LOT 1');
    await expect.poll(() => cards(page).count()).toBe(10);
    expect(await page.getByTestId('dealer-count').textContent()).toBe('Showing 1–10 of 10 dealers');
    expect(await firstCardId(page)).toBe('lot-19-motors');

    // A dealer's settings and Back: the same search, sort and cards.
    await page.getByRole('link', { name: 'Settings of Lot 15 Motors' }).click();
    await page.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    await page.goBack();
    await cards(page).first().waitFor();
    expect(await page.getByLabel('Search').inputValue()).toBe('LOT 1');
    expect(query(page).get('order')).toBe('desc');
    await expect.poll(() => cards(page).count()).toBe(10);

    await page.getByLabel('Search').fill('no such dealer anywhere');
    await page.getByText('No dealers found').waitFor();
    await settled(page);
  });

  it('reads well at 390 px: cards in one column, the sort buttons wrap, pagination fits', async () => {
    const page = await suite.open('admin', MOBILE);
    await openList(page, '?sort=impressions');
    await expect.poll(() => page.getByTestId('sort-impressions').getAttribute('aria-pressed')).toBe('true');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(MOBILE.width);
    await page.screenshot({ path: screenshotPath('85-admin-dealer-list-390-top'), fullPage: false });
    await page.getByRole('button', { name: 'Page 2', exact: true }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('85-admin-dealer-list-390-pagination'), fullPage: false });
  });
});
