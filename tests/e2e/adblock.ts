/**
 * Chromium with the filter lists shoppers run, for the ad-blocker tests (embed-adblock.test.ts):
 * AdGuard's lists as prebuilt declarativeNetRequest rulesets (the devDependency
 * `@adguard/dnr-rulesets`), loaded as an unpacked Manifest V3 extension built at test time in a
 * temporary directory, the way AdGuard's own MV3 extension applies them: AdGuard Base (EasyList +
 * AdGuard English), Tracking Protection, Social Media and the five Annoyances lists.
 *
 * Extensions do not run in the shared browser's contexts (Playwright's `newContext` is an incognito
 * profile), so this is a persistent context of its own (`launchPersistentContext`, Debian
 * Chromium's headless mode, which loads extensions). The extension's service worker records every
 * rule that decides a request (`declarativeNetRequest.onRuleMatchedDebug`, an unpacked
 * extension's feedback permission) in `chrome.storage.session`, read back through an extension
 * page, so a test can say which rule blocked what.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, DESKTOP_UA } from './harness';

/** The AdGuard filter lists loaded, by filter id (the package's `ruleset_<id>`), with their names. */
export const ADGUARD_LISTS: ReadonlyArray<{ id: number; name: string }> = [
  { id: 2, name: 'AdGuard Base (EasyList + AdGuard English)' },
  { id: 3, name: 'AdGuard Tracking Protection' },
  { id: 4, name: 'AdGuard Social Media' },
  { id: 18, name: 'AdGuard Cookie Notices' },
  { id: 19, name: 'AdGuard Popups' },
  { id: 20, name: 'AdGuard Mobile App Banners' },
  { id: 21, name: 'AdGuard Other Annoyances' },
  { id: 22, name: 'AdGuard Widgets' },
];

/** The extension APIs the tests call in an extension page (no @types/chrome in this project). */
declare const chrome: {
  declarativeNetRequest: { getEnabledRulesets(): Promise<string[]> };
  storage: { session: { get(key: string): Promise<Record<string, unknown>> } };
};

const PACKAGE_DIR = path.resolve('node_modules/@adguard/dnr-rulesets');
const DECLARATIVE_DIR = path.join(PACKAGE_DIR, 'dist/filters/declarative');
const rulesetFile = (id: number) => path.join(DECLARATIVE_DIR, `ruleset_${id}`, `ruleset_${id}.json`);

