/**
 * The editing screens as @mantine/form forms on the shared domain schemas (with the
 * unsaved-changes prompt), through the browser: Save is disabled while a field is invalid
 * and the field says why; a value only the server refuses is marked on its field in the user's
 * words; an empty number is left to the server's schema default, and the screen shows what the
 * server stored; leaving a form with unsaved changes asks first; the Configuration screen's
 * Website tab has no serious or critical axe violation at 1280 or 390 px, and its "Slots without a
 * banner" choice is kept across a reload (set back to the default afterwards); the manufacturer
 * form says why Save is disabled while a model has no name ("Can't save yet: …") and its Show opens
 * that model's name, at 1280 and 390 px; its Fill from models dialog previews a pattern for every
 * model and applies it as rows, on a phone. Each test seeds what it needs (seedScreens) and works
 * on its own. Screenshots of the screens in test-results/ (forms-*).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiSignIn, jsonApi, screenshotPath } from './harness';
import { ACCOUNTS, ADMIN_SCREENS, DEALER_SCREENS, DEMO_DEALER_ID, DESKTOP, MOBILE, animationsDone, openScreen, type Role, screenSuite, seriousViolations, settled, shown } from './a11y';
import { BANNER_SIZE_RANGES, DEFAULT_BANNER_SIZES, MAX_REQUESTS_PER_MINUTE } from '../../src/domain/constants';

const suite = screenSuite();

const pageAs = (role: Role) => suite.open(role);

const screen = (path: string) => [...ADMIN_SCREENS, ...DEALER_SCREENS].find((s) => s.path === path)!;
const SETTINGS = `/admin/dealers/${DEMO_DEALER_ID}/settings`;
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

describe('Configuration (dealer manager)', () => {
  it('disables Save while a banner size is out of range, says which field and why, and leaves an emptied size to the server default', async () => {
    const page = await pageAs('manager');
    await openScreen(page, suite.origin, screen('/dealer/config'));
    await page.getByRole('tab', { name: 'Banner Sizes' }).click();
    const save = page.getByRole('button', { name: 'Save Changes' });
    const width = page.getByLabel('SRP Header Desktop width');
    const range = BANNER_SIZE_RANGES.srpHeaderDesktop.width;
    // The form is filled from the saved configuration once it has loaded; an edit made before
    // that would be replaced by the saved value.
    await expect.poll(() => width.inputValue()).not.toBe('');

    await width.fill(String(range.max + 1));
    await page.getByText(`Must be ${range.min}-${range.max}`, { exact: true }).waitFor();
    expect(await width.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Unsaved changes').waitFor();
    expect(await save.isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('forms-config-invalid-size'), fullPage: true });

    // Emptied: valid (the server's schema default applies), so Save is enabled again.
    await width.fill('');
    await expect.poll(() => width.getAttribute('aria-invalid')).toBe('false');
    await expect.poll(() => save.isEnabled()).toBe(true);
    const put = page.waitForRequest((r) => r.method() === 'PUT' && r.url().endsWith('/configs'));
    await save.click();
    const body = (await put).postDataJSON() as { bannerSizes: Record<string, { width?: number }> };
    expect(body.bannerSizes.srpHeaderDesktop!.width).toBeUndefined(); // the browser fills in nothing
    await page.getByText('Configuration saved').waitFor();
    await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(0);
    // The screen shows what the server stored: the slot's default width.
    expect(await width.inputValue()).toBe(`${DEFAULT_BANNER_SIZES.srpHeaderDesktop.width} px`);
    await page.reload();
    await page.getByRole('tab', { name: 'Banner Sizes' }).click();
    expect(await page.getByLabel('SRP Header Desktop width').inputValue()).toBe(`${DEFAULT_BANNER_SIZES.srpHeaderDesktop.width} px`);
  });

  it('asks before leaving with unsaved changes: Stay keeps the edit, Leave drops it', async () => {
    const page = await pageAs('manager');
    await openScreen(page, suite.origin, screen('/dealer/config'));
    await page.getByRole('button', { name: 'Add Mapping' }).click();
    const keys = page.getByRole('textbox', { name: /^Inventory model \d+$/ });
    const n = await keys.count();
    await keys.nth(n - 1).fill('accord hybrid');
    await page.getByText('Unsaved changes').waitFor();

    await nav(page, 'Upsell Rules');
    const prompt = page.getByRole('dialog', { name: 'Leave without saving?' });
    await prompt.getByRole('button', { name: 'Stay on this page' }).click();
    await expect.poll(() => prompt.count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe('/dealer/config');
    expect(await keys.nth(n - 1).inputValue()).toBe('accord hybrid');

    await nav(page, 'Upsell Rules');
    await prompt.getByRole('button', { name: 'Leave without saving' }).click();
    await page.getByText('How Upsell Rules Work').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dealer/upsells');
    await page.screenshot({ path: screenshotPath('forms-upsell-rules'), fullPage: true });

    // A clean form lets the user go at once.
    await nav(page, 'Configuration');
    await page.getByRole('tab', { name: 'Model Mapping' }).waitFor();
    await nav(page, 'Upsell Rules');
    await page.getByText('How Upsell Rules Work').waitFor();
    expect(await prompt.count()).toBe(0);
  });
});

describe('Configuration, Website tab', () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    it(`reads on ${name} (${viewport.width} px) with no serious or critical axe violation`, async () => {
      const page = await suite.open('manager', viewport);
      await openScreen(page, suite.origin, screen('/dealer/config'));
      await page.getByRole('tab', { name: 'Website' }).click();
      await page.getByRole('switch', { name: "Send banner events to the page's dataLayer (Google Tag Manager)" }).waitFor();
      await settled(page);
      expect(await seriousViolations(page, '[role="tabpanel"]')).toEqual([]);
      await page.screenshot({ path: screenshotPath(`forms-config-website-${name}`), fullPage: true });
    });
  }

  it("Slots without a banner: 'Hide the slot' is saved and still chosen after a reload", async () => {
    const page = await pageAs('manager');
    const slots = page.getByRole('radiogroup', { name: 'Slots without a banner' });
    const choice = (label: string) => slots.getByRole('radio', { name: label, exact: true });
    /** Chooses `label` by its segment (the radio itself is visually hidden) and saves. */
    const chooseAndSave = async (label: string) => {
      await slots.getByText(label, { exact: true }).click();
      await expect.poll(() => choice(label).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await page.getByText('Configuration saved').waitFor();
      await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(0);
    };
    try {
      await openScreen(page, suite.origin, screen('/dealer/config'));
      await page.getByRole('tab', { name: 'Website' }).click();
      // The spec's default until the dealer chooses otherwise (the form fills in once loaded).
      await expect.poll(() => choice('Show the placeholder').isChecked()).toBe(true);
      await chooseAndSave('Hide the slot');

      await page.reload();
      await shown(page.getByRole('heading', { name: 'Configuration' }));
      await page.getByRole('tab', { name: 'Website' }).click();
      await expect.poll(() => choice('Hide the slot').isChecked()).toBe(true);
      expect(await choice('Show the placeholder').isChecked()).toBe(false);
      await settled(page);
      await page.screenshot({ path: screenshotPath('forms-config-website-hide'), fullPage: true });

      // Back to the default the same way: the other screen files on this server expect it.
      await chooseAndSave('Show the placeholder');
    } finally {
      // Even when a step above failed.
      const manager = jsonApi(suite.origin, await apiSignIn(suite.origin, ACCOUNTS.manager.email, ACCOUNTS.manager.password));
      expect((await manager('PUT', `/api/dealers/${DEMO_DEALER_ID}/configs`, { emptySlots: 'placeholder' })).status).toBe(200);
    }
  });
});

