/**
 * End-to-end harness: starts the real server (`src/server/main.ts`, compiled as `npm start` runs
 * it when dist/ is up to date: serverArgs) on a free port with a temporary PGlite directory and demo data, a fixture dealer website on
 * another origin, and Debian's Chromium through playwright-core. Needs `npm run build` first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { multipartBody } from '../fixtures/images';

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

/** What the tests use of scripts/build-stamp.mjs, the check `npm start` trusts to skip a build. */
export interface BuildStamp {
  /** Whether dist/ under `root` must be built before it can run, and why. */
  buildDecision(root?: string): { build: boolean; reason: string };
  /** SHA-256 (hex) over every build input under `root`. */
  sourcesHash(root?: string): string;
  /** The stamp dist/ was built with, or null. */
  readStamp(root?: string): { sources: string } | null;
}

/** scripts/build-stamp.mjs, loaded at run time (plain JavaScript without type declarations). */
export async function loadBuildStamp(): Promise<BuildStamp> {
  return (await import(pathToFileURL(path.resolve('scripts/build-stamp.mjs')).href)) as BuildStamp;
}

/** Environment variable naming how the tests start the server (global-setup.ts decides once per run). */
export const E2E_SERVER_ENTRY_ENV = 'DCB_E2E_SERVER_ENTRY';

/**
 * V8 flags of the servers the tests start. `--liftoff-only`: PGlite's WebAssembly (PostgreSQL)
 * runs on V8's baseline compiler (Liftoff) only, without the optimizing recompilation of its hot
 * functions (TurboFan) on V8's background threads. That recompilation pays off in a server that
 * runs for days; a test's server runs for seconds, and it cost about 1.5 s of CPU of each of the
 * suite's server starts (measured: 1.3 s of CPU to open the template, 0.8 s without; and the same
 * CPU per query after it, the queries being short). It changes how fast the code runs, not what
 * it does; `npm start` keeps V8's defaults.
 */
export const SERVER_NODE_FLAGS = ['--liftoff-only'];

/**
 * The node arguments that start the product server (SERVER_NODE_FLAGS, then the entry): the
 * compiled `dist/server/main.js` (what `npm start` runs) when global-setup.ts found dist/ built
 * from exactly the sources present (the build stamp `npm start` itself trusts,
 * scripts/build-stamp.mjs), else `src/server/main.ts` through tsx, so a test never runs a server
 * older than the code under test. The compiled one is ready seconds sooner: no TypeScript to
 * transform on each of the suite's server starts.
 */
export function serverArgs(): string[] {
  return [...SERVER_NODE_FLAGS, ...(process.env[E2E_SERVER_ENTRY_ENV] === 'dist' ? ['dist/server/main.js'] : ['--import', 'tsx', 'src/server/main.ts'])];
}

/**
 * Starts the product server and waits until it answers. Its DATA_DIR starts as a copy of the run's
 * migrated and seeded template (global-setup.ts), or empty with `fresh` (or outside a run that built
 * one), when the test is about what a first start does. `env` overrides the defaults: with a `PORT`
 * (say, from freePort) the caller can set `PUBLIC_ORIGIN` to another host name on that port; the
 * returned `origin` stays `http://localhost:PORT`, where the test reaches it from Node.
 */
export async function startServer(env: Record<string, string> = {}, opts: { keepData?: boolean; fresh?: boolean } = {}): Promise<RunningServer> {
  const { server, ready } = await spawnServer(env, opts);
  await ready;
  return server;
}

/**
 * Spawns the product server as startServer does, without waiting: resolves to the server and a
 * `ready` promise that resolves once it answers (up to 230 s) and rejects, naming its output, when
 * it exits first or never answers. With `logFile` its output goes to that file instead of this
 * process (the run's shared server, global-setup.ts, outlives the worker that reads it).
 */
