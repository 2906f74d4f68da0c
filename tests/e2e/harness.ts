/**
 * End-to-end harness: starts the real server (`src/server/main.ts`, the same entry as `npm start`)
 * on a free port with a temporary PGlite directory and demo data, a fixture dealer website on
 * another origin, and Debian's Chromium through playwright-core. Needs `npm run build` first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
export const RESULTS_DIR = path.resolve('test-results');

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  origin: string;
  /** The PGlite directory (removed on stop unless started with keepData). */
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the product server and waits until it answers. */
export async function startServer(env: Record<string, string> = {}, opts: { keepData?: boolean } = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-e2e-'));
  const origin = `http://localhost:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, PUBLIC_ORIGIN: origin, SEED_DEMO: 'true', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`${origin}/api/auth/demo-accounts`);
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not start in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    origin,
    dataDir,
    process: child,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => {
          if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
          resolve(code);
        });
        child.kill(signal);
      }),
  };
}

/** Signs in over HTTP and returns the session's Cookie header value. @throws unless the sign-in answers 200. */
export async function apiSignIn(origin: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}`);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

export interface DealerSite {
  origin: string;
  close(): Promise<void>;
}

/** Serves a fixture dealer search page (on any path) with the dealer's script tag, on 127.0.0.1. */
export async function startDealerSite(scriptUrl: string, page = 'new-inventory.html', opts: { syncScript?: boolean } = {}): Promise<DealerSite> {
  const template = readFileSync(path.resolve('tests/fixtures/dealer-site', page), 'utf8');
  let html = template.replace('{{SCRIPT_URL}}', scriptUrl);
  // The fixtures load the script with `async`; syncScript serves the same page with a blocking tag.
  if (opts.syncScript) html = html.replace(`<script src="${scriptUrl}" async>`, `<script src="${scriptUrl}">`);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** Launches headless Debian Chromium. */
export function launchBrowser(): Promise<Browser> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export const screenshotPath = (name: string) => path.join(RESULTS_DIR, `${name}.png`);

/**
 * A regular desktop Chrome user agent: headless Chromium announces itself as "HeadlessChrome",
 * which the track endpoint rightly drops as a bot.
 */
export const DESKTOP_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/** The demo dealer's website origin (an allowed domain): Node-side beacons send it, as a browser on that site would. */
export const DEALER_SITE_ORIGIN = 'https://www.hondaofdemo.com';

/** A new page that browses like a person's desktop Chrome (1366x900 unless told otherwise). */
export function newPage(browser: Browser, opts: BrowserContextOptions = {}): Promise<Page> {
  return browser.newPage({ viewport: { width: 1366, height: 900 }, userAgent: DESKTOP_UA, ...opts });
}
