/**
 * Inventory through the browser: a dealer manager uploads the CSV fixture, checks
 * the preview numbers, applies it, switches the upsell strategy to Inventory Optimized and sees the
 * generated rules; an unsupported file shows 'Upload Error'; then configures a feed against a local
 * feed server, tests it (a failing URL shows the failure box), saves it, sees the scheduler's run,
 * pauses and resumes it. Screenshots in test-results/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { closeAll, launchBrowser, newPage, screenshotPath, signInThroughForm, startServer, type RunningServer } from './harness';
import { startLocalServer, type LocalServer } from '../fixtures/http-server';
import { INVENTORY_TEXT } from '../../src/domain/constants';

const FIXTURES = path.resolve('tests/fixtures/inventory');
let server: RunningServer;
let feed: LocalServer;
let browser: Browser;
let app: Page;

beforeAll(async () => {
  const feedJson = readFileSync(path.join(FIXTURES, 'inventory-listofvehicles.json'));
  feed = await startLocalServer((req, res) => {
    if (req.url === '/feed.json') res.writeHead(200, { 'content-type': 'application/json' }).end(feedJson);
    else res.writeHead(500, 'Internal Server Error').end();
  });
  server = await startServer({ FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32', FEED_SCHEDULER_INTERVAL_MS: '1000' });
  browser = await launchBrowser();
  app = await newPage(browser);
  await signInThroughForm(app, server.origin, 'manager@hondaofdemo.com', 'manager123');
  await app.getByText('Welcome back, Morgan Manager!').waitFor();
});
afterAll(() => closeAll(browser, server, feed));

const nav = (name: string) => app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
const statValue = (label: string) => app.getByTestId(`stat-${label}`).first().textContent();

describe('inventory', () => {
  it('explains Inventory Optimized without inventory data and offers the Inventory page instead of jumping there', async () => {
    await nav('Upsell Rules');
    await app.getByRole('heading', { name: 'Upsell Rules' }).waitFor();
    await app.getByTestId('strategy-inventory').click();
    const dialog = app.getByRole('dialog', { name: 'Inventory data needed' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('no inventory data has been uploaded yet');
    expect(new URL(app.url()).pathname).toBe('/dealer/upsells');
    await app.screenshot({ path: screenshotPath('39-upsells-inventory-needed'), animations: 'disabled' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await app.getByTestId('strategy-inventory').getAttribute('aria-pressed')).toBe('false');
    await app.getByTestId('strategy-inventory').click();
    await dialog.getByRole('button', { name: 'Go to Inventory' }).click();
    await app.getByRole('heading', { name: INVENTORY_TEXT.title }).waitFor();
    expect(new URL(app.url()).pathname).toBe('/dealer/inventory');
  });

  it('previews the CSV fixture, applies it, and refuses an unsupported file', async () => {
    await nav('Inventory');
    await app.getByRole('heading', { name: INVENTORY_TEXT.title }).waitFor();
    await app.getByText(INVENTORY_TEXT.subtitle).waitFor();
    await app.getByRole('tab', { name: 'Manual Upload' }).click();
    await app.getByText(INVENTORY_TEXT.noData).waitFor();

    await app.locator('input[type=file]').setInputFiles(path.join(FIXTURES, 'honda-inventory.csv'));
    await app.getByTestId('inventory-preview').waitFor();
    expect(await app.getByTestId('rows-summary').textContent()).toContain('28 rows read, 26 new vehicles counted, 2 skipped');
    expect(await app.getByTestId('skipped-rows').textContent()).toContain('Line 29: not a new vehicle (IsNew is false)');
    expect(await statValue('Total units')).toBe('26');
    expect(await statValue('Models')).toBe('4');
    expect(await statValue('Aged units (60+ days)')).toBe('6');
    expect(await app.getByTestId('score-accord').textContent()).toBe('10 · High');
    expect(await app.getByTestId('score-pilot').textContent()).toBe('3 · Low');
    expect(await app.getByTestId('group-High Priority').textContent()).toContain('Accord');
    expect(await app.getByTestId('deep-trim-models').textContent()).toContain('Civic: Sport (6), EX (5)');
    // Catalogue display names, not model keys: the generated rule accord -> cr-v reads 'Accord', 'CR-V'.
    expect(await app.getByTestId('generated-rules').textContent()).toContain('AccordCR-V');
    await app.screenshot({ path: screenshotPath('40-inventory-preview'), fullPage: true });

    await app.getByRole('button', { name: INVENTORY_TEXT.apply }).click();
    await app.getByText('Inventory applied').waitFor();
    await app.getByRole('heading', { name: 'Current inventory' }).waitFor();
    expect(await statValue('Total units')).toBe('26');
    // The stored inventory: each model's stock priority beside the dealer's upsell priority, one scale, edited on Upsell Rules.
    await app.getByTestId('upsell-accord').waitFor();
    expect(await app.getByTestId('score-accord').textContent()).toBe('10 · High');
    expect(await app.getByTestId('upsell-accord').textContent()).toBe('5 · Normal');
    expect(await app.getByRole('link', { name: 'set on Upsell Rules' }).getAttribute('href')).toBe('/dealer/upsells');
    await app.screenshot({ path: screenshotPath('41-inventory-applied'), fullPage: true });

    const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-inventory-'));
    writeFileSync(path.join(dir, 'inventory.txt'), 'Model\nCivic\n');
    await app.locator('input[type=file]').setInputFiles(path.join(dir, 'inventory.txt'));
    const alert = app.getByRole('alert').filter({ hasText: INVENTORY_TEXT.uploadError });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(INVENTORY_TEXT.unsupported);
    // The stored inventory is untouched.
    expect(await statValue('Total units')).toBe('26');
  });

  it('switches the upsell strategy to Inventory Optimized and shows the generated rules', async () => {
    await nav('Upsell Rules');
    await app.getByRole('heading', { name: 'Upsell Rules' }).waitFor();
    await app.getByTestId('strategy-inventory').click();
    await app.getByText('Inventory Data').waitFor();
    const rules = app.getByTestId('active-rules');
    await rules.waitFor();
    const text = await rules.textContent();
    // Display names, not the keys civic, accord, cr-v, pilot.
    expect(text).toContain('CivicHigher Trim');
    expect(text).toContain('AccordCR-V');
    expect(text).toContain('CR-VPilot');
    expect(text).not.toContain('cr-v');
    await app.getByRole('button', { name: 'Save Changes' }).click();
    await app.getByText('Upsell rules saved').waitFor();
    await app.screenshot({ path: screenshotPath('42-upsells-inventory-optimized'), fullPage: true });
  });

  it('tests a failing feed, then tests, saves, runs, pauses and resumes a working one', async () => {
    await nav('Inventory');
    await app.getByRole('tab', { name: 'Automatic Feed' }).click();
    const url = app.getByLabel(/^Feed URL/);
    await expect.poll(() => app.getByRole('button', { name: 'Test Feed' }).isDisabled()).toBe(true);

    await url.fill(`${feed.origin}/broken`);
    await app.getByRole('button', { name: 'Test Feed' }).click();
    const failure = app.getByTestId('feed-test-error');
    await failure.waitFor();
    const failureText = await failure.textContent();
    expect(failureText).toContain('HTTP 500: Internal Server Error');
    for (const tip of INVENTORY_TEXT.failureTips) expect(failureText).toContain(tip);
    expect(await app.getByRole('button', { name: 'Save Feed' }).count()).toBe(0);
    await app.screenshot({ path: screenshotPath('43-feed-test-failed'), fullPage: true });

    await url.fill(`${feed.origin}/feed.json`);
    await app.getByRole('button', { name: 'Test Feed' }).click();
    await app.getByTestId('feed-test-success').waitFor();
    expect(await app.getByTestId('feed-test-success').textContent()).toContain('5 new vehicles across 2 models');
    await app.getByRole('button', { name: 'Save Feed' }).click();
    await app.getByText('Feed saved').waitFor();

    const card = app.getByTestId('current-feed');
    await card.waitFor();
    expect(await app.getByTestId('feed-status').textContent()).toBe('Active');
    // The scheduler runs the new feed at once; the card follows it without a reload:
    // the run's result and 'Last updated' replace 'Never'.
    const reloads: string[] = [];
    app.on('framenavigated', (f) => f === app.mainFrame() && reloads.push(f.url()));
    await app.getByTestId('feed-runs').getByText('success').waitFor({ timeout: 20_000 });
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).not.toContain('Last updated Never');
    expect(await app.getByTestId('feed-runs').getByText('running').count()).toBe(0);
    expect(reloads).toEqual([]);
    expect(await app.getByTestId('feed-runs').textContent()).toContain('5');
    await app.screenshot({ path: screenshotPath('44-feed-active'), fullPage: true });

    await app.getByRole('button', { name: 'Pause Feed' }).click();
    await expect.poll(() => app.getByTestId('feed-status').textContent()).toBe('Paused');
    await app.getByRole('button', { name: 'Resume Feed' }).click();
    await expect.poll(() => app.getByTestId('feed-status').textContent()).toBe('Active');

    // The feed's data replaced the upload: the manual tab shows it as from the feed.
    await app.getByRole('tab', { name: 'Manual Upload' }).click();
    await app.getByText('From feed').waitFor();
    expect(await statValue('Total units')).toBe('5');
  });

  it('asks whether to pause the active feed before applying a manual upload, and pauses it when asked', async () => {
    await app.getByRole('tab', { name: 'Manual Upload' }).click();
    await app.locator('input[type=file]').setInputFiles(path.join(FIXTURES, 'honda-inventory.csv'));
    await app.getByTestId('inventory-preview').waitFor();
    await app.getByRole('button', { name: INVENTORY_TEXT.apply }).click();
    const dialog = app.getByRole('dialog', { name: 'Your automatic feed is active' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("next run will replace the inventory you apply now");
    await app.screenshot({ path: screenshotPath('45-inventory-pause-feed-prompt'), animations: 'disabled' });
    // Cancel applies nothing: the preview stays and the stored inventory is still the feed's.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await app.getByTestId('inventory-preview').waitFor();

    await app.getByRole('button', { name: INVENTORY_TEXT.apply }).click();
    await dialog.getByRole('button', { name: 'Pause the feed and apply' }).click();
    await app.getByText('The automatic feed is paused.').waitFor();
    await app.getByRole('heading', { name: 'Current inventory' }).waitFor();
    await app.getByText('Uploaded', { exact: true }).waitFor();
    expect(await statValue('Total units')).toBe('26');
    await app.getByRole('tab', { name: 'Automatic Feed' }).click();
    await expect.poll(() => app.getByTestId('feed-status').textContent()).toBe('Paused');
  });
});
