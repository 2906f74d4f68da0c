/**
 * The dealer-sites section of `npm run bench` (`BENCH_ONLY=sites npm run bench` alone, which with
 * `--write` puts the section into docs/PERFORMANCE.md in place of its previous version): the tag
 * the Script page hands out on the fixture dealer pages the e2e tests use (tests/fixtures/dealer-site,
 * served by tests/e2e/harness.ts startDealerSite), each against the same page without our tag, in
 * Debian Chromium on the two page-speed profiles (tests/e2e/page-speed.ts DESKTOP: 1366x900, 40 ms
 * round trip; MOBILE: 390x844, Slow 4G, 4x CPU; CDP emulation), BENCH_SITES_LOADS (10) pairs per
 * page and profile, every load a cold one in a fresh browser context (page-speed.ts measureLoad).
 * The two loads of a pair run one after the other, the order alternating from pair to pair (tag
 * first, then no tag first...), so a slow moment of the shared machine touches both sides alike.
 *
 * Per page and profile: the CLS delta (with − without, per pair: median and worst pair), frames
 * that painted raw shortcode text, page errors and console errors, React hydration errors (the
 * hydrating page's recoverable errors, elsewhere React's #418/#423/#425 in the console), the FCP and
 * LCP deltas (medians of the per-pair differences); on the loads with the tag: whether each drawn
 * slot's link names the model its image answer named in X-Banner-Model, the impression beacons the
 * page sent against the impressions the server counted (read through the dealer's analytics API, as
 * the dealer sees them: the difference before and after each load) and the page views × shown slots
 * expected, and on the stale-tag page the header creative downloads (image responses reaching the
 * browser from the network in a cold context: the cache cannot hide a second, different URL).
 * The pages (each its e2e test's fixture; see PAGES): a hydrating React 19 SSR page with two client
 * navigations, a Dealer.com-style listing whose container is swapped twice by AJAX, a WordPress
 * (Dealer Inspire) page with curly-quoted shortcodes and the same with a hero carousel and 2 MB of
 * third-party scripts, the tag-manager install (and the same with
 * gtm.js blocked), a page streamed with a shortcode split across chunks, a React page that remounts
 * the subtree holding the slots, a host the dealer has not allowed, and a stale tag (copied before a
 * settings change). The tracking limits per client IP are switched off for the dealers (every
 * beacon here comes from one address, unlike a real site's shoppers).
 * `sitesBench()` returns the Markdown section; `onProgress` gets it after each page and profile
 * (a run stopped early still leaves the figures of what finished). Needs `npm run build` (the
 * server runs from dist/ when its build stamp is current, else through tsx) and Chromium.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import type { Browser, Page } from 'playwright-core';
import {
  apiSignIn,
  CHROMIUM_PATH,
  E2E_SERVER_ENTRY_ENV,
  fetchScriptInfo,
  launchBrowser,
  loadBuildStamp,
  startDealerSite,
  startServer,
  patchDealerSettings,
  type DealerSite,
  type DealerSiteOptions,
  type ScriptInfo,
} from '../tests/e2e/harness';
import { createDealer, DESKTOP, gtmContainer, measureLoad, median, MOBILE, reactBundle, siteAssets, uploadCreatives, type LoadMetrics, type Profile } from '../tests/e2e/page-speed';
import { App as SsrApp } from '../tests/fixtures/dealer-site/react-ssr-app';
import { startThirdPartyVendor, thirdPartyVars } from '../tests/e2e/third-party';
import { SLOT_SELECTOR } from '../src/embed/slots';
import { modelKey } from '../src/domain/model-keys';

/** Paired loads per page and profile. */
const LOADS = Number(process.env.BENCH_SITES_LOADS ?? 10);
/** The section's heading: `--write` replaces the section it starts. */
export const SITES_HEADING = '## Dealer sites in the wild';
const DEMO = 'honda-of-demo';
const SRP = '/new-inventory?new=true&model=civic';
/** A host the demo dealer does not list, resolved by the browser to the loopback fixture site. */
const STAGING_HOST = 'staging.hondaofdemo.test';
/** How long the stand-in GTM container runs before its tags fire (as embed-gtm.test.ts). */
const GTM_DELAY_MS = 300;
/** How long a slot shown again (remount, AJAX swap) is watched in view for a second impression: the 1 s viewability rule and a margin. */
const WATCH_MS = 1500;