/** The installed `@adguard/dnr-rulesets` version, or null when it is not installed. */
export function rulesetsVersion(): string | null {
  const file = path.join(PACKAGE_DIR, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : null;
}

/** Why the ad-blocker tests cannot run (a ruleset file missing), or null when every list is there. */
export function rulesetsMissing(): string | null {
  if (!rulesetsVersion()) return `@adguard/dnr-rulesets is not installed (${PACKAGE_DIR})`;
  const missing = ADGUARD_LISTS.filter((l) => !existsSync(rulesetFile(l.id)));
  return missing.length ? `@adguard/dnr-rulesets has no ruleset for ${missing.map((l) => `${l.name} (${rulesetFile(l.id)})`).join(', ')}` : null;
}

/** One declarativeNetRequest rule as the rulesets write it (the fields this module reads). */
interface DnrRule {
  id: number;
  action: { type: string };
  condition: {
    urlFilter?: string;
    regexFilter?: string;
    domainType?: 'firstParty' | 'thirdParty';
    resourceTypes?: string[];
    excludedResourceTypes?: string[];
    initiatorDomains?: string[];
    excludedInitiatorDomains?: string[];
    requestDomains?: string[];
  };
}

/** A rule that decided a request, as the extension recorded it. */
export interface RuleMatch {
  /** The request's URL and declarativeNetRequest resource type (`script`, `image`, `xmlhttprequest`, `ping`, ...). */
  url: string;
  type: string;
  /** The manifest's ruleset id, `ruleset_<filter id>`. */
  rulesetId: string;
  ruleId: number;
}

/** A rule that decided a request, described for a reader: its list, action and pattern. */
export interface RuleDescription {
  list: string;
  /** `block`, `allow`, `redirect`, ... */
  action: string;
  /**
   * The rule in filter-list syntax, rebuilt from its declarativeNetRequest condition: the URL
   * pattern (or /regex/) and its options (`$third-party`, resource types, `domain=` counts).
   */
  pattern: string;
}

const rulesets = new Map<string, Map<number, DnrRule>>();

/** The rule `ruleId` of `rulesetId` (`ruleset_2`), described (its ruleset file read once, on first use). */
export function describeRule(rulesetId: string, ruleId: number): RuleDescription {
  const id = Number(rulesetId.replace('ruleset_', ''));
  const list = ADGUARD_LISTS.find((l) => l.id === id)?.name ?? rulesetId;
  let rules = rulesets.get(rulesetId);
  if (!rules) {
    rules = new Map((JSON.parse(readFileSync(rulesetFile(id), 'utf8')) as DnrRule[]).map((r) => [r.id, r]));
    rulesets.set(rulesetId, rules);
  }
  const rule = rules.get(ruleId);
  if (!rule) return { list, action: '?', pattern: `rule ${ruleId} (not in the ruleset file)` };
  const c = rule.condition;
  const options = [
    c.domainType === 'thirdParty' ? 'third-party' : c.domainType === 'firstParty' ? '~third-party' : '',
    ...(c.resourceTypes ?? []),
    ...(c.excludedResourceTypes ?? []).map((t) => `~${t}`),
    c.initiatorDomains ? `domain=(${c.initiatorDomains.length} sites)` : '',
    c.excludedInitiatorDomains ? `domain=~(${c.excludedInitiatorDomains.length} sites)` : '',
  ].filter(Boolean);
  const url = c.urlFilter ?? (c.regexFilter ? `/${c.regexFilter}/` : c.requestDomains ? `||${c.requestDomains.join('|')}^` : '*');
  return { list, action: rule.action.type, pattern: `${rule.action.type === 'allow' ? '@@' : ''}${url}${options.length ? `$${options.join(',')}` : ''}` };
}

/** The extension's service worker: records each deciding rule in chrome.storage.session, in order. */
const SERVICE_WORKER = `let queue = Promise.resolve();
chrome.declarativeNetRequest.onRuleMatchedDebug.addListener(({ request, rule }) => {
  const match = { url: request.url, type: request.type, rulesetId: rule.rulesetId, ruleId: rule.ruleId };
  queue = queue.then(async () => {
    const { matches = [] } = await chrome.storage.session.get('matches');
    matches.push(match);
    await chrome.storage.session.set({ matches });
  });
});`;

/** The unpacked extension in `dir`: the rulesets (copied from the package), every one enabled. */
function writeExtension(dir: string): void {
  const manifest = {
    manifest_version: 3,
    name: 'dc-banners test: AdGuard filter lists',
    version: '1.0',
    permissions: ['declarativeNetRequest', 'declarativeNetRequestFeedback', 'storage'],
    host_permissions: ['<all_urls>'],
    background: { service_worker: 'worker.js' },
    declarative_net_request: { rule_resources: ADGUARD_LISTS.map((l) => ({ id: `ruleset_${l.id}`, enabled: true, path: `ruleset_${l.id}.json` })) },
  };
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(path.join(dir, 'worker.js'), SERVICE_WORKER);
  writeFileSync(path.join(dir, 'log.html'), '<!doctype html><title>matches</title>');
  for (const l of ADGUARD_LISTS) cpSync(rulesetFile(l.id), path.join(dir, `ruleset_${l.id}.json`));
}

/** Chromium with the AdGuard lists (launchAdblockBrowser). */
export interface AdblockBrowser {
  /** The persistent context: pages browse like a person's desktop Chrome (1366x900). */
  context: BrowserContext;
  /** A new page of the context. */
  newPage(): Promise<Page>;
  /** The rulesets the extension has enabled (Chromium leaves one out when the rule limits are exceeded). */
  enabledRulesets(): Promise<string[]>;
  /** Every rule that decided a request so far, in order. */
  matches(): Promise<RuleMatch[]>;
  close(): Promise<void>;
}

/**
 * Launches headless Debian Chromium with the extension (writeExtension) and `extraArgs` after
 * CHROMIUM_ARGS (say, host-resolver rules), and waits for the extension's service worker and for
 * its rulesets to be enabled (up to 120 s each: Chromium indexes some 250,000 rules first).
 * @throws when Chromium does not start or the extension never starts.
 */
export async function launchAdblockBrowser(extraArgs: string[] = []): Promise<AdblockBrowser> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-adblock-'));
  writeExtension(dir);
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext('', {
      executablePath: CHROMIUM_PATH,
      headless: true,
      // Playwright starts Chromium with --disable-extensions; the extension is the point here.
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`, ...extraArgs],
      viewport: { width: 1366, height: 900 },
      userAgent: DESKTOP_UA,
    });
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 120_000 }));
    // chrome-extension://<id>: Node's URL gives such a non-special scheme the origin 'null'.
    const extensionOrigin = worker.url().split('/').slice(0, 3).join('/');
    const ctx = context;
    /** Runs `fn` in an extension page (chrome.* APIs; the service worker may be asleep). */
    const inExtension = async <T>(fn: () => Promise<T>): Promise<T> => {
      const page = await ctx.newPage();
      try {
        await page.goto(`${extensionOrigin}/log.html`);
        return await page.evaluate(fn);
      } finally {
        await page.close();
      }
    };
    const enabledRulesets = () => inExtension(() => chrome.declarativeNetRequest.getEnabledRulesets());
    // The worker can start before Chromium has indexed and enabled the static rulesets (on a busy
    // machine, seconds later): until then nothing is filtered, so wait for them as well.
    const deadline = Date.now() + 120_000;
    while ((await enabledRulesets()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    return {
      context,
      newPage: () => ctx.newPage(),
      enabledRulesets,
      matches: () => inExtension(async () => ((await chrome.storage.session.get('matches')) as { matches?: RuleMatch[] }).matches ?? []),
      close: async () => {
        await ctx.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