describe('Dealer Settings (admin)', () => {
  it('disables Save while Max requests per minute is out of range; an emptied value is the server default', async () => {
    const page = await pageAs('admin');
    await openScreen(page, suite.origin, screen(SETTINGS));
    const save = page.getByRole('button', { name: 'Save Changes' });
    const field = page.getByLabel('Max requests per minute');
    await field.fill(String(MAX_REQUESTS_PER_MINUTE.max + 1));
    await page.getByText('Must be 10-1,000', { exact: true }).waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await save.isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('forms-dealer-settings-invalid'), fullPage: true });

    await field.fill('');
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await page.getByText('Dealer settings saved').waitFor();
    expect(await field.inputValue()).toBe(String(MAX_REQUESTS_PER_MINUTE.fallback));
    await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(0);
  });

  it('asks before leaving with unsaved changes', async () => {
    const page = await pageAs('admin');
    await openScreen(page, suite.origin, screen(SETTINGS));
    await page.getByLabel('Name', { exact: true }).fill('Honda of Demo East');
    await nav(page, 'Dealers');
    const prompt = page.getByRole('dialog', { name: 'Leave without saving?' });
    await prompt.getByRole('button', { name: 'Stay on this page' }).click();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Honda of Demo East');
    await nav(page, 'Dealers');
    await prompt.getByRole('button', { name: 'Leave without saving' }).click();
    await page.getByRole('heading', { name: 'Dealer Management' }).waitFor();
  });
});

