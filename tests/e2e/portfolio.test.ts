/**
 * The agency admin's portfolio and the invitation journey, through the browser: Platform
 * Analytics' dealer table sorts on the server with aria-sort headers, keeps its state in the URL,
 * and a row drills into that dealer's analytics (Back returns to the same table); creating a user
 * without a password gives an invitation link (no SMTP on the test server: the admin hands it
 * over), the link's public screen sets the password once, and the user signs in with it.
 * At 390 px the table sorts and drills down too. Screenshots at 1280 and 390 px in test-results/
 * (95-portfolio-*, 96-invitation-result-*, 96-set-password-*); axe finds no serious or critical
 * problem on these screens, the table, the invitation link's dialog nor on the admin's drill-down
 * into a dealer's analytics, at either width. Any console error fails the test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiSignIn, screenshotPath } from './harness';
import { ACCOUNTS, DESKTOP, MOBILE, animationsDone, seriousViolations, settled, screenSuite } from './a11y';

const suite = screenSuite();
let invitationLink = '';

beforeAll(async () => {
  const cookie = await apiSignIn(suite.origin, ACCOUNTS.admin.email, ACCOUNTS.admin.password);
  for (const [i, name] of ['Aardvark Motors', 'Zulu Auto Group', 'Mid Town Ford'].entries()) {
    const res = await fetch(`${suite.origin}/api/admin/dealers`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: suite.origin },
      body: JSON.stringify({ name, manufacturer: i === 2 ? 'ford' : 'toyota', websiteUrl: `https://p${i}.example.com`, provider: 'mxs' }),
    });
    expect(res.status, await res.text()).toBe(201);
  }
});

const rows = (page: Page) => page.locator('[data-testid^="portfolio-row-"]');
const firstRowId = async (page: Page) => (await rows(page).first().getAttribute('data-testid'))?.replace('portfolio-row-', '');
const query = (page: Page) => new URL(page.url()).searchParams;
const header = (page: Page, name: string) => page.locator('th').filter({ has: page.getByRole('button', { name: new RegExp(`^${name}`) }) });

describe('portfolio table', () => {
  it('sorts on the server with aria-sort, keeps its state in the URL, and a row drills into the dealer analytics', async () => {
    const page = await suite.open('admin', DESKTOP);
    await page.goto(`${suite.origin}/admin/analytics`);
    await page.getByRole('heading', { name: 'Platform Analytics' }).waitFor();
    await rows(page).first().waitFor();
    await settled(page);
    expect(await header(page, 'Viewable impressions').getAttribute('aria-sort')).toBe('descending');
    expect(await header(page, 'Dealer').getAttribute('aria-sort')).toBe('none');
    // The demo dealer has the only impressions: first by default.
    expect(await firstRowId(page)).toBe('honda-of-demo');

    // Keyboard: the Dealer header's button sorts by name, ascending then descending.
    await page.getByRole('button', { name: /^Dealer/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => query(page).get('sort')).toBe('name');
    await expect.poll(() => header(page, 'Dealer').getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(() => firstRowId(page)).toBe('aardvark-motors');
    await page.getByRole('button', { name: /^Dealer/ }).click();
    await expect.poll(() => query(page).get('order')).toBe('desc');
    await expect.poll(() => firstRowId(page)).toBe('zulu-auto-group');
    expect(await header(page, 'Dealer').getAttribute('aria-sort')).toBe('descending');

    // Filter by manufacturer, search, period: all in the URL.
    await page.getByLabel('Search').fill('town');
    await expect.poll(() => query(page).get('q')).toBe('town');
    await expect.poll(() => rows(page).count()).toBe(1);
    await page.getByLabel('Search').fill('');
    await expect.poll(() => query(page).get('q')).toBeNull();
    await settled(page);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('95-portfolio-1280'), fullPage: true });

    // A row opens the dealer's analytics (admin view); Back returns to the same sorted table.
    await page.getByTestId('portfolio-row-honda-of-demo').locator('td').nth(2).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/dealers/honda-of-demo/analytics');
    await page.getByRole('heading', { name: 'Honda of Demo: Analytics' }).waitFor();
    expect(await page.title()).toContain('Dealer Analytics');
    await settled(page);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('95-portfolio-drilldown-1280'), fullPage: false });
    await page.getByRole('link', { name: 'Platform Analytics' }).click();
    await rows(page).first().waitFor();
    expect(query(page).get('sort')).toBe('name');
    expect(query(page).get('order')).toBe('desc');
    await expect.poll(() => firstRowId(page)).toBe('zulu-auto-group');

    // The row's Settings action opens the settings, not the figures.
    await page.getByRole('link', { name: 'Settings of Honda of Demo' }).click();
    await page.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
  });

  it('reads at 390 px: the table scrolls inside its frame, the page does not; it sorts, and a row drills down', async () => {
    const page = await suite.open('admin', MOBILE);
    await page.goto(`${suite.origin}/admin/analytics?sort=name`);
    await rows(page).first().waitFor();
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    expect(await header(page, 'Dealer').getAttribute('aria-sort')).toBe('ascending');
    expect(await firstRowId(page)).toBe('aardvark-motors');
    await page.getByTestId('portfolio-table').scrollIntoViewIfNeeded();
    expect(await seriousViolations(page, '[data-testid="portfolio-table"]')).toEqual([]);
    await page.screenshot({ path: screenshotPath('95-portfolio-390'), fullPage: false });

    // A tap on the Dealer header sorts the other way, as on the desktop, and the URL says so.
    await page.getByRole('button', { name: /^Dealer/ }).click();
    await expect.poll(() => query(page).get('order')).toBe('desc');
    expect(query(page).get('sort')).toBe('name');
    await expect.poll(() => header(page, 'Dealer').getAttribute('aria-sort')).toBe('descending');
    await expect.poll(() => firstRowId(page)).toBe('zulu-auto-group');
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    expect(await seriousViolations(page, '[data-testid="portfolio-table"]')).toEqual([]);
    await page.screenshot({ path: screenshotPath('95-portfolio-sorted-390'), fullPage: false });

    // A tap on a row opens the dealer's analytics, which reads at 390 px too.
    await page.getByTestId('portfolio-row-honda-of-demo').locator('td').nth(2).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/dealers/honda-of-demo/analytics');
    await page.getByRole('heading', { name: 'Honda of Demo: Analytics' }).waitFor();
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('95-portfolio-drilldown-390'), fullPage: true });
  });
});

describe('invitation journey', () => {
  for (const [size, viewport, email] of [
    ['1280', DESKTOP, 'robin@agency.example.com'],
    ['390', MOBILE, 'robin.phone@agency.example.com'],
  ] as const) {
    it(`an admin adds a user without a password and gets the invitation link to hand over (${size} px)`, async () => {
      const page = await suite.open('admin', viewport);
      await page.goto(`${suite.origin}/admin/users`);
      await page.getByRole('heading', { name: 'User Management' }).waitFor();
      await page.getByRole('button', { name: 'Add User' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add User' });
      await dialog.getByLabel(/^Email/).fill(email);
      await dialog.getByLabel(/^Name/).fill('Robin Agency');
      await dialog.getByRole('textbox', { name: 'Role' }).click();
      await page.getByRole('option', { name: 'Admin', exact: true }).click();
      await dialog.getByRole('button', { name: 'Add User' }).click();
      const result = page.getByRole('dialog', { name: 'Invitation link' });
      const link = result.getByTestId('invitation-link');
      await link.waitFor();
      const value = await link.inputValue();
      expect(value).toMatch(new RegExp(`^${suite.origin}/set-password#token=`));
      // The desktop run's link is the one the next test opens.
      if (viewport === DESKTOP) invitationLink = value;
      expect(await result.getByRole('status').textContent()).toContain(`send this link to ${email} yourself`);
      await animationsDone(page, '[role="dialog"]');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
      await page.screenshot({ path: screenshotPath(`96-invitation-result-${size}`), fullPage: false });
      await result.getByRole('button', { name: 'Done' }).click();
      // The new user is listed: a table row on the desktop, a card on a phone.
      await page.locator(`[data-email="${email}"]`).waitFor();
    });
  }

  it('the link sets the password once, and the user signs in with it', async () => {
    const page = await suite.open('signed-out', DESKTOP);
    await page.goto(invitationLink);
    await page.getByText('Welcome, Robin Agency.').waitFor();
    expect(new URL(page.url()).hash).toBe(''); // the token leaves the address bar
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('96-set-password-1280'), fullPage: false });
    await page.getByLabel(/^New password/).fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.locator('.mantine-PasswordInput-error').filter({ hasText: 'At least 8 characters' }).first().waitFor();
    await page.getByLabel(/^New password/).fill('robin-password-1');
    await page.getByLabel(/^Repeat the password/).fill('robin-password-1');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Sign in with robin@agency.example.com and your new password.').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();

    await page.getByLabel(/^Email/).fill('robin@agency.example.com');
    await page.getByLabel(/^Password/).fill('robin-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();

    // The same link again: refused (the browser logs the 400 answer).
    suite.consoleWatch.expect(/400/);
    await page.goto(invitationLink);
    await page.getByText('Link not valid').waitFor();
  });

  it('reads at 390 px', async () => {
    const cookie = await apiSignIn(suite.origin, ACCOUNTS.admin.email, ACCOUNTS.admin.password);
    const res = await fetch(`${suite.origin}/api/admin/users`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: suite.origin },
      body: JSON.stringify({ email: 'casey@hondaofdemo.com', name: 'Casey Viewer', role: 'viewer', dealerId: 'honda-of-demo' }),
    });
    expect(res.status).toBe(201);
    const { invitation } = (await res.json()) as { invitation: { link: string } };
    const page = await suite.open('signed-out', MOBILE);
    await page.goto(invitation.link);
    await page.getByText('Welcome, Casey Viewer.').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('96-set-password-390'), fullPage: false });
  });
});
