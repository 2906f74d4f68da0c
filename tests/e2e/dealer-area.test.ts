/**
 * The dealer area through the browser: a dealer manager uploads three files at once
 * (two stored, one refused), edits a mapping and a weight and saves them, switches to Custom Rules and
 * adds a rule, previews the model (uploaded header in the header slot, placeholder where nothing
 * matches); the viewer finds no enabled Save or Upload and a view-only notice on the screens it
 * cannot change; models are named by the catalogue ('Civic'). Screenshots of each screen in test-results/.
 * Each test stands alone: it seeds through the API what it needs, on a dealer of its own
 * (harness seedDealer), never on what an earlier test left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, launchBrowser, newPage, screenshotPath, seedAssets, seedDealer, signedInPage, startServer, type RunningServer, type SeededDealer } from './harness';
import { makeBanner } from '../fixtures/images';

let server: RunningServer;
let browser: Browser;

async function signIn(page: Page, email: string, password: string, name: string) {
  await page.goto(server.origin);
  await page.getByLabel(/^Email/).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(`Welcome back, ${name}!`).waitFor();
}

/**
 * A new dealer (Honda defaults) of this test alone, its manager signed in on its dashboard; `cookie`
 * is that page's session (one sign-in per test: the file stays under the 20 sign-ins a minute
 * allowed per IP).
 */
async function freshDealer(name: string): Promise<{ app: Page; dealer: SeededDealer; cookie: string }> {
  const dealer = await seedDealer(server.origin, name);
  const app = await signedInPage(browser, server.origin, dealer.email, dealer.password);
  await app.goto(server.origin);
  await app.getByText(`Welcome back, ${dealer.name}!`).waitFor();
  const cookie = (await app.context().cookies(server.origin)).map((c) => `${c.name}=${c.value}`).join('; ');
  return { app, dealer, cookie };
}

/**
 * A test on a dealer of its own: `body` gets freshDealer(`dealerName`)'s signed-in page, dealer and
 * cookie; the page is closed after it, whether it passed or failed.
 */
const onFreshDealer =
  (dealerName: string, body: (fresh: { app: Page; dealer: SeededDealer; cookie: string }) => Promise<void>) =>
  async () => {
    const fresh = await freshDealer(dealerName);
    try {
      await body(fresh);
    } finally {
      await fresh.app.close();
    }
  };

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

/**
 * Writes `files` (name and bytes) to a folder of their own and drops them at once on the Asset
 * Manager's upload zone, from the Assets screen; the caller waits for what the upload shows.
 */
