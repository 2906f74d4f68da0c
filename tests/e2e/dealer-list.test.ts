/**
 * Dealer Management as the admin's one dealer table (spec 01 §2; the same table as Platform
 * Analytics' portfolio), through the browser, with more dealers than one page (35: the suite's 2
 * plus 33 created through the admin API here): the server pages (25 a page), sorts (aria-sort on
 * the header cells) and filters by manufacturer and search; page, sort, filter and search live in
 * the URL, so reload and Back (from a dealer's settings) keep them; a dealer's name drills into its
 * analytics, whose back link returns to the same table; Settings, Delete (with its confirmation)
 * and the spec's Visit Site and View Script stay on every row. Add Dealer asks for the time zone,
 * saves it, and Dealer Settings shows it back. axe finds no serious or critical problem on the
 * table at 1280 and 390 px. Screenshots in test-results/ (85-admin-dealer-list-*, 86-add-dealer-*).
 * Any console error fails the test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { apiSignIn, chooseOption, screenshotPath } from './harness';
import { ACCOUNTS, DESKTOP, MOBILE, seriousViolations, settled, screenSuite, shown } from './a11y';

const suite = screenSuite({ ownServer: true });
/** Dealers this file adds to the suite's two (the demo dealer and the long-named one): two pages of 25. */
const ADDED = 33;
/** Every fifth added dealer is a Ford, the others Toyotas: more Toyotas than one page. */
const maker = (i: number) => (i % 5 === 0 ? 'ford' : 'toyota');
const TOYOTAS = Array.from({ length: ADDED }, (_, i) => maker(i + 1)).filter((m) => m === 'toyota').length;
let total = 0;

beforeAll(async () => {
  const cookie = await apiSignIn(suite.origin, ACCOUNTS.admin.email, ACCOUNTS.admin.password);
  for (let i = 1; i <= ADDED; i++) {
    const name = `Lot ${String(i).padStart(2, '0')} Motors`;
    const res = await fetch(`${suite.origin}/api/admin/dealers`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: suite.origin },
      body: JSON.stringify({ name, manufacturer: maker(i), websiteUrl: `https://lot${i}.example.com`, provider: 'mxs' }),
    });
    expect(res.status, await res.text()).toBe(201);
  }
  const list = await fetch(`${suite.origin}/api/admin/dealers?pageSize=1`, { headers: { cookie } });
  total = ((await list.json()) as { total: number }).total;
  expect(total).toBe(ADDED + 2);
  expect(TOYOTAS).toBeGreaterThan(25);
});

const rows = (page: Page) => page.locator('[data-testid^="portfolio-row-"]');
const firstRowId = async (page: Page) => (await rows(page).first().getAttribute('data-testid'))?.replace('portfolio-row-', '');
const rowIds = async (page: Page) => (await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.replace('portfolio-row-', '')))) as string[];
const query = (page: Page) => new URL(page.url()).searchParams;
const count = (page: Page) => page.getByTestId('dealer-count').textContent();
/** The header cell that holds the sort button named `name`. */
const header = (page: Page, name: string): Locator => page.locator('th').filter({ has: page.getByRole('button', { name: new RegExp(`^${name}`) }) });

async function openList(page: Page, search = '') {
  await page.goto(`${suite.origin}/admin/dealers${search}`);
  await page.getByRole('heading', { name: 'Dealer Management' }).waitFor();
  await rows(page).first().waitFor();
}

