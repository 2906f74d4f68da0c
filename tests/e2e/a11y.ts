/**
 * Helpers of the accessibility and mobile e2e tests: every screen of the web app by
 * role, pages in their own browser context (what axe needs) at a given viewport, sign-in through
 * the API, waiting until a screen has settled, axe-core's serious and critical violations, the
 * page's horizontal overflow, and a console watcher that fails a test on any console error it did
 * not expect.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type axe from 'axe-core';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { makeBanner, multipartBody } from '../fixtures/images';
import { apiSignIn, DEALER_SITE_ORIGIN, DESKTOP_UA, fetchUnlessShed, launchBrowser, onceOnSharedServer, sharedServer, startServer, type ServerHandle } from './harness';

export type Role = 'admin' | 'manager' | 'viewer';

/** The seeded demo accounts (src/server/db/seed.ts). */
export const ACCOUNTS: Record<Role, { email: string; password: string }> = {
  admin: { email: 'admin@dc-banners.com', password: 'admin123' },
  manager: { email: 'manager@hondaofdemo.com', password: 'manager123' },
  viewer: { email: 'viewer@hondaofdemo.com', password: 'viewer123' },
};

/** One screen: its path, the heading it shows and its page title (before " · dc-banners"). */
export interface Screen {
  path: string;
  heading: string | RegExp;
  title: string;
}

/** The seeded demo dealer. */
export const DEMO_DEALER_ID = 'honda-of-demo';

/** Every admin screen (spec 01 §2, DECISIONS 7-8, the client error log). */
export const ADMIN_SCREENS: Screen[] = [
  { path: '/admin', heading: 'Admin Dashboard', title: 'Admin Dashboard' },
  { path: '/admin/dealers', heading: 'Dealer Management', title: 'Dealers' },
  { path: '/admin/dealers/new', heading: 'Add Dealer', title: 'Add Dealer' },
  { path: `/admin/dealers/${DEMO_DEALER_ID}/settings`, heading: 'Dealer Settings', title: 'Dealer Settings' },
  { path: '/admin/manufacturers', heading: 'Manufacturer Management', title: 'Manufacturers' },
  { path: '/admin/analytics', heading: 'Platform Analytics', title: 'Platform Analytics' },
  { path: '/admin/users', heading: 'User Management', title: 'Users' },
  { path: '/admin/errors', heading: 'Client Error Log', title: 'Client Error Log' },
  { path: '/admin/outbox', heading: 'Outbox', title: 'Outbox' },
  { path: `/scripts/${DEMO_DEALER_ID}`, heading: 'Honda of Demo', title: 'Dealer Script' },
  { path: '/admin/no-such-screen', heading: 'Page Not Found', title: 'Page Not Found' },
];

/** Every dealer screen (spec 02 §2), the dealer's script page and an unknown path. */
export const DEALER_SCREENS: Screen[] = [
  { path: '/dealer', heading: /^Welcome back/, title: 'Dashboard' },
  { path: '/dealer/assets', heading: 'Asset Manager', title: 'Assets' },
  { path: '/dealer/campaigns', heading: 'Campaigns', title: 'Campaigns' },
  { path: '/dealer/config', heading: 'Configuration', title: 'Configuration' },
  { path: '/dealer/upsells', heading: 'Upsell Rules', title: 'Upsell Rules' },
  { path: '/dealer/inventory', heading: 'Inventory Management', title: 'Inventory' },
  { path: '/dealer/analytics', heading: 'Analytics Dashboard', title: 'Analytics' },
  { path: '/dealer/script', heading: 'Embed Script', title: 'Embed Script' },
  { path: '/dealer/preview', heading: 'Banner Preview', title: 'Banner Preview' },
  { path: `/scripts/${DEMO_DEALER_ID}`, heading: 'Honda of Demo', title: 'Dealer Script' },
  { path: '/no-such-screen', heading: 'Page Not Found', title: 'Page Not Found' },
];

/** What a signed-out visitor sees on any path. */
export const SIGNED_OUT_SCREENS: Screen[] = [
  { path: '/', heading: 'Sign in', title: 'Sign in' },
  { path: '/admin/dealers', heading: 'Sign in', title: 'Sign in' },
];

