/**
 * The dealer's branding on its own site, on the mxs
 * fixture search page under a strict Content-Security-Policy (no 'unsafe-inline' styles): the
 * dealer's custom CSS styles its banner slots and nothing else of the page, and a model without a
 * creative shows a placeholder in the dealer's colours.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, fetchScriptInfo, launchBrowser, newPage, screenshotPath, startDealerSite, sharedServer, type DealerSite, type ServerHandle } from './harness';
import { createDealer, siteAssets } from './page-speed';

let server: ServerHandle;
let browser: Browser;
let site: DealerSite;
let dealerId: string;
const violations: string[] = [];

const CUSTOM_CSS = [
  'img { outline: 3px solid rgb(255, 0, 0); }',
  '.dc-banner { border-top: 4px solid rgb(0, 0, 255); }',
  'body { background-color: rgb(255, 0, 0); }',
  '.dc-banner ~ * { outline: 5px solid rgb(0, 255, 0); }',
  // An attempt at a full-page overlay from inside the slot: the slot's contained paint keeps it in the slot.
  '.dc-banner { overflow: visible !important; contain: none !important; all: revert !important; }',
  '.dc-banner a { position: absolute !important; top: 0 !important; left: 0 !important; width: 100vw !important; height: 100vh !important; z-index: 2147483647 !important; }',
].join('\n');

beforeAll(async () => {
  server = await sharedServer('dealers');
  browser = await launchBrowser();
  ({ id: dealerId } = await createDealer(server.origin, { name: 'Branded Honda', manufacturer: 'honda', provider: 'mxs', model: 'civic' }));
  const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
  const dealer = ((await (await fetch(`${server.origin}/api/dealers/${dealerId}`, { headers: { cookie: admin } })).json()) as { dealer: { branding: Record<string, unknown> } }).dealer;
  const res = await fetch(`${server.origin}/api/admin/dealers/${dealerId}/settings`, {
    method: 'PUT',
    headers: { cookie: admin, origin: server.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ branding: { ...dealer.branding, primaryColor: '#0A2540', secondaryColor: '#FFD166', customCss: CUSTOM_CSS } }),
  });
  expect(res.status).toBe(200);
  const info = await fetchScriptInfo(server.origin, dealerId);
  const csp = ["default-src 'self'", `script-src 'self' ${server.origin} ${info.snippetHash}`, "style-src 'self'", `img-src 'self' ${server.origin}`, "font-src 'self'", `connect-src 'self' ${server.origin}`].join('; ');
  site = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: info.scriptTag, assets: await siteAssets(), headers: { 'Content-Security-Policy': csp } });
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await server?.stop();
});

/** The search page of `model`, once every slot that shows something has its image loaded. */
async function openSearchPage(model: string): Promise<Page> {
  const page = await newPage(browser);
  page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && violations.push(m.text())));
  await page.goto(`${site.origin}/new-inventory?new=true&model=${model}`);
  await page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll<HTMLImageElement>('.dc-banner img')];
    return imgs.length === 3 && imgs.every((i) => i.complete && i.naturalWidth > 0);
  });
  return page;
}

it('applies the custom CSS to the banner slots only, under a strict CSP', async () => {
  const page = await openSearchPage('civic');
  const styles = await page.evaluate(() => {
    const slot = document.querySelector<HTMLElement>('.dc-banner')!;
    const creative = slot.querySelector('img')!;
    const hostImage = [...document.images].find((i) => !i.closest('.dc-banner'))!;
    const sibling = slot.nextElementSibling as HTMLElement | null;
    return {
      creativeOutline: getComputedStyle(creative).outline,
      slotBorderTop: getComputedStyle(slot).borderTopColor,
      hostImageOutline: getComputedStyle(hostImage).outlineStyle,
      bodyBackground: getComputedStyle(document.body).backgroundColor,
      siblingOutline: sibling ? getComputedStyle(sibling).outlineColor : null,
      // Points of the viewport (a 20 px grid) where a click would land on a slot's content outside that slot's box.
      escapedPoints: (() => {
        let escaped = 0;
        for (let x = 1; x < innerWidth; x += 20) {
          for (let y = 1; y < innerHeight; y += 20) {
            const owner = document.elementFromPoint(x, y)?.closest('.dc-banner');
            const r = owner?.getBoundingClientRect();
            if (r && (x < r.left || x > r.right || y < r.top || y > r.bottom)) escaped += 1;
          }
        }
        return escaped;
      })(),
    };
  });
  await page.screenshot({ path: screenshotPath('branding-custom-css') });
  expect(styles.creativeOutline).toBe('rgb(255, 0, 0) solid 3px');
  expect(styles.slotBorderTop).toBe('rgb(0, 0, 255)');
  expect(styles.hostImageOutline).toBe('none');
  expect(styles.bodyBackground).not.toBe('rgb(255, 0, 0)');
  expect(styles.siblingOutline).not.toBe('rgb(0, 255, 0)');
  expect(styles.escapedPoints).toBe(0);
  expect(violations).toEqual([]);
  await page.close();
});

it("shows a model without creatives as a placeholder in the dealer's colours", async () => {
  const page = await openSearchPage('pilot');
  const src = await page.locator('.dc-banner[data-dc-type="header"] img').getAttribute('src');
  const res = await fetch(new URL(src!, site.origin));
  expect(res.headers.get('x-banner-source')).toBe('placeholder');
  const svg = await res.text();
  expect(svg).toMatch(/#0A2540/i);
  expect(svg).toContain('Pilot');
  await page.close();
});
