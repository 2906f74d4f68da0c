/**
 * The admin screens' finish, through the browser: every /admin path sends non-admins to
 * /dealer; Max requests per minute takes whole numbers only and Enter saves Dealer Settings; a
 * refused value is marked on its field in the user's words (the form's own check and the
 * server's); an oversized Custom CSS is marked on its field, and the server still answers such a
 * body 'Storage quota exceeded or data too large' (DECISIONS 1); a
 * failed list shows one error state and no empty state; Add Dealer and Add User check themselves
 * on Enter without browser bubbles; Add Dealer says how to add a manufacturer when there is none;
 * the manufacturer drawer saves on Enter and asks before Escape discards edits, and an Escape in
 * its color picker closes the picker only (screenshots admin-finish-color-picker-*); the demo dealer's
 * CTR reads the same on every screen; the sidebar lights the Client Error Log's item. Any console
 * error a test did not expect fails it.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_SCREENS, DEALER_SCREENS, DEMO_DEALER_ID, DESKTOP, MOBILE, animationsDone, openScreen, settled, shown, type Role, screenSuite } from './a11y';
import { screenshotPath } from './harness';

const suite = screenSuite();

const pageAs = (role: Role, viewport: { width: number; height: number } = DESKTOP) => suite.open(role, viewport);

const screen = (path: string) => [...ADMIN_SCREENS, ...DEALER_SCREENS].find((s) => s.path === path)!;
const SETTINGS = `/admin/dealers/${DEMO_DEALER_ID}/settings`;

/** The PUT requests the page sends to the settings route. */
function settingsPuts(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PUT' && r.url().endsWith('/settings')) seen.push(r.url());
  });
  return seen;
}

describe('routing guard (spec 01 §2)', () => {
  for (const role of ['manager', 'viewer'] as const) {
    it(`sends a ${role} from every /admin path, known or not, to /dealer`, async () => {
      const page = await pageAs(role);
      for (const path of ['/admin', '/admin/users', '/admin/no-such-screen', '/admin/dealers/honda-of-demo/settings', '/admin/a/b/c']) {
        await page.goto(`${suite.origin}${path}`);
        await shown(page.getByRole('heading', { name: /^Welcome back/ }));
        expect(new URL(page.url()).pathname, path).toBe('/dealer');
      }
    });
  }

  it("shows an admin 'Page Not Found' on an unknown admin path", async () => {
    const page = await pageAs('admin');
    await page.goto(`${suite.origin}/admin/no-such-screen`);
    await shown(page.getByRole('heading', { name: 'Page Not Found' }));
    expect(new URL(page.url()).pathname).toBe('/admin/no-such-screen');
  });
});

