/**
 * PGlite owned by one process, with real server processes (no browser):
 * - a second server on the same DATA_DIR refuses to start, naming the directory and the first
 *   server's PID, and the first keeps answering;
 * - after the first is killed with SIGKILL (its lock left behind), a new server takes the stale
 *   lock over and finds the data (the old session still signs the manager in);
 * - with DATA_MIN_FREE_MB above the disk's free space, changes answer 507, reads 200, and SIGTERM
 *   still exits 0 promptly;
 * - where a tmpfs can be mounted (root), a disk that really fills up: changes refused while it is
 *   low, resumed by themselves when space is freed. Skips when mounting is not permitted.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, serverArgs, startServer, apiSignIn, type RunningServer } from './harness';
import { DEMO_DEALER } from '../../src/server/db/seed';
import { mountTmpfs, unmountTmpfs } from '../fixtures/tmpfs';

const OUT_OF_DISK = { error: { code: 'INSUFFICIENT_STORAGE', message: 'The server is out of disk space; changes are refused until space is freed' } };
const configsPath = `/api/dealers/${DEMO_DEALER.id}/configs`;
const servers: RunningServer[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const s of servers) if (s.process.exitCode === null && s.process.signalCode === null) await s.stop('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer({ LOG_LEVEL: 'warn', ...env });
  servers.push(server);
  return server;
}

/** Runs a second server process the way the harness does and waits for it to exit. */
async function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, serverArgs(), {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_ORIGIN: `http://localhost:${port}`, SEED_DEMO: 'true', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}

/** Stops a server with SIGTERM; returns its exit code and how long it took. */
async function terminate(server: RunningServer): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const code = await server.stop('SIGTERM');
  return { code, ms: Date.now() - started };
}

const changeConfigs = (origin: string, cookie: string) =>
  fetch(`${origin}${configsPath}`, { method: 'PUT', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ inventoryWeights: { civic: 5 } }) });

describe('one server process per PGlite data directory', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-own-'));
  dirs.push(dataDir);
  let managerCookie = '';

  it('refuses a second server on the same DATA_DIR, naming the directory and the holder PID', async () => {
    const first = await start({ DATA_DIR: dataDir });
    managerCookie = await apiSignIn(first.origin, 'manager@hondaofdemo.com', 'manager123');
    const lock = JSON.parse(readFileSync(path.join(dataDir, 'dc-banners.lock'), 'utf8'));
    expect(lock.pid).toBe(first.process.pid);

    const second = await runToExit({ DATA_DIR: dataDir });
    expect(second.code).not.toBe(0);
    const firstLine = second.output.split('\n').find((l) => l.includes('failed to start')) ?? second.output;
    expect(firstLine).toBe(
      `dc-banners failed to start: Data directory ${dataDir} is in use by another dc-banners process (PID ${first.process.pid}). Stop it first, or set DATA_DIR to another directory.`,
    );

    // The first server is unharmed and still owns the directory.
    const me = await fetch(`${first.origin}/api/auth/me`, { headers: { cookie: managerCookie } });
    expect(me.status).toBe(200);
    expect((await changeConfigs(first.origin, managerCookie)).status).toBe(200);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'dc-banners.lock'), 'utf8')).pid).toBe(first.process.pid);

    // SIGKILL: no clean-up, the lock file stays behind with a dead PID.
    expect(await first.stop('SIGKILL')).toBeNull();
    expect(existsSync(path.join(dataDir, 'dc-banners.lock'))).toBe(true);
  });

  it('takes over the stale lock of a killed server and finds its data', async () => {
    const next = await start({ DATA_DIR: dataDir });
    expect(JSON.parse(readFileSync(path.join(dataDir, 'dc-banners.lock'), 'utf8')).pid).toBe(next.process.pid);
    // The session stored before the kill is still there, and signing in works.
    const me = await fetch(`${next.origin}/api/auth/me`, { headers: { cookie: managerCookie } });
    expect(me.status).toBe(200);
    expect((await me.json()).user.email).toBe('manager@hondaofdemo.com');
    await apiSignIn(next.origin, 'admin@dc-banners.com', 'admin123');
    const configs = await (await fetch(`${next.origin}${configsPath}`, { headers: { cookie: managerCookie } })).json();
    expect(JSON.stringify(configs)).toContain('"civic":5');

    const { code } = await terminate(next);
    expect(code).toBe(0);
    expect(existsSync(path.join(dataDir, 'dc-banners.lock'))).toBe(false); // released on a clean stop
  });

  it('below DATA_MIN_FREE_MB: changes answer 507, reads 200, SIGTERM exits 0 promptly', async () => {
    const low = await start({ DATA_DIR: dataDir, DATA_MIN_FREE_MB: '100000000' });
    const change = await changeConfigs(low.origin, managerCookie);
    expect(change.status).toBe(507);
    expect(await change.json()).toEqual(OUT_OF_DISK);
    // Signing in stores a session, so it is a change too (documented in db/disk-guard.ts).
    const signIn = await fetch(`${low.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@dc-banners.com', password: 'admin123' }) });
    expect(signIn.status).toBe(507);

    expect((await fetch(`${low.origin}/api/auth/me`, { headers: { cookie: managerCookie } })).status).toBe(200);
    expect((await fetch(`${low.origin}${configsPath}`, { headers: { cookie: managerCookie } })).status).toBe(200);
    expect((await fetch(`${low.origin}/api/auth/demo-accounts`)).status).toBe(200);
    expect((await fetch(`${low.origin}/scripts/dc-banners-${DEMO_DEALER.id}.js`)).status).toBe(200);

    const { code, ms } = await terminate(low);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(low.output()).toContain('data directory is low on disk space; refusing changes');
  });
});

describe('a data directory whose disk really fills up (tmpfs, root only)', () => {
  let mount: string | null = null;
  afterAll(() => {
    if (mount) unmountTmpfs(mount);
  });

  it('refuses changes while the disk is low, keeps reading, resumes when space is freed, stops on SIGTERM', async (ctx) => {
    mount = mountTmpfs(128);
    if (!mount) return ctx.skip();
    const dataDir = path.join(mount, 'data');
    mkdirSync(dataDir);
    const server = await start({ DATA_DIR: dataDir, DATA_MIN_FREE_MB: '16', LOG_LEVEL: 'info' });
    const cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
    expect((await changeConfigs(server.origin, cookie)).status).toBe(200);

    // Leave 8 MB: below the 16 MB floor, while PGlite itself still has room.
    const s = statfsSync(mount);
    const filler = path.join(mount, 'filler');
    writeFileSync(filler, Buffer.alloc(s.bavail * s.bsize - 8 * 1024 * 1024));
    await expect.poll(async () => (await changeConfigs(server.origin, cookie)).status, { timeout: 10_000, interval: 250 }).toBe(507);
    expect(await (await changeConfigs(server.origin, cookie)).json()).toEqual(OUT_OF_DISK);
    expect((await fetch(`${server.origin}${configsPath}`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${server.origin}/api/auth/demo-accounts`)).status).toBe(200);

    unlinkSync(filler);
    await expect.poll(async () => (await changeConfigs(server.origin, cookie)).status, { timeout: 10_000, interval: 250 }).toBe(200);

    const { code, ms } = await terminate(server);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(server.output()).toContain('data directory has disk space again; accepting changes');
  });
});
