/**
 * The admin area through the browser: with real events recorded, the admin sees
 * the dashboard figures; adds a manufacturer with one model and two trims; adds a dealer of that
 * manufacturer and changes its settings (a bad value refused with the field named and the form
 * still dirty; good values saved and still there after a reload; Reset to Defaults marks the form
 * dirty and restores branding only); searches and filters dealers and is refused a duplicate;
 * creates a dealer-manager for the new dealer and a second user that it deactivates (refused at
 * sign-in); cannot delete a manufacturer in use; sees platform analytics with the chart; exports
 * the platform and imports it back (a foreign document refused); finds a page crash in the client
 * error log; deletes a dealer after confirming; and finally signs out, and the new dealer-manager
 * signs in and lands on the new dealer's dashboard. Screenshots of each admin screen in
 * test-results/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chooseOption, closeAll, launchBrowser, newPage, screenshotPath, startServer, trackDemo, type RunningServer } from './harness';

let server: RunningServer;
let browser: Browser;
let app: Page;

async function signIn(email: string, password: string) {
  await app.getByLabel(/^Email/).fill(email);
  await app.getByLabel(/^Password/).fill(password);
  await app.getByRole('button', { name: 'Sign in' }).click();
}

beforeAll(async () => {
  server = await startServer();
  await trackDemo(server.origin, 'impression', 40, 'view-e2e');
  await trackDemo(server.origin, 'click', 2, 'view-e2e');
  browser = await launchBrowser();
  app = await newPage(browser, { acceptDownloads: true });
  await app.goto(server.origin);
  await signIn('admin@dc-banners.com', 'admin123');
  await app.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
});
afterAll(() => closeAll(browser, server));

const nav = (name: string) => app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
/** Picks an option of a Mantine Select on the admin's page (harness chooseOption). */
const choose = (label: string | RegExp, option: string, scope: Pick<Page, 'getByRole'> = app) => chooseOption(app, label, option, scope);
/** Waits until no modal or drawer is open or fading, then screenshots the page without the notifications on top. */
async function shot(name: string) {
  await expect.poll(() => app.locator('.mantine-Modal-content, .mantine-Drawer-content').count()).toBe(0);
  const hide = await app.addStyleTag({ content: '.mantine-Notifications-root { display: none !important; }' });
  await app.screenshot({ path: screenshotPath(name), fullPage: true });
  await hide.evaluate((el) => (el as HTMLElement).remove());
}

/** Waits until an element stops changing height (an opening panel's animation is over). */
async function settled(locator: ReturnType<Page['locator']>) {
  let last = -1;
  await expect
    .poll(async () => {
      const h = (await locator.boundingBox())?.height ?? 0;
      const same = h === last;
      last = h;
      return same;
    }, { interval: 150 })
    .toBe(true);
}