/** The screens each kind of visitor can open. */
export const SCREENS_BY_ROLE: Record<Role | 'signed-out', Screen[]> = {
  'signed-out': SIGNED_OUT_SCREENS,
  admin: ADMIN_SCREENS,
  manager: DEALER_SCREENS,
  viewer: DEALER_SCREENS,
};

/** The two viewports every screen is checked at: desktop and phone. */
export const DESKTOP = { width: 1280, height: 800 } as const;
export const MOBILE = { width: 390, height: 844 } as const;

/**
 * A page in a browser context of its own (its cookies and storage its own) with a regular desktop
 * Chrome user agent, at `viewport`.
 */
export async function contextPage(browser: Browser, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, userAgent: DESKTOP_UA, acceptDownloads: true });
  const page = await context.newPage();
  return { context, page };
}

/**
 * Signs the context in as `role` through the API (harness apiSignIn: on a shared server a session
 * an earlier file signed in is reused); the session cookie lands in the context. @throws unless
 * the sign-in answers 200.
 */
export async function signInAs(context: BrowserContext, origin: string, role: Role): Promise<void> {
  const [name, value] = (await apiSignIn(origin, ACCOUNTS[role].email, ACCOUNTS[role].password)).split(/=(.*)/s) as [string, string];
  await context.addCookies([{ name, value, url: origin }]);
}

/**
 * Collects console errors and uncaught page errors of every page of `context`. `expect(pattern)`
 * allows matching errors (a test that makes a request fail on purpose); `unexpected()` lists the
 * others; `clear()` forgets what was seen.
 */
export function watchConsole(context: BrowserContext) {
  const seen: string[] = [];
  let allowed: RegExp[] = [];
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') seen.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => seen.push(`${page.url()}: uncaught ${e.message}`));
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return {
    expect: (pattern: RegExp) => void allowed.push(pattern),
    unexpected: () => seen.filter((line) => !allowed.some((p) => p.test(line))),
    clear: () => {
      seen.length = 0;
      allowed = [];
    },
  };
}

/**
 * Waits until CSS transitions and animations on the page have finished (drawers, modals, collapses)
 * and, with `scope`, until that element and its ancestors are fully opaque and untransformed: a
 * Mantine modal mounts transparent and starts its transition a frame later, so on a busy machine
 * "no animation running" alone can be seen before the fade-in has even begun (axe then measures
 * the contrast of half-transparent text).
 */
export async function animationsDone(page: Page, scope?: string): Promise<void> {
  await page.waitForFunction((selector) => {
    if (!document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)) return false;
    if (!selector) return true;
    const el = document.querySelector(selector);
    if (!el) return false;
    for (let e: Element | null = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.opacity !== '1' || (style.transform !== 'none' && style.transform !== 'matrix(1, 0, 0, 1, 0, 0)')) return false;
    }
    return true;
  }, scope);
}

/**
 * Waits until `locator` is visible, as `locator.waitFor()` does, looking every 50 ms (expect.poll's
 * interval) for up to the project's poll timeout: Locator.waitFor, after its first few tries, looks
 * again only every 500 ms, which cost the screen tests about half a second per wait.
 * @throws (fails the test) when it is not visible in time, with `message`.
 */
export async function shown(locator: Locator, message?: string): Promise<void> {
  await expect.poll(() => locator.isVisible(), { message: message ?? `${locator} visible` }).toBe(true);
}

/**
 * Opens `screen` at `origin` and waits until it has settled: its heading is visible, the title
 * is set, no skeleton or 'Loading...' is left and animations are over.
 *
 * With `inApp`, on a page that already shows the signed-in app at `origin`, the screen is opened
 * the way the app's own links and the browser's back button open one: the address changes
 * (history.pushState) and React Router, told by a popstate event, renders the screen's route in
 * the same document. The bundle, the session check and whatever a caller put into the page
 * (axe-core) stay loaded, which saves most of the cost of a screen; the screen drawn is the same
 * one its address loads. The headings shown before are marked, so an old screen still on show
 * while the new one's code loads cannot pass for it (so the screen before must not be the same
 * route: React would keep its heading, and the wait would time out). Without `inApp`, or on any
 * other page, the address is loaded afresh (page.goto).
 */