/** One fixture page of the section: the page with our tag and without it, and what its loads do and expect. */
interface SitePage {
  name: string;
  /** The fixture and its e2e test, for the section's list. */
  source: string;
  dealer: string;
  info: ScriptInfo;
  withTag: DealerSite;
  without: DealerSite;
  path: string;
  /** The host the browser asks for instead of 127.0.0.1 (a host the dealer has not allowed). */
  host?: string;
  /** Page views a load makes (0: nothing may be counted). */
  views: number;
  /** measureLoad waits for the banners' images (false where our script never runs). */
  banners: boolean;
  hydrating?: boolean;
  /** Count the header creative downloads. */
  headerDownloads?: boolean;
  /** Before navigation, both sides (routes). */
  setup?: (page: Page) => Promise<void>;
  /**
   * After the load, both sides: what a shopper or the page does next (navigations, swaps,
   * remounts). `shown(view)` (tag side only, else a no-op) brings each shown slot into view and
   * waits for its impression of page view number `view`, or watches it for WATCH_MS when the
   * page view is not new.
   */
  interact?: (page: Page, shown: (view: number, watch?: boolean) => Promise<void>) => Promise<void>;
}

/** What one load with the tag saw besides LoadMetrics. */
interface TagLoad {
  m: LoadMetrics;
  pageErrors: string[];
  consoleErrors: string[];
  hydrationErrors: number;
  warnings: string[];
  /** Per drawn slot: its type, the model its link names and the model its image answer named. */
  links: Array<{ type: string; link: string; image: string }>;
  /** Impression beacons the page sent, their distinct (page view, slot) keys and page views. */
  sent: number;
  keys: number;
  pvs: number;
  /** Slots drawn at the end (their box shown), and collapsed. */
  shownSlots: number;
  collapsedSlots: number;
  /** Impressions the server counted for this load (analytics API, after − before). */
  counted: number;
  expected: number;
  headerDownloads: number;
  /** Slot waits that timed out (a slot that never got its impression). */
  timeouts: string[];
}

interface PlainLoad {
  m: LoadMetrics;
  pageErrors: string[];
}

/** One page and profile's pairs, with the machine's 1-minute load average at their start and end. */
export interface SiteResult {
  page: SitePage;
  profile: Profile;
  pairs: Array<{ with: TagLoad; without: PlainLoad }>;
  load: [number, number];
  seconds: number;
}

/** BENCH_SITES_DEBUG=1: each step of each load on stderr, with its time. */
const debug = (what: string) => void (process.env.BENCH_SITES_DEBUG && process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${what}\n`));

/** The model a dealer-site link names (mxs and custom: `model`; Dealer Inspire: `_dFR[model][0]`), as a comparison key. */
function linkModel(href: string): string {
  try {
    const u = new URL(href);
    return modelKey(u.searchParams.get('model') ?? u.searchParams.get('_dFR[model][0]') ?? '');
  } catch {
    return '';
  }
}

/** The dealer's impressions over the last 24 h as its analytics API reports them to `cookie`'s user (the read flushes buffered events). */
async function impressions(origin: string, cookie: string, dealer: string): Promise<number> {
  const res = await fetch(`${origin}/api/dealers/${dealer}/analytics?period=24h`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`analytics of ${dealer} answered ${res.status}`);
  return ((await res.json()) as { current: { impressions: number } }).current.impressions;
}

/**
 * The impression beacons a page sends, as `pv type` strings, from its requests to the track
 * endpoint (the network's view: whatever API the script sends them with).
 */
function beaconLog(page: Page): string[] {
  const keys: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'POST' || !r.url().includes('/api/analytics/track')) return;
    try {
      const b = JSON.parse(r.postData() ?? '') as { event: string; pv: string; type: string };
      if (b.event === 'impression') keys.push(`${b.pv} ${b.type}`);
    } catch {
      /* not a beacon of ours */
    }
  });
  return keys;
}

/**
 * Brings each shown slot into view in turn and waits (30 s) until the page has sent `view`
 * impressions of its type (one per page view so far); with `watch`, keeps it in view WATCH_MS
 * instead (a slot re-created in the same page view: a second impression would be a defect, and
 * only time can show there is none). Returns the slots that timed out.
 */
async function viewSlots(page: Page, beacons: string[], view: number, watch: boolean): Promise<string[]> {
  const missed: string[] = [];
  const types = await page.$$eval(SLOT_SELECTOR, (els) =>
    els.filter((el) => (el as HTMLElement).offsetHeight > 0 && el.querySelector('img')).map((el) => el.getAttribute('data-dc-type') ?? el.getAttribute('data-dc-banner') ?? ''),
  );
  for (const type of [...new Set(types)]) {
    const slot = page.locator(`.dc-banner[data-dc-type="${type}"], [data-dc-banner="${type}"]`).first();
    try {
      await slot.scrollIntoViewIfNeeded({ timeout: 10_000 });
      if (watch) await new Promise((r) => setTimeout(r, WATCH_MS));
      else {
        // Polled from Node (as harness.ts creativeShown): the page's animation frames may be slow.
        for (const deadline = Date.now() + 30_000; beacons.filter((k) => k.endsWith(` ${type}`)).length < view; ) {
          if (Date.now() > deadline) throw new Error(`no impression of ${type}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      debug(`slot ${type} view ${view}${watch ? ' watched' : ' counted'}`);
    } catch {
      debug(`slot ${type} view ${view}: timed out; beacons ${JSON.stringify(beacons)}`);
      missed.push(`${type} (view ${view})`);
    }
  }
  return missed;
}

