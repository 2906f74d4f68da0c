/**
 * The first-party install (README "First-party install"): the dealer's own site serves the script,
 * the banner images and the beacons under a path of its own (`/dcb/`), through a reverse proxy to
 * the banner server, in Chromium running AdGuard's filter lists (adblock.ts) with a deployment
 * named so that the lists block it (`banners.example.test`, blocked by `://banners.$third-party`):
 * - the control: the tag as the Script page hands it out loads the script from that host, and the
 *   lists block it;
 * - through the dealer's proxy (a small node:http reverse proxy in front of the fixture site, the
 *   way the README's nginx recipe sets it up: `/dcb/*` to the banner server, without the page's
 *   cookies, with X-Forwarded-For/-Proto), the same dealer page with the tag's two edits loads the
 *   script, shows the banners from `/dcb/` and sends its beacons there; no rule meets a request
 *   of ours, and the server counts exactly the impressions the page sent.
 * Skipped, naming the reason, only when the package's rulesets are missing.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeRule, launchAdblockBrowser, rulesetsMissing, type AdblockBrowser } from './adblock';
import { patchDealerSettings, apiSignIn, beaconsOf, closeAll, creativeShown, fetchScriptInfo, freePort, recordBeacons, screenshotPath, startDealerSite, startServer, type DealerSite, type RunningServer, type ScriptInfo } from './harness';
import { siteAssets, uploadCreatives } from './page-speed';

const DEALER = 'honda-of-demo';
const SRP = '/new-inventory?new=true&model=civic';
/** Every host under it resolves to 127.0.0.1 in the test's Chromium (--host-resolver-rules). */
const TEST_DOMAIN = 'example.test';
const BLOCKED_HOST = `banners.${TEST_DOMAIN}`;
/** The dealer site's path for the banner server (README: keep it as neutral as the product's own paths). */
const PREFIX = '/dcb';
/** Chromium's error text for a request an extension refused. */
const BLOCKED = 'net::ERR_BLOCKED_BY_CLIENT';

const missing = rulesetsMissing();

/** The dealer's web server: its site, and `/dcb/*` proxied to the banner server; what it forwarded there. */
interface FrontServer {
  origin: string;
  /** The requests passed to the banner server: method, path (prefix removed) and the headers sent on. */
  forwarded: Array<{ method: string; path: string; headers: http.OutgoingHttpHeaders }>;
  close(): Promise<void>;
}

/**
 * A reverse proxy as the README's recipe sets one up on the dealer's site, in node:http: `/dcb/*`
 * goes to `product` (the prefix removed, Host set to the banner server's public `productHost`, the page's cookies
 * dropped, the client address appended to X-Forwarded-For and X-Forwarded-Proto set), everything
 * else to the dealer's own site `site`. Bodies and answers are streamed through as they are.
 */
