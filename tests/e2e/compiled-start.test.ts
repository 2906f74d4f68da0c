/**
 * `npm start` on a fresh copy of the repository: the working tree as a clone would have
 * it (tracked and new files, no dist/, node_modules linked from this checkout as `npm ci` would
 * install them) builds once (`npm run build`: web app, embed scripts, compiled server), then serves
 * from dist/server/main.js with plain node; a second `npm start` skips the build (its readiness
 * time is logged, not asserted: a busy machine stretches it). Both stop on SIGTERM with exit 0.
 * The compiled server imports only production dependencies, so `npm ci --omit=dev` and a built
 * dist/ are enough to run it.
 *
 * When this checkout's dist/ is up to date and its build stamp equals the copy's sources hash (as
 * in `npm test`, whose build step has just built these very sources), the copy's `npm run build`
 * copies that dist/ instead of building it a second time: the build itself is what that step
 * proved, the hash is the one `npm start` trusts to skip a build, and the second start checks it
 * against the copy. Otherwise the copy builds for real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, loadBuildStamp } from './harness';

const ROOT = path.resolve('.');
let copy: string;
/** Set when the copy's build copies this checkout's dist/ (see the module doc). */
let reusedBuild = false;

/**
 * Makes the copy's `npm run build` copy this checkout's dist/ when that dist/ is up to date and
 * was built from the same build inputs as the copy holds; returns whether it did.
 */
async function reuseCheckoutBuild(): Promise<boolean> {
  const stamp = await loadBuildStamp();
  if (stamp.buildDecision(ROOT).build || stamp.readStamp(ROOT)?.sources !== stamp.sourcesHash(copy)) return false;
  const pkgFile = path.join(copy, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { scripts: Record<string, string> };
  const from = JSON.stringify(path.join(ROOT, 'dist'));
  pkg.scripts.build = `node -e ${JSON.stringify(`require('node:fs').cpSync(${from}, 'dist', { recursive: true })`)}`;
  writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
  return true;
}

interface Started {
  child: ChildProcess;
  output: () => string;
  origin: string;
  readyAfterMs: number;
}

/** Runs `npm start` in the copy and waits for /readyz to answer 200. */
async function npmStart(timeoutMs: number): Promise<Started> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: copy,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: path.join(copy, 'data'), PUBLIC_ORIGIN: origin, LOG_LEVEL: 'warn', FEED_SCHEDULER_INTERVAL_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  for (const deadline = Date.now() + timeoutMs; ; ) {
    if (child.exitCode !== null) throw new Error(`npm start exited early (${child.exitCode}):\n${out}`);
    try {
      if ((await fetch(`${origin}/readyz`)).status === 200) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`npm start did not get ready in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, output: () => out, origin, readyAfterMs: performance.now() - started };
}

/** SIGTERM to the server process (the pid /healthz names, under npm and its shell); resolves to npm's exit code. */
async function stop(s: Started): Promise<number | null> {
  const { pid } = (await (await fetch(`${s.origin}/healthz`)).json()) as { pid: number };
  const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
  process.kill(pid, 'SIGTERM');
  return exited;
}

beforeAll(async () => {
  copy = mkdtempSync(path.join(os.tmpdir(), 'dcb-clone-'));
  // What a clone of this working tree holds: tracked files and new ones not ignored (no dist/, data/, node_modules/).
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(path.join(ROOT, file))) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(copy, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  reusedBuild = await reuseCheckoutBuild();
  process.stdout.write(`compiled-start: the copy's npm run build ${reusedBuild ? "copies this checkout's up-to-date dist/" : 'builds'}\n`);
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('npm start on a fresh copy', () => {
  it('builds once, serves the compiled server, and a second start skips the build', { timeout: 420_000 }, async () => {
    expect(existsSync(path.join(copy, 'dist'))).toBe(false);
    const first = await npmStart(300_000);
    expect(first.output()).toContain('dc-banners start: building: dist/ is missing');
    expect(existsSync(path.join(copy, 'dist/server/main.js'))).toBe(true);
    expect((await fetch(`${first.origin}/api/auth/demo-accounts`)).status).toBe(200);
    expect(await stop(first)).toBe(0);

    const second = await npmStart(60_000);
    expect(second.output()).toMatch(/dc-banners start: dist\/ is up to date \(built [^)]+\); not building/);
    expect(second.output()).not.toContain('vite');
    // The web app is served from the build.
    const page = await fetch(`${second.origin}/sign-in`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect(await stop(second)).toBe(0);
    process.stdout.write(`npm start: first (with ${reusedBuild ? "this checkout's dist/ copied" : 'a build'}) ready after ${(first.readyAfterMs / 1000).toFixed(1)} s, second ready after ${(second.readyAfterMs / 1000).toFixed(1)} s\n`);
  });

  it('compiles a server that imports only production dependencies', () => {
    const pkg = JSON.parse(readFileSync(path.join(copy, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const imported = JSON.parse(readFileSync(path.join(copy, 'dist/server/packages.json'), 'utf8')) as string[];
    expect(imported.length).toBeGreaterThan(10);
    expect(imported.filter((p) => !(p in pkg.dependencies))).toEqual([]);
    expect(pkg.devDependencies).toHaveProperty('tsx');
    expect(pkg.devDependencies).toHaveProperty('esbuild');
    expect(pkg.dependencies).not.toHaveProperty('tsx');
    expect(pkg.dependencies).not.toHaveProperty('esbuild');
  });
});
