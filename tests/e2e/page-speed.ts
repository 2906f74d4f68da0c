/**
 * Page-speed measurement of the embed tag on fixture dealer sites (issue 13), shared by the e2e
 * tests (tests/e2e/page-speed.test.ts, long-tasks.test.ts) and `npm run bench`: the two emulated
 * profiles, the fixture sites' assets (web font, vehicle photos, the React bundle), the demo
 * creatives, and `measureLoad`, one cold load in a fresh browser context that reports CLS, FCP, LCP,
 * when the first slot existed, whether raw shortcode text was ever painted, and long tasks.
 */
import path from 'node:path';
import { build } from 'esbuild';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { apiSignIn, DESKTOP_UA, fixtureFont, type SiteAsset } from './harness';
import { makeBanner, multipartBody } from '../fixtures/images';

/** An emulated device and network (Chrome DevTools Protocol), plus the extra delay on our script. */
export interface Profile {
  name: 'desktop' | 'mobile';
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  userAgent: string;
  /** Network.emulateNetworkConditions: request latency (ms) and throughput (bytes/s, -1 unlimited). */
  latencyMs: number;
  downloadBps: number;
  uploadBps: number;
  /** Emulation.setCPUThrottlingRate (1 = none). */
  cpuRate: number;
  /** Extra delay before our script's request goes out (a slow or far-away banner server). */
  scriptDelayMs: number;
}

/** Desktop: 1366x900, 40 ms round trip, unthrottled bandwidth and CPU, 100 ms extra on our script. */
export const DESKTOP: Profile = {
  name: 'desktop',
  viewport: { width: 1366, height: 900 },
  deviceScaleFactor: 1,
  isMobile: false,
  userAgent: DESKTOP_UA,
  latencyMs: 40,
  downloadBps: -1,
  uploadBps: -1,
  cpuRate: 1,
  scriptDelayMs: 100,
};

/**
 * Mobile: 390x844 at 3x, DevTools' "Slow 4G" preset (562.5 ms request latency, 1.6 Mbit/s × 0.9
 * down, 750 kbit/s × 0.9 up, the values Lighthouse's devtools throttling uses), 4x CPU slowdown,
 * 300 ms extra on our script.
 */
export const MOBILE: Profile = {
  name: 'mobile',
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
  latencyMs: 562.5,
  downloadBps: (1.6e6 / 8) * 0.9,
  uploadBps: (750e3 / 8) * 0.9,
  cpuRate: 4,
  scriptDelayMs: 300,
};

/** Vehicle photos of the fixture search pages (/assets/vehicles/{n}.jpg, 480x360 JPEGs), generated with sharp. */
async function vehiclePhotos(count: number): Promise<Record<string, SiteAsset>> {
  const colours = ['#8a1c1c', '#1c3f8a', '#4b4f54', '#d9d9d9', '#2f6b3a', '#b5651d'];
  const photos: Record<string, SiteAsset> = {};
  for (let i = 1; i <= count; i++) {
    const c = colours[i % colours.length]!;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#e8edf2"/><stop offset="1" stop-color="#9aa5b1"/></linearGradient></defs><rect width="480" height="360" fill="url(#g)"/><rect x="60" y="170" width="360" height="90" rx="40" fill="${c}"/><rect x="130" y="120" width="200" height="70" rx="30" fill="${c}"/><circle cx="140" cy="262" r="34" fill="#222"/><circle cx="340" cy="262" r="34" fill="#222"/><text x="20" y="340" font-size="18" font-family="Arial" fill="#333">Stock photo ${i}</text></svg>`;
    photos[`/assets/vehicles/${i}.jpg`] = { body: await sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer(), type: 'image/jpeg' };
  }
  return photos;
}

/** The static assets every fixture dealer site serves: web font, stylesheets, page scripts, vehicle photos. */
export async function siteAssets(): Promise<Record<string, SiteAsset>> {
  return {
    '/assets/dealer-sans.ttf': fixtureFont(),
    '/assets/mxs.css': 'mxs.css',
    '/assets/mxs-srp.js': 'mxs-srp.js',
    '/assets/spa.js': 'spa.js',
    ...(await vehiclePhotos(12)),
  };
}