/** One load of `p` with our tag on `profile`, with its counts (TagLoad). */
async function tagLoad(browser: Browser, origin: string, cookie: string, p: SitePage, profile: Profile): Promise<TagLoad> {
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const warnings: string[] = [];
  const imageModels = new Map<string, string>();
  let headerDownloads = 0;
  let before = 0;
  let beacons: string[] = [];
  let out: Omit<TagLoad, 'm' | 'pageErrors' | 'consoleErrors' | 'warnings' | 'headerDownloads'> | undefined;
  const timeouts: string[] = [];
  const m = await measureLoad(browser, siteUrl(p, p.withTag), profile, {
    scriptUrl: p.info.scriptUrl,
    sampleRaw: true,
    banners: p.banners,
    setup: async (page) => {
      before = await impressions(origin, cookie, p.dealer);
      page.on('pageerror', (e) => void pageErrors.push(e.message));
      page.on('console', (msg) => {
        debug(`console ${msg.type()}: ${msg.text()}`);
        if (msg.type() === 'error') consoleErrors.push(msg.text());
        if (msg.type() === 'warning' && msg.text().startsWith('dc-banners:')) warnings.push(msg.text());
      });
      page.on('response', (r) => {
        const u = new URL(r.url());
        if (u.pathname.includes('/api/')) debug(`response ${r.status()} ${r.url()}`);
        if (!u.pathname.endsWith('/asset')) return;
        imageModels.set(r.url(), r.headers()['x-banner-model'] ?? '');
        if (u.searchParams.get('type') === 'header') headerDownloads += 1;
      });
      beacons = beaconLog(page);
      await p.setup?.(page);
    },
    after: async (page) => {
      debug(`${p.name}: loaded with the tag`);
      const shown = async (view: number, watch = false) => void timeouts.push(...(await viewSlots(page, beacons, view, watch)));
      if (p.views > 0) await shown(1);
      await p.interact?.(page, shown);
      if (p.views === 0 && p.host) {
        // Not counted: wait for the console to say why (the refusal has then come back).
        for (const deadline = Date.now() + 30_000; !warnings.some((w) => w.includes('not counted')) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
      }
      debug(`${p.name}: interactions done`);
      const keys = [...beacons];
      const distinct = new Set(keys);
      // The server's count of this load, read while the page is still open (its beacons in flight arrive).
      let counted = (await impressions(origin, cookie, p.dealer)) - before;
      for (const deadline = Date.now() + 15_000; counted < distinct.size && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 250));
        counted = (await impressions(origin, cookie, p.dealer)) - before;
      }
      const slots = await page.$$eval(SLOT_SELECTOR, (els) =>
        els.map((el) => {
          const img = el.querySelector('img');
          return {
            type: el.getAttribute('data-dc-type') ?? el.getAttribute('data-dc-banner') ?? '',
            shown: (el as HTMLElement).offsetHeight > 0,
            href: el.querySelector('a')?.href ?? '',
            src: img && img.naturalWidth > 0 && getComputedStyle(img).visibility !== 'hidden' ? img.currentSrc : '',
          };
        }),
      );
      const hydration = p.hydrating ? await page.evaluate(() => ((window as unknown as { __hydrationErrors?: string[] }).__hydrationErrors ?? []).length) : 0;
      out = {
        hydrationErrors: hydration,
        links: slots.filter((s) => s.src).map((s) => ({ type: s.type, link: linkModel(s.href), image: imageModels.get(s.src) ?? '?' })),
        sent: keys.length,
        keys: distinct.size,
        pvs: new Set(keys.map((k) => k.split(' ')[0])).size,
        shownSlots: slots.filter((s) => s.shown).length,
        collapsedSlots: slots.filter((s) => !s.shown).length,
        counted,
        expected: p.views * slots.filter((s) => s.shown && s.src).length,
        timeouts,
      };
    },
  });
  const reactConsole = consoleErrors.filter((e) => /Minified React error #4(18|23|25)|hydrat/i.test(e)).length;
  return { m, pageErrors, consoleErrors, warnings, headerDownloads, ...out!, hydrationErrors: out!.hydrationErrors + (p.hydrating ? 0 : reactConsole) };
}

