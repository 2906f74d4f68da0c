/**
 * Ad blockers as a test: the embed on a dealer's page in Chromium running AdGuard's filter lists
 * (Base with EasyList, Tracking Protection, Social Media, Annoyances; adblock.ts), the dealer's
 * site on another site than the banner server, as in production (rules with `$third-party` apply):
 * - the extension is active (every ruleset enabled, and a request the lists block is blocked), so
 *   nothing below passes because nothing was filtered;
 * - on the default deployment (localhost) and on a production-like host name (`dcb.example.test`,
 *   the server's PUBLIC_ORIGIN): the script loads, the banners show, every impression beacon the
 *   page sends is counted by the server, and no request of ours meets a rule;
 * - a deployment named `banners.example.test`: its script, images and beacons are blocked; the page
 *   shows no raw shortcode text, and the snippet's reserved boxes stay (empty);
 * - which generic names the lists block, by resource (script, banner image, impression beacon,
 *   click beacon) and rule, logged as a table (README "Naming the deployment"), and that the
 *   naming check (src/domain/blocklist-names.ts) warns about every one of them.
 * Skipped, naming the reason, only when the package's rulesets are missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { blocklistMatch, publicAddresses } from '../../src/domain/blocklist-names';
import { ADGUARD_LISTS, describeRule, launchAdblockBrowser, rulesetsMissing, rulesetsVersion, type AdblockBrowser } from './adblock';
import { patchDealerSettings, apiSignIn, beaconsOf, closeAll, creativeShown, fetchScriptInfo, freePort, recordBeacons, screenshotPath, startDealerSite, startServer, type DealerSite, type RunningServer, type ScriptInfo } from './harness';
import { observeLoad, rawTextFrames, siteAssets, uploadCreatives } from './page-speed';

const DEALER = 'honda-of-demo';
const SRP = '/new-inventory?new=true&model=civic';
/** Every host under it resolves to 127.0.0.1 in the test's Chromium (--host-resolver-rules). */
const TEST_DOMAIN = 'example.test';
/** A neutral production-like name, and one the lists block by its first label. */
const PRODUCTION_HOST = `dcb.${TEST_DOMAIN}`;
const BLOCKED_HOST = `banners.${TEST_DOMAIN}`;

/** Chromium's error text for a request an extension refused. */
const BLOCKED = 'net::ERR_BLOCKED_BY_CLIENT';

const missing = rulesetsMissing();

/** A product server whose PUBLIC_ORIGIN is `http://{host}:{port}` (localhost: the default), with the demo dealer's creatives and tag. */
interface Deployment {
  server: RunningServer;
  publicOrigin: string;
  info: ScriptInfo;
  site: DealerSite;
  cookie?: string;
}

let browser: AdblockBrowser;
const deployments: Record<'default' | 'production' | 'blocked', Deployment> = {} as never;

/**
 * Starts a server for `host` (undefined: the default, localhost) with the demo dealer's Civic
 * creatives, and the fixture mxs search page with its tag on 127.0.0.1 (another site). On a
 * public-looking host the dealer's requireHttps is switched off: the test speaks plain HTTP.
 */
async function deploy(host?: string): Promise<Deployment> {
  const port = await freePort();
  const publicOrigin = `http://${host ?? 'localhost'}:${port}`;
  // No load shedding (as the shared servers): three starting at once on a busy machine lag their
  // event loops, and this file tests the filter lists, not the server's back-pressure.
  const server = await startServer({ PORT: String(port), PUBLIC_ORIGIN: publicOrigin, MAX_EVENT_LOOP_DELAY_MS: '0' });
  try {
    const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
    if (host) await patchDealerSettings(server.origin, DEALER, { requireHttps: false }, admin);
    await uploadCreatives(server.origin, DEALER, 'honda', 'civic', 'accord', admin);
    const info = await fetchScriptInfo(server.origin, DEALER);
    const site = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: info.scriptTag, assets: await siteAssets() });
    return { server, publicOrigin, info, site };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** The demo dealer's impressions as its manager's analytics API reports them (the read flushes buffered events). */
