/**
 * In a real browser: a page on another port of the same host (same site, so
 * SameSite=Lax session cookies go along) auto-submits multipart forms to the inventory apply and
 * asset upload routes while the dealer manager is signed in: both are refused with 403 and the
 * dealer's inventory and assets are unchanged. The same page frames the dealer script page
 * (/scripts/honda-of-demo): the frame is blocked by frame-ancestors / X-Frame-Options. The app's
 * own pages and its own uploads keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { apiSignIn, freePort, launchBrowser, newPage, screenshotPath, signInThroughForm, startServer, type RunningServer } from './harness';
import { makeBanner } from '../fixtures/images';

const DEALER = 'honda-of-demo';
let server: RunningServer;
let browser: Browser;
let page: Page;
let attacker: http.Server;
let attackerOrigin: string;
let cookie: string;

/** The attacker's page: forms that post a forged inventory file and banner, and a frame of the script page. */
function attackerPage(appOrigin: string, bannerBase64: string): string {
  return `<!doctype html><html><head><title>Totally unrelated page</title></head><body>
<h1>Win a car</h1>
<iframe name="sink1" id="sink1"></iframe><iframe name="sink2" id="sink2"></iframe>
<form id="inventory" method="POST" enctype="multipart/form-data" target="sink1" action="${appOrigin}/api/dealers/${DEALER}/inventory">
  <input type="file" name="file">
</form>
<form id="asset" method="POST" enctype="multipart/form-data" target="sink2" action="${appOrigin}/api/dealers/${DEALER}/assets">
  <input type="file" name="file">
</form>
<iframe id="framed" src="${appOrigin}/scripts/${DEALER}" width="900" height="500"></iframe>
<script>
  function put(formId, file) {
    const dt = new DataTransfer();
    dt.items.add(file);
    document.querySelector('#' + formId + ' input').files = dt.files;
    document.getElementById(formId).submit();
  }
  const csv = 'VIN,Stock,Year,Make,Model,Trim,IsNew,DaysOnLot\\nFAKEVIN0000000001,X1,2025,Honda,Odyssey,Elite,true,1\\n';
  put('inventory', new File([csv], 'forged.csv', { type: 'text/csv' }));
  const bytes = Uint8Array.from(atob('${bannerBase64}'), (c) => c.charCodeAt(0));
  put('asset', new File([bytes], 'new_2025_honda_odyssey_elite_1920x300.jpg', { type: 'image/jpeg' }));
</script>
</body></html>`;
}

async function dealerState() {
  const get = async (p: string) => (await fetch(`${server.origin}/api/dealers/${DEALER}/${p}`, { headers: { cookie } })).json();
  const inventory = (await get('inventory')).inventory as { lastUpdated?: string; totalVehicles?: number } | null;
  const assets = ((await get('assets')).assets as Array<{ name: string }>).map((a) => a.name).sort();
  return { inventory: JSON.stringify(inventory), assets };
}

async function signIn() {
  await signInThroughForm(page, server.origin, 'manager@hondaofdemo.com', 'manager123');
  await page.getByText('Welcome back, Morgan Manager!').waitFor();
}

beforeAll(async () => {
  server = await startServer();
  cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  // A real inventory and banner first, so "unchanged" means something.
  const form = new FormData();
  form.append('file', new Blob([readFileSync(path.resolve('tests/fixtures/inventory/honda-inventory.csv'))], { type: 'text/csv' }), 'honda-inventory.csv');
  const applied = await fetch(`${server.origin}/api/dealers/${DEALER}/inventory`, { method: 'POST', headers: { cookie, origin: server.origin }, body: form });
  expect(applied.status).toBe(200);
  const banner = new FormData();
  banner.append('file', new Blob([new Uint8Array(await makeBanner(1920, 300))], { type: 'image/jpeg' }), 'new_2025_honda_civic_sport_1920x300.jpg');
  expect((await fetch(`${server.origin}/api/dealers/${DEALER}/assets`, { method: 'POST', headers: { cookie, origin: server.origin }, body: banner })).status).toBe(200);

  const port = await freePort();
  attackerOrigin = `http://localhost:${port}`;
  const html = attackerPage(server.origin, (await makeBanner(1920, 300)).toString('base64'));
  attacker = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((r) => attacker.listen(port, '127.0.0.1', r));
  browser = await launchBrowser();
  page = await newPage(browser);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (attacker ? attacker.close(() => r()) : r()));
  await server?.stop();
});

describe('cross-site requests and framing from another port of the same host (§12)', () => {
  it('a signed-in manager visiting the attacker page: the forged inventory apply and upload are refused, nothing changes, the framed script page is blocked', async () => {
    expect(new URL(attackerOrigin).hostname).toBe(new URL(server.origin).hostname); // same site, other port
    await signIn();
    const before = await dealerState();
    expect(before.assets).toContain('new_2025_honda_civic_sport_1920x300.jpg');
    expect(before.inventory).not.toBe('null');

    const refused: Response[] = [];
    const messages: string[] = [];
    page.on('console', (m) => messages.push(m.text()));
    const posts = ['inventory', 'assets'].map((route) =>
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${server.origin}/api/dealers/${DEALER}/${route}`),
    );
    await page.goto(attackerOrigin);
    for (const res of await Promise.all(posts)) refused.push(res);
    for (const res of refused) {
      expect(res.status(), res.url()).toBe(403);
    }
    // The 403 bodies are not readable (their frames are blocked by the responses' own X-Frame-Options);
    // the server's log says why it refused: same-site requests that did carry the session cookie.
    await expect.poll(() => server.output().match(/cross-site request refused/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    const refusals = server.output().split('\n').filter((l) => l.includes('cross-site request refused'));
    for (const route of ['inventory', 'assets']) {
      const line = refusals.find((l) => l.includes(`/api/dealers/${DEALER}/${route}"`));
      expect(line, route).toBeDefined();
      expect(line).toContain('Sec-Fetch-Site: same-site');
      expect(line).toContain('"withSessionCookie":true');
    }

    // The framed dealer script page does not render inside the attacker's page.
    const framed = await (await page.$('#framed'))!.contentFrame();
    expect(framed).not.toBeNull();
    await expect.poll(() => framed!.url(), { timeout: 10_000 }).toMatch(/^chrome-error:/);
    expect(await framed!.locator('#root').count()).toBe(0);
    expect(messages.some((t) => /frame-ancestors|X-Frame-Options/i.test(t))).toBe(true);
    await page.screenshot({ path: screenshotPath('90-csrf-attacker-page'), fullPage: true });

    const after = await dealerState();
    expect(after).toEqual(before);
  });

  it("the app's own pages and its own upload still work in the same browser", async () => {
    await page.goto(`${server.origin}/scripts/${DEALER}`);
    await page.getByRole('heading', { name: 'Honda of Demo' }).waitFor();
    const status = await page.evaluate(async (dealer) => {
      const form = new FormData();
      const canvas = document.createElement('canvas');
      canvas.width = 1920;
      canvas.height = 300;
      const blob = await new Promise<Blob>((r) => canvas.toBlob((b) => r(b!), 'image/jpeg'));
      form.append('file', blob, 'new_2025_honda_accord_sport_1920x300.jpg');
      const res = await fetch(`/api/dealers/${dealer}/assets`, { method: 'POST', body: form });
      return res.status;
    }, DEALER);
    expect(status).toBe(200);
    expect((await dealerState()).assets).toContain('new_2025_honda_accord_sport_1920x300.jpg');
    await page.screenshot({ path: screenshotPath('91-script-page-own-origin'), fullPage: true });
  });
});
