/**
 * Accessibility of every screen: signed out and signed in as admin, dealer-manager
 * and viewer, at 1280x800 and 390x844, every screen has zero serious or critical axe-core
 * violations, no horizontal page scroll (`document.documentElement.scrollWidth` within the
 * viewport), its own page title ("Dealers · dc-banners") and no console error. The admin's drawers
 * and dialogs are checked open as well; the sign-in form works by keyboard alone, with a named
 * password toggle. Any console error a test did not expect fails it.
 */
import { describe, expect, it } from 'vitest';
import { DESKTOP, MOBILE, SCREENS_BY_ROLE, SIGNED_OUT_SCREENS, animationsDone, horizontalOverflow, openScreen, seriousViolations, settled, shown, type Role, screenSuite } from './a11y';

// Its own server: it walks every screen of every role with axe, which must see the seeded data as
// seeded, not as the other screen files leave it.
const suite = screenSuite({ ownServer: true });

const open = (role: Role | 'signed-out', viewport: { width: number; height: number }) => suite.open(role, viewport);

const sizes = [
  ['1280x800', DESKTOP],
  ['390x844', MOBILE],
] as const;
const roles = ['signed-out', 'admin', 'manager', 'viewer'] as const;

describe('every screen, every role, both sizes', () => {
  for (const role of roles) {
    for (const [size, viewport] of sizes) {
      it(`${role} at ${size}: no serious or critical axe violation, no horizontal scroll, a page title`, async () => {
        const page = await open(role, viewport);
        const problems: string[] = [];
        for (const [i, screen] of SCREENS_BY_ROLE[role].entries()) {
          // The first screen loads the app; the others open inside it, as its links open them
          // (axe-core, put into the page once, stays). Signed out, every address shows the sign-in
          // screen, which has no routes to follow: each is loaded.
          await openScreen(page, suite.origin, screen, { inApp: role !== 'signed-out' && i > 0 });
          expect(await page.title(), screen.path).toBe(`${screen.title} · dc-banners`);
          const { scrollWidth, widest } = await horizontalOverflow(page);
          if (scrollWidth > viewport.width) problems.push(`${screen.path}: scrollWidth ${scrollWidth} > ${viewport.width} (${widest.join(', ')})`);
          for (const v of await seriousViolations(page)) problems.push(`${screen.path}: ${v}`);
        }
        expect(problems).toEqual([]);
      });
    }
  }
});

describe("the admin's drawers and dialogs", () => {
  for (const [size, viewport] of sizes) {
    it(`at ${size}: the manufacturer drawer (details, models with trims, defaults), its discard question, Add User and a delete confirmation`, async () => {
      const page = await open('admin', viewport);
      const problems: string[] = [];
      const check = async (label: string, scope: string) => {
        await animationsDone(page, scope);
        for (const v of await seriousViolations(page, scope)) problems.push(`${label}: ${v}`);
        const { scrollWidth } = await horizontalOverflow(page);
        if (scrollWidth > viewport.width) problems.push(`${label}: scrollWidth ${scrollWidth}`);
      };

      await openScreen(page, suite.origin, SCREENS_BY_ROLE.admin.find((s) => s.path === '/admin/manufacturers')!);
      await page.getByRole('button', { name: 'Edit Honda' }).click();
      const drawer = page.getByRole('dialog', { name: 'Edit Honda' });
      await shown(drawer);
      await check('drawer: details', '.mantine-Drawer-content');
      await drawer.getByRole('tab', { name: /^Models/ }).click();
      await drawer.getByRole('button', { name: /^Civic sedan/ }).click();
      await shown(drawer.getByLabel('Trim name', { exact: true }).first());
      await check('drawer: models', '.mantine-Drawer-content');
      // The trim rows fit the drawer: nothing reaches past its right edge.
      const drawerBox = (await page.locator('.mantine-Drawer-content').boundingBox())!;
      for (const name of ['Trim priority', 'Remove trim']) {
        const box = (await drawer.getByLabel(name, { exact: true }).first().boundingBox())!;
        expect(box.x + box.width, `${name} inside the drawer`).toBeLessThanOrEqual(drawerBox.x + drawerBox.width);
      }
      await drawer.getByRole('tab', { name: 'Defaults' }).click();
      await check('drawer: defaults', '.mantine-Drawer-content');
      await drawer.getByRole('tab', { name: 'Details' }).click();
      await drawer.getByRole('textbox', { name: 'Name', exact: true }).fill('Honda Motor');
      await page.keyboard.press('Escape');
      const discard = page.getByRole('dialog', { name: 'Discard changes?' });
      await shown(discard);
      await check('discard question', '.mantine-Modal-content');
      await discard.getByRole('button', { name: 'Discard changes' }).click();
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

      await page.getByRole('button', { name: 'Delete Honda' }).click();
      await shown(page.getByRole('dialog', { name: 'Delete Honda?' }));
      await check('delete confirmation', '.mantine-Modal-content');
      await page.getByRole('dialog', { name: 'Delete Honda?' }).getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

      await openScreen(page, suite.origin, SCREENS_BY_ROLE.admin.find((s) => s.path === '/admin/users')!, { inApp: true });
      await page.getByRole('button', { name: 'Add User' }).click();
      await shown(page.getByRole('dialog', { name: 'Add User' }));
      await check('Add User', '.mantine-Modal-content');
      expect(problems).toEqual([]);
    });
  }
});

