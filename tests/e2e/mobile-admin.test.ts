/**
 * The admin screens at 390x844 and 1280x800: no horizontal page scroll on any of them,
 * with a dealer whose long name must end in '…' (full name on hover and keyboard focus) without
 * squeezing its status badge; the Dealer Settings save bar stays in view while the form scrolls
 * and its notifications never cover Save, Reset or 'Unsaved changes'; a screenshot of every admin
 * screen at both sizes in test-results/ (80-admin-*), plus the top of each at 390 px as a phone
 * shows it. Any console error fails the test.
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { screenshotPath } from './harness';
import { ADMIN_SCREENS, COPY_BUTTON_MAX_HEIGHT, DESKTOP, LONG_DEALER, MOBILE, animationsDone, copyButtonHeights, horizontalOverflow, openScreen, settled, shown, type Screen, screenSuite } from './a11y';

const suite = screenSuite();

const adminPage = (viewport: { width: number; height: number }) => suite.open('admin', viewport);

const sizes = [
  ['1280', DESKTOP],
  ['390', MOBILE],
] as const;

/** The admin screens, plus the long-named dealer's settings. */
const SCREENS: Array<Screen & { shot: string }> = [
  ...ADMIN_SCREENS.map((s) => ({ ...s, shot: s.title.toLowerCase().replace(/\W+/g, '-') })),
  { path: `/admin/dealers/${LONG_DEALER.id}/settings`, heading: 'Dealer Settings', title: 'Dealer Settings', shot: 'dealer-settings-long-name' },
];

/** Screenshot without the notifications on top. */
async function shot(page: Page, name: string, fullPage: boolean) {
  const hide = await page.addStyleTag({ content: '.mantine-Notifications-root { display: none !important; }' });
  await page.screenshot({ path: screenshotPath(name), fullPage });
  await hide.evaluate((el) => (el as HTMLElement).remove());
}