describe('Manufacturer form (admin)', () => {
  it("marks the field a server-only check refuses, in the user's words", async () => {
    const page = await pageAs('admin');
    suite.consoleWatch.expect(/status of 400/);
    await openScreen(page, suite.origin, screen('/admin/manufacturers'));
    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    const drawer = page.getByRole('dialog', { name: 'Edit Toyota' });
    const logo = drawer.getByLabel('Logo URL');
    await logo.fill('toyota-logo.png');
    const refused = page.waitForResponse((r) => r.url().includes('/api/admin/manufacturers/') && r.request().method() === 'PUT');
    await drawer.getByRole('button', { name: 'Save Manufacturer' }).click();
    expect((await refused).status()).toBe(400);
    await drawer.getByText('Must be empty or a URL starting with http:// or https://', { exact: true }).waitFor();
    expect(await logo.getAttribute('aria-invalid')).toBe('true');
    expect(await drawer.getByText(/logoUrl:/).count()).toBe(0);
    await animationsDone(page);
    await page.screenshot({ path: screenshotPath('forms-manufacturer-server-error'), fullPage: true });
    // Corrected: the mark goes with the refused value.
    await logo.fill('https://example.com/toyota.png');
    await expect.poll(() => logo.getAttribute('aria-invalid')).toBe('false');
  });

  it('disables Save while a model MSRP is empty (nothing is filled in for it) and says so on the field', async () => {
    const page = await pageAs('admin');
    await openScreen(page, suite.origin, screen('/admin/manufacturers'));
    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    const drawer = page.getByRole('dialog', { name: 'Edit Toyota' });
    await drawer.getByRole('tab', { name: /^Models/ }).click();
    await drawer.getByRole('button', { name: 'Add Model' }).click();
    await drawer.getByLabel('Name (key)').last().fill('gr86');
    const from = drawer.getByLabel('MSRP from ($)').last();
    await from.fill('');
    await from.blur();
    await drawer.getByText('Enter a number', { exact: true }).waitFor();
    expect(await from.getAttribute('aria-invalid')).toBe('true');
    expect(await drawer.getByRole('button', { name: 'Save Manufacturer' }).isDisabled()).toBe(true);
    await from.fill('29300');
    await expect.poll(() => drawer.getByRole('button', { name: 'Save Manufacturer' }).isEnabled()).toBe(true);
  });

  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    it(`on ${name} (${viewport.width} px): says why Save is disabled while a model has no name, and Show brings that name field into view`, async () => {
      const page = await suite.open('admin', viewport);
      await openScreen(page, suite.origin, screen('/admin/manufacturers'));
      // Honda: its 15 models put a new one's panel below the fold.
      await page.getByRole('button', { name: 'Edit Honda' }).click();
      const drawer = page.getByRole('dialog', { name: 'Edit Honda' });
      const models = drawer.getByRole('tab', { name: /^Models/ });
      await models.click();
      const before = Number(/\((\d+)\)/.exec((await models.textContent()) ?? '')![1]);
      await drawer.getByRole('button', { name: 'Add Model' }).click();
      const save = drawer.getByRole('button', { name: 'Save Manufacturer' });
      const status = drawer.getByRole('status').filter({ hasText: "Can't save yet" });
      await shown(status.getByText(`Can't save yet: Model ${before + 1}, name: Required.`, { exact: true }));
      expect(await save.isDisabled()).toBe(true);
      // The new model's panel closed and another tab open: its empty name is out of sight.
      const modelName = drawer.getByLabel('Name (key)').nth(before);
      await drawer.getByRole('button', { name: /^New model/ }).click();
      await expect.poll(() => modelName.isVisible()).toBe(false);
      await drawer.getByRole('tab', { name: 'Details' }).click();
      await shown(drawer.getByRole('textbox', { name: 'Name', exact: true }));

      await status.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => models.getAttribute('aria-selected')).toBe('true');
      await shown(modelName);
      expect(await modelName.inputValue()).toBe('');
      // Focused, and so scrolled into the window.
      await expect.poll(() => modelName.evaluate((el) => el === document.activeElement)).toBe(true);
      await animationsDone(page, '.mantine-Drawer-content');
      const box = (await modelName.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
      expect(await seriousViolations(page, '.mantine-Drawer-content')).toEqual([]);
      await page.screenshot({ path: screenshotPath(`forms-manufacturer-cant-save-${name}`) });

      await modelName.fill('s660');
      await expect.poll(() => status.count()).toBe(0);
      await expect.poll(() => save.isEnabled()).toBe(true);
    });
  }

  it('Fill from models on a phone: a pattern previewed for every model, then applied as mapping rows', async () => {
    const page = await suite.open('admin', MOBILE);
    await openScreen(page, suite.origin, screen('/admin/manufacturers'));
    await page.getByRole('button', { name: 'Edit Toyota' }).click();
    const drawer = page.getByRole('dialog', { name: 'Edit Toyota' });
    await drawer.getByRole('tab', { name: 'Defaults' }).click();
    const mappingNames = drawer.getByRole('textbox', { name: /^Inventory model name \d+$/ });
    const before = await Promise.all((await mappingNames.all()).map((f) => f.inputValue()));
    await drawer.getByRole('button', { name: 'Fill from models' }).click();
    const dialog = page.getByRole('dialog', { name: 'Fill mappings from models' });
    await dialog.getByRole('textbox', { name: 'Inventory model name' }).fill('toyota {key}');
    await dialog.getByRole('radio', { name: /^All models/ }).check();
    // The preview: one added row per catalogue model.
    const preview = dialog.getByRole('table', { name: 'Mappings the fill makes' });
    const rows = async () => Promise.all((await preview.locator('tbody tr').all()).map((r) => r.locator('td').allTextContents()));
    await expect.poll(async () => (await rows()).map((r) => r[1]), { timeout: 15_000 }).toEqual(['corolla', 'camry', 'rav4', 'highlander', 'grand-highlander', 'tacoma', 'tundra']);
    const planned = await rows();
    for (const [name, , state] of planned) {
      expect(name).toMatch(/^toyota \S+$/);
      expect(state).toBe('Added');
    }
    await animationsDone(page, '.mantine-Modal-content');
    expect(await seriousViolations(page, '.mantine-Modal-content')).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: screenshotPath('forms-manufacturer-fill-phone') });
    // Applied: the admin's rows kept, one row per model after them.
    await dialog.getByRole('button', { name: 'Apply 7 mappings' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(async () => Promise.all((await mappingNames.all()).map((f) => f.inputValue()))).toEqual([...before, ...planned.map((r) => r[0])]);
    await animationsDone(page);
    await page.screenshot({ path: screenshotPath('forms-manufacturer-fill-applied-phone') });
  });
});