describe('keyboard', () => {
  it('signs in by keyboard alone: Tab reaches a named password toggle that shows the password, Enter submits', async () => {
    const page = await open('signed-out', DESKTOP);
    await page.goto(suite.origin);
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    await settled(page);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.getAttribute('autocomplete') ?? document.activeElement?.tagName);
    const tabTo = async (want: string) => {
      for (let i = 0; i < 10 && (await focused()) !== want; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(want);
    };
    await tabTo('username');
    await page.keyboard.type('admin@dc-banners.com');
    await tabTo('current-password');
    await page.keyboard.type('admin123');
    const password = page.getByLabel(/^Password/);
    expect(await password.getAttribute('type')).toBe('password');
    await tabTo('Show password');
    const toggle = page.getByRole('button', { name: 'Show password' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await page.keyboard.press('Enter');
    await expect.poll(() => password.getAttribute('type')).toBe('text');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('Space');
    await expect.poll(() => password.getAttribute('type')).toBe('password');
    await password.focus();
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Admin Dashboard' }));
    expect(await page.title()).toBe('Admin Dashboard · dc-banners');
  });

  it('checks the sign-in form itself (no browser bubbles) and reports a signed-out visit without a failed request', async () => {
    const page = await open('signed-out', MOBILE);
    const meStatuses: number[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/api/auth/me') meStatuses.push(r.status());
    });
    await page.goto(suite.origin);
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page.getByText('Enter a valid email address'));
    await shown(page.getByText('Password is required'));
    expect(await page.locator('form').first().getAttribute('novalidate')).not.toBeNull();
    expect(meStatuses).toEqual([200]);
    // The demo accounts fit the narrow screen.
    const table = (await page.getByTestId('demo-accounts').boundingBox())!;
    expect(table.x + table.width).toBeLessThanOrEqual(MOBILE.width);
  });
});

describe('the check itself', () => {
  it('finds a violation planted in a screen, once more on the same page, and only inside the part it is asked about', async () => {
    const page = await open('signed-out', DESKTOP);
    await openScreen(page, suite.origin, SIGNED_OUT_SCREENS[0]!);
    expect(await seriousViolations(page)).toEqual([]);
    // A button with no accessible name, after axe-core has already been put into the page.
    await page.evaluate(() => {
      const planted = document.createElement('div');
      planted.id = 'planted';
      planted.innerHTML = '<button type="button"></button>';
      document.body.append(planted);
    });
    const found = await seriousViolations(page);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^button-name \(critical\):.*#planted/);
    expect(await seriousViolations(page, 'form')).toEqual([]);
  });
});
