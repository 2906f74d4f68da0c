/**
 * A stale tag: the inline snippet a dealer copied from the Script page before changing a setting
 * requests the header creative while the page parses, and the main script, served with the
 * settings of the dealer's later version, asks for the header again. Both must be the same URL,
 * or the page's largest element crosses the network twice (and its swap may shift the layout).
 * Downloads are counted where they arrive: the browser reaches the server only through a
 * counting proxy (the server's PUBLIC_ORIGIN), which no browser-cache hit reaches.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, fetchScriptInfo, freePort, launchBrowser, newPage, startDealerSite, startServer, type DealerSite, type RunningServer } from './harness';
import { siteAssets, uploadCreatives } from './page-speed';

const DEALER = 'honda-of-demo';
const SRP = '/new-inventory?new=true&model=civic';
const HEADER = '.dc-banner[data-dc-type="header"]';
/** The branding colour the dealer changes to after copying the tag (the header's surround once drawn). */
const NEW_COLOUR = '#123456';

let server: RunningServer;
let proxy: http.Server;
let site: DealerSite;
let browser: Browser;
/** Header image requests that reached the server: status and X-Banner-Model of each answer. */
const headerRequests: Array<{ status: number; model: string; url: string }> = [];

/** The configuration of the dealer's script as the server serves it now: its version and background. */
async function servedConfig(): Promise<{ version: number; background: string }> {
  const text = await (await fetch(`${server.origin}/scripts/dc-banners-${DEALER}.js`)).text();
  return { version: Number(/"version":(\d+)/.exec(text)?.[1]), background: /"background":"(#\w+)"/.exec(text)?.[1] ?? '' };
}

/** Saves the dealer's branding with another primary colour as the admin: a settings change that raises the dealer's version. */
async function changeBranding(colour: string): Promise<void> {
  const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
  const { dealer } = (await (await fetch(`${server.origin}/api/dealers/${DEALER}`, { headers: { cookie: admin } })).json()) as { dealer: { branding: Record<string, unknown> } };
  const saved = await fetch(`${server.origin}/api/admin/dealers/${DEALER}/settings`, {
    method: 'PUT',
    headers: { cookie: admin, 'content-type': 'application/json', origin: server.origin },
    body: JSON.stringify({ branding: { ...dealer.branding, primaryColor: colour } }),
  });
  expect(saved.status, await saved.text()).toBe(200);
}

/** Waits until the main script has drawn the header (its creative loaded, the slot coloured) and returns what the slot shows. */
async function headerShown(page: Page): Promise<{ href: string; src: string; background: string }> {
  await page.waitForFunction(
    (s) => {
      const el = document.querySelector<HTMLElement>(s);
      const img = el?.querySelector<HTMLImageElement>('a img');
      return !!el && !!img && img.complete && img.naturalWidth > 0 && el.style.background !== '';
    },
    HEADER,
    { timeout: 30_000 },
  );
  return page.evaluate((s) => {
    const el = document.querySelector<HTMLElement>(s)!;
    return { href: el.querySelector('a')!.href, src: el.querySelector('img')!.currentSrc, background: el.style.background };
  }, HEADER);
}

beforeAll(async () => {
  // The server names the proxy as its public origin: the tag, the script and the image URLs all point there.
  const port = await freePort();
  const publicOrigin = `http://localhost:${port}`;
  server = await startServer({ PUBLIC_ORIGIN: publicOrigin });
  proxy = http.createServer((req, res) => {
    const upstream = http.request(`${server.origin}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const url = new URL(req.url ?? '/', publicOrigin);
      if (url.pathname.endsWith('/asset') && url.searchParams.get('type') === 'header') {
        headerRequests.push({ status: answer.statusCode!, model: String(answer.headers['x-banner-model']), url: url.href });
      }
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  browser = await launchBrowser();
  await uploadCreatives(server.origin, DEALER, 'honda', 'civic', 'accord');
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await server?.stop();
});

describe('a tag copied before a settings change', () => {
  it('downloads the header creative once, shown and linked, and revalidates it on a reload', async () => {
    // The tag as the Script page hands it out now; the dealer pastes it and later changes a setting.
    const tag = await fetchScriptInfo(server.origin, DEALER);
    site = await startDealerSite(tag.scriptUrl, 'mxs-srp.html', { scriptTag: tag.scriptTag, assets: await siteAssets() });
    const pasted = await servedConfig();
    await changeBranding(NEW_COLOUR);
    const now = await servedConfig();
    expect(now.version).toBeGreaterThan(pasted.version);
    expect(now.background).toBe(NEW_COLOUR);

    // A shopper's first visit after the change: the snippet's early request is the script's.
    const page = await newPage(browser);
    await page.goto(site.origin + SRP);
    const shown = await headerShown(page);
    expect(shown.background).toBe('rgb(18, 52, 86)'); // the new settings' script drew it
    expect(headerRequests.map((r) => r.status)).toEqual([200]);
    expect(shown.src).toBe(headerRequests[0]!.url);
    // Linked to the model the image answer names.
    expect(headerRequests[0]!.model).toBe('civic');
    expect(shown.href).toBe(`${site.origin}/new-inventory?new=true&model=civic&fq=1&min-year=2003&max-year=2026`);

    // A reload finds it in the browser's cache and asks the server only whether it is still current.
    headerRequests.length = 0;
    await page.reload();
    const again = await headerShown(page);
    expect(again.src).toBe(shown.src);
    expect(headerRequests.map((r) => r.status)).toEqual([304]);
    await page.close();
  });
});
