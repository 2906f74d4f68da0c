/**
 * The coverage matrix against the dealer's own site: for three models (one with its
 * creatives, its upsell target, one without any), each desktop cell of the matrix on Banner Preview
 * names the same source and model as the image the embed script shows in that slot on the mxs
 * fixture search page (X-Banner-Source and X-Banner-Model of the image response).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, newPage, screenshotPath, signedInPage, sharedServer, type DealerSite, type ServerHandle } from './harness';
import { createDealerSite } from './page-speed';

let server: ServerHandle;
let browser: Browser;
let site: DealerSite;
let upsell: string;
const manager = { email: 'coverage.manager@example.com', password: 'coverage-password-1' };

beforeAll(async () => {
  server = await sharedServer('dealers');
  browser = await launchBrowser();
  ({ upsell, site } = await createDealerSite(server.origin, 'Coverage Honda', 'civic', { ...manager, name: 'Coverage Manager' }));
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await server?.stop();
});

type Seen = Record<string, { source: string; model: string }>;

/** What the embed script shows in each slot of the search page of `model`: source and model of each slot's image response. */
async function embedShows(model: string): Promise<Seen> {
  const page = await newPage(browser);
  const seen: Seen = {};
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (!url.pathname.endsWith('/asset') || url.searchParams.get('variant') !== 'desktop') return;
    seen[url.searchParams.get('type')!] = { source: r.headers()['x-banner-source'] ?? '', model: r.headers()['x-banner-model'] ?? '' };
  });
  await page.goto(`${site.origin}/new-inventory?new=true&model=${model}`);
  await page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll<HTMLImageElement>('.dc-banner img')];
    return imgs.length === 3 && imgs.every((i) => i.complete && i.naturalWidth > 0);
  });
  await expect.poll(() => Object.keys(seen).sort()).toEqual(['header', 'primary', 'upsell']);
  await page.close();
  return seen;
}

it('shows, for three models, the source and model the embed script shows in each desktop slot', async () => {
  const page = await signedInPage(browser, server.origin, manager.email, manager.password, { viewport: { width: 1366, height: 1000 } });
  await page.goto(`${server.origin}/dealer/preview`);
  const matrix = page.getByTestId('coverage-matrix');
  await matrix.waitFor();
  await page.screenshot({ path: screenshotPath('coverage-matrix'), fullPage: true });
  const upsellKey = upsell.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (const model of ['civic', upsellKey, 'pilot']) {
    const row = page.getByTestId(`coverage-row-${model}`);
    const matrixSays: Seen = {};
    for (const slot of ['header', 'primary', 'upsell']) {
      const cell = row.locator('td[data-variant="desktop"]').nth(['header', 'primary', 'upsell'].indexOf(slot));
      const source = (await cell.getByTestId('coverage-source').getAttribute('data-source'))!;
      const testId = (await cell.locator('[data-testid^="coverage-"]').first().getAttribute('data-testid'))!;
      matrixSays[slot] = { source, model: testId.replace(/^coverage-/, '').replace(new RegExp(`-${slot}$`), '') };
    }
    expect(await embedShows(model), model).toEqual(matrixSays);
  }
  await page.close();
});
