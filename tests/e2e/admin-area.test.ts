/**
 * The admin area through the browser (issue 3): the admin adds a dealer, sees a bad settings value
 * refused with the field named and the form still dirty, saves good settings, searches and filters
 * dealers, is refused a duplicate dealer, creates a user and deactivates it, cannot delete a
 * manufacturer in use, exports the platform, and deletes the new dealer after confirming.
 * Screenshots of each screen in test-results/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshotPath, startServer, type RunningServer } from './harness';

let server: RunningServer;
let browser: Browser;
let app: Page;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  app = await newPage(browser, { acceptDownloads: true });
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

const nav = (name: string) => app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
async function choose(label: string | RegExp, option: string) {
  await app.getByRole('textbox', { name: label }).click();
  await app.getByRole('option', { name: option, exact: true }).click();
}

describe('admin area', () => {
  it('shows the dashboard with real figures and the recent dealers', async () => {
    expect(await app.getByTestId('metric-Active Dealers').textContent()).toBe('1');
    expect(await app.getByTestId('metric-Average CTR').textContent()).toBe('--');
    expect(await app.getByTestId('recent-dealers').textContent()).toContain('Honda of Demo');
    await app.screenshot({ path: screenshotPath('50-admin-dashboard'), fullPage: true });
  });

  it('adds a dealer and lands on its settings', async () => {
    await app.getByRole('link', { name: 'Add Dealer' }).first().click();
    await app.getByRole('heading', { name: 'Add Dealer' }).waitFor();
    await app.getByLabel(/^Dealer name/).fill('Toyota of Springfield');
    await app.getByText('Dealer id: toyota-of-springfield').waitFor();
    await choose(/^Manufacturer/, 'Toyota');
    await app.getByLabel(/^Website URL/).fill('https://www.toyotaspringfield.com');
    await choose('Provider', 'Dealer Inspire');
    await app.screenshot({ path: screenshotPath('51-admin-add-dealer'), fullPage: true });
    await app.getByRole('button', { name: 'Create Dealer' }).click();
    await app.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    await app.getByText('toyota-of-springfield · Toyota').waitFor();
  });

  it('refuses a bad settings value naming the field, then saves good values', async () => {
    const save = app.getByRole('button', { name: 'Save Changes' });
    expect(await save.isDisabled()).toBe(true);
    const website = app.getByLabel('Website URL');
    await website.fill('toyotaspringfield');
    await app.getByText('Unsaved changes').waitFor();
    await save.click();
    const alert = app.getByRole('alert').filter({ hasText: 'websiteUrl' });
    await alert.waitFor();
    await app.getByText('Unsaved changes').waitFor();

    await website.fill('https://www.toyotaspringfield.com');
    await app.getByRole('textbox', { name: 'Allowed domains' }).fill('www.toyotaspringfield.com\n\n  toyotaspringfield.com  \n');
    await app.getByLabel('Max requests per minute').fill('250');
    await app.getByLabel('Weekly reports').uncheck({ force: true });
    await save.click();
    await app.getByText('Dealer settings saved').waitFor();
    await expect.poll(() => app.getByText('Unsaved changes').count()).toBe(0);
    await app.screenshot({ path: screenshotPath('52-admin-dealer-settings'), fullPage: true });

    await app.reload();
    await app.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    expect(await app.getByRole('textbox', { name: 'Allowed domains' }).inputValue()).toBe('www.toyotaspringfield.com\ntoyotaspringfield.com');
    expect(await app.getByLabel('Max requests per minute').inputValue()).toBe('250');
    expect(await app.getByLabel('Weekly reports').isChecked()).toBe(false);

    await app.getByRole('button', { name: 'Reset to Defaults' }).click();
    await app.getByText('Unsaved changes').waitFor();
  });

  it('searches and filters dealers, and refuses a duplicate dealer', async () => {
    await nav('Dealers');
    await app.getByRole('heading', { name: 'Dealer Management' }).waitFor();
    await expect.poll(() => app.locator('[data-testid^="dealer-card-"]').count()).toBe(2);
    await app.getByLabel('Search').fill('spring');
    await expect.poll(() => app.locator('[data-testid^="dealer-card-"]').count()).toBe(1);
    await choose('Manufacturer', 'Honda');
    await app.getByText('No dealers found').waitFor();
    await app.getByText('Try adjusting your search or filter criteria.').waitFor();
    await app.screenshot({ path: screenshotPath('53-admin-dealers-empty'), fullPage: true });
    await choose('Manufacturer', 'All Manufacturers');
    await app.getByLabel('Search').fill('');
    await expect.poll(() => app.locator('[data-testid^="dealer-card-"]').count()).toBe(2);
    await app.screenshot({ path: screenshotPath('54-admin-dealers'), fullPage: true });

    await app.getByRole('link', { name: 'Add Dealer' }).click();
    await app.getByLabel(/^Dealer name/).fill('Toyota of Springfield');
    await choose(/^Manufacturer/, 'Toyota');
    await app.getByLabel(/^Website URL/).fill('https://other.example.com');
    await app.getByRole('button', { name: 'Create Dealer' }).click();
    await app.getByRole('alert').filter({ hasText: 'A dealer with the id "toyota-of-springfield" already exists' }).waitFor();
  });

  it('creates a user and deactivates it', async () => {
    await nav('Users');
    await app.getByRole('heading', { name: 'User Management' }).waitFor();
    await app.getByRole('button', { name: 'Add User' }).click();
    const dialog = app.getByRole('dialog', { name: 'Add User' });
    await dialog.getByLabel(/^Email/).fill('sam@toyotaspringfield.com');
    await dialog.getByLabel(/^Name/).fill('Sam Seller');
    await dialog.getByRole('textbox', { name: /^Dealer/ }).click();
    await app.getByRole('option', { name: 'Toyota of Springfield' }).click();
    await dialog.getByLabel(/^Initial password/).fill('springfield1');
    await dialog.getByRole('button', { name: 'Add User' }).click();
    const row = app.locator('tr[data-email="sam@toyotaspringfield.com"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('Toyota of Springfield');
    expect(await row.textContent()).toContain('Active');

    await app.getByRole('button', { name: 'Actions for sam@toyotaspringfield.com' }).click();
    await app.getByRole('menuitem', { name: 'Deactivate' }).click();
    await app.getByRole('dialog', { name: 'Deactivate user?' }).getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => row.textContent()).toContain('Deactivated');
    await app.screenshot({ path: screenshotPath('55-admin-users'), fullPage: true });

    // The deactivated user cannot sign in.
    const res = await fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'sam@toyotaspringfield.com', password: 'springfield1' }) });
    expect(res.status).toBe(401);
  });

  it('shows manufacturers and refuses deleting one in use', async () => {
    await nav('Manufacturers');
    await app.getByRole('heading', { name: 'Manufacturer Management' }).waitFor();
    const honda = app.getByTestId('manufacturer-card-honda');
    expect(await honda.textContent()).toContain('15 models configured');
    await app.getByRole('button', { name: 'Edit Honda' }).click();
    await app.getByRole('tab', { name: 'Models (15)' }).click();
    await app.getByText('Civic', { exact: true }).first().waitFor();
    await app.screenshot({ path: screenshotPath('56-admin-manufacturer-edit'), fullPage: true });
    await app.getByRole('button', { name: 'Cancel' }).click();

    await app.getByRole('button', { name: 'Delete Honda' }).click();
    await app.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await app.getByText('This manufacturer is used by 1 dealer; move or delete it first.').waitFor();
    await app.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await app.screenshot({ path: screenshotPath('57-admin-manufacturers'), fullPage: true });
  });

  it('shows platform analytics and exports the platform', async () => {
    await nav('Analytics');
    await app.getByRole('heading', { name: 'Platform Analytics' }).waitFor();
    await app.getByTestId('analytics-card-honda-of-demo').waitFor();
    expect(await app.getByTestId('score-honda-of-demo').textContent()).toBe('0');
    await app.screenshot({ path: screenshotPath('58-admin-analytics'), fullPage: true });

    await nav('Dashboard');
    const [download] = await Promise.all([app.waitForEvent('download'), app.getByRole('link', { name: 'Export Data' }).click()]);
    const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(doc).toMatchObject({ format: 'dc-banners-export', version: 1 });
    expect(doc.dealers.map((d: { id: string }) => d.id).sort()).toEqual(['honda-of-demo', 'toyota-of-springfield']);
  });

  it('deletes the new dealer after confirmation', async () => {
    await nav('Dealers');
    await app.getByRole('button', { name: 'Delete Toyota of Springfield' }).click();
    await app.getByRole('dialog', { name: 'Delete Toyota of Springfield?' }).getByRole('button', { name: 'Delete' }).click();
    await app.getByText('Toyota of Springfield deleted').waitFor();
    await expect.poll(() => app.locator('[data-testid^="dealer-card-"]').count()).toBe(1);
  });
});