/** One load of `p` without our tag on `profile` (the same interactions). */
async function plainLoad(browser: Browser, p: SitePage, profile: Profile): Promise<PlainLoad> {
  const pageErrors: string[] = [];
  const m = await measureLoad(browser, siteUrl(p, p.without), profile, {
    scriptUrl: p.info.scriptUrl,
    sampleRaw: true,
    banners: false,
    setup: async (page) => {
      page.on('pageerror', (e) => void pageErrors.push(e.message));
      await p.setup?.(page);
    },
    after: (page) => p.interact?.(page, async () => undefined) ?? Promise.resolve(),
  });
  return { m, pageErrors };
}

/** The page's address as the browser asks for it (on its host, when it has one). */
function siteUrl(p: SitePage, site: DealerSite): string {
  const u = new URL(p.path, site.origin);
  if (p.host) u.hostname = p.host;
  return u.href;
}

/** Saves the dealer's branding with another primary colour as the admin (a settings change after the tag was copied). */
async function changeBranding(origin: string, cookie: string, dealer: string, colour: string): Promise<void> {
  const read = await fetch(`${origin}/api/dealers/${dealer}`, { headers: { cookie } });
  const { dealer: d } = (await read.json()) as { dealer: { branding: Record<string, unknown> } };
  const saved = await fetch(`${origin}/api/admin/dealers/${dealer}/settings`, {
    method: 'PUT',
    headers: { cookie, 'content-type': 'application/json', origin },
    body: JSON.stringify({ branding: { ...d.branding, primaryColor: colour } }),
  });
  if (saved.status !== 200) throw new Error(`changing the branding of ${dealer} answered ${saved.status}: ${await saved.text()}`);
}

/** Waits until the page's h1 reads `text` (a client navigation done). */
const heading = (page: Page, text: string) => page.locator('h1', { hasText: text }).waitFor({ timeout: 60_000 });