/** tests/fixtures/dealer-site/react-srp.tsx bundled with esbuild (React 19, production build), as a site asset. */
export async function reactBundle(): Promise<SiteAsset> {
  const out = await build({
    entryPoints: [path.resolve('tests/fixtures/dealer-site/react-srp.tsx')],
    bundle: true,
    write: false,
    format: 'iife',
    minify: true,
    jsx: 'automatic',
    target: 'es2020',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return { body: Buffer.from(out.outputFiles[0]!.contents), type: 'text/javascript; charset=utf-8' };
}

/**
 * Uploads real JPEG creatives for `model` (header desktop 1920x300 and mobile 600x500, inline
 * 350x564) and an inline creative for its upsell target, as the dealer's manager would. File names
 * follow the asset naming convention: new_2025_{make}_{model}_{trim}_{w}x{h}.jpg.
 */
export async function uploadCreatives(origin: string, dealerId: string, make: string, model: string, upsell: string, cookie?: string): Promise<void> {
  const session = cookie ?? (await apiSignIn(origin, 'admin@dc-banners.com', 'admin123'));
  const name = (m: string, size: string) => `new_2025_${make}_${m.toLowerCase()}_base_${size}.jpg`;
  const files = [
    { filename: name(model, '1920x300'), data: await makeBanner(1920, 300, 'jpeg', '#b00020') },
    { filename: name(model, '600x500'), data: await makeBanner(600, 500, 'jpeg', '#b00020') },
    { filename: name(model, '350x564'), data: await makeBanner(350, 564, 'jpeg', '#00579b') },
    { filename: name(upsell, '350x564'), data: await makeBanner(350, 564, 'jpeg', '#2e7d32') },
  ];
  const { body, contentType } = multipartBody(files);
  const res = await fetch(`${origin}/api/dealers/${dealerId}/assets`, { method: 'POST', headers: { cookie: session, origin, 'content-type': contentType }, body: new Uint8Array(body) });
  const result = (await res.json()) as { results?: Array<{ ok: boolean; error?: string }> };
  if (res.status !== 200 || !result.results?.every((r) => r.ok)) throw new Error(`creative upload answered ${res.status}: ${JSON.stringify(result)}`);
}

/** One layout shift as the page reported it. */
export interface Shift {
  value: number;
  startTime: number;
  sources: string[];
}

/** What one load measured (times in ms from navigation start). */
export interface LoadMetrics {
  /** Sum of the layout shifts without recent input over the whole load (banners loaded and counted). */
  cls: number;
  shifts: Shift[];
  fcp: number;
  lcp: number;
  /** The LCP element, as tag.class. */
  lcpElement: string;
  /** When the first `.dc-banner` slot was in the document (Infinity: never). */
  firstSlotAt: number;
  /** Animation frames sampled, and the times of those whose body text showed a raw shortcode. */
  frames: number;
  rawFrames: number[];
  /** Our script's responseEnd (resource timing), or null when it did not load. */
  scriptLoadedAt: number | null;
  /** Long tasks (> 50 ms) and the part of each spent in our code (its MutationObserver callbacks and script evaluation). */
  longTasks: Array<{ start: number; duration: number; ours: number }>;
  /** The longest single stretch of our code (one observer callback or the script's evaluation), ms. */
  longestOurs: number;
  /** Elements in the document at the end. */
  elements: number;
}

/** Options of one measured load. */
export interface LoadOptions {
  /** Our script's URL: delayed by profile.scriptDelayMs, or aborted with `failScript`. */
  scriptUrl?: string;
  /** The script request fails (server down, ad blocker). */
  failScript?: boolean;
  /** Wait for the banners (default with a working scriptUrl); false for the page without our tag. */
  banners?: boolean;
  /** Sample every animation frame for raw shortcode text (forces a layout per frame). */
  sampleRaw?: boolean;
  /** Observe long tasks and time our code's observer callbacks. */
  longTasks?: boolean;
  /** Called with the page before it navigates (routes, init scripts). */
  setup?: (page: Page) => Promise<void>;
}

/**
 * Installed before any page script (plain JavaScript: a transpiled function would carry helper
 * calls the page does not have): layout shifts, LCP, when the first slot appeared, raw-text
 * frames, long tasks and our code's stretches, in `window.__load`. `__OPTIONS__` is replaced by
 * {sampleRaw, longTasks, scriptPart}.
 */
const OBSERVE_LOAD = `(() => {
  const opts = __OPTIONS__;
  const m = { shifts: [], lcp: 0, lcpElement: '', firstSlotAt: Infinity, frames: 0, rawFrames: [], longTasks: [], ours: [] };
  window.__load = m;
  function describe(n) {
    if (!(n instanceof Element)) return n ? n.nodeName : '?';
    const cls = typeof n.className === 'string' && n.className ? '.' + n.className.trim().split(/\\s+/).join('.') : '';
    return n.tagName.toLowerCase() + cls;
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (!e.hadRecentInput) m.shifts.push({ value: e.value, startTime: e.startTime, sources: (e.sources || []).map((s) => describe(s.node)) });
    }
  }).observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => {
    const last = list.getEntries().at(-1);
    if (last) { m.lcp = last.startTime; m.lcpElement = describe(last.element); }
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  const Native = MutationObserver;
  if (opts.longTasks) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) m.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    // Our script's evaluation (compile and run), from Long Animation Frame script timings (5 ms and more).
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) for (const s of e.scripts || []) if (s.sourceURL.includes(opts.scriptPart)) m.ours.push({ start: s.startTime, duration: s.duration });
    }).observe({ type: 'long-animation-frame', buffered: true });
    // Every MutationObserver callback is timed: the fixture pages have none of their own, so these
    // are the inline snippet's and the script's.
    window.MutationObserver = class extends Native {
      constructor(callback) {
        super((records, observer) => {
          const start = performance.now();
          try { callback(records, observer); } finally { m.ours.push({ start, duration: performance.now() - start }); }
        });
      }
    };
  }
  new Native(() => {
    if (m.firstSlotAt === Infinity && document.querySelector('.dc-banner')) m.firstSlotAt = performance.now();
  }).observe(document, { childList: true, subtree: true });
  if (opts.sampleRaw) {
    const sample = () => {
      m.frames++;
      if (document.body && /\\[dc-banner/i.test(document.body.innerText)) m.rawFrames.push(performance.now());
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  }
})();`;

/**
 * Applies a profile's network and CPU emulation to a page through the Chrome DevTools Protocol, and
 * holds requests for `script.url` for profile.scriptDelayMs (or fails them, as an ad blocker
 * would) with the Fetch domain: only that URL is intercepted, every other request goes untouched.
 */
export async function emulate(page: Page, profile: Profile, script?: { url: string; fail?: boolean }): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: profile.latencyMs, downloadThroughput: profile.downloadBps, uploadThroughput: profile.uploadBps });
  if (profile.cpuRate !== 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuRate });
  if (!script) return;
  cdp.on('Fetch.requestPaused', ({ requestId }) => {
    const done = script.fail
      ? cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })
      : new Promise((r) => setTimeout(r, profile.scriptDelayMs)).then(() => cdp.send('Fetch.continueRequest', { requestId }));
    done.catch(() => undefined); // the page may be gone
  });
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: script.url, requestStage: 'Request' }] });
}