describe('Dealer Management: one sortable, filterable, paginated table', () => {
  it('pages, sorts and filters by manufacturer on the server, keeping it all in the URL across reload and Back', async () => {
    const page = await suite.open('admin', DESKTOP);
    await openList(page);
    await expect.poll(() => rows(page).count()).toBe(25);
    expect(await count(page)).toBe(`Showing 1–25 of ${total} dealers`);
    // Default: oldest first, the header says so.
    expect(await header(page, 'Created').getAttribute('aria-sort')).toBe('ascending');
    expect(await firstRowId(page)).toBe('honda-of-demo');
    // The spec's card contents are on the row: id and provider, manufacturer, status, figures, links.
    const demo = page.getByTestId('portfolio-row-honda-of-demo');
    expect(await demo.getByTestId('dealer-id-honda-of-demo').textContent()).toBe('honda-of-demo · MXS');
    expect(await demo.getByTestId('portfolio-manufacturer-honda-of-demo').textContent()).toBe('Honda');
    expect(await demo.getByTestId('portfolio-impressions-honda-of-demo').textContent()).toBe('40');
    // CTR with two decimals on every screen (domain/metrics FIGURE_DECIMALS).
    expect(await demo.getByTestId('portfolio-ctr-honda-of-demo').textContent()).toBe('5.00%');
    expect(await demo.getByRole('link', { name: 'View Script of Honda of Demo' }).getAttribute('href')).toBe('/scripts/honda-of-demo');
    expect(await demo.getByRole('link', { name: 'Visit Site of Honda of Demo' }).getAttribute('target')).toBe('_blank');
    expect(await demo.getByRole('link', { name: 'Open script of Honda of Demo in a new tab' }).getAttribute('href')).toBe('/scripts/dc-banners-honda-of-demo.js');

    await settled(page);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('85-admin-dealer-list-1280'), fullPage: false });
    await page.screenshot({ path: screenshotPath('85-admin-dealer-list-1280-full'), fullPage: true });

    // Page 2: the rest, and reload keeps it.
    const firstPage = await rowIds(page);
    await page.getByRole('button', { name: 'Page 2', exact: true }).click();
    await expect.poll(() => query(page).get('page')).toBe('2');
    await expect.poll(() => count(page)).toBe(`Showing 26–${total} of ${total} dealers`);
    expect(await rows(page).count()).toBe(total - 25);
    const secondPage = await rowIds(page);
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    await page.reload();
    await rows(page).first().waitFor();
    expect(await rowIds(page)).toEqual(secondPage);
    expect(await page.getByRole('button', { name: 'Page 2', exact: true }).getAttribute('aria-current')).toBe('page');

    // Sorting starts again on page 1; the header cell says the order.
    await page.getByRole('button', { name: /^Dealer/ }).click();
    await expect.poll(() => query(page).get('sort')).toBe('name');
    expect(query(page).get('page')).toBeNull();
    await expect.poll(() => header(page, 'Dealer').getAttribute('aria-sort')).toBe('ascending');
    expect(await header(page, 'Created').getAttribute('aria-sort')).toBe('none');
    await expect.poll(() => firstRowId(page)).toBe('honda-of-demo');
    await page.getByRole('button', { name: /^Dealer/ }).click();
    await expect.poll(() => query(page).get('order')).toBe('desc');
    await expect.poll(() => firstRowId(page)).toBe('lot-33-motors');
    expect(await header(page, 'Dealer').getAttribute('aria-sort')).toBe('descending');
    // Figures sort highest first: the demo dealer has the only impressions.
    await page.getByRole('button', { name: /^Viewable impressions/ }).click();
    await expect.poll(() => header(page, 'Viewable impressions').getAttribute('aria-sort')).toBe('descending');
    await expect.poll(() => firstRowId(page)).toBe('honda-of-demo');

    // The manufacturer filter, over more than one page of its own.
    await page.getByRole('button', { name: /^Dealer/ }).click();
    await expect.poll(() => query(page).get('sort')).toBe('name');
    await expect.poll(() => header(page, 'Dealer').getAttribute('aria-sort')).toBe('ascending');
    await chooseOption(page, 'Manufacturer', 'Toyota');
    await expect.poll(() => query(page).get('manufacturer')).toBe('toyota');
    expect(query(page).get('sort')).toBe('name');
    await expect.poll(() => count(page)).toBe(`Showing 1–25 of ${TOYOTAS} dealers`);
    expect(await firstRowId(page)).toBe('lot-01-motors');
    const makers = () => page.locator('[data-testid^="portfolio-manufacturer-"]').allTextContents();
    expect(new Set(await makers())).toEqual(new Set(['Toyota']));
    await page.getByRole('button', { name: 'Page 2', exact: true }).click();
    await expect.poll(() => count(page)).toBe(`Showing 26–${TOYOTAS} of ${TOYOTAS} dealers`);
    expect(new Set(await makers())).toEqual(new Set(['Toyota']));
    expect(await rowIds(page)).toEqual(['lot-32-motors', 'lot-33-motors']);
    await page.reload();
    await rows(page).first().waitFor();
    expect(await page.getByRole('textbox', { name: 'Manufacturer' }).inputValue()).toBe('Toyota');
    await expect.poll(() => count(page)).toBe(`Showing 26–${TOYOTAS} of ${TOYOTAS} dealers`);
    await chooseOption(page, 'Manufacturer', 'All Manufacturers');
    await expect.poll(() => query(page).get('manufacturer')).toBeNull();
    await expect.poll(() => count(page)).toBe(`Showing 1–25 of ${total} dealers`);

    // Search: typed text reaches the URL and the server once typing pauses.
    await page.getByLabel('Search').fill('LOT 1');
    await expect.poll(() => query(page).get('q')).toBe('LOT 1');
    await expect.poll(() => count(page)).toBe('Showing 1–10 of 10 dealers');
    expect(await firstRowId(page)).toBe('lot-10-motors');

    // A dealer's settings and Back: the same search, sort and rows.
    await page.getByRole('link', { name: 'Settings of Lot 15 Motors' }).click();
    await page.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    await page.goBack();
    await rows(page).first().waitFor();
    expect(await page.getByLabel('Search').inputValue()).toBe('LOT 1');
    expect(query(page).get('sort')).toBe('name');
    await expect.poll(() => rows(page).count()).toBe(10);

    await page.getByLabel('Search').fill('no such dealer anywhere');
    await page.getByText('No dealers found').waitFor();
    await page.getByText('Try adjusting your search or filter criteria.').waitFor();
    expect(await page.getByTestId('portfolio-table').count()).toBe(0);
    await settled(page);
  });

  it("a row's name drills into that dealer's analytics, whose back link returns to the same table", async () => {
    const page = await suite.open('admin', DESKTOP);
    await openList(page, '?sort=name&order=desc&period=7d');
    await expect.poll(() => firstRowId(page)).toBe('lot-33-motors');
    await page.getByTestId('portfolio-row-lot-15-motors').getByRole('link', { name: 'Lot 15 Motors', exact: true }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/dealers/lot-15-motors/analytics');
    expect(query(page).get('period')).toBe('7d');
    await page.getByRole('heading', { name: 'Lot 15 Motors: Analytics' }).waitFor();
    await page.getByRole('link', { name: 'Dealer Management' }).click();
    await rows(page).first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/dealers');
    expect(query(page).get('order')).toBe('desc');
    expect(query(page).get('period')).toBe('7d');
    await expect.poll(() => firstRowId(page)).toBe('lot-33-motors');

    // A click elsewhere in the row (its figures) opens the same analytics.
    await page.getByTestId('portfolio-row-lot-20-motors').getByTestId('portfolio-impressions-lot-20-motors').click();
    await page.getByRole('heading', { name: 'Lot 20 Motors: Analytics' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/dealers/lot-20-motors/analytics');
  });

  it('deletes a dealer from its row after the confirmation', async () => {
    const page = await suite.open('admin', DESKTOP);
    await openList(page, '?q=lot%2033');
    await expect.poll(() => rows(page).count()).toBe(1);
    await page.getByRole('button', { name: 'Delete Lot 33 Motors' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Lot 33 Motors?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await rows(page).count()).toBe(1);
    await page.getByRole('button', { name: 'Delete Lot 33 Motors' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await shown(page.getByText('Lot 33 Motors deleted'));
    await page.getByText('No dealers found').waitFor();
    total -= 1;
  });

  it('reads at 390 px: the filters stack, the table scrolls inside its frame, the page does not; axe is clean', async () => {
    const page = await suite.open('admin', MOBILE);
    await openList(page, '?sort=impressions');
    await expect.poll(() => header(page, 'Viewable impressions').getAttribute('aria-sort')).toBe('descending');
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('85-admin-dealer-list-390-top'), fullPage: false });
    await page.getByRole('button', { name: 'Page 2', exact: true }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('85-admin-dealer-list-390-pagination'), fullPage: false });
  });
});

describe('Add Dealer: the time zone', () => {
  it('is asked, saved, and shown back in Dealer Settings', async () => {
    const page = await suite.open('admin', DESKTOP);
    await openList(page);
    await page.getByRole('link', { name: 'Add Dealer' }).click();
    await page.getByRole('heading', { name: 'Add Dealer' }).waitFor();
    await page.getByLabel(/^Dealer name/).fill('Tokyo Drift Motors');
    await chooseOption(page, /^Manufacturer/, 'Toyota');
    await page.getByLabel(/^Website URL/).fill('https://tokyo.example.com');
    const zone = page.getByRole('textbox', { name: 'Time zone' });
    // Starts at this browser's zone.
    expect(await zone.inputValue()).toBe(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone));
    await zone.click();
    await zone.fill('Tokyo');
    await page.getByRole('option', { name: 'Asia/Tokyo', exact: true }).click();
    await expect.poll(() => zone.inputValue()).toBe('Asia/Tokyo');
    await page.screenshot({ path: screenshotPath('86-add-dealer-time-zone-1280'), fullPage: false });
    await page.getByRole('button', { name: 'Create Dealer' }).click();

    await page.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/dealers/tokyo-drift-motors/settings');
    const shownZone = page.getByRole('textbox', { name: 'Time zone' });
    await expect.poll(() => shownZone.inputValue()).toBe('Asia/Tokyo');
    // Saved on the server, not only kept by the browser: a fresh load shows it too.
    await page.reload();
    await page.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    await expect.poll(() => page.getByRole('textbox', { name: 'Time zone' }).inputValue()).toBe('Asia/Tokyo');
    const saved = (await (await page.request.get(`${suite.origin}/api/dealers/tokyo-drift-motors`)).json()) as { dealer: { timeZone: string } };
    expect(saved.dealer.timeZone).toBe('Asia/Tokyo');
    await settled(page);
  });
});