async function uploadFiles(app: Page, files: ReadonlyArray<readonly [string, Buffer]>): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-dealer-area-'));
  for (const [name, data] of files) writeFileSync(path.join(dir, name), data);
  await nav(app, 'Assets');
  await app.getByRole('heading', { name: 'Asset Manager' }).waitFor();
  await app.getByRole('button', { name: 'Start Upload' }).first().click();
  await app.locator('.mantine-Dropzone-root input[type=file]').setInputFiles(files.map(([name]) => path.join(dir, name)));
}
const inputValues = (page: Page) => page.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('dealer area', () => {
  it('uploads three files at once: two stored, one refused with its error', onFreshDealer('Upload Motors', async ({ app }) => {
    await uploadFiles(app, [
      ['new_2025_honda_civic_sport_1920x300.jpg', await makeBanner(1920, 300)],
      ['new_2025_honda_civic_sport_350x564.jpg', await makeBanner(350, 564, 'jpeg', '#0055aa')],
      ['civic-banner-final.jpg', await makeBanner(350, 564)],
    ]);
    await app.getByText(/Invalid filename format/).first().waitFor();
    await app.getByText('Header Banner', { exact: true }).waitFor();
    await app.getByText('Inline Banner', { exact: true }).waitFor();
    await app.getByRole('heading', { name: /SRP Header Banners/ }).waitFor();
    await expect.poll(() => app.locator('img[src*="/assets/"]').count()).toBe(2);
    await app.screenshot({ path: screenshotPath('10-assets-upload-results'), fullPage: true });
    await app.getByRole('button', { name: 'Close Upload' }).click();
    await app.getByRole('switch', { name: 'Active: new_2025_honda_civic_sport_350x564.jpg' }).waitFor();
    await app.screenshot({ path: screenshotPath('11-asset-manager'), fullPage: true });
  }));

  it('keeps a "Will never show" result on screen until the dealer dismisses it', onFreshDealer('Typo Motors', async ({ app }) => {
    await uploadFiles(app, [['new_2025_honda_civc_sport_1920x300.jpg', await makeBanner(1920, 300)]]);
    const text = 'Will never show: "civc" is not a model of this dealer. Did you mean Civic?';
    const card = app.getByTestId('asset-never-shows');
    const result = app.getByText(text).and(app.locator(':not([data-testid="asset-never-shows"])'));
    await result.waitFor();
    const dismiss = app.getByRole('button', { name: 'Dismiss results' });
    await dismiss.waitFor(); // the upload is over: the result stays
    await expect.poll(() => app.locator('img[src*="/assets/"]').count()).toBe(1); // stored all the same
    await expect(result.isVisible()).resolves.toBe(true);
    expect(await card.textContent()).toBe(text); // the asset's card says it too
    await app.screenshot({ path: screenshotPath('12-upload-never-shows'), fullPage: true });
    await dismiss.click();
    await expect.poll(() => result.count()).toBe(0);
    expect(await card.textContent()).toBe(text); // the card keeps saying it
  }));

  it("edits a mapping, sees 'Unsaved changes', saves and still sees it after a reload; priorities are edited on Upsell Rules only", onFreshDealer('Mapping Motors', async ({ app }) => {
    await nav(app, 'Configuration');
    await app.getByRole('tab', { name: 'Model Mapping' }).waitFor();
    const save = app.getByRole('button', { name: 'Save Changes' });
    expect(await save.isDisabled()).toBe(true);
    await app.getByRole('button', { name: 'Add Mapping' }).click();
    const keys = app.getByRole('textbox', { name: /^Inventory model \d+$/ });
    const n = await keys.count();
    await keys.nth(n - 1).fill('civic sport');
    await app.getByRole('textbox', { name: `Standard model ${n}` }).fill('civic');
    await app.getByText('Unsaved changes').waitFor();
    // Inventory Logic shows the upsell priorities read-only, and says where they are edited.
    await app.getByRole('tab', { name: 'Inventory Logic' }).click();
    expect(await app.getByTestId('weight-civic').innerText()).toBe('5');
    expect(await app.getByRole('slider').count()).toBe(0);
    await app.screenshot({ path: screenshotPath('12-config-unsaved'), fullPage: true });
    await save.click();
    await app.getByText('Unsaved changes').waitFor({ state: 'detached' });
    await app.reload();
    await app.getByRole('tab', { name: 'Model Mapping' }).waitFor();
    await expect.poll(async () => (await inputValues(app)).includes('civic sport')).toBe(true);

    // The one place priorities are edited: Upsell Rules. Models by their catalogue display names: 'Civic', stored as 'civic'.
    await app.getByRole('tab', { name: 'Inventory Logic' }).click();
    await app.getByRole('link', { name: 'Edit on Upsell Rules' }).click();
    await app.getByRole('heading', { name: 'Upsell Rules' }).waitFor();
    const slider = app.getByRole('slider', { name: 'Civic upsell priority' });
    await slider.focus();
    await app.keyboard.press('ArrowRight');
    await app.keyboard.press('ArrowRight');
    await app.keyboard.press('ArrowRight');
    expect(await app.getByTestId('weight-civic').innerText()).toBe('8');
    await app.getByRole('button', { name: 'Save Changes' }).click();
    await app.getByText('Unsaved changes').waitFor({ state: 'detached' });
    await nav(app, 'Configuration');
    await app.getByRole('tab', { name: 'Inventory Logic' }).click();
    await expect.poll(() => app.getByTestId('weight-civic').innerText()).toBe('8');
    expect(await app.getByText('High Priority').count()).toBeGreaterThan(0);
    expect(await app.getByText('Unsaved changes').count()).toBe(0);
    await app.screenshot({ path: screenshotPath('13-config-inventory-logic'), fullPage: true });
    await app.getByRole('tab', { name: 'Banner Sizes' }).click();
    await app.getByRole('button', { name: 'Compact' }).waitFor();
    await app.screenshot({ path: screenshotPath('14-config-banner-sizes'), fullPage: true });
  }));

  it('switches to Custom Rules, adds a rule and saves', onFreshDealer('Custom Rule Motors', async ({ app }) => {
    await nav(app, 'Upsell Rules');
    await app.getByRole('heading', { name: 'How Upsell Rules Work' }).or(app.getByText('How Upsell Rules Work')).first().waitFor();
    await app.getByTestId('strategy-custom').click();
    await app.getByText('Unsaved changes').waitFor();
    await app.getByText('No custom rules defined. Click "Add Rule" to get started.').waitFor();
    await app.getByRole('button', { name: 'Add Rule' }).click();
    await app.getByRole('textbox', { name: 'Primary model 1' }).click();
    await app.getByRole('option', { name: 'Civic', exact: true }).click();
    await app.getByRole('textbox', { name: 'Upsell target 1' }).click();
    await app.getByRole('option', { name: 'Pilot', exact: true }).click();
    await app.getByTestId('active-rules').getByText('Pilot', { exact: true }).waitFor();
    await app.screenshot({ path: screenshotPath('15-upsells-custom'), fullPage: true });
    await app.getByRole('button', { name: 'Save Changes' }).click();
    await app.getByText('Unsaved changes').waitFor({ state: 'detached' });
    await app.reload();
    await app.getByTestId('active-rules').getByText('pilot').waitFor();
    expect(await app.getByTestId('strategy-custom').getAttribute('aria-pressed')).toBe('true');
  }));

  it('previews the model: the uploaded header in the header slot, a placeholder where nothing matches', onFreshDealer('Preview Motors', async ({ app, dealer, cookie }) => {
    // Seeded through the API: the Civic Sport header (no inline creative) and the custom rule civic → pilot.
    await seedAssets(server.origin, cookie, dealer.dealerId, [{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
    const rules = await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/configs`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ customUpsellLogic: 'custom', customUpsellRules: { civic: 'pilot' } }),
    });
    expect(rules.status).toBe(200);
    await nav(app, 'Preview');
    await app.getByRole('heading', { name: 'Banner Preview' }).waitFor();
    await app.getByRole('textbox', { name: 'Model' }).click();
    await app.getByRole('option', { name: 'Civic', exact: true }).click();
    await app.getByTestId('status-header').getByText('new_2025_honda_civic_sport_1920x300.jpg').waitFor();
    await app.getByTestId('status-upsell').getByText('Missing').waitFor();
    const loaded = (slot: string) =>
      app.getByTestId(`preview-${slot}`).evaluate((i: HTMLImageElement) => (i.complete ? [i.naturalWidth, i.naturalHeight] : null));
    await expect.poll(() => loaded('header')).toEqual([1920, 300]);
    const headerSrc = await app.getByTestId('preview-header').getAttribute('src');
    const header = await fetch(new URL(headerSrc!, server.origin));
    expect(header.headers.get('x-banner-source')).toBe('asset');
    const upsellSrc = await app.getByTestId('preview-upsell').getAttribute('src');
    expect(upsellSrc).toContain('type=upsell');
    const upsell = await fetch(new URL(upsellSrc!, server.origin));
    expect(upsell.headers.get('x-banner-source')).toBe('placeholder');
    await app.getByText('(Civic → Pilot)').waitFor();
    await expect.poll(() => loaded('upsell')).not.toBeNull();
    await app.screenshot({ path: screenshotPath('16-preview-desktop'), fullPage: true });
    await app.locator('#preview-controls').getByText('Mobile', { exact: true }).click();
    // The 1920x300 header in the 600x500 mobile slot: marked in amber with both sizes, not 'found'.
    await app.getByTestId('status-header').getByText('Shape differs: 1920x300 in a 600x500 slot').waitFor();
    await app.screenshot({ path: screenshotPath('17-preview-mobile'), fullPage: true });
  }));

  it("'Free up space' groups by model, trim, slot and size, shows what is kept and deletes only the ticked assets", onFreshDealer('Space Motors', async ({ app, dealer, cookie }) => {
    // Seeded first (so older): the Sport header and inline the new uploads replace.
    await seedAssets(server.origin, cookie, dealer.dealerId, [
      { filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) },
      { filename: 'new_2025_honda_civic_sport_350x564.jpg', data: await makeBanner(350, 564, 'jpeg', '#0055aa') },
    ]);
    // A Touring header beside the Sport one (another trim: nothing offered), and a newer Sport header
    // and inline (the older Sport ones, once switched off, are offered; the newer ones are what the site shows, so kept).
    const files = [
      ['new_2025_honda_civic_touring_1920x300.jpg', await makeBanner(1920, 300, 'jpeg', '#228833')],
      ['new_2025_honda_civic_sport_spring_1920x300.jpg', await makeBanner(1920, 300, 'jpeg', '#aa3377')],
      ['new_2025_honda_civic_sport_spring_350x564.jpg', await makeBanner(350, 564, 'jpeg', '#aa3377')],
    ] as const;
    await uploadFiles(app, files);
    for (const [name] of files) await app.getByRole('switch', { name: `Active: ${name}` }).waitFor();
    // The new promotion replaces the old one: the dealer switches the older Sport banners off (live
    // ones of the same size would rotate, A/B, and are never offered).
    for (const name of ['new_2025_honda_civic_sport_1920x300.jpg', 'new_2025_honda_civic_sport_350x564.jpg']) {
      const active = app.getByRole('switch', { name: `Active: ${name}` });
      await active.click();
      await expect.poll(() => active.isChecked()).toBe(false);
    }
    await app.getByRole('button', { name: 'Free up space' }).click();
    const dialog = app.getByRole('dialog');
    const header = dialog.getByRole('group', { name: /Civic Sport.*SRP Header.*1920x300/ });
    const inline = dialog.getByRole('group', { name: /Civic Sport.*Inline.*350x564/ });
    await header.getByText('Keeps:').waitFor();
    await header.getByText('new_2025_honda_civic_sport_spring_1920x300.jpg', { exact: true }).waitFor();
    await inline.getByText('new_2025_honda_civic_sport_spring_350x564.jpg', { exact: true }).waitFor();
    expect(await dialog.getByRole('group').count()).toBe(2);
    expect(await dialog.getByText(/civic_touring/).count()).toBe(0);
    const oldHeader = dialog.getByRole('checkbox', { name: 'Remove new_2025_honda_civic_sport_1920x300.jpg' });
    const oldInline = dialog.getByRole('checkbox', { name: 'Remove new_2025_honda_civic_sport_350x564.jpg' });
    expect(await oldHeader.isChecked()).toBe(true);
    expect(await oldInline.isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Delete 2 assets' }).waitFor();
    await app.waitForTimeout(400); // let the modal's fade-in finish
    await app.screenshot({ path: screenshotPath('18a-free-up-space'), fullPage: false, animations: 'disabled' });
    // Keyboard: untick the inline with Space, then nothing ticked disables the button.
    await oldInline.focus();
    await app.keyboard.press('Space');
    expect(await oldInline.isChecked()).toBe(false);
    await dialog.getByRole('button', { name: 'Delete 1 asset' }).waitFor();
    await oldHeader.uncheck();
    expect(await dialog.getByRole('button', { name: 'Delete 0 assets' }).isDisabled()).toBe(true);
    await dialog.getByText('Nothing selected').waitFor();
    await oldHeader.check();
    await dialog.getByRole('button', { name: 'Delete 1 asset' }).click();
    await dialog.waitFor({ state: 'detached' });
    await app.getByRole('switch', { name: 'Active: new_2025_honda_civic_sport_1920x300.jpg' }).waitFor({ state: 'detached' });
    for (const name of ['new_2025_honda_civic_sport_350x564.jpg', ...files.map(([n]) => n)]) {
      expect(await app.getByRole('switch', { name: `Active: ${name}` }).count(), name).toBe(1);
    }
    // Opened again: only the unticked inline is still offered.
    await app.getByRole('button', { name: 'Free up space' }).click();
    await dialog.getByRole('checkbox', { name: 'Remove new_2025_honda_civic_sport_350x564.jpg' }).waitFor();
    expect(await dialog.getByRole('group').count()).toBe(1);
    await app.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  }));

  it('shows the dashboard with trend texts', async () => {
    const app = await newPage(browser);
    await signIn(app, 'manager@hondaofdemo.com', 'manager123', 'Morgan Manager');
    await nav(app, 'Dashboard');
    await app.getByTestId('stat-impressions').waitFor();
    await app.getByText('vs previous 7 days').first().waitFor();
    await app.screenshot({ path: screenshotPath('18-dealer-dashboard-trends'), fullPage: true });
    await app.close();
  });

  it('gives the viewer no enabled Save or Upload', async () => {
    // The viewer's dealer has a banner (uploaded by its manager), so the asset list shows.
    const manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
    await seedAssets(server.origin, manager, 'honda-of-demo', [{ filename: 'new_2025_honda_accord_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
    const viewer = await newPage(browser);
    await signIn(viewer, 'viewer@hondaofdemo.com', 'viewer123', 'Val Viewer');
    await nav(viewer, 'Assets');
    await viewer.getByRole('heading', { name: 'Asset Manager' }).waitFor();
    await viewer.getByRole('heading', { name: 'SRP Header Banners' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Upload|Free up space/ }).count()).toBe(0);
    expect(await viewer.getByRole('switch').count()).toBe(0);
    expect(await viewer.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    await viewer.screenshot({ path: screenshotPath('19-viewer-assets'), fullPage: true });
    for (const [link, shot] of [
      ['Configuration', '20-viewer-config'],
      ['Upsell Rules', '21-viewer-upsells'],
      ['Inventory', '21a-viewer-inventory'],
    ] as const) {
      await nav(viewer, link);
      // The page says it is view-only instead of leaving the viewer with disabled controls.
      const notice = viewer.getByTestId('view-only-notice');
      await notice.waitFor();
      expect(await notice.textContent()).toContain('Your account has view-only access');
      if (link !== 'Inventory') {
        const save = viewer.getByRole('button', { name: 'Save Changes' });
        expect(await save.isDisabled()).toBe(true);
      }
      if (link === 'Upsell Rules') expect(await viewer.getByTestId('strategy-custom').isDisabled()).toBe(true);
      expect(await viewer.getByRole('button', { name: /^(Add|Reset|Load|Test|Save Feed|Pause)/ }).count()).toBe(0);
      await viewer.screenshot({ path: screenshotPath(shot), fullPage: true });
    }
    await viewer.close();
  });
});