/** The fixture pages (see the module doc), their sites started on `origin`'s dealers. */
async function sitePages(origin: string, admin: string, sites: DealerSite[]): Promise<SitePage[]> {
  const assets = await siteAssets();
  await uploadCreatives(origin, DEMO, 'honda', 'civic', 'accord', admin);
  const toyota = (await createDealer(origin, { name: 'Toyota Inspire', manufacturer: 'toyota', provider: 'dealer-inspire', model: 'Camry' })).id;
  const stale = (await createDealer(origin, { name: 'Honda Stale Tag', manufacturer: 'honda', provider: 'mxs', model: 'civic' })).id;
  for (const d of [DEMO, toyota, stale]) await patchDealerSettings(origin, d, { rateLimitEnabled: false });
  // The stale tag: copied now, the settings changed after it was pasted.
  const staleInfo = await fetchScriptInfo(origin, stale);
  await changeBranding(origin, admin, stale, '#123456');
  const demo = await fetchScriptInfo(origin, DEMO);
  const toyotaInfo = await fetchScriptInfo(origin, toyota);
  const pair = async (info: ScriptInfo, file: string, opts: DealerSiteOptions = {}, withoutOpts: DealerSiteOptions = {}) => {
    const withTag = await startDealerSite(info.scriptUrl, file, { assets, scriptTag: info.scriptTag, ...opts });
    const without = await startDealerSite(info.scriptUrl, file, { assets, ...opts, ...withoutOpts, scriptTag: '' });
    sites.push(withTag, without);
    return { withTag, without, info };
  };

  const ssrHtml = renderToString(createElement(SsrApp, { url: `http://127.0.0.1${SRP}` }));
  const ssr = await pair(demo, 'react-srp.html', { assets: { ...assets, '/assets/react-ssr.js': await reactBundle('react-ssr.tsx') }, vars: { BUNDLE: '/assets/react-ssr.js', SSR: ssrHtml, ROOT_ATTRS: ' data-dc-hydrate' } });
  const listing = (url: URL) => ({ html: `<div class="card promo">[dc-banner type="primary"]</div><article class="card"><h3>Page ${url.searchParams.get('page')}</h3></article>` });
  const swap = await pair(demo, 'listing-swap.html', { json: { '/api/listing': { delayMs: 50, body: listing } } });
  const wp = await pair(toyotaInfo, 'dealer-inspire-srp.html');
  // The same page with a hero carousel and ~2 MB of third-party scripts from a vendor origin of its own (both sides).
  const vendor = await startThirdPartyVendor();
  sites.push(vendor);
  const wpHeavy = await pair(toyotaInfo, 'dealer-inspire-srp.html', { vars: thirdPartyVars(vendor) });
  const script = (await (await fetch(`${origin}/api/dealers/${DEMO}/script`, { headers: { cookie: admin } })).json()) as { tagManager: { tag: string; markup: string[]; css: string } };
  const tm = script.tagManager;
  const slotVars = (slot: (t: string) => string) => Object.fromEntries(['header', 'primary', 'upsell'].map((t) => [`${t.toUpperCase()}_SLOT`, slot(t)]));
  const gtm = await pair(
    demo,
    'mxs-srp.html',
    {
      // The install through the container alone: no tag in the page's <head>.
      scriptTag: '',
      vars: { TAG_MANAGER: 'yes', ...slotVars((t) => tm.markup.find((m) => m.includes(`"${t}"`))!) },
      assets: { ...assets, '/gtm.js': gtmContainer([tm.tag], GTM_DELAY_MS), '/assets/theme-banners.css': { body: tm.css, type: 'text/css; charset=utf-8' } },
    },
    // Without our install: the same container firing no tag of ours, no banner elements, no banner CSS.
    { vars: { TAG_MANAGER: 'yes', ...slotVars(() => '') }, assets: { ...assets, '/gtm.js': gtmContainer([], GTM_DELAY_MS), '/assets/theme-banners.css': { body: '', type: 'text/css; charset=utf-8' } } },
  );
  const streamed = await pair(demo, 'streamed-srp.html', { chunkDelayMs: 700 });
  const remount = await pair(demo, 'react-remount.html', { assets: { ...assets, '/assets/react-remount.js': await reactBundle('react-remount.tsx') } });
  const foreign = await pair(demo, 'mxs-srp.html');
  const staleSite = await pair(staleInfo, 'mxs-srp.html');
  const blockGtm = async (page: Page) => void (await page.route('**/gtm.js?id=GTM-*', (route) => route.abort('blockedbyclient')));

  return [
    {
      name: 'React 19 SSR, hydrated, 2 client navigations',
      source: 'react-srp.html + react-ssr.tsx, `data-dc-hydrate` (embed-hydration.test.ts); civic → Accord (pushState) → back: 3 page views',
      dealer: DEMO,
      ...ssr,
      path: SRP,
      views: 3,
      banners: true,
      hydrating: true,
      interact: async (page, shown) => {
        await page.getByRole('link', { name: 'Accord', exact: true }).click();
        await heading(page, 'Accord');
        await shown(2);
        await page.goBack();
        await heading(page, 'Civic');
        await shown(3);
      },
    },
    {
      name: 'Dealer.com-style, AJAX pagination',
      source: 'listing-swap.html (embed-pageviews.test.ts): "Page 2" and "Load more" swap the listing container (its primary shortcode) by AJAX, the second writing &page=3: one page view',
      dealer: DEMO,
      ...swap,
      path: SRP,
      views: 1,
      banners: true,
      interact: async (page, shown) => {
        for (const [button, n] of [['Page 2', 2], ['Load more', 3]] as const) {
          await page.getByRole('button', { name: button }).click();
          await page.locator(`#listing[data-page="${n}"]`).waitFor({ timeout: 60_000 });
          await shown(1, true);
        }
      },
    },
    { name: 'WordPress (Dealer Inspire), curly quotes', source: 'dealer-inspire-srp.html (page-speed.test.ts, slot-consistency.test.ts): texturized “curly” shortcodes wrapped in <p> by wpautop, a Toyota dealer', dealer: toyota, ...wp, path: '/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Camry&_dFR%5Btype%5D%5B0%5D=New', views: 1, banners: true },
    {
      name: 'WordPress, carousel + 2 MB third-party',
      source: 'dealer-inspire-srp.html with THIRD_PARTY (long-tasks.test.ts): the same page with an auto-advancing hero carousel and ~2 MB of generated third-party JavaScript from another origin (tests/e2e/third-party.ts): a blocking consent manager, a deferred slider library, an async chat widget',
      dealer: toyota,
      ...wpHeavy,
      path: '/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Camry&_dFR%5Btype%5D%5B0%5D=New',
      views: 1,
      banners: true,
    },
    { name: 'GTM install (banner elements + CSS)', source: 'mxs-srp.html with TAG_MANAGER and the stand-in gtm.js firing the Custom HTML tag 300 ms after it runs (embed-gtm.test.ts); without: the same container firing nothing, no elements, no CSS', dealer: DEMO, ...gtm, path: SRP, views: 1, banners: true },
    { name: 'GTM install, gtm.js blocked', source: 'the same, gtm.js stopped by the shopper\'s blocker on both sides: reserved empty boxes, nothing counted', dealer: DEMO, ...gtm, path: SRP, views: 0, banners: false, setup: blockGtm },
    { name: 'Streamed, shortcode split across chunks', source: 'streamed-srp.html, 700 ms between chunks (embed-pageviews.test.ts)', dealer: DEMO, ...streamed, path: SRP, views: 1, banners: true },
    {
      name: 'React 19 keyed remount',
      source: 'react-remount.tsx (embed-pageviews.test.ts): the slots\' subtree re-created after the first render and twice more: one page view',
      dealer: DEMO,
      ...remount,
      path: SRP,
      views: 1,
      banners: true,
      interact: async (page, shown) => {
        await page.locator('[data-generation="1"]').waitFor({ timeout: 60_000 });
        for (const generation of [2, 3]) {
          await page.evaluate(() => (window as unknown as { __remount: () => void }).__remount());
          await page.locator(`[data-generation="${generation}"]`).waitFor({ timeout: 60_000 });
          await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.dc-banner img')].every((i) => i.complete), undefined, { timeout: 60_000 }).catch(() => undefined);
          await shown(1, true);
        }
      },
    },
    { name: 'Host the dealer has not allowed', source: `mxs-srp.html on ${STAGING_HOST} (not in the demo dealer's allowed domains; embed-pageviews.test.ts)`, dealer: DEMO, ...foreign, path: SRP, host: STAGING_HOST, views: 0, banners: true },
    { name: 'Stale tag (settings changed after pasting)', source: 'mxs-srp.html with the tag copied before a branding change (embed-stale-tag.test.ts)', dealer: stale, ...staleSite, path: SRP, views: 1, banners: true, headerDownloads: true },
  ];
}