describe('Dealer Settings', () => {
  it('Max requests per minute takes whole numbers only; Enter saves; a value out of range is marked on the field before anything is sent', async () => {
    const page = await pageAs('admin');
    const puts = settingsPuts(page);
    await openScreen(page, suite.origin, screen(SETTINGS));
    const field = page.getByLabel('Max requests per minute');
    await field.fill('');
    await field.pressSequentially('50.5');
    expect(await field.inputValue()).toBe('505');
    await page.keyboard.press('Enter');
    await shown(page.getByText('Dealer settings saved'));
    await page.reload();
    await shown(page.getByRole('heading', { name: 'Dealer Settings' }));
    expect(await page.getByLabel('Max requests per minute').inputValue()).toBe('505');
    expect(puts).toHaveLength(1);

    // Enter before the form's check (a chunk fetched after first paint) has arrived waits for it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/dealer-settings-schema-[^/]*\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.reload();
    await shown(page.getByRole('heading', { name: 'Dealer Settings' }));
    await expect.poll(() => field.inputValue()).toBe('505');
    await field.fill('5000');
    await page.keyboard.press('Enter');
    release();
    await shown(page.getByText('Must be 10-1,000', { exact: true }));
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await shown(page.getByRole('alert').filter({ hasText: 'Max requests per minute: Must be 10-1,000.' }));
    await shown(page.getByText('Unsaved changes'));
    expect(puts).toHaveLength(1); // the form's own check: nothing sent
    await field.fill('100');
    await expect.poll(() => page.getByText('Must be 10-1,000', { exact: true }).count()).toBe(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(0);
  });

  it("marks the field a server refusal names, in the user's words, and keeps the form dirty", async () => {
    const page = await pageAs('admin');
    suite.consoleWatch.expect(/status of 400/);
    await openScreen(page, suite.origin, screen(SETTINGS));
    const website = page.getByLabel('Website URL');
    await website.fill('hondaofdemo');
    const refused = page.waitForResponse((r) => r.url().endsWith('/settings') && r.request().method() === 'PUT');
    await website.press('Enter');
    expect((await refused).status()).toBe(400);
    await shown(page.getByText('Must be a URL starting with http:// or https://', { exact: true }));
    expect(await website.getAttribute('aria-invalid')).toBe('true');
    await shown(page.getByRole('alert').filter({ hasText: 'Save failed' }).filter({ hasText: 'Website URL: Must be a URL starting with http:// or https://.' }));
    await shown(page.getByText('Unsaved changes'));
    await website.fill('https://www.hondaofdemo.com');
    await expect.poll(() => website.getAttribute('aria-invalid')).toBe('false');
    await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(0);
  });

  it("an oversized Custom CSS is marked on its field before anything is sent; the server still refuses such a body with 'Storage quota exceeded or data too large', a 413", async () => {
    const page = await pageAs('admin');
    const puts = settingsPuts(page);
    await openScreen(page, suite.origin, screen(SETTINGS));
    const css = `/* ${'x'.repeat(1_100_000)} */`;
    const field = page.getByLabel('Custom CSS');
    await field.fill(css);
    // The shared schema's limit: the form says so on the field and Save waits.
    await shown(page.getByText('At most 20,000 characters', { exact: true }));
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Save Changes' }).isDisabled()).toBe(true);
    await shown(page.getByText('Unsaved changes'));
    expect(puts).toEqual([]);
    // The same body sent anyway: the server's answer (DECISIONS 1).
    const res = await page.request.put(`${suite.origin}/api/admin/dealers/${DEMO_DEALER_ID}/settings`, {
      data: { branding: { primaryColor: '#000000', secondaryColor: '#666666', logoUrl: '', customCss: css, fontFamily: 'Arial, sans-serif' } },
      headers: { origin: suite.origin },
    });
    expect(res.status()).toBe(413);
    expect(await res.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'Storage quota exceeded or data too large' } });
  });
});

describe('one error state per failure', () => {
  it('a dealer list that fails to load shows the error with Try again, and no empty state beside it', async () => {
    const page = await pageAs('admin');
    suite.consoleWatch.expect(/status of 500/);
    let fail = true;
    // The list asks with its query (period, sort, page size): match the path, whatever the query.
    await page.route((url) => url.pathname === '/api/admin/dealers', (route) =>
      fail ? route.fulfill({ status: 500, json: { error: { code: 'INTERNAL', message: 'Internal server error' } } }) : route.continue(),
    );
    await page.goto(`${suite.origin}/admin/dealers`);
    await shown(page.getByRole('alert').filter({ hasText: 'Something went wrong' }).filter({ hasText: 'Internal server error' }));
    await settled(page);
    expect(await page.getByText('No dealers found').count()).toBe(0);
    expect(await page.getByText('Try adjusting your search or filter criteria.').count()).toBe(0);
    fail = false;
    await page.getByRole('button', { name: 'Try again' }).click();
    await shown(page.getByTestId(`portfolio-row-${DEMO_DEALER_ID}`));
    expect(await page.getByText('Something went wrong').count()).toBe(0);
  });
});