async function startFront(site: string, product: string, productHost: string): Promise<FrontServer> {
  const forwarded: FrontServer['forwarded'] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const toProduct = url.startsWith(`${PREFIX}/`);
    const target = new URL(toProduct ? url.slice(PREFIX.length) : url, toProduct ? product : site);
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: toProduct ? productHost : target.host };
    if (toProduct) {
      delete headers.cookie;
      headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
      headers['x-forwarded-proto'] = 'http';
      forwarded.push({ method: req.method ?? 'GET', path: target.pathname + target.search, headers });
    }
    const upstream = http.request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${port}`,
    forwarded,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The Script page's tag with the README's two edits: the snippet's base and the script's address on the dealer's own path. */
function firstPartyTag(info: ScriptInfo): string {
  const path = `${PREFIX}${new URL(info.scriptUrl).pathname}`;
  return info.scriptTag.replace('<script>', `<script data-dc-base="${PREFIX}">`).replace(`src="${info.scriptUrl}"`, `src="${path}"`);
}

let browser: AdblockBrowser;
let server: RunningServer;
let publicOrigin: string;
let info: ScriptInfo;
/** The dealer's site with the standard tag (the control), and with the first-party tag behind its proxy. */
let standard: DealerSite;
let site: DealerSite;
let front: FrontServer;
let manager: string;

/** The demo dealer's impressions as its manager's analytics API reports them (the read flushes buffered events). */
async function impressions(): Promise<number> {
  const res = await fetch(`${server.origin}/api/dealers/${DEALER}/analytics?period=24h`, { headers: { cookie: manager } });
  return ((await res.json()) as { current: { impressions: number } }).current.impressions;
}

/** The page's failed requests (URL and Chromium's error text), from now on. */
function failedRequests(page: Page): Array<{ url: string; error: string }> {
  const failed: Array<{ url: string; error: string }> = [];
  page.on('requestfailed', (r) => failed.push({ url: r.url(), error: r.failure()?.errorText ?? '' }));
  return failed;
}

if (missing) {
  describe('first-party install', () => {
    it.skip(`skipped: the AdGuard rulesets are missing: ${missing}`, () => undefined);
  });
} else {
  beforeAll(async () => {
    const launching = launchAdblockBrowser([`--host-resolver-rules=MAP *.${TEST_DOMAIN} 127.0.0.1`]).then((b) => (browser = b));
    const port = await freePort();
    publicOrigin = `http://${BLOCKED_HOST}:${port}`;
    server = await startServer({ PORT: String(port), PUBLIC_ORIGIN: publicOrigin, MAX_EVENT_LOOP_DELAY_MS: '0' });
    const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
    // A public-looking host: the test speaks plain HTTP, so the dealer's requireHttps goes off.
    await patchDealerSettings(server.origin, DEALER, { requireHttps: false }, admin);
    await uploadCreatives(server.origin, DEALER, 'honda', 'civic', 'accord', admin);
    info = await fetchScriptInfo(server.origin, DEALER);
    manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
    const assets = await siteAssets();
    standard = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: info.scriptTag, assets });
    site = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: firstPartyTag(info), assets });
    front = await startFront(site.origin, server.origin, new URL(publicOrigin).host);
    await launching;
  });
  afterAll(() => closeAll(browser, front, site, standard, server));

  describe('first-party install', () => {
    it(`the control: the standard tag loads the script from ${BLOCKED_HOST}, which the lists block`, async () => {
      const page = await browser.newPage();
      const failed = failedRequests(page);
      await page.goto(standard.origin + SRP);
      await expect.poll(() => failed.filter((f) => f.url === info.scriptUrl)).toEqual([{ url: info.scriptUrl, error: BLOCKED }]);
      expect(await page.evaluate(() => typeof (window as unknown as { dcBanners?: unknown }).dcBanners)).toBe('undefined');
      await page.close();
    });

    it(`through the dealer's ${PREFIX}/ proxy: script, banners and beacons pass the lists, every impression is counted`, async () => {
      const before = await impressions();
      const earlierMatches = (await browser.matches()).length; // the control's, blocked
      const page = await browser.newPage();
      const failed = failedRequests(page);
      const beaconUrls: string[] = [];
      const toBlockedHost: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/analytics/track')) beaconUrls.push(r.url());
        if (r.url().startsWith(`${publicOrigin}/`)) toBlockedHost.push(r.url());
      });
      await recordBeacons(page);
      // The dealer's own cookie: the proxy keeps it from the banner server.
      await browser.context.addCookies([{ name: 'dealer_session', value: 'secret', url: front.origin }]);
      await page.goto(front.origin + SRP);
      expect(await creativeShown(page, 'header')).toMatch(new RegExp(`^${front.origin}${PREFIX}/api/scripts/${DEALER}/asset\\?`));
      expect(await creativeShown(page, 'primary')).toMatch(new RegExp(`^${front.origin}${PREFIX}/api/scripts/${DEALER}/asset\\?`));
      expect(await page.evaluate(() => typeof (window as unknown as { dcBanners?: unknown }).dcBanners)).toBe('object');
      // Every impression beacon the page sent went through the dealer's path and was counted, once.
      const counted = async () => {
        const sent = (await beaconsOf(page)).filter((b) => b.event === 'impression').length;
        const got = (await impressions()) - before;
        return sent > 0 && got === sent ? 'all counted' : `${got} counted of ${sent} sent`;
      };
      await expect.poll(counted).toBe('all counted');
      expect(beaconUrls.length).toBeGreaterThan(0);
      expect(beaconUrls.filter((u) => u !== `${front.origin}${PREFIX}/api/analytics/track`)).toEqual([]);
      // Nothing of ours went to the blocked host or failed, and no rule of the lists met a request of ours.
      expect(toBlockedHost).toEqual([]);
      expect(failed.filter((f) => f.url.startsWith(`${front.origin}${PREFIX}/`) || f.url.startsWith(`${publicOrigin}/`))).toEqual([]);
      const ours = (await browser.matches()).slice(earlierMatches).filter((m) => m.url.startsWith(`${front.origin}${PREFIX}/`) || m.url.startsWith(`${publicOrigin}/`));
      expect(ours.map((m) => ({ url: m.url, ...describeRule(m.rulesetId, m.ruleId) }))).toEqual([]);
      // What reached the banner server: the script, the images and the beacons, without the page's cookies.
      const paths = front.forwarded.map((f) => `${f.method} ${f.path.split('?')[0]}`);
      expect(paths).toContain(`GET /scripts/dc-banners-${DEALER}.js`);
      expect(paths).toContain(`GET /api/scripts/${DEALER}/asset`);
      expect(paths).toContain('POST /api/analytics/track');
      expect(front.forwarded.filter((f) => f.headers.cookie !== undefined)).toEqual([]);
      await page.screenshot({ path: screenshotPath('embed-first-party') });
      await page.close();
    });
  });
}
