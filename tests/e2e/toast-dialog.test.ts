/**
 * Toasts and dialogs, in Chromium at 1280 and 390 px: a toast that is showing when the dealer
 * manager opens the Edit campaign dialog (the 'Campaign saved' of the edit just before) moves to
 * the top while the dialog is open, so the dialog's Save button stays uncovered: the element at the
 * centre of Save is Save itself, and Playwright's click (which refuses a covered target) saves;
 * axe finds no serious or critical violation in the dialog.
 * Screenshots with the toast and the dialog in test-results/ (87-toast-over-dialog-*).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { apiSignIn, launchBrowser, screenshotPath, startServer, type RunningServer } from './harness';
import { ACCOUNTS, DEMO_DEALER_ID, DESKTOP, MOBILE, animationsDone, contextPage, seriousViolations, shown, signInAs, watchConsole } from './a11y';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const cookie = await apiSignIn(server.origin, ACCOUNTS.manager.email, ACCOUNTS.manager.password);
  for (const name of ['Spring Event 1280', 'Spring Event 390']) {
    const res = await fetch(`${server.origin}/api/dealers/${DEMO_DEALER_ID}/campaigns`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: server.origin },
      body: JSON.stringify({ name, mode: 'rotate', startsAt: '2030-03-01T09:00' }),
    });
    expect(res.status, await res.text()).toBeLessThan(300);
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** True when two boxes overlap. */
function overlaps(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('a toast does not cover the Edit campaign dialog', () => {
  for (const [size, viewport] of [
    ['1280', DESKTOP],
    ['390', MOBILE],
  ] as const) {
    it(`at ${size} px: with 'Campaign saved' showing, the dialog's Save is the element at its centre`, async () => {
      const { context, page } = await contextPage(browser, viewport);
      const errors = watchConsole(context);
      await signInAs(context, server.origin, 'manager');
      await page.goto(`${server.origin}/dealer/campaigns`);
      const name = `Spring Event ${size}`;
      const card = page.getByRole('article', { name, exact: true });
      const editButton = card.getByRole('button', { name: 'Edit', exact: true });
      await shown(editButton);

      // An edit saved: its toast shows and the dialog closes.
      const dialog = page.getByRole('dialog', { name: 'Edit campaign' });
      await editButton.click();
      await expect.poll(() => dialog.getByLabel(/^Name/).inputValue()).toBe(name);
      await dialog.getByLabel(/^Name/).fill(`${name}!`);
      await dialog.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      const toast = page.locator('.mantine-Notification-root').filter({ hasText: 'Campaign saved' });
      await shown(toast);

      // The pointer rests on the toast (which keeps it open); the dialog opens from the keyboard.
      await toast.hover();
      const editAgain = page.getByRole('article', { name: `${name}!`, exact: true }).getByRole('button', { name: 'Edit', exact: true });
      await editAgain.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => dialog.getByLabel(/^Name/).inputValue()).toBe(`${name}!`);
      await animationsDone(page, '[role="dialog"]');
      await shown(toast);
      await animationsDone(page);

      const save = dialog.getByRole('button', { name: 'Save', exact: true });
      await save.scrollIntoViewIfNeeded();
      const saveBox = (await save.boundingBox())!;
      const toastBox = (await toast.boundingBox())!;
      expect(saveBox.y + saveBox.height).toBeLessThanOrEqual(viewport.height);
      expect(overlaps(saveBox, toastBox)).toBe(false);
      const atCentre = await save.evaluate((button, p) => {
        const hit = document.elementFromPoint(p.x, p.y);
        return hit !== null && button.contains(hit);
      }, { x: saveBox.x + saveBox.width / 2, y: saveBox.y + saveBox.height / 2 });
      expect(atCentre).toBe(true);
      // The dialog, with the toast open above the page, has no serious or critical axe violation.
      expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
      await page.screenshot({ path: screenshotPath(`87-toast-over-dialog-${size}`) });

      // Save is clickable while the toast is open (Playwright refuses to click a covered button).
      await dialog.getByLabel(/^Name/).fill(name);
      await save.click({ timeout: 5_000 });
      await expect.poll(() => dialog.count()).toBe(0);
      await shown(card);
      expect(errors.unexpected()).toEqual([]);
      await context.close();
    });
  }
});