/** True when two boxes overlap. */
function overlaps(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * The element is cut by its own box (it ends in '…'), and the app has noticed: it says so
 * (`data-truncated`), which is what switches its tooltip on.
 */
async function expectCut(l: Locator, cut: boolean): Promise<void> {
  await expect.poll(() => l.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(cut);
  if (cut) await expect.poll(() => l.getAttribute('data-truncated')).toBe('true');
}

/**
 * Hovers or focuses `l` once and waits until the tooltip with `text` shows. Once: the deferred
 * Tooltip (components/deferred.tsx) keeps the element it wraps when it arrives after the screen
 * has painted, so a hover or focus that came first still shows the tooltip then.
 */
async function showsTooltip(page: Page, l: Locator, how: 'hover' | 'focus', text: string): Promise<void> {
  if (how === 'hover') {
    await page.mouse.move(0, 0);
    await l.hover();
  } else {
    await l.blur();
    await l.focus();
  }
  await shown(page.getByRole('tooltip').filter({ hasText: text }));
}

describe('admin screens at 390 px and 1280 px', () => {
  for (const [size, viewport] of sizes) {
    it(`at ${size} px: no screen scrolls sideways; a screenshot of each`, async () => {
      const page = await adminPage(viewport);
      const problems: string[] = [];
      for (const [i, screen] of SCREENS.entries()) {
        // The first screen loads the app; the others open inside it, as its links open them
        // (openScreen inApp): the same screens, drawn by the same routes, without loading the
        // bundle and asking for the session again for each.
        await openScreen(page, suite.origin, screen, { inApp: i > 0 });
        const { scrollWidth, widest } = await horizontalOverflow(page);
        if (scrollWidth > viewport.width) problems.push(`${screen.path}: scrollWidth ${scrollWidth} (${widest.join(', ')})`);
        // A Copy button keeps a button's height beside a long tag: the tag's box scrolls instead.
        for (const h of await copyButtonHeights(page)) if (h > COPY_BUTTON_MAX_HEIGHT) problems.push(`${screen.path}: a Copy button ${h} px tall`);
        await shot(page, `80-admin-${screen.shot}-${size}`, true);
        if (viewport === MOBILE) await shot(page, `80-admin-${screen.shot}-${size}-top`, false);
      }

      // The manufacturer drawer with a model's trims open, and the Add User dialog.
      await openScreen(page, suite.origin, ADMIN_SCREENS.find((s) => s.path === '/admin/manufacturers')!, { inApp: true });
      await page.getByRole('button', { name: 'Edit Honda' }).click();
      const drawer = page.getByRole('dialog', { name: 'Edit Honda' });
      await drawer.getByRole('tab', { name: /^Models/ }).click();
      await drawer.getByRole('button', { name: /^Civic sedan/ }).click();
      await shown(drawer.getByLabel('Trim priority', { exact: true }).first());
      await animationsDone(page);
      const { scrollWidth } = await horizontalOverflow(page);
      if (scrollWidth > viewport.width) problems.push(`manufacturer drawer: scrollWidth ${scrollWidth}`);
      await shot(page, `80-admin-manufacturer-drawer-${size}`, false);
      await drawer.getByRole('button', { name: 'Close' }).click();
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      await openScreen(page, suite.origin, ADMIN_SCREENS.find((s) => s.path === '/admin/users')!, { inApp: true });
      await page.getByRole('button', { name: 'Add User' }).click();
      await shown(page.getByRole('dialog', { name: 'Add User' }));
      await animationsDone(page);
      await shot(page, `80-admin-add-user-${size}`, false);
      expect(problems).toEqual([]);
    });

    it(`at ${size} px: a long dealer name ends in '…' with the full name on hover and focus, and the status badge keeps its size`, async () => {
      const page = await adminPage(viewport);
      const tooltip = page.getByRole('tooltip');

      await openScreen(page, suite.origin, ADMIN_SCREENS.find((s) => s.path === '/admin/analytics')!);
      const card = page.getByTestId(`portfolio-row-${LONG_DEALER.id}`);
      const name = card.getByRole('link', { name: LONG_DEALER.name, exact: true });
      await expectCut(name, true);
      const badge = card.locator('.mantine-Badge-label').first();
      expect(await badge.textContent()).toBe('active');
      await expectCut(badge, false);
      const cardBox = (await card.boundingBox())!;
      const nameBox = (await name.boundingBox())!;
      expect(nameBox.x + nameBox.width).toBeLessThanOrEqual(cardBox.x + cardBox.width);
      await showsTooltip(page, name, 'hover', LONG_DEALER.name);
      await page.mouse.move(0, 0);
      await expect.poll(() => tooltip.count()).toBe(0);
      await showsTooltip(page, name, 'focus', LONG_DEALER.name);
      await animationsDone(page);
      await shot(page, `81-admin-long-name-analytics-${size}`, false);

      await openScreen(page, suite.origin, ADMIN_SCREENS.find((s) => s.path === '/admin/dealers')!, { inApp: true });
      // Dealer Management: the same table, its name a link into the dealer's analytics as well.
      const dealerName = page.getByTestId(`portfolio-row-${LONG_DEALER.id}`).getByRole('link', { name: LONG_DEALER.name, exact: true });
      await expectCut(dealerName, true);
      await showsTooltip(page, dealerName, 'focus', LONG_DEALER.name);

      await openScreen(page, suite.origin, ADMIN_SCREENS.find((s) => s.path === '/admin')!, { inApp: true });
      const row = page.getByTestId('recent-dealers').getByText(LONG_DEALER.name, { exact: true });
      await expectCut(row, true);
      await showsTooltip(page, row, 'hover', LONG_DEALER.name);
    });
  }
});

describe('Dealer Settings: the save bar and the notifications', () => {
  for (const [size, viewport] of sizes) {
    it(`at ${size} px: Save, Reset and 'Unsaved changes' stay in view while the form scrolls, and no notification covers them`, async () => {
      const page = await adminPage(viewport);
      await openScreen(page, suite.origin, ADMIN_SCREENS.find((s) => s.path.endsWith('/settings'))!);
      const save = page.getByRole('button', { name: 'Save Changes' });
      const reset = page.getByRole('button', { name: 'Reset to Defaults' });

      // Change the last field of the long form: the bar is still on screen down there.
      const threshold = page.getByLabel('CTR alert threshold (%)');
      await threshold.scrollIntoViewIfNeeded();
      await threshold.fill('3');
      const unsaved = page.getByText('Unsaved changes');
      await shown(unsaved);
      for (const control of [save, reset, unsaved]) {
        const box = (await control.boundingBox())!;
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
      }
      await save.click();
      const toast = page.locator('.mantine-Notification-root').filter({ hasText: 'Dealer settings saved' });
      await shown(toast);
      // Hovering keeps the notification open (it used to cover Save for as long as that).
      await toast.hover();
      const toastBox = (await toast.boundingBox())!;
      for (const control of [save, reset]) expect(overlaps((await control.boundingBox())!, toastBox)).toBe(false);
      await page.screenshot({ path: screenshotPath(`82-admin-settings-saved-${size}`) }); // with the notification

      await threshold.fill('2');
      await shown(unsaved);
      expect(overlaps((await unsaved.boundingBox())!, toastBox)).toBe(false);
      // Clickable while the toast is still open: Playwright refuses to click a covered button.
      await save.click({ timeout: 5_000 });
      await expect.poll(() => unsaved.count()).toBe(0);
      await settled(page);
    });
  }
});