/** A fresh browser context (cold cache) with the profile's device. */
export function profileContext(browser: Browser, profile: Profile): Promise<BrowserContext> {
  return browser.newContext({ viewport: profile.viewport, deviceScaleFactor: profile.deviceScaleFactor, isMobile: profile.isMobile, hasTouch: profile.isMobile, userAgent: profile.userAgent });
}

/**
 * One cold load of `url` under `profile`: waits for the load, the banners' images (when our script
 * runs) and network quiet (beacons included), then reads the metrics (LoadMetrics).
 */
export async function measureLoad(browser: Browser, url: string, profile: Profile, opts: LoadOptions = {}): Promise<LoadMetrics> {
  const context = await profileContext(browser, profile);
  try {
    const page = await context.newPage();
    await emulate(page, profile, opts.scriptUrl ? { url: opts.scriptUrl, fail: opts.failScript } : undefined);
    const scriptPart = opts.scriptUrl ? new URL(opts.scriptUrl).pathname : '/scripts/dc-banners-';
    const options = { sampleRaw: opts.sampleRaw ?? false, longTasks: opts.longTasks ?? false, scriptPart };
    await page.addInitScript({ content: OBSERVE_LOAD.replace('__OPTIONS__', JSON.stringify(options)) });
    await opts.setup?.(page);
    await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    if (opts.scriptUrl && !opts.failScript && opts.banners !== false) {
      // Every shown slot has its creative (or its empty box after a failed swap).
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll<HTMLElement>('.dc-banner')].every((el) => el.style.display === 'none' || el.querySelector('img')?.complete === true) &&
          (window as unknown as { dcBanners?: unknown }).dcBanners !== undefined,
        undefined,
        { timeout: 60_000 },
      );
    }
    await page.waitForLoadState('networkidle', { timeout: 60_000 });
    const result = await page.evaluate((part) => {
      const m = (window as unknown as { __load: { shifts: Shift[]; lcp: number; lcpElement: string; firstSlotAt: number; frames: number; rawFrames: number[]; longTasks: Array<{ start: number; duration: number }>; ours: Array<{ start: number; duration: number }> } }).__load;
      const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN;
      const script = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) => r.name.includes(part) && r.responseEnd > 0);
      const longTasks = m.longTasks.map((t) => ({
        ...t,
        ours: m.ours.filter((o) => o.start >= t.start - 1 && o.start < t.start + t.duration).reduce((s, o) => s + o.duration, 0),
      }));
      return {
        cls: m.shifts.reduce((s, e) => s + e.value, 0),
        shifts: m.shifts,
        fcp,
        lcp: m.lcp,
        lcpElement: m.lcpElement,
        firstSlotAt: m.firstSlotAt,
        frames: m.frames,
        rawFrames: m.rawFrames,
        scriptLoadedAt: script?.responseEnd ?? null,
        longTasks,
        longestOurs: Math.max(0, ...m.ours.map((o) => o.duration)),
        elements: document.getElementsByTagName('*').length,
      };
    }, scriptPart);
    return { ...result, firstSlotAt: result.firstSlotAt ?? Infinity };
  } finally {
    await context.close();
  }
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Page speed of a page with our tag against the same page without it, medians of `loads` paired loads. */
export interface PageSpeed {
  profile: Profile['name'];
  loads: number;
  /** The largest CLS of any load with the tag, and of any load without it. */
  clsWith: number;
  clsWithout: number;
  fcpWith: number;
  fcpWithout: number;
  /** Median of the per-pair differences (with − without), ms. */
  fcpDelta: number;
  lcpWith: number;
  lcpWithout: number;
  lcpDelta: number;
  /** Every load with the tag had its first slot before its first contentful paint, and never painted a raw shortcode. */
  slotsBeforeFcp: boolean;
  rawFrames: number;
  /** Loads with the tag whose FCP came before our script had arrived (the tag does not block rendering). */
  fcpBeforeScript: number;
  runs: Array<{ with: LoadMetrics; without: LoadMetrics }>;
}