/**
 * Runs every page and profile (LOADS pairs each) on a server of its own and returns the section;
 * `onProgress(section)` after each page and profile. Without Chromium, a section saying so.
 */
export async function sitesBench(onProgress?: (section: string) => void): Promise<string> {
  if (!existsSync(CHROMIUM_PATH)) return `${SITES_HEADING}\n\nNot measured: no Chromium at CHROMIUM_PATH.\n`;
  const stamp = await loadBuildStamp();
  if (!stamp.buildDecision().build) process.env[E2E_SERVER_ENTRY_ENV] = 'dist';
  const started = Date.now();
  const loadStart = os.loadavg()[0]!;
  const server = await startServer({ LOG_LEVEL: 'error' });
  const browser = await launchBrowser([`--host-resolver-rules=MAP ${STAGING_HOST} 127.0.0.1`], { own: true });
  const sites: DealerSite[] = [];
  const results: SiteResult[] = [];
  try {
    const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
    const pages = await sitePages(server.origin, admin, sites);
    const only = process.env.BENCH_SITES_ONLY ? new RegExp(process.env.BENCH_SITES_ONLY, 'i') : null;
    for (const p of pages.filter((x) => !only || only.test(x.name))) {
      for (const profile of [DESKTOP, MOBILE]) {
        const t0 = Date.now();
        const load0 = os.loadavg()[0]!;
        const pairs: SiteResult['pairs'] = [];
        for (let i = 0; i < LOADS; i++) {
          // Alternate which side goes first.
          if (i % 2 === 0) {
            const w = await tagLoad(browser, server.origin, admin, p, profile);
            pairs.push({ with: w, without: await plainLoad(browser, p, profile) });
          } else {
            const wo = await plainLoad(browser, p, profile);
            pairs.push({ with: await tagLoad(browser, server.origin, admin, p, profile), without: wo });
          }
          const last = pairs.at(-1)!;
          process.stderr.write(
            `bench sites: ${p.name}, ${profile.name}, pair ${i + 1}/${LOADS}: CLS ${last.with.m.cls.toFixed(3)}/${last.without.m.cls.toFixed(3)}, FCP ${Math.round(last.with.m.fcp)}/${Math.round(last.without.m.fcp)}, sent ${last.with.sent}, counted ${last.with.counted}/${last.with.expected}${last.with.timeouts.length ? `, timeouts ${last.with.timeouts.join(', ')}` : ''}\n`,
          );
        }
        results.push({ page: p, profile, pairs, load: [load0, os.loadavg()[0]!], seconds: (Date.now() - t0) / 1000 });
        onProgress?.(sitesMarkdown(results, { done: false, seconds: (Date.now() - started) / 1000, load: [loadStart, os.loadavg()[0]!] }));
      }
    }
  } finally {
    await browser.close();
    await Promise.all(sites.map((s) => s.close()));
    await server.stop();
  }
  return sitesMarkdown(results, { done: true, seconds: (Date.now() - started) / 1000, load: [loadStart, os.loadavg()[0]!] });
}

