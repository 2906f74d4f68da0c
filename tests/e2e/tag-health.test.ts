/**
 * "Is my tag working?" through the browser: beacons a headless browser sends (dropped as bots) and
 * beacons from a site outside the allowed domains (refused) show on the dealer's Script page by
 * reason, with what to do; "Test my page" names the bare domain the allowed www. domain does not
 * cover; the admin's script page hands out the tag (not the script body) and shortcodes and shows
 * the same tag health, and links to the dealer's settings to edit the allowed domains. On a phone
 * the Script page's Copy buttons keep a button's height. Screenshots at 1280 and 390 px; axe finds
 * nothing serious on the panel.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { COPY_BUTTON_MAX_HEIGHT, DEMO_DEALER_ID, DESKTOP, MOBILE, copyButtonHeights, horizontalOverflow, openScreen, screenSuite, seriousViolations, settled, ADMIN_SCREENS, DEALER_SCREENS } from './a11y';
import { DEALER_SITE_ORIGIN, fetchUnlessShed, screenshotPath } from './harness';

const suite = screenSuite();
const PANEL = 'section[aria-label="Is my tag working?"]';
const HEADLESS_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';
const COPYCAT = 'https://copycat.example.net';
const screen = (path: string) => [...ADMIN_SCREENS, ...DEALER_SCREENS].find((s) => s.path === path)!;

/** Sends one impression beacon of the demo dealer from Node as a browser on `origin` with `ua` would; returns its status. */
async function beacon(origin: string, ua: string, pv: string): Promise<number> {
  const body = JSON.stringify({ dealerId: DEMO_DEALER_ID, event: 'impression', type: 'primary', model: 'civic', url: `${origin}/new-inventory?model=civic`, pv });
  const res = await fetchUnlessShed(`${suite.origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': ua, origin }, body });
  return res.status;
}

let sent = false;
/** Beacons from a headless browser on the dealer's site and from a copycat site (once per file). */
async function sendProblemBeacons(): Promise<void> {
  if (sent) return;
  sent = true;
  for (let i = 0; i < 5; i++) expect(await beacon(DEALER_SITE_ORIGIN, HEADLESS_UA, `taghealth-e2e-bot-${i}`)).toBe(204);
  for (let i = 0; i < 2; i++) expect(await beacon(COPYCAT, HEADLESS_UA.replace('HeadlessChrome', 'Chrome'), `taghealth-e2e-copy-${i}`)).toBe(403);
}

/** The tag health panel scrolled into view, with its refusals loaded. */
async function panel(page: Page) {
  const section = page.locator(PANEL);
  await section.scrollIntoViewIfNeeded();
  await section.getByTestId('reason-bot').waitFor();
  await settled(page);
  return section;
}

describe('tag health on the Script page', () => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', MOBILE],
  ] as const) {
    it(`shows bot and refused-origin beacons by reason with what to do, and tests a page (${name})`, async () => {
      await sendProblemBeacons();
      const page = await suite.open('manager', viewport);
      await openScreen(page, suite.origin, screen('/dealer/script'));
      const section = await panel(page);
      expect(await section.getByTestId('reason-bot').textContent()).toContain('5 beacons');
      expect(await section.getByTestId('reason-bot').textContent()).toContain('headless browsers');
      const domain = await section.getByTestId('reason-domain').textContent();
      expect(domain).toContain('2 beacons');
      expect(domain).toContain(COPYCAT);
      expect(domain).toContain('Ask your administrator to add the domain');
      expect(await section.getByRole('table', { name: 'Last beacon per site and slot' }).textContent()).toContain(DEALER_SITE_ORIGIN);

      await section.getByRole('textbox', { name: 'Page address' }).fill('http://hondaofdemo.com/new-inventory');
      await section.getByRole('textbox', { name: 'Page address' }).press('Enter');
      const result = section.getByTestId('page-check');
      await result.waitFor();
      expect(await result.textContent()).toContain('list hondaofdemo.com instead');
      await settled(page);

      expect(await seriousViolations(page, PANEL)).toEqual([]);
      expect((await horizontalOverflow(page)).overflow).toBe(0);
      await section.screenshot({ path: screenshotPath(`tag-health-dealer-${name}`) });

      // Beside the long script tag each Copy button keeps a button's height on a phone.
      if (viewport === MOBILE) {
        const heights = await copyButtonHeights(page);
        expect(heights.length).toBeGreaterThan(0);
        expect(heights.filter((h) => h > COPY_BUTTON_MAX_HEIGHT)).toEqual([]);
      }
    });
  }

  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', MOBILE],
  ] as const) {
    it(`hands out the tag and shortcodes on the admin's script page, with the same tag health (${name})`, async () => {
      await sendProblemBeacons();
      const page = await suite.open('admin', viewport);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.origin });
      await openScreen(page, suite.origin, screen(`/scripts/${DEMO_DEALER_ID}`));
      const install = page.locator('section[aria-label="Tag and shortcodes"]');
      expect(await install.textContent()).toContain(`/scripts/dc-banners-${DEMO_DEALER_ID}.js" async></script>`);
      expect(await install.textContent()).toContain('[dc-banner type="header"]');
      await page.getByRole('button', { name: 'Copy Script', exact: true }).click();
      await page.getByRole('button', { name: 'Copied!' }).waitFor();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      const info = (await (await page.request.get(`${suite.origin}/api/dealers/${DEMO_DEALER_ID}/script`)).json()) as { scriptTag: string; content: string };
      expect(copied).toBe(info.scriptTag); // the tag the dealer's Script page hands out, not the script body
      expect(copied).not.toContain(info.content.slice(0, 200));
      const section = await panel(page);
      expect(await section.getByTestId('reason-bot').textContent()).toContain('5 beacons');
      const domain = await section.getByTestId('reason-domain').textContent();
      expect(domain).toContain(COPYCAT);
      // Worded for the reader, who changes the setting the dealer's staff have to ask for.
      expect(domain).toContain("to the allowed domains in the dealer's Security settings");
      expect(domain).not.toContain('administrator');
      expect(await seriousViolations(page, PANEL)).toEqual([]);
      expect((await horizontalOverflow(page)).overflow).toBe(0);
      // The refusals on screen (a whole page of the tag, the install steps and the mappings would
      // shrink them past reading at 390 px).
      await section.getByTestId('reason-domain').scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`tag-health-admin-${name}`), fullPage: false });

      // Where banners are counted: the admin edits the allowed domains in the dealer's settings.
      const counting = page.getByRole('region', { name: 'Where banners are counted' });
      const edit = counting.getByRole('link', { name: 'Edit allowed domains' });
      await edit.scrollIntoViewIfNeeded();
      await edit.click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/admin/dealers/${DEMO_DEALER_ID}/settings`);
      await page.getByRole('heading', { name: 'Dealer Settings' }).waitFor();
    });
  }
});