/**
 * Alternates `loads` cold loads of `withTag` and `withoutTag` (the same page without our tag) under
 * `profile` and compares them: CLS, FCP and LCP medians and the medians of the paired differences.
 */
export async function comparePageSpeed(browser: Browser, withTag: string, withoutTag: string, scriptUrl: string, profile: Profile, loads = 5): Promise<PageSpeed> {
  const runs: PageSpeed['runs'] = [];
  for (let i = 0; i < loads; i++) {
    // Alternate which goes first, so a burst of machine load hits both sides alike.
    const a = await measureLoad(browser, i % 2 ? withoutTag : withTag, profile, { scriptUrl, sampleRaw: true, banners: i % 2 === 0 });
    const b = await measureLoad(browser, i % 2 ? withTag : withoutTag, profile, { scriptUrl, sampleRaw: true, banners: i % 2 === 1 });
    runs.push(i % 2 ? { with: b, without: a } : { with: a, without: b });
  }
  const w = runs.map((r) => r.with);
  const wo = runs.map((r) => r.without);
  return {
    profile: profile.name,
    loads,
    clsWith: Math.max(...w.map((r) => r.cls)),
    clsWithout: Math.max(...wo.map((r) => r.cls)),
    fcpWith: median(w.map((r) => r.fcp)),
    fcpWithout: median(wo.map((r) => r.fcp)),
    fcpDelta: median(runs.map((r) => r.with.fcp - r.without.fcp)),
    lcpWith: median(w.map((r) => r.lcp)),
    lcpWithout: median(wo.map((r) => r.lcp)),
    lcpDelta: median(runs.map((r) => r.with.lcp - r.without.lcp)),
    slotsBeforeFcp: w.every((r) => r.firstSlotAt < r.fcp),
    rawFrames: w.reduce((s, r) => s + r.rawFrames.length, 0),
    fcpBeforeScript: w.filter((r) => r.scriptLoadedAt !== null && r.fcp < r.scriptLoadedAt).length,
    runs,
  };
}