/** The section's Markdown for `results` (`done`: every page and profile ran). */
export function sitesMarkdown(results: SiteResult[], run: { done: boolean; seconds: number; load: [number, number] }): string {
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const signed = (v: number, digits = 0) => `${v > 0 ? '+' : ''}${v.toFixed(digits)}`;
  const rows = results.map(({ page: p, profile, pairs }) => {
    const w = pairs.map((x) => x.with);
    const clsDeltas = pairs.map((x) => x.with.m.cls - x.without.m.cls);
    const clsMedian = median(clsDeltas);
    const clsWorst = Math.max(...clsDeltas);
    const raw = w.reduce((n, x) => n + x.m.rawFrames.length, 0);
    const frames = w.reduce((n, x) => n + x.m.frames, 0);
    const pageErrors = w.reduce((n, x) => n + x.pageErrors.length, 0);
    const consoleErrors = w.reduce((n, x) => n + x.consoleErrors.length, 0);
    const plainErrors = pairs.reduce((n, x) => n + x.without.pageErrors.length, 0);
    const hydration = w.reduce((n, x) => n + x.hydrationErrors, 0);
    const fcp = median(pairs.map((x) => x.with.m.fcp - x.without.m.fcp));
    const lcp = median(pairs.map((x) => x.with.m.lcp - x.without.m.lcp));
    const fcpTarget = profile.name === 'desktop' ? 16 : 50;
    const links = w.flatMap((x) => x.links);
    const linksOk = links.filter((l) => l.link === l.image && l.image !== '').length;
    const sent = w.reduce((n, x) => n + x.sent, 0);
    const counted = w.reduce((n, x) => n + x.counted, 0);
    const expected = w.reduce((n, x) => n + x.expected, 0);
    const exact = w.every((x) => x.counted === x.expected && x.sent === x.keys);
    const downloads = w.map((x) => x.headerDownloads);
    const countCell =
      p.views === 0
        ? `sent ${sent}, counted ${counted} (target 0: ${met(counted === 0)})`
        : `sent ${sent} = counted ${counted} = expected ${expected} (${w.reduce((n, x) => n + x.pvs, 0)} page views × shown slots): ${met(sent === counted && exact)}`;
    return `| ${p.name} | ${profile.name} | ${clsMedian.toFixed(3)}, worst ${clsWorst.toFixed(3)}: ${met(clsMedian <= 0.0005 && clsWorst <= 0.01)} | ${raw} of ${frames}: ${met(raw === 0)} | ${pageErrors} (console errors ${consoleErrors}; without the tag ${plainErrors}): ${met(pageErrors === 0)} | ${p.hydrating ? `${hydration}: ${met(hydration === 0)}` : `${hydration}`} | ${signed(fcp)} ms: ${met(fcp <= fcpTarget)} (≤ ${fcpTarget}) | ${signed(lcp)} ms | ${links.length ? `${linksOk} / ${links.length}: ${met(linksOk === links.length)}` : 'no slot drawn'} | ${countCell} | ${p.headerDownloads ? `${Math.min(...downloads)}–${Math.max(...downloads)} per load: ${met(downloads.every((d) => d === 1))}` : ''} |`;
  });
  const loads = results.map((r) => `${r.page.name}, ${r.profile.name}: ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} (${Math.round(r.seconds)} s)`);
  const pages = [...new Map(results.map((r) => [r.page.name, r.page])).values()];
  const misses = results.flatMap((r) => {
    const t = r.pairs.flatMap((x) => x.with.timeouts);
    return t.length ? [`${r.page.name}, ${r.profile.name}: ${t.length} slot waits timed out (${[...new Set(t)].join(', ')})`] : [];
  });
  const warnings = [...new Set(results.flatMap((r) => r.pairs.flatMap((x) => x.with.warnings.map((w) => `${r.page.name}: \`${w}\``))))];
  const slotStates = results
    .filter((r) => r.page.host || r.page.views === 0)
    .map((r) => `${r.page.name}, ${r.profile.name}: slots at the end of each load with the tag: ${[...new Set(r.pairs.map((x) => `${x.with.shownSlots} shown, ${x.with.collapsedSlots} collapsed, ${x.with.links.length} drawn`))].join('; ')}`);
  // The gtm.js-blocked page is nearly an A/A comparison: our script runs on neither side.
  const control = results.filter((r) => r.page.views === 0 && !r.page.host).map((r) => `${signed(median(r.pairs.map((x) => x.with.m.fcp - x.without.m.fcp)))} ms on ${r.profile.name}`);
  const errors = [...new Set(results.flatMap((r) => r.pairs.flatMap((x) => [...x.with.pageErrors, ...x.with.consoleErrors].map((e) => `${r.page.name}, ${r.profile.name}: ${e.slice(0, 200)}`))))].slice(0, 10);
  return `${SITES_HEADING}

${run.done ? '' : `**Partial run**: ${results.length} page × profile rows finished when this was written (the run did not complete).\n\n`}\`BENCH_ONLY=sites npm run bench\` (scripts/bench-sites.ts): the tag the Script page hands out on the e2e tests' fixture dealer pages, against the same page without it, ${LOADS} pairs of cold loads per page and profile in Debian Chromium (the two loads of a pair back to back, which goes first alternating), every load in a fresh context. Desktop: 1366x900, 40 ms request latency, 100 ms extra on our script; phone: 390x844 at 3x, Slow 4G (562.5 ms latency, 1.44 Mbit/s down), 4x CPU throttling, 300 ms extra on our script (CDP emulation, tests/e2e/page-speed.ts). After the load each side does what the page's shoppers do (navigations, swaps, remounts); on the side with the tag each drawn slot is then brought into view until its impression is sent. Deltas are with − without per pair (CLS: median and worst pair; FCP, LCP: medians). Raw frames: animation frames whose text showed a \`[dc-banner\` shortcode, of the frames sampled. Link model: drawn slots whose link names the model their image answer named in X-Banner-Model. Impressions: beacons the pages sent, impressions the server counted (the dealer's analytics API, read before and after each load) and page views × drawn slots; met when all three agree in every load (exactly one per page view and slot). The tracking limits per client IP are off for these dealers (every beacon comes from one address). Run: ${Math.round(run.seconds / 60)} min; 1-minute load average ${run.load[0].toFixed(1)} at the start, ${run.load[1].toFixed(1)} at the end (2 cores, shared with other work).

| page | profile | CLS Δ median, worst (0.000, ≤ 0.01) | raw frames (0) | page errors (0) | React hydration errors (0 on the hydrating page) | FCP Δ | LCP Δ (no target) | link model = X-Banner-Model | impressions (exactly 1 per page view and slot) | header downloads (1) |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Pages:
${pages.map((p) => `- ${p.name}: ${p.source}.`).join('\n')}

${control.length ? `The FCP Δ of the row with gtm.js blocked (${control.join(', ')}) shows how far the machine's load moves an FCP Δ here: our script runs on neither side of it (they differ only by the three empty banner elements and their CSS).\n\n` : ''}Load average per row (start → end, duration): ${loads.join('; ')}.
${slotStates.length ? `\n${slotStates.map((s) => `- ${s}`).join('\n')}\n` : ''}${warnings.length ? `\nConsole warnings of ours:\n${warnings.map((w) => `- ${w}`).join('\n')}\n` : ''}${misses.length ? `\nSlot waits that timed out:\n${misses.map((m) => `- ${m}`).join('\n')}\n` : ''}${errors.length ? `\nErrors seen with the tag (first 10):\n${errors.map((e) => `- ${e}`).join('\n')}\n` : ''}`;
}

/** Puts `section` (starting with SITES_HEADING) into docs/PERFORMANCE.md in place of the previous one, or at the end. */
export function writeSitesSection(section: string, file = path.resolve('docs/PERFORMANCE.md')): void {
  const doc = readFileSync(file, 'utf8');
  const start = doc.indexOf(`${SITES_HEADING}\n`);
  if (start < 0) return writeFileSync(file, `${doc.trimEnd()}\n\n${section.trimEnd()}\n`);
  const next = doc.indexOf('\n## ', start + SITES_HEADING.length);
  writeFileSync(file, `${doc.slice(0, start)}${section.trimEnd()}\n${next < 0 ? '' : doc.slice(next)}`);
}