async function impressions(d: Deployment): Promise<number> {
  d.cookie ??= await apiSignIn(d.server.origin, 'manager@hondaofdemo.com', 'manager123');
  const res = await fetch(`${d.server.origin}/api/dealers/${DEALER}/analytics?period=24h`, { headers: { cookie: d.cookie } });
  return ((await res.json()) as { current: { impressions: number } }).current.impressions;
}

/** The page's failed requests (URL and Chromium's error text), from now on. */
function failedRequests(page: Page): Array<{ url: string; error: string }> {
  const failed: Array<{ url: string; error: string }> = [];
  page.on('requestfailed', (r) => failed.push({ url: r.url(), error: r.failure()?.errorText ?? '' }));
  return failed;
}

/** The extension's recorded rules that decided a request to `origin`, described. */
async function rulesFor(origin: string): Promise<Array<{ url: string; type: string; list: string; action: string; pattern: string }>> {
  return (await browser.matches()).filter((m) => m.url.startsWith(`${origin}/`)).map((m) => ({ url: m.url, type: m.type, ...describeRule(m.rulesetId, m.ruleId) }));
}

if (missing) {
  describe('embed under ad blockers', () => {
    it.skip(`skipped: the AdGuard rulesets are missing: ${missing}`, () => undefined);
  });
} else {
  beforeAll(async () => {
    // Three servers and the browser at once: each start waits mostly on its own process.
    const launched = Date.now();
    const launching = launchAdblockBrowser([`--host-resolver-rules=MAP *.${TEST_DOMAIN} 127.0.0.1`]).then((b) => ((browser = b), Date.now() - launched));
    const started = await Promise.allSettled([deploy(), deploy(PRODUCTION_HOST), deploy(BLOCKED_HOST), launching]);
    const [def, production, blocked] = started.slice(0, 3).map((s) => (s.status === 'fulfilled' ? (s.value as Deployment) : undefined));
    Object.assign(deployments, { default: def, production, blocked });
    const failure = started.find((s) => s.status === 'rejected');
    if (failure) throw (failure as PromiseRejectedResult).reason;
    console.log(`AdGuard rulesets ${rulesetsVersion()} (${ADGUARD_LISTS.map((l) => l.name).join(', ')}): Chromium with the extension ready in ${(started[3] as PromiseFulfilledResult<number>).value} ms`);
  });
  afterAll(() => closeAll(browser, Object.values(deployments).map((d) => d?.site).filter((s) => s !== undefined), Object.values(deployments).map((d) => d?.server).filter((s) => s !== undefined)));

  describe('embed under ad blockers', () => {
    it('the extension is active: every list enabled, and a script from a banners. host is blocked by a rule of AdGuard Base', async () => {
      expect((await browser.enabledRulesets()).sort()).toEqual(ADGUARD_LISTS.map((l) => `ruleset_${l.id}`).sort());
      const page = await browser.newPage();
      const failed = failedRequests(page);
      const site = deployments.default.site;
      await page.goto(`${site.origin}/`);
      const probe = `http://${BLOCKED_HOST}:${new URL(site.origin).port}/probe.js`;
      await page.evaluate((src) => new Promise((resolve) => document.head.append(Object.assign(document.createElement('script'), { src, onload: resolve, onerror: resolve }))), probe);
      expect(failed).toContainEqual({ url: probe, error: BLOCKED });
      await expect.poll(async () => (await rulesFor(new URL(probe).origin)).filter((r) => r.url === probe).map((r) => `${r.list}: ${r.action} ${r.pattern}`)).toEqual([`${ADGUARD_LISTS[0]!.name}: block ://banners.$third-party`]);
      await page.close();
    });

    for (const name of ['default', 'production'] as const) {
      it(`${name === 'default' ? 'the default deployment (localhost)' : `a production host name (${PRODUCTION_HOST})`}: the script loads, the banners show, every impression is counted, no rule meets our requests`, async () => {
        const d = deployments[name];
        const before = await impressions(d);
        const page = await browser.newPage();
        const failed = failedRequests(page);
        await recordBeacons(page);
        await page.goto(d.site.origin + SRP);
        expect(await creativeShown(page, 'header')).toMatch(new RegExp(`^${d.publicOrigin}/api/scripts/${DEALER}/asset\\?`));
        await creativeShown(page, 'primary');
        expect(await page.evaluate(() => typeof (window as unknown as { dcBanners?: unknown }).dcBanners)).toBe('object'); // the script ran
        // Every impression beacon the page sent reached the server and was counted.
        const counted = async () => {
          const sent = (await beaconsOf(page)).filter((b) => b.event === 'impression').length;
          const got = (await impressions(d)) - before;
          return sent > 0 && got === sent ? 'all counted' : `${got} counted of ${sent} sent`;
        };
        await expect.poll(counted).toBe('all counted');
        expect(failed.filter((f) => f.url.startsWith(`${d.publicOrigin}/`))).toEqual([]);
        expect(await rulesFor(d.publicOrigin)).toEqual([]);
        await page.close();
      });
    }

    it(`a deployment named ${BLOCKED_HOST}: script, images and beacons blocked; no raw shortcode shows, the reserved boxes stay empty`, async () => {
      const d = deployments.blocked;
      const before = await impressions(d);
      const page = await browser.newPage();
      const failed = failedRequests(page);
      await recordBeacons(page);
      await observeLoad(page, { sampleRaw: true });
      await page.goto(d.site.origin + SRP);
      await expect.poll(() => failed.filter((f) => f.url === d.info.scriptUrl)).toEqual([{ url: d.info.scriptUrl, error: BLOCKED }]);
      // The snippet's early header request is blocked too, and its image removed (no broken-image icon).
      await expect.poll(() => failed.filter((f) => f.url.startsWith(`${d.publicOrigin}/api/scripts/${DEALER}/asset?`)).map((f) => f.error)).toContain(BLOCKED);
      await expect.poll(() => page.locator('.dc-banner img').count()).toBe(0);
      await page.waitForLoadState('load');
      const rules = await rulesFor(d.publicOrigin);
      console.log(`blocked on ${BLOCKED_HOST}:\n${rules.map((r) => `  ${r.type} ${new URL(r.url).pathname}: ${r.list}, ${r.action} ${r.pattern}`).join('\n')}`);
      expect(new Set(rules.map((r) => r.pattern))).toEqual(new Set(['://banners.$third-party']));
      expect(await page.evaluate(() => typeof (window as unknown as { dcBanners?: unknown }).dcBanners)).toBe('undefined');
      // What the shopper sees today: the snippet's boxes, reserved and empty (the header's in view).
      const frames = await rawTextFrames(page);
      expect(frames.frames).toBeGreaterThan(0);
      expect(frames.raw).toEqual([]);
      expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/\[dc-banner/i);
      const slots = await page.$$eval('.dc-banner', (els) => els.map((el) => ({ type: (el as HTMLElement).dataset.dcType, height: el.getBoundingClientRect().height, display: getComputedStyle(el).display })));
      expect(slots.map((s) => s.type).sort()).toEqual(['header', 'primary', 'upsell']);
      for (const s of slots) expect(s.display, s.type).not.toBe('none');
      expect(slots.find((s) => s.type === 'header')!.height).toBeGreaterThan(150);
      await page.screenshot({ path: screenshotPath('embed-adblock-banners-host') });
      expect(await beaconsOf(page)).toEqual([]);
      expect(await impressions(d)).toBe(before);
      await page.close();
    });

    it('which generic names the lists block, per resource and rule (logged), and the naming check warns about each', async () => {
      const site = deployments.default.site;
      const port = new URL(site.origin).port;
      const neutral = `http://${PRODUCTION_HOST}:${port}`;
      // A deployment's public origin under each name: a host's first label, a reverse-proxy path
      // prefix, a file name for the script.
      const candidates: Array<{ name: string; origin: string; script?: string }> = [
        ...['dcb', 'media', 'banners', 'banner', 'ads', 'ad', 'adserver', 'track', 'tracking', 'analytics', 'stats', 'pixel'].map((label) => ({ name: `${label}.`, origin: `http://${label}.${TEST_DOMAIN}:${port}` })),
        ...['banner', 'banners', 'ads', 'ad', 'adserver'].map((dir) => ({ name: `/${dir}/`, origin: `${neutral}/${dir}` })),
        ...['tracking.js', 'analytics.js', 'promo.js'].map((file) => ({ name: `/${file}`, origin: neutral, script: `${neutral}/${file}` })),
      ];
      const page = await browser.newPage();
      await page.goto(`${site.origin}/`);
      const outcome = new Map<string, string>();
      const key = (url: string, kind: string) => `${kind} ${url}`;
      const failureOutcome = (error = '') => (error === BLOCKED ? 'blocked' : 'passes');
      const kindOf = (t: string) => ({ script: 'script', image: 'image', fetch: 'beacon', ping: 'click' })[t];
      // Blocked = refused by the extension (its own error text). The fixture site answers every
      // path with its HTML page, which Chromium then refuses to the page as an image, a script or a
      // no-cors fetch (opaque-response blocking, reported as another error): that request was sent.
      page.on('requestfinished', (r) => void (kindOf(r.resourceType()) && outcome.set(key(r.url(), kindOf(r.resourceType())!), 'passes')));
      page.on('requestfailed', (r) => void (kindOf(r.resourceType()) && outcome.set(key(r.url(), kindOf(r.resourceType())!), failureOutcome(r.failure()?.errorText))));
      const probes = candidates.map((c) => {
        const a = publicAddresses(c.origin, DEALER);
        return { ...c, script: c.script ?? a.script, image: `${a.image}?model=civic&type=header&variant=desktop&r=0`, beacon: a.beacon };
      });
      await page.evaluate((list) => {
        for (const p of list) {
          document.head.append(Object.assign(document.createElement('script'), { src: p.script }));
          document.body.append(Object.assign(new Image(), { src: p.image }));
          // Without keepalive: Chromium hands a keepalive request to the browser process, and the page sees it aborted.
          fetch(p.beacon, { method: 'POST', body: '{}', mode: 'no-cors', credentials: 'omit' }).catch(() => undefined);
          navigator.sendBeacon(p.beacon, '{}');
        }
      }, probes);
      const expected = probes.flatMap((p) => [key(p.script, 'script'), key(p.image, 'image'), key(p.beacon, 'beacon'), key(p.beacon, 'click')]);
      await expect.poll(() => expected.filter((k) => !outcome.has(k))).toEqual([]);
      const matches = await browser.matches();
      const rows = probes.map((p) => {
        const blocked = (['script', 'image', 'beacon', 'click'] as const).filter((kind) => outcome.get(key(kind === 'click' ? p.beacon : p[kind], kind)) === 'blocked');
        const rules = [...new Set(matches.filter((m) => [p.script, p.image, p.beacon].includes(m.url)).map((m) => describeRule(m.rulesetId, m.ruleId)).filter((r) => r.action !== 'allow').map((r) => `${r.pattern} (${r.list})`))];
        const warned = [p.script, p.image, p.beacon].some((url) => blocklistMatch(url) !== null);
        return { name: p.name, blocked, rules, warned };
      });
      console.log(
        ['| name | blocked | by rule (list) | naming check warns |', '|---|---|---|---|', ...rows.map((r) => `| \`${r.name}\` | ${r.blocked.join(', ') || 'nothing'} | ${r.rules.map((x) => `\`${x}\``).join('<br>') || '-'} | ${r.warned ? 'yes' : 'no'} |`)].join('\n'),
      );
      await page.close();
      // The neutral names pass whole; what the lists block, the naming check warns about.
      expect(rows.filter((r) => r.name === 'dcb.' || r.name === 'media.').map((r) => r.blocked)).toEqual([[], []]);
      expect(rows.find((r) => r.name === 'banners.')!.blocked).toEqual(['script', 'image', 'beacon', 'click']);
      expect(rows.filter((r) => r.blocked.length && !r.warned).map((r) => r.name)).toEqual([]);
    });
  });
}