export async function spawnServer(
  env: Record<string, string> = {},
  opts: { keepData?: boolean; fresh?: boolean; logFile?: string } = {},
): Promise<{ server: RunningServer; ready: Promise<void> }> {
  // A PORT of the caller's lets it name the server's PUBLIC_ORIGIN (a production-like host) itself.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-e2e-'));
  const template = process.env.DCB_E2E_DATA_TEMPLATE;
  if (!opts.fresh && template && existsSync(template)) cpSync(template, dataDir, { recursive: true });
  const origin = `http://localhost:${port}`;
  const log = opts.logFile ? openSync(opts.logFile, 'a') : undefined;
  const child = spawn(process.execPath, serverArgs(), {
    // No crash-loss back-pressure and no load shedding unless a test asks for them (crash-loss,
    // workers): on a machine busy with the rest of the suite a slow write or a lagging event loop
    // would answer 503 to the set-up calls and beacons tests count exactly. Shedding itself is
    // tested in-process (observability.test.ts).
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, PUBLIC_ORIGIN: origin, SEED_DEMO: 'true', LOG_LEVEL: 'warn', EVENT_MAX_UNSECURED_MS: '0', MAX_EVENT_LOOP_DELAY_MS: '0', ...env },
    stdio: ['ignore', log ?? 'pipe', log ?? 'pipe'],
  });
  if (log !== undefined) closeSync(log);
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const output = () => (opts.logFile ? readFileSync(opts.logFile, 'utf8') : out);
  const ready = (async () => {
    // A cold start (tsx, and on a fresh directory migrations and seeding) takes seconds, and minutes on a machine busy with other
    // work: wait up to just under the e2e hook timeout (240 s) rather than fail the file.
    const deadline = Date.now() + 230_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output()}`);
      try {
        const res = await fetch(`${origin}/api/auth/demo-accounts`);
        if (res.ok) break;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) throw new Error(`server did not start in time:\n${output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const server: RunningServer = {
    origin,
    dataDir,
    process: child,
    output,
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
  return { server, ready };
}

/** Environment variable naming the run's shared server's state directory (global-setup.ts). */
export const E2E_SHARED_DIR_ENV = 'DCB_E2E_SHARED_DIR';
/** Environment variable holding the run's shared Chromium's WebSocket endpoint (global-setup.ts). */
export const E2E_BROWSER_WS_ENV = 'DCB_E2E_BROWSER_WS';

/** A server a test file talks to but did not start: the run's shared one (sharedServer), whose stop() leaves it running. */
export interface ServerHandle {
  origin: string;
  /** What the server printed so far. */
  output(): string;
  /** Stops a server the file started; for the shared server, does nothing. */
  stop(): Promise<number | null>;
}

/** Waits (polling the file system every 100 ms, up to `ms`) until `check` answers something other than undefined. */
async function waitFor<T>(check: () => T | undefined, ms: number, what: string): Promise<T> {
  for (const deadline = Date.now() + ms; ; ) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not ready in ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The shared servers' state directories under E2E_SHARED_DIR_ENV, one per name. */
function sharedDir(name: string): string | undefined {
  const root = process.env[E2E_SHARED_DIR_ENV];
  if (!root) return undefined;
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The origins of the shared servers started so far in this run. */
function sharedOrigins(): string[] {
  const root = process.env[E2E_SHARED_DIR_ENV];
  if (!root || !existsSync(root)) return [];
  return readdirSync(root).flatMap((name) => {
    const file = path.join(root, name, 'state.json');
    const origin = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { origin?: string }).origin : undefined;
    return origin ? [origin] : [];
  });
}

/**
 * A product server (default environment but no load shedding, seeded template) shared by the test files that ask for
 * the same `name` in a run: the first such file starts it (its output in a file, as it outlives the
 * worker), later ones, in any worker, wait for it and talk to it; global-setup.ts stops every one
 * at the end of the run. For files that read and write only what no other file sharing it asserts
 * on (README, Tests): 'screens' (the screen files, seeded once with seedScreens) and 'dealers'
 * (files whose every test works on dealers of its own, made through the admin API). Its `stop()`
 * does nothing, so `closeAll(browser, server)` keeps working. Outside a run (no
 * E2E_SHARED_DIR_ENV) it is a server of the file's own (startServer), stopped as usual.
 * @throws when the shared server failed to start, naming its output.
 */
export async function sharedServer(name: 'screens' | 'dealers'): Promise<ServerHandle> {
  const dir = sharedDir(name);
  if (!dir) return startServer();
  const stateFile = path.join(dir, 'state.json');
  const log = path.join(dir, 'server.log');
  let starter = false;
  try {
    mkdirSync(path.join(dir, 'lock'));
    starter = true;
  } catch {
    /* started, or being started, by an earlier file */
  }
  if (starter) {
    try {
      const { server, ready } = await spawnServer({}, { logFile: log });
      // What the teardown stops and removes, written before the wait so a failed start is stopped too.
      writeFileSync(path.join(dir, 'process.json'), JSON.stringify({ pid: server.process.pid, dataDir: server.dataDir }));
      await ready;
      writeFileSync(stateFile, JSON.stringify({ origin: server.origin }));
    } catch (err) {
      writeFileSync(stateFile, JSON.stringify({ error: (err as Error).message }));
      throw err;
    }
  }
  const state = await waitFor(() => (existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { origin?: string; error?: string }) : undefined), 240_000, `the shared e2e server ${name}`);
  if (!state.origin) throw new Error(`the shared e2e server ${name} did not start: ${state.error}`);
  return { origin: state.origin, output: () => readFileSync(log, 'utf8'), stop: async () => null };
}

/**
 * Stops the run's shared servers (global-setup.ts teardown): SIGTERM to each, SIGKILL after 30 s,
 * then removes its data directory.
 */
export async function stopSharedServers(root: string): Promise<void> {
  if (!existsSync(root)) return;
  await Promise.all(
    readdirSync(root).map(async (name) => {
      const file = path.join(root, name, 'process.json');
      if (!existsSync(file)) return;
      const { pid, dataDir } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; dataDir: string };
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (alive()) process.kill(pid, 'SIGTERM');
      for (const deadline = Date.now() + 30_000; alive() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
      if (alive()) process.kill(pid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }),
  );
}

/**
 * Runs `prepare` once per shared server for the key `name` (the first file to ask runs it, later
 * ones, in any worker, wait for it up to 4 minutes): data several sharing files read, made through
 * the API. @throws what `prepare` threw, in that file and in every later one.
 */
export async function onceOnSharedServer(name: string, prepare: () => Promise<void>): Promise<void> {
  const dir = sharedDir('once');
  if (!dir) return prepare();
  const done = path.join(dir, `${name}.done`);
  try {
    mkdirSync(path.join(dir, `${name}.lock`));
  } catch {
    const error = await waitFor(() => (existsSync(done) ? readFileSync(done, 'utf8') : undefined), 240_000, `shared set-up ${name}`);
    if (error) throw new Error(`shared set-up ${name} failed: ${error}`);
    return;
  }
  try {
    await prepare();
    writeFileSync(done, '');
  } catch (err) {
    writeFileSync(done, String((err as Error)?.stack ?? err) || 'failed');
    throw err;
  }
}

/**
 * Signs in over HTTP and returns the session's Cookie header value. On a shared server
 * (sharedServer) a session an earlier file signed in for the same account is reused while GET
 * /api/auth/me still accepts it: the files sharing a server would otherwise sign in more often than
 * the per-IP sign-in limit (20 a minute) allows. @throws unless the sign-in answers 200.
 */
export async function apiSignIn(origin: string, email: string, password: string): Promise<string> {
  const root = process.env[E2E_SHARED_DIR_ENV];
  const cache = root && sharedOrigins().includes(origin) ? path.join(sharedDir('sessions')!, `${createHash('sha256').update(`${origin} ${email} ${password}`).digest('hex')}.txt`) : undefined;
  if (cache && existsSync(cache)) {
    const cookie = readFileSync(cache, 'utf8');
    if ((await fetch(`${origin}/api/auth/me`, { headers: { cookie } })).status === 200) return cookie;
  }
  const res = await fetch(`${origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}`);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  if (cache) writeFileSync(cache, cookie);
  return cookie;
}

/** A JSON call to the product API: resolves to the answer's status and parsed body (null when it has none). */
export type JsonApi = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: Record<string, unknown> }>;

/** A JsonApi at `origin` as the user whose session is `cookie` (apiSignIn). */
export function jsonApi(origin: string, cookie: string): JsonApi {
  return async (method, path, body) => {
    const res = await fetch(`${origin}${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, unknown> };
  };
}

/**
 * Creates a dealer through the admin API (`admin`: a JsonApi as an admin) whose allowed domains
 * include the loopback fixture site beside its website's host; resolves to the dealer's id.
 * @throws unless it is created (201) and its settings saved (200).
 */
export async function createSiteDealer(admin: JsonApi, d: { name: string; manufacturer: string; provider: string }): Promise<string> {
  const created = await admin('POST', '/api/admin/dealers', { ...d, websiteUrl: 'https://www.example-dealer.com' });
  if (created.status !== 201) throw new Error(`creating dealer ${d.name} answered ${created.status}: ${JSON.stringify(created.json)}`);
  const dealer = created.json.dealer as { id: string; security: Record<string, unknown> };
  const saved = await admin('PUT', `/api/admin/dealers/${dealer.id}/settings`, { security: { ...dealer.security, allowedDomains: ['www.example-dealer.com', '127.0.0.1'] } });
  if (saved.status !== 200) throw new Error(`allowing the fixture site for ${dealer.id} answered ${saved.status}: ${JSON.stringify(saved.json)}`);
  return dealer.id;
}

/**
 * fetch, asked again after the Retry-After of each 503 (as the embed script does: the server
 * shedding load while a busy machine lags its event loop, observability/health.ts, or the event
 * writer pushing back), `attempts` tries in all; resolves with the last answer.
 */
export async function fetchUnlessShed(url: string, init?: RequestInit, attempts = 6): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, init);
    if (res.status !== 503 || attempt >= attempts) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

/**
 * Changes some of a dealer's security settings as the admin (`adminCookie`, else a session signed in
 * for the seeded admin), keeping the others as they are: `{ requireHttps: false }` for a test whose
 * dealer page is served over plain HTTP from a public-looking host name (where the HTTPS rule
 * applies), `{ rateLimitEnabled: false }` for tests whose thousands of beacons come from one address
 * (the per-page-view limit, and that times RATE_LIMIT_NAT_FACTOR per client IP).
 * @throws unless the dealer is read (200) and its settings saved (200), naming the answer.
 */
export async function patchDealerSettings(origin: string, dealerId: string, security: Record<string, unknown>, adminCookie?: string): Promise<void> {
  const admin = adminCookie ?? (await apiSignIn(origin, 'admin@dc-banners.com', 'admin123'));
  const read = await fetchUnlessShed(`${origin}/api/dealers/${dealerId}`, { headers: { cookie: admin } });
  if (read.status !== 200) throw new Error(`reading dealer ${dealerId} answered ${read.status}: ${await read.text()}`);
  const { dealer } = (await read.json()) as { dealer: { security: Record<string, unknown> } };
  const saved = await fetchUnlessShed(`${origin}/api/admin/dealers/${dealerId}/settings`, {
    method: 'PUT',
    headers: { cookie: admin, 'content-type': 'application/json', origin },
    body: JSON.stringify({ security: { ...dealer.security, ...security } }),
  });
  if (saved.status !== 200) throw new Error(`saving ${JSON.stringify(security)} for ${dealerId} answered ${saved.status}: ${await saved.text()}`);
}

export interface DealerSite {
  origin: string;
  close(): Promise<void>;
}

/** A static file of a fixture site: a file under tests/fixtures/dealer-site, or bytes with their content type. */
export type SiteAsset = string | { body: Buffer | string; type: string };

/** Options of a fixture dealer site (startDealerSite). */
export interface DealerSiteOptions {
  /** Serve the page's `<script src={{SCRIPT_URL}} async>` as a blocking tag. */
  syncScript?: boolean;
  /**
   * Fills `{{SCRIPT_TAG}}`: what the page's <head> loads our script with: the tag the Script page
   * hands out (fetchScriptInfo), a bare `<script src=… async>`, or '' for the page without our tag.
   */
  scriptTag?: string;
  /** Other fixture files by exact URL path (the default `page` answers every other path). */
  pages?: Record<string, string>;
  /** Values of the pages' other placeholders and section flags (renderFixture). */
  vars?: Record<string, string>;
  /** Extra headers of the HTML responses (e.g. Content-Security-Policy). */
  headers?: Record<string, string>;
  /** Static files by URL path, sent with a one-hour Cache-Control. */
  assets?: Record<string, SiteAsset>;
  /** JSON endpoints by URL path: the body for the request URL, answered after `delayMs`. */
  json?: Record<string, { delayMs?: number; body: (url: URL) => unknown }>;
  /**
   * Streams the HTML pages in parts split at each `<!--chunk-->` (removed), this many ms apart, so
   * the browser's parser gets them as separate network chunks.
   */
  chunkDelayMs?: number;
}

const FIXTURE_DIR = path.resolve('tests/fixtures/dealer-site');
const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ttf': 'font/ttf',
};

/**
 * A fixture page as the fixture server sends it, from its template `file` under
 * tests/fixtures/dealer-site, so that one template serves each page shape:
 * - a line `{{>part.html}}` stands for that fixture file (a part several pages share, itself a
 *   template);
 * - the lines between a line `{{#NAME}}` and a line `{{/NAME}}` are kept when NAME has a non-empty
 *   value (`{{^NAME}}`: when it has none), those two lines never;
 * - `{{NAME}}` becomes NAME's value, `{{NAME=text}}` too or else `text`; without either, ''.
 * Values go in last and in one pass, so nothing inserted (the snippet's code) is read as template.
 * @throws when a file does not exist.
 */
export function renderFixture(file: string, values: Record<string, string | undefined>): string {
  const withParts = (f: string): string =>
    readFileSync(path.join(FIXTURE_DIR, f), 'utf8').replace(/^[ \t]*\{\{>([\w.-]+)\}\}\n/gm, (_m, part: string) => withParts(part));
  return withParts(file)
    .replace(/^[ \t]*\{\{([#^])([A-Z_]+)\}\}\n([\s\S]*?)^[ \t]*\{\{\/\2\}\}\n/gm, (_m, kind: string, name: string, body: string) => (!!values[name] === (kind === '#') ? body : ''))
    .replace(/\{\{([A-Z_]+)(?:=([^}]*))?\}\}/g, (_m, name: string, fallback?: string) => values[name] ?? fallback ?? '');
}

/**
 * Serves a fixture dealer website on 127.0.0.1: the `page` template (renderFixture) on any path,
 * with `{{SCRIPT_URL}}` replaced by `scriptUrl`, `{{SCRIPT_TAG}}` by `opts.scriptTag` and other
 * placeholders by `opts.vars`; other pages, static assets, delayed JSON endpoints and extra
 * headers as `opts` says.
 */
export async function startDealerSite(scriptUrl: string, page = 'new-inventory.html', opts: DealerSiteOptions = {}): Promise<DealerSite> {
  const render = (file: string) => {
    let html = renderFixture(file, { ...opts.vars, SCRIPT_URL: scriptUrl, SCRIPT_TAG: opts.scriptTag ?? '' });
    // The fixtures load the script with `async`; syncScript serves the same page with a blocking tag.
    if (opts.syncScript) html = html.replace(`<script src="${scriptUrl}" async>`, `<script src="${scriptUrl}">`);
    return html;
  };
  const pages = new Map(Object.entries({ '*': page, ...opts.pages }).map(([p, file]) => [p, render(file)]));
  const assets = new Map(
    Object.entries(opts.assets ?? {}).map(([p, a]) => {
      const { body, type } = typeof a === 'string' ? { body: readFileSync(path.join(FIXTURE_DIR, a)), type: CONTENT_TYPES[path.extname(a)] ?? 'application/octet-stream' } : a;
      // Text and fonts go brotli-compressed, as a production web server sends them.
      return [p, { body, type, br: /^(text|font)\//.test(type) ? brotliCompressSync(body) : null }] as const;
    }),
  );
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const asset = assets.get(url.pathname);
    if (asset) {
      const br = asset.br && /\bbr\b/.test(String(req.headers['accept-encoding']));
      res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*', ...(br ? { 'content-encoding': 'br' } : {}), vary: 'accept-encoding' });
      return res.end(br ? asset.br : asset.body);
    }
    const endpoint = opts.json?.[url.pathname];
    if (endpoint) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(endpoint.body(url)));
      }, endpoint.delayMs ?? 0);
      return void timers.add(timer);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...opts.headers });
    const parts = (pages.get(url.pathname) ?? pages.get('*')!).split('<!--chunk-->');
    const next = () => {
      const part = parts.shift()!;
      if (!parts.length) return res.end(part);
      res.write(part);
      const timer = setTimeout(() => (timers.delete(timer), next()), opts.chunkDelayMs ?? 0);
      timers.add(timer);
    };
    next();
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        timers.forEach(clearTimeout);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** What the Script page hands out for a dealer (GET /api/dealers/:id/script). */
export interface ScriptInfo {
  scriptUrl: string;
  /** The inline snippet and the async script tag, to paste in the page's <head>. */
  scriptTag: string;
  /** The snippet's CSP source expression, `'sha256-…'`. */
  snippetHash: string;
}

/** The tag the Script page hands out for `dealerId`, read through the API as the admin. */
export async function fetchScriptInfo(origin: string, dealerId: string): Promise<ScriptInfo> {
  const cookie = await apiSignIn(origin, 'admin@dc-banners.com', 'admin123');
  const res = await fetch(`${origin}/api/dealers/${dealerId}/script`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`script info of ${dealerId} answered ${res.status}`);
  const { scriptUrl, scriptTag, snippetHash } = (await res.json()) as ScriptInfo;
  return { scriptUrl, scriptTag, snippetHash };
}

/**
 * A web font for the fixture sites, served by the fixture server as a same-origin asset (no CDN):
 * a metric-compatible Arial replacement installed with Debian's fonts (Liberation Sans, else DejaVu
 * Sans). @throws when none is installed.
 */
export function fixtureFont(): SiteAsset {
  const candidates = [
    '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf',
    '/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf',
    '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
  ];
  for (const file of candidates) if (existsSync(file)) return { body: readFileSync(file), type: 'font/ttf' };
  throw new Error(`no fixture font installed (looked for ${candidates.join(', ')})`);
}

/**
 * Headless Debian Chromium for a test file, with `extraArgs` after CHROMIUM_ARGS (say,
 * host-resolver rules). Without extra arguments, and unless `own`, it is a connection to the run's
 * shared Chromium (global-setup.ts; each file's pages live in their own contexts, and `close()`
 * closes those and disconnects): a launch costs seconds on a busy machine. `own` launches one for
 * the file alone (page-speed figures, CDP sessions), as does any call outside a run.
 */
export function launchBrowser(extraArgs: string[] = [], opts: { own?: boolean } = {}): Promise<Browser> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const shared = process.env[E2E_BROWSER_WS_ENV];
  if (shared && !extraArgs.length && !opts.own) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true });
}

/** What a test file starts and must stop: a browser, page, fixture site, SMTP capture (close) or product server (stop). */
export type Closable = { close(): Promise<unknown> } | { stop(): Promise<unknown> };

/**
 * Stops what a test file started, one after another in the order given (a browser before the
 * server its pages talk to), each list in parallel; skips what is undefined because its start never
 * ran or failed, so an afterAll never hides the beforeAll's own error.
 */
export async function closeAll(...parts: Array<Closable | readonly Closable[] | undefined>): Promise<void> {
  const close = (c: Closable) => ('stop' in c ? c.stop() : c.close());
  for (const part of parts) {
    if (part === undefined) continue;
    if (Array.isArray(part)) await Promise.all(part.map(close));
    else await close(part as Closable);
  }
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

/**
 * Sends `n` beacons of `event` for the demo dealer's Civic header banner from Node, as its script on
 * its website would (desktop user agent, the site's Origin), for page views `${pv}-0` to
 * `${pv}-${n - 1}` (a click counts only for a page view with an impression).
 * @throws unless each is taken (204).
 */
export async function trackDemo(origin: string, event: 'impression' | 'click', n: number, pv: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify({ dealerId: 'honda-of-demo', event, type: 'header', model: 'civic', url: `${DEALER_SITE_ORIGIN}/new-inventory?new=true&model=civic`, pv: `${pv}-${i}` });
    // Asked again after a load-shedding 503, as the embed script does (refused before counting).
    const res = await fetchUnlessShed(`${origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN }, body });
    if (res.status !== 204) throw new Error(`${event} beacon ${pv}-${i} answered ${res.status}: ${await res.text()}`);
  }
}

/** A new page that browses like a person's desktop Chrome (1366x900 unless told otherwise). */
export function newPage(browser: Browser, opts: BrowserContextOptions = {}): Promise<Page> {
  return browser.newPage({ viewport: { width: 1366, height: 900 }, userAgent: DESKTOP_UA, ...opts });
}

/**
 * Installs Playwright's clock on `page` at `time` and pauses it, so the page's timers move only
 * when the test runs the clock. It pauses a minute after `time`: pauseAt cannot go back, and on a
 * busy machine more than a second of real time can pass between the install and the pause.
 */
export async function pauseClock(page: Page, time: Date): Promise<void> {
  await page.clock.install({ time });
  await page.clock.pauseAt(new Date(time.getTime() + 60_000));
}

/**
 * Records every beacon body the embed script hands to sendBeacon or fetch on this page (and pages
 * it navigates to), with its performance.now() time in `__beaconAt`: call before `goto`, read with
 * `beaconsOf`. Playwright does not expose sendBeacon bodies, so the page's own calls are wrapped.
 */
export async function recordBeacons(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __beacons: string[]; __beaconAt: number[] };
    w.__beacons = [];
    w.__beaconAt = [];
    const push = (text: string, at: number) => (w.__beacons.push(text), w.__beaconAt.push(at));
    const keep = (url: unknown, body: unknown) => {
      if (!String(url).includes('/api/analytics/track')) return;
      const at = performance.now();
      if (typeof body === 'string') push(body, at);
      else if (body instanceof Blob) void body.text().then((t) => push(t, at));
    };
    const beacon = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url, data) => (keep(url, data), beacon(url, data));
    const fetchOriginal = window.fetch.bind(window);
    window.fetch = (input, init) => (keep(input, init?.body), fetchOriginal(input, init));
  });
}

/**
 * Waits (up to 60 s) until the image of the page's slot of `type` has loaded, creative or
 * placeholder, and the embed script has seen the slot in view; resolves to the image's URL.
 */
export async function creativeShown(page: Page, type: string): Promise<string> {
  const slot = `.dc-banner[data-dc-type="${type}"]`;
  const loaded = (s: string) => {
    const img = document.querySelector<HTMLImageElement>(`${s} a img`);
    return !!img && img.complete && img.naturalWidth > 0;
  };
  // Polled from Node: the page's own timers may be paused (page.clock). A minute: on a machine
  // busy with the rest of the suite an image has taken over 20 s.
  for (const deadline = Date.now() + 60_000; !(await page.evaluate(loaded, slot)); ) {
    if (Date.now() > deadline) throw new Error(`the ${type} slot's image did not load in 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The script's IntersectionObserver was made before this one: its callback for the same
  // rendering update has run once this one's has.
  await page.evaluate((s) => new Promise<void>((resolve) => new IntersectionObserver((_e, o) => (o.disconnect(), resolve())).observe(document.querySelector(s)!)), slot);
  return page.evaluate((s) => document.querySelector<HTMLImageElement>(`${s} a img`)!.currentSrc, slot);
}

/** The beacons recorded so far on this page (recordBeacons), parsed. */
export async function beaconsOf(page: Page): Promise<Array<{ event: string; type: string; model: string; pv?: string; url?: string; leadId?: string }>> {
  return (await page.evaluate(() => (window as unknown as { __beacons: string[] }).__beacons)).map((t) => JSON.parse(t));
}

/** A dealer made for one test (seedDealer), with its own dealer-manager's credentials. */
export interface SeededDealer {
  dealerId: string;
  email: string;
  password: string;
  /** The dealer-manager's display name (its dashboard greets it). */
  name: string;
}

const adminSessions = new Map<string, Promise<string>>();
/** The admin session of the server at `origin`, one for all seeding: sign-ins are limited per IP (20 a minute). */
const adminSession = (origin: string): Promise<string> =>
  adminSessions.get(origin) ?? adminSessions.set(origin, apiSignIn(origin, 'admin@dc-banners.com', 'admin123')).get(origin)!;

/**
 * Creates a dealer of `manufacturer` through the admin API (name → slug id, manufacturer default
 * configs, default settings: DECISIONS 8) and a dealer-manager for it, so that a test starts from
 * its own known state instead of one an earlier test left. @throws unless both calls answer 201.
 */
export async function seedDealer(origin: string, name: string, manufacturer = 'honda'): Promise<SeededDealer> {
  const admin = await adminSession(origin);
  const post = (url: string, body: unknown) =>
    fetch(`${origin}${url}`, { method: 'POST', headers: { cookie: admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const dealerRes = await post('/api/admin/dealers', { name, manufacturer, websiteUrl: `https://${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.example.com`, provider: 'mxs' });
  if (dealerRes.status !== 201) throw new Error(`creating dealer ${name} answered ${dealerRes.status}: ${await dealerRes.text()}`);
  const dealerId = ((await dealerRes.json()) as { dealer: { id: string } }).dealer.id;
  const user = { email: `manager@${dealerId}.example.com`, name: `${name} Manager`, password: 'seeded-password-1' };
  const userRes = await post('/api/admin/users', { ...user, role: 'dealer-manager', dealerId });
  if (userRes.status !== 201) throw new Error(`creating the manager of ${dealerId} answered ${userRes.status}: ${await userRes.text()}`);
  return { dealerId, ...user };
}

/**
 * Lets the dealer's script run on the fixture dealer sites (127.0.0.1 added as its only allowed
 * domain, its other security settings kept) and sets its time zone (IANA name), as an admin does on
 * Dealer Settings. @throws unless the save answers 200.
 */
export async function allowFixtureSites(origin: string, dealerId: string, timeZone: string): Promise<void> {
  const admin = await adminSession(origin);
  const current = (await (await fetch(`${origin}/api/dealers/${dealerId}`, { headers: { cookie: admin } })).json()) as { dealer: { security: Record<string, unknown> } };
  const saved = await fetch(`${origin}/api/admin/dealers/${dealerId}/settings`, {
    method: 'PUT',
    headers: { cookie: admin, 'content-type': 'application/json' },
    body: JSON.stringify({ security: { ...current.dealer.security, allowedDomains: ['127.0.0.1'] }, timeZone }),
  });
  if (saved.status !== 200) throw new Error(`saving the settings of ${dealerId} answered ${saved.status}: ${await saved.text()}`);
}

/** Uploads banner files to a dealer through the asset API as `cookie`'s user. @throws unless every file is stored. */
export async function seedAssets(origin: string, cookie: string, dealerId: string, files: Array<{ filename: string; data: Buffer }>): Promise<void> {
  const { body, contentType } = multipartBody(files);
  const res = await fetch(`${origin}/api/dealers/${dealerId}/assets`, { method: 'POST', headers: { cookie, 'content-type': contentType }, body: new Uint8Array(body) });
  const results = res.ok ? ((await res.json()) as { results: Array<{ ok: boolean }> }).results : [];
  if (results.length !== files.length || !results.every((r) => r.ok)) throw new Error(`seeding assets of ${dealerId} answered ${res.status}`);
}

/**
 * Signs in through the sign-in screen at `origin` as a person does: fills Email and Password and
 * presses Sign in. Resolves once pressed; the caller waits for the screen it expects next.
 */
export async function signInThroughForm(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(origin);
  await page.getByLabel(/^Email/).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A new page (newPage) already signed in as `email`: the session cookie from the sign-in API, no sign-in screen. */
export async function signedInPage(browser: Browser, origin: string, email: string, password: string, opts: BrowserContextOptions = {}): Promise<Page> {
  const [name, value] = (await apiSignIn(origin, email, password)).split(/=(.*)/s) as [string, string];
  const page = await newPage(browser, opts);
  await page.context().addCookies([{ name, value, url: origin }]);
  return page;
}

/**
 * Saves the demo dealer's hourly inventory feed at `feedUrl` through `writeOrigin` as its manager and
 * waits until `readOrigin` lists exactly one successful run; then lets the schedulers of every
 * process make several more passes (`passesMs`: a few times their FEED_SCHEDULER_INTERVAL_MS; a
 * wait for something that must not happen has no event to wait on) and resolves with the runs
 * listed afterwards, for the caller to check they are still one.
 */
export async function saveFeedAndWatchRuns(writeOrigin: string, readOrigin: string, dealerId: string, feedUrl: string, passesMs = 1500): Promise<Array<{ status: string }>> {
  const manager = await apiSignIn(writeOrigin, 'manager@hondaofdemo.com', 'manager123');
  const fieldMapping = { model: 'Model', trim: 'Trim', year: 'Year', daysOnLot: 'DaysInStock', vin: 'VIN', stock: 'StockNumber' };
  const saved = await fetch(`${writeOrigin}/api/dealers/${dealerId}/inventory/feed`, {
    method: 'PUT',
    headers: { cookie: manager, 'content-type': 'application/json' },
    body: JSON.stringify({ feedUrl, updateFrequency: 'hourly', fieldMapping }),
  });
  if (saved.status !== 200) throw new Error(`saving the feed answered ${saved.status}: ${await saved.text()}`);
  const runs = async () => ((await (await fetch(`${readOrigin}/api/dealers/${dealerId}/inventory/feed`, { headers: { cookie: manager } })).json()) as { runs: Array<{ status: string }> }).runs;
  const deadline = Date.now() + 30_000;
  let statuses: string[] = [];
  while ((statuses = (await runs()).map((r) => r.status)).join() !== 'success') {
    if (Date.now() > deadline) throw new Error(`feed runs after 30 s: [${statuses.join(', ')}], expected one success`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, passesMs));
  return runs();
}

/**
 * Picks `option` in the Mantine Select labelled `label` within `scope` (the page by default; a
 * drawer or dialog to tell same-named fields apart), opening its dropdown again when the first
 * click came before it was ready (up to three tries). The options are looked up on `page`: Mantine
 * renders the dropdown outside the field's container.
 */
export async function chooseOption(page: Page, label: string | RegExp, option: string, scope: Pick<Page, 'getByRole'> = page): Promise<void> {
  const box = scope.getByRole('textbox', { name: label });
  const item = page.getByRole('option', { name: option, exact: true });
  for (let attempt = 1; ; attempt++) {
    await box.click();
    try {
      await item.waitFor({ state: 'visible', timeout: 5_000 });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
  await item.click();
}