export async function openScreen(page: Page, origin: string, screen: Screen, opts: { inApp?: boolean } = {}): Promise<void> {
  let heading = page.getByRole('heading', { name: screen.heading });
  if (opts.inApp && page.url().startsWith(`${origin}/`)) {
    await page.evaluate((path) => {
      for (const h of document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]')) h.setAttribute('data-e2e-left', '');
      // React Router's own history entry shape (idx counts the entries), as its navigate() writes it.
      const idx = ((history.state as { idx?: number } | null)?.idx ?? 0) + 1;
      history.pushState({ usr: null, key: `e2e${idx}`, idx }, '', path);
      dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
    }, screen.path);
    heading = heading.and(page.locator(':not([data-e2e-left])'));
  } else {
    await page.goto(`${origin}${screen.path}`);
  }
  await shown(heading.first(), `${screen.path}: heading ${screen.heading}`);
  await settled(page);
}

/** Waits until no skeleton, loader or 'Loading...' text is visible, and animations are over. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const visible = (el: Element) => (el as HTMLElement).offsetParent !== null;
    const busy = [...document.querySelectorAll('.mantine-Skeleton-root, .mantine-Loader-root')].some(visible);
    const loadingText = [...document.querySelectorAll('p, span, div')].some((el) => el.childElementCount === 0 && el.textContent === 'Loading...' && visible(el));
    return !busy && !loadingText;
  });
  await animationsDone(page);
}

/**
 * axe-core's minified build (axe.min.js), read once per test file: the same version, rules and
 * results as the package's `axe.source`, which is its unminified build (1.3 MB against 0.6 MB).
 * It goes into every document the tests check, so sending and compiling it costs on every screen:
 * the minified one takes about 40 % less time to put into a page.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets every screen is checked against: WCAG 2.0 and 2.1 A and AA, and axe's best practices. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/**
 * axe-core's serious and critical violations on the page (or inside the element `include` selects),
 * one line each. axe-core goes into each frame of the page once per document (a frame that already
 * has it keeps it) and runs there in one `axe.run`, the frames answering the top one by message: the
 * same rules and results as @axe-core/playwright's AxeBuilder, without what made that cost about a
 * second a screen (its source evaluated again on every call, and a new page opened and closed
 * per call to merge the frames' results). @throws what axe-core throws (say, `include` matching
 * nothing).
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  for (const frame of page.frames()) {
    if (frame.isDetached()) continue;
    // A frame that goes away meanwhile (an ad iframe replaced) has nothing left to check.
    await frame
      .evaluate(`if (!window.axe) { ${AXE_SOURCE}\n; window.axe.configure({ allowedOrigins: ['<unsafe_all_origins>'] }); }`)
      .catch((e: unknown) => {
        if (!frame.isDetached()) throw e;
      });
  }
  const violations = await page.evaluate(
    async ({ include, tags }) => {
      const axeRun = (window as unknown as { axe: typeof axe }).axe;
      // resultTypes: only violations are read, so axe skips building the selectors and HTML
      // excerpts of every node that passed (most of a screen's nodes); its rules run unchanged.
      const result = await axeRun.run(include ? { include: [include] } : document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
    },
    { include, tags: AXE_TAGS },
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.targets.slice(0, 5).join(' | ')}`);
}

/** The page's horizontal overflow: how far `document.documentElement.scrollWidth` exceeds the viewport width (0 when none). */
export async function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; overflow: number; widest: string[] }> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    // The elements reaching past the viewport, to say what overflows when it does.
    const widest = scrollWidth > width ? [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 1).slice(-5).map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`) : [];
    return { scrollWidth, overflow: Math.max(0, scrollWidth - width), widest };
  });
}

/**
 * The heights (px, rounded) of the page's shown Copy buttons (accessible name "Copy …"). Beside a
 * long tag a Copy button keeps a button's height, the tag's box scrolling instead: a caller fails
 * on any taller than COPY_BUTTON_MAX_HEIGHT.
 */
export async function copyButtonHeights(page: Page): Promise<number[]> {
  const heights = await page.getByRole('button', { name: /^Copy / }).evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
  return heights.filter((h) => h > 0);
}

/** The tallest a Copy button may be (a Mantine button is 36 px; its label may wrap once). */
export const COPY_BUTTON_MAX_HEIGHT = 48;

/** A dealer whose name is one long run of letters plus words: it must end in '…' everywhere, never widen a page. */
export const LONG_DEALER = {
  name: 'Honda of Springfield Metropolitan Area Superstore Incorporated Internationalvehiclecompanyofamerica',
  id: 'honda-of-springfield-metropolitan-area-superstore-incorporated-internationalvehiclecompanyofamerica',
};

/**
 * Gives every screen something to show, through the API: banner events for the demo dealer (40
 * impressions, 2 clicks: CTR 5 %), one uploaded banner, one logged client error, and the
 * long-named dealer (LONG_DEALER).
 */
export async function seedScreens(origin: string): Promise<void> {
  const post = async (path: string, body: string | Buffer, headers: Record<string, string>) => {
    // Asked again after a 503 (a busy machine's load shedding refuses before the route runs, so
    // nothing is counted twice): one refusal would fail every file that shares this seeding.
    const res = await fetchUnlessShed(`${origin}${path}`, { method: 'POST', headers: { origin, ...headers }, body: typeof body === 'string' ? body : new Uint8Array(body) });
    if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  };
  for (const [event, n] of [['impression', 40], ['click', 2]] as const) {
    for (let i = 0; i < n; i++) {
      const beacon = { dealerId: DEMO_DEALER_ID, event, type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?new=true&model=civic', pv: `a11y-view-${i}` };
      await post('/api/analytics/track', JSON.stringify(beacon), { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN });
    }
  }
  const manager = await apiSignIn(origin, ACCOUNTS.manager.email, ACCOUNTS.manager.password);
  const upload = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
  await post(`/api/dealers/${DEMO_DEALER_ID}/assets`, upload.body, { cookie: manager, 'content-type': upload.contentType });
  const admin = await apiSignIn(origin, ACCOUNTS.admin.email, ACCOUNTS.admin.password);
  const json = { cookie: admin, 'content-type': 'application/json' };
  await post('/api/client-errors', JSON.stringify({ message: 'TypeError: e2e sample', stack: 'TypeError: e2e sample\n    at render (app.js:1:1)', componentStack: '\n    at Dashboard', url: `${origin}/admin` }), json);
  await post('/api/admin/dealers', JSON.stringify({ name: LONG_DEALER.name, manufacturer: 'honda', websiteUrl: 'https://www.example.com', provider: 'custom' }), json);
}

/**
 * The set-up every screen test file shares: a server seeded with seedScreens and a browser (the
 * run's shared ones, harness launchBrowser), and per test a fresh context opened by
 * `open(role, viewport)` (signed in through the API unless 'signed-out'), watched for console
 * errors and closed after the test, which fails on any console error it did not `expect`. The
 * server is the run's shared one (harness sharedServer), seeded once for all screen files, unless
 * `ownServer`: a file whose data would change what the others assert (dealer-list's extra pages
 * of dealers push the long-named dealer off Recent Dealers) starts and seeds its own. Call once at
 * the top level of a test file.
 */
export function screenSuite(opts: { ownServer?: boolean } = {}) {
  let server: ServerHandle;
  let browser: Browser;
  let current: { context: BrowserContext; watch: ReturnType<typeof watchConsole> } | null = null;
  beforeAll(async () => {
    if (opts.ownServer) {
      server = await startServer();
      await seedScreens(server.origin);
    } else {
      const shared = await sharedServer('screens');
      server = shared;
      await onceOnSharedServer('screens', () => seedScreens(shared.origin));
    }
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  afterEach(async () => {
    const unexpected = current?.watch.unexpected() ?? [];
    await current?.context.close();
    current = null;
    expect(unexpected, 'console errors').toEqual([]);
  });
  return {
    /** The server's origin (after beforeAll). */
    get origin(): string {
      return server.origin;
    },
    /** The current test's context and its console watcher. @throws before open(). */
    get context(): BrowserContext {
      if (!current) throw new Error('screenSuite: open() a page first');
      return current.context;
    },
    get consoleWatch(): ReturnType<typeof watchConsole> {
      if (!current) throw new Error('screenSuite: open() a page first');
      return current.watch;
    },
    /** A page in a new context at `viewport`, signed in as `role`. */
    async open(role: Role | 'signed-out', viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
      const created = await contextPage(browser, viewport);
      current = { context: created.context, watch: watchConsole(created.context) };
      if (role !== 'signed-out') await signInAs(created.context, server.origin, role);
      return created.page;
    },
  };
}