describe('admin area', () => {
  it('shows the dashboard with the recorded events and the recent dealers', async () => {
    expect(await app.getByTestId('metric-Active Dealers').textContent()).toBe('1');
    expect(await app.getByTestId('metric-Total Impressions').textContent()).toBe('40');
    expect(await app.getByTestId('metric-Total Clicks').textContent()).toBe('2');
    expect(await app.getByTestId('metric-Average CTR').textContent()).toBe('5.00%');
    expect(await app.getByTestId('recent-dealers').textContent()).toContain('Honda of Demo');
    await shot('50-admin-dashboard');
  });

  it('adds a manufacturer with one model and two trims', async () => {
    await nav('Manufacturers');
    await app.getByRole('heading', { name: 'Manufacturer Management' }).waitFor();
    await app.getByRole('button', { name: 'Add Manufacturer' }).click();
    const drawer = app.getByRole('dialog', { name: 'Add Manufacturer' });
    await drawer.getByRole('button', { name: 'Add Manufacturer' }).click();
    await drawer.getByText('Name is required').waitFor();
    await drawer.getByLabel(/^Name/).fill('Kia');
    await drawer.getByLabel('Primary color').fill('#05141F');
    await drawer.getByRole('tab', { name: 'Models (0)' }).click();
    await drawer.getByRole('button', { name: 'Add Model' }).click();
    await drawer.getByLabel('Name (key)').fill('ev6');
    await drawer.getByLabel('Display name', { exact: true }).fill('EV6');
    await choose('Category', 'suv', drawer);
    await drawer.getByLabel('MSRP from ($)').fill('42600');
    await drawer.getByLabel('MSRP to ($)').fill('61600');
    await drawer.getByRole('button', { name: 'Add Trim' }).click();
    await drawer.getByRole('button', { name: 'Add Trim' }).click();
    const trimNames = drawer.getByLabel('Trim name', { exact: true });
    await trimNames.nth(0).fill('light');
    await drawer.getByLabel('Trim display name').nth(0).fill('Light');
    await drawer.getByLabel('Trim MSRP').nth(0).fill('42600');
    await trimNames.nth(1).fill('wind');
    await drawer.getByLabel('Trim display name').nth(1).fill('Wind');
    await drawer.getByLabel('Trim MSRP').nth(1).fill('47600');
    await drawer.getByLabel('Popular trim').nth(1).check();
    await app.screenshot({ path: screenshotPath('55-admin-manufacturer-form'), fullPage: true });
    await drawer.getByRole('button', { name: 'Add Manufacturer' }).click();

    const card = app.getByTestId('manufacturer-card-kia');
    await card.waitFor();
    expect(await card.textContent()).toContain('1 model configured');
    await app.getByRole('button', { name: 'Edit Kia' }).click();
    const edit = app.getByRole('dialog', { name: 'Edit Kia' });
    await edit.getByRole('tab', { name: 'Models (1)' }).click();
    expect(await edit.getByText('suv · 2 trims · $42,600-61,600').count()).toBe(1);
    await edit.getByRole('button', { name: 'Cancel' }).click();
  });

  it('adds a dealer of the new manufacturer and lands on its settings', async () => {
    await nav('Dashboard');
    await app.getByRole('link', { name: 'Add Dealer' }).first().click();
    await app.getByRole('heading', { name: 'Add Dealer' }).waitFor();
    await app.getByLabel(/^Dealer name/).fill('Kia of Springfield');
    await app.getByText('Dealer id: kia-of-springfield').waitFor();
    await choose(/^Manufacturer/, 'Kia');
    await app.getByLabel(/^Website URL/).fill('https://www.kiaspringfield.com');
    await choose('Provider', 'Dealer Inspire');
    await shot('51-admin-add-dealer');
    await app.getByRole('button', { name: 'Create Dealer' }).click();
    await app.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    await app.getByText('kia-of-springfield · Kia').waitFor();
    expect(await app.getByLabel('Allowed domains', { exact: true }).inputValue()).toBe('www.kiaspringfield.com');
  });

  it('refuses a bad settings value naming the field, saves good values that persist, and resets to defaults', async () => {
    const save = app.getByRole('button', { name: 'Save Changes' });
    expect(await save.isDisabled()).toBe(true);
    const website = app.getByLabel('Website URL');
    await website.fill('kiaspringfield');
    await app.getByText('Unsaved changes').waitFor();
    await save.click();
    // Marked on the field, in the user's words, and named in the notification.
    await app.getByRole('alert').filter({ hasText: 'Website URL: Must be a URL starting with http:// or https://' }).waitFor();
    expect(await website.getAttribute('aria-invalid')).toBe('true');
    await app.getByText('Unsaved changes').waitFor();
    expect(await save.isEnabled()).toBe(true);

    await website.fill('https://www.kiaspringfield.com');
    await app.getByLabel('Allowed domains', { exact: true }).fill('www.kiaspringfield.com\n\n  kiaspringfield.com  \n');
    await app.getByLabel('Max requests per minute').fill('250');
    await app.getByLabel('Primary color').fill('#112233');
    await app.getByLabel('Weekly reports').uncheck({ force: true });
    await save.click();
    await app.getByText('Dealer settings saved').waitFor();
    await expect.poll(() => app.getByText('Unsaved changes').count()).toBe(0);
    expect(await save.isDisabled()).toBe(true);
    await shot('52-admin-dealer-settings');

    await app.reload();
    await app.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    expect(await app.getByLabel('Allowed domains', { exact: true }).inputValue()).toBe('www.kiaspringfield.com\nkiaspringfield.com');
    expect(await app.getByLabel('Max requests per minute').inputValue()).toBe('250');
    expect(await app.getByLabel('Primary color').inputValue()).toBe('#112233');
    expect(await app.getByLabel('Weekly reports').isChecked()).toBe(false);

    await app.getByRole('button', { name: 'Reset to Defaults' }).click();
    await app.getByText('Unsaved changes').waitFor();
    expect(await app.getByLabel('Primary color').inputValue()).toBe('#000000');
    // Security and notifications are not reset (spec 01 §4).
    expect(await app.getByLabel('Max requests per minute').inputValue()).toBe('250');
    expect(await app.getByLabel('Weekly reports').isChecked()).toBe(false);
    // The reset is not saved: leaving asks first, and leaving drops it.
    await nav('Dealers');
    await app.getByRole('dialog', { name: 'Leave without saving?' }).getByRole('button', { name: 'Leave without saving' }).click();
    await app.getByRole('heading', { name: 'Dealer Management' }).waitFor();
  });

  it('searches and filters dealers, and refuses a duplicate dealer', async () => {
    await nav('Dealers');
    await app.getByRole('heading', { name: 'Dealer Management' }).waitFor();
    const cards = app.locator('[data-testid^="portfolio-row-"]');
    await expect.poll(() => cards.count()).toBe(2);
    await app.getByLabel('Search').fill('spring');
    await expect.poll(() => cards.count()).toBe(1);
    await choose('Manufacturer', 'Honda');
    await app.getByText('No dealers found').waitFor();
    await app.getByText('Try adjusting your search or filter criteria.').waitFor();
    await shot('53-admin-dealers-empty');
    await choose('Manufacturer', 'All Manufacturers');
    await app.getByLabel('Search').fill('');
    await expect.poll(() => cards.count()).toBe(2);
    await choose('Manufacturer', 'Kia');
    await expect.poll(() => cards.count()).toBe(1);
    await choose('Manufacturer', 'All Manufacturers');
    await expect.poll(() => cards.count()).toBe(2);
    // CTR with two decimals on every screen (domain/metrics FIGURE_DECIMALS).
    expect(await app.getByTestId('portfolio-ctr-honda-of-demo').textContent()).toBe('5.00%');
    await shot('54-admin-dealers');

    await app.getByRole('link', { name: 'Add Dealer' }).click();
    await app.getByLabel(/^Dealer name/).fill('Kia of  Springfield');
    await choose(/^Manufacturer/, 'Kia');
    await app.getByLabel(/^Website URL/).fill('https://other.example.com');
    await app.getByRole('button', { name: 'Create Dealer' }).click();
    await app.getByRole('alert').filter({ hasText: 'A dealer with the id "kia-of-springfield" already exists' }).waitFor();
  });

  it('creates a dealer-manager for the new dealer, and a user that it deactivates', async () => {
    await nav('Users');
    await app.getByRole('heading', { name: 'User Management' }).waitFor();
    const addUser = async (email: string, name: string, role: string) => {
      await app.getByRole('button', { name: 'Add User' }).click();
      const dialog = app.getByRole('dialog', { name: 'Add User' });
      await dialog.getByLabel(/^Email/).fill(email);
      await dialog.getByLabel(/^Name/).fill(name);
      await choose('Role', role, dialog);
      await choose(/^Dealer/, 'Kia of Springfield', dialog);
      await dialog.getByLabel(/^Initial password/).fill('springfield1');
      await dialog.getByRole('button', { name: 'Add User' }).click();
      await app.locator(`tr[data-email="${email}"]`).waitFor();
      await expect.poll(() => app.getByRole('dialog').count()).toBe(0);
    };
    await addUser('sam@kiaspringfield.com', 'Sam Seller', 'Dealer manager');
    await addUser('temp@kiaspringfield.com', 'Terry Temp', 'Viewer');
    const sam = app.locator('tr[data-email="sam@kiaspringfield.com"]');
    expect(await sam.textContent()).toContain('Dealer manager');
    expect(await sam.textContent()).toContain('Kia of Springfield');

    // A duplicate email, whatever its case, is refused.
    await app.getByRole('button', { name: 'Add User' }).click();
    const dialog = app.getByRole('dialog', { name: 'Add User' });
    await dialog.getByLabel(/^Email/).fill('SAM@kiaspringfield.com');
    await dialog.getByLabel(/^Name/).fill('Sam Again');
    await choose(/^Dealer/, 'Kia of Springfield', dialog);
    await dialog.getByLabel(/^Initial password/).fill('springfield1');
    await dialog.getByRole('button', { name: 'Add User' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'A user with this email already exists' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    const terry = app.locator('tr[data-email="temp@kiaspringfield.com"]');
    await app.getByRole('button', { name: 'Actions for temp@kiaspringfield.com' }).click();
    await app.getByRole('menuitem', { name: 'Deactivate' }).click();
    await app.getByRole('dialog', { name: 'Deactivate user?' }).getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => terry.textContent()).toContain('Deactivated');
    await shot('56-admin-users');

    const login = (email: string) =>
      fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'springfield1' }) });
    expect((await login('temp@kiaspringfield.com')).status).toBe(401);
    expect((await login('sam@kiaspringfield.com')).status).toBe(200);
  });

  it('refuses deleting a manufacturer in use, saying how many dealers use it', async () => {
    await nav('Manufacturers');
    await app.getByRole('heading', { name: 'Manufacturer Management' }).waitFor();
    expect(await app.getByTestId('manufacturer-card-honda').textContent()).toContain('15 models configured');
    await app.getByRole('button', { name: 'Delete Honda' }).click();
    const dialog = app.getByRole('dialog', { name: 'Delete Honda?' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByText('This manufacturer is used by 1 dealer; move or delete it first.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await shot('57-admin-manufacturers');
  });

  it('shows platform analytics with the chart, exports the platform and imports it back', async () => {
    await nav('Analytics');
    await app.getByRole('heading', { name: 'Platform Analytics' }).waitFor();
    await app.getByTestId('portfolio-row-honda-of-demo').waitFor();
    expect(await app.getByTestId('score-honda-of-demo').textContent()).toBe('100');
    expect(await app.getByTestId('score-kia-of-springfield').textContent()).toBe('0');
    await app.locator('.recharts-line').first().waitFor();
    await choose('Period', 'Last 24 Hours');
    await app.locator('.recharts-line').first().waitFor();
    await shot('58-admin-analytics');

    await nav('Dashboard');
    const [download] = await Promise.all([app.waitForEvent('download'), app.getByRole('link', { name: 'Export Data' }).click()]);
    // saveAs, not path(): the run's shared Chromium is connected to, and a remote download has no local path.
    const saved = path.join(mkdtempSync(path.join(os.tmpdir(), 'dcb-admin-export-')), 'export.json');
    await download.saveAs(saved);
    const doc = JSON.parse(readFileSync(saved, 'utf8'));
    expect(doc).toMatchObject({ format: 'dc-banners-export', version: 1 });
    expect(doc.dealers.map((d: { id: string }) => d.id).sort()).toEqual(['honda-of-demo', 'kia-of-springfield']);
    expect(doc.manufacturers.find((m: { id: string }) => m.id === 'kia').models[0].trims).toHaveLength(2);
    expect(JSON.stringify(doc)).not.toContain('argon2');

    // Import: a document of another format is refused whole; the exported one (edited) is applied.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-admin-import-'));
    writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ hello: 'world' }));
    await app.locator('input[type=file]').setInputFiles(path.join(dir, 'other.json'));
    await app.getByRole('dialog', { name: 'Import platform data?' }).getByRole('button', { name: 'Import' }).click();
    await app.getByRole('alert').filter({ hasText: 'Invalid export format' }).waitFor();
    doc.dealers.find((d: { id: string }) => d.id === 'kia-of-springfield').name = 'Kia of Shelbyville';
    writeFileSync(path.join(dir, 'export.json'), JSON.stringify(doc));
    await app.locator('input[type=file]').setInputFiles(path.join(dir, 'export.json'));
    await app.getByRole('dialog', { name: 'Import platform data?' }).getByRole('button', { name: 'Import' }).click();
    await app.getByText('Import complete').first().waitFor();
    // The dashboard reloads after an import: wait for the imported name itself (Playwright's 30 s
    // limit), not a 1-second poll of the list, which a busy machine does not refresh in time.
    const recent = app.getByTestId('recent-dealers');
    await recent.getByText('Kia of Shelbyville').waitFor();
    doc.dealers.find((d: { id: string }) => d.id === 'kia-of-springfield').name = 'Kia of Springfield';
    writeFileSync(path.join(dir, 'export.json'), JSON.stringify(doc));
    await app.locator('input[type=file]').setInputFiles(path.join(dir, 'export.json'));
    await app.getByRole('dialog', { name: 'Import platform data?' }).getByRole('button', { name: 'Import' }).click();
    await recent.getByText('Kia of Springfield').waitFor();
    expect(await recent.getByText('Kia of Shelbyville').count()).toBe(0);
  });

  it('logs a page crash and shows it in the client error log', async () => {
    // A malformed server answer crashes the dashboard's render: the error screen shows and the error is reported.
    await app.route('**/api/admin/dashboard', (route) => route.fulfill({ json: { broken: true } }));
    await app.goto(`${server.origin}/admin`);
    await app.getByRole('heading', { name: 'Something went wrong' }).waitFor();
    await app.getByText('An unexpected error occurred. This has been logged for debugging.').waitFor();
    await app.unroute('**/api/admin/dashboard');
    await app.getByRole('button', { name: 'Go Home' }).click();
    await app.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    await app.getByRole('link', { name: 'View Error Log' }).click();
    await app.getByRole('heading', { name: 'Client Error Log' }).waitFor();
    const entry = app.getByTestId('client-errors').locator('.mantine-Accordion-item').first();
    await expect.poll(() => entry.textContent()).toContain('admin@dc-banners.com');
    expect(await entry.textContent()).toMatch(/toLocaleString|undefined/);
    expect(await entry.textContent()).toContain(`${server.origin}/admin`);
    await entry.locator('.mantine-Accordion-control').click();
    await entry.getByText('Component stack').waitFor();
    await settled(entry);
    // The production build minifies component names; the component stack is there all the same.
    expect(await entry.locator('.mantine-Code-root').last().textContent()).toMatch(/^at \S+/);
    await shot('59-admin-client-errors');
  });

  it('deletes a dealer after confirmation', async () => {
    await app.request.post(`${server.origin}/api/admin/dealers`, { data: { name: 'Short Lived Motors', manufacturer: 'ford', websiteUrl: 'https://short.example.com', provider: 'custom' } });
    await nav('Dealers');
    await app.getByRole('button', { name: 'Delete Short Lived Motors' }).click();
    const dialog = app.getByRole('dialog', { name: 'Delete Short Lived Motors?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await app.getByRole('button', { name: 'Delete Short Lived Motors' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await app.getByText('Short Lived Motors deleted').waitFor();
    await expect.poll(() => app.locator('[data-testid^="portfolio-row-"]').count()).toBe(2);
  });

  it('signs out; the new dealer-manager signs in and lands on the new dealer dashboard', async () => {
    await app.getByRole('button', { name: 'Sign Out' }).click();
    await app.getByRole('button', { name: 'Sign in' }).waitFor();
    await signIn('sam@kiaspringfield.com', 'springfield1');
    await app.getByRole('heading', { name: 'Welcome back, Sam Seller!' }).waitFor();
    expect(new URL(app.url()).pathname).toBe('/dealer');
    await app.getByText('Kia of Springfield').first().waitFor();
    // The admin area is closed to a dealer-manager.
    await app.goto(`${server.origin}/admin/users`);
    await app.getByRole('heading', { name: 'Welcome back, Sam Seller!' }).waitFor();
    expect(new URL(app.url()).pathname).toBe('/dealer');
    await app.getByText('No assets uploaded').waitFor();
    await shot('60-new-dealer-manager-dashboard');
  });
});