describe('forms', () => {
  it('Add Dealer and Add User check themselves on Enter, with the app’s messages and no browser bubbles', async () => {
    const page = await pageAs('admin', MOBILE);
    const posts: string[] = [];
    page.on('request', (r) => r.method() === 'POST' && r.url().includes('/api/admin/') && posts.push(r.url()));
    await openScreen(page, suite.origin, screen('/admin/dealers/new'));
    expect(await page.locator('form').evaluate((f) => (f as HTMLFormElement).noValidate)).toBe(true);
    await page.getByLabel(/^Dealer name/).press('Enter');
    await shown(page.getByText('Name is required'));
    await shown(page.getByText('Choose a manufacturer'));
    await page.getByLabel(/^Website URL/).fill('not a url');
    await page.getByLabel(/^Website URL/).press('Enter');
    await shown(page.getByText('Enter the website URL, e.g. https://www.example.com'));

    await openScreen(page, suite.origin, screen('/admin/users'));
    await page.getByRole('button', { name: 'Add User' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add User' });
    await animationsDone(page);
    expect(await dialog.locator('form').evaluate((f) => (f as HTMLFormElement).noValidate)).toBe(true);
    await dialog.getByLabel(/^Email/).press('Enter');
    await shown(dialog.getByText('Enter a valid email address'));
    await shown(dialog.getByText('Name is required'));
    // The initial password is optional (an invitation e-mail lets the user set one); a short one is refused.
    await dialog.getByLabel(/^Initial password/).fill('short');
    await dialog.getByLabel(/^Initial password/).press('Enter');
    await shown(dialog.locator('.mantine-InputWrapper-error').filter({ hasText: 'At least 8 characters' }));
    expect(posts).toEqual([]);
  });

  it("Add Dealer's manufacturer list says how to add one when there are none", async () => {
    const page = await pageAs('admin');
    await page.route('**/api/admin/manufacturers', (route) => route.fulfill({ json: { manufacturers: [] } }));
    await openScreen(page, suite.origin, screen('/admin/dealers/new'));
    await shown(page.getByText('There are no manufacturers yet.'));
    expect(await page.getByRole('link', { name: 'Add one under Manufacturers' }).getAttribute('href')).toBe('/admin/manufacturers');
    await page.getByRole('textbox', { name: /^Manufacturer/ }).click();
    await shown(page.getByText('No manufacturers yet: add one under Manufacturers first'));
  });

  it('the manufacturer drawer closes at once when clean, asks before Escape discards edits, and saves on Enter', async () => {
    const page = await pageAs('admin');
    await openScreen(page, suite.origin, screen('/admin/manufacturers'));
    const drawer = page.getByRole('dialog', { name: 'Edit Toyota' });
    const name = drawer.getByRole('textbox', { name: 'Name', exact: true });

    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    await shown(name);
    await animationsDone(page);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    await name.fill('Toyota Motor');
    await name.press('Escape');
    const discard = page.getByRole('dialog', { name: 'Discard changes?' });
    await discard.getByRole('button', { name: 'Keep editing' }).click();
    await expect.poll(() => discard.count()).toBe(0);
    expect(await name.inputValue()).toBe('Toyota Motor');
    await drawer.getByRole('button', { name: 'Close' }).click();
    await discard.getByRole('button', { name: 'Discard changes' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await page.getByTestId('manufacturer-card-toyota').textContent()).not.toContain('Toyota Motor');

    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    const naming = drawer.getByLabel('Asset naming convention');
    await naming.fill('toyota_{model}_{trim}_{size}.{ext}');
    await naming.press('Enter');
    await shown(page.getByText('Toyota saved'));
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    expect(await drawer.getByLabel('Asset naming convention').inputValue()).toBe('toyota_{model}_{trim}_{size}.{ext}');
  });

  it("Escape in the manufacturer drawer's color picker closes the picker, not the form; the next Escape asks to discard", async () => {
    const page = await pageAs('admin');
    await openScreen(page, suite.origin, screen('/admin/manufacturers'));
    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    const drawer = page.getByRole('dialog', { name: 'Edit Toyota' });
    await drawer.getByRole('textbox', { name: 'Name', exact: true }).fill('Toyota Motor'); // an unsaved edit
    const primary = drawer.getByRole('textbox', { name: 'Primary color' });
    // The field arrives after first paint (components/deferred.tsx): a disabled stand-in until then.
    await expect.poll(() => primary.isEnabled()).toBe(true);
    const picker = page.locator('.mantine-ColorInput-dropdown');
    const discard = page.getByRole('dialog', { name: 'Discard changes?' });

    // A click in the picker (its saturation area) picks a color: the dropdown keeps the focus in
    // the hex field (Mantine's ColorInput), where the Escape then starts.
    await primary.click();
    await shown(picker);
    const before = await primary.inputValue();
    await picker.getByRole('slider').first().click({ position: { x: 30, y: 30 } });
    await expect.poll(() => primary.inputValue()).not.toBe(before);
    expect(await primary.evaluate((el) => el === document.activeElement)).toBe(true);
    await animationsDone(page);
    await page.screenshot({ path: screenshotPath('admin-finish-color-picker-open') });
    await page.keyboard.press('Escape');
    await expect.poll(() => picker.count()).toBe(0);
    await animationsDone(page);
    expect(await discard.count()).toBe(0);
    expect(await drawer.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Toyota Motor');

    // With no picker open, Escape is the drawer's again: it asks first.
    await page.keyboard.press('Escape');
    await shown(discard);
    await animationsDone(page, '.mantine-Modal-content');
    await page.screenshot({ path: screenshotPath('admin-finish-color-picker-second-escape') });
    await discard.getByRole('button', { name: 'Discard changes' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });
});

describe('one CTR format, page titles and the sidebar', () => {
  it("shows the demo dealer's CTR as 5.00% on every screen that shows it", async () => {
    const page = await pageAs('admin');
    await openScreen(page, suite.origin, screen('/admin'));
    expect(await page.getByTestId('metric-Average CTR').textContent()).toBe('5.00%');
    expect(await page.getByTestId('recent-dealers').getByRole('row', { name: /Honda of Demo/ }).textContent()).toContain('5.00%');
    await openScreen(page, suite.origin, screen('/admin/dealers'));
    expect(await page.getByTestId(`portfolio-ctr-${DEMO_DEALER_ID}`).textContent()).toBe('5.00%');
    await openScreen(page, suite.origin, screen('/admin/analytics'));
    expect(await page.getByTestId(`portfolio-row-${DEMO_DEALER_ID}`).textContent()).toContain('5.00%');
    await openScreen(page, suite.origin, screen(`/scripts/${DEMO_DEALER_ID}`));
    await shown(page.getByText('5.00%'));

    await suite.context.close();
    const manager = await pageAs('manager');
    await openScreen(manager, suite.origin, screen('/dealer'));
    expect(await manager.getByTestId('stat-ctr').textContent()).toBe('5.00%');
    await openScreen(manager, suite.origin, screen('/dealer/analytics'));
    // The Click-through Rate card (the creative table below shows each creative's own CTR).
    await shown(manager.locator('.mantine-Paper-root', { hasText: 'Click-through Rate' }).getByText('5.00%', { exact: true }));
  });

  it("lights the sidebar's Dashboard on the Client Error Log and Dealers on a dealer's script page", async () => {
    const page = await pageAs('admin');
    const item = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
    await openScreen(page, suite.origin, screen('/admin/errors'));
    expect(await item('Dashboard').getAttribute('data-active')).toBe('true');
    expect(await page.title()).toBe('Client Error Log · dc-banners');
    await openScreen(page, suite.origin, screen(`/scripts/${DEMO_DEALER_ID}`));
    expect(await item('Dealers').getAttribute('data-active')).toBe('true');
    expect(await item('Dashboard').getAttribute('data-active')).toBeNull();
  });
});
