/**
 * `npm run bench:inventory`: what an inventory upload costs the dealers' sites, on
 * PGlite and (when it answers) PostgreSQL. Each server runs in its own process
 * (scripts/bench-server.ts, production logging). Prints a Markdown report:
 * - the hot banner's latency (p50 / p99 / max, 8 clients back to back) idle, and during the upload
 *   and apply of a maximum inventory file (50,000 vehicles, every column; BENCH_INVENTORY_ROUNDS
 *   uploads, 3 by default), with the upload's own duration;
 * - the time to refuse CSV bombs of 200,000, 1,000,000 and 10,000,000 short rows (0.4, 2 and
 *   20 MB) and the banner's p99 meanwhile.
 * Env: BENCH_DATABASE_URL (default the local test server), BENCH_INVENTORY_ROUNDS,
 * BENCH_INVENTORY_BOMBS (row counts, comma-separated).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { DEMO_DEALER } from '../src/server/db/seed';
import { MAX_VEHICLES } from '../src/domain/constants';
import { multipartBody } from '../tests/fixtures/images';
import { freePort } from '../tests/e2e/harness';
import { postgresReachable, startBenchServer } from './bench-process';
import { dropSchemas } from '../src/server/db/drop-schemas';

const ROUNDS = Number(process.env.BENCH_INVENTORY_ROUNDS ?? 3);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CLIENTS = 8;
/** Row counts of the CSV bombs sent (BENCH_INVENTORY_BOMBS, comma-separated; empty for none). */
const BOMBS = (process.env.BENCH_INVENTORY_BOMBS ?? '200000,1000000,10000000').split(',').filter(Boolean).map(Number);
const IMAGE_HEADERS = { accept: 'image/webp,*/*', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0 Safari/537.36' };

/** The maximum file: 50,000 vehicles with every column. */
function maximumCsv(): Buffer {
  const rows = ['VIN,StockNumber,Make,Model,Trim,Year,DaysInStock,ExteriorColor,InteriorColor,BodyStyle,IsCertified,CityMPG,HighwayMPG,IsNew'];
  const models = ['Civic', 'Accord', 'CR-V', 'Pilot', 'HR-V', 'Odyssey'];
  for (let i = 0; i < MAX_VEHICLES; i++) {
    rows.push(`1HGCY1F3${String(i).padStart(9, '0')},H${i},Honda,${models[i % models.length]},${i % 3 ? 'LX' : 'EX'},2025,${i % 120},Platinum White Pearl,Black,Sedan,false,30,38,true`);
  }
  return Buffer.from(rows.join('\n'));
}

const bomb = (rows: number) => Buffer.concat([Buffer.from('Model\n'), Buffer.alloc(rows * 2, 'C\n')]);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/**
 * Runs `action` while CLIENTS clients fetch `url` back to back; returns the action's duration and
 * result and the latencies (ms, sorted) of the banner requests sent while it ran (however late
 * they were answered).
 */
async function duringAction<T>(url: string, action: () => Promise<T>): Promise<{ ms: number; result: T; latencies: number[] }> {
  let running = true;
  const latencies: number[] = [];
  const errors: string[] = [];
  const client = async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, { headers: IMAGE_HEADERS });
        await res.arrayBuffer();
        // Every request sent while the action ran counts, also one answered after it ended (held by a blocked server).
        latencies.push(performance.now() - t0);
      } catch (e) {
        errors.push(String((e as Error).cause ?? e));
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  const t0 = performance.now();
  const result = await action();
  const ms = performance.now() - t0;
  running = false;
  await Promise.all(clients);
  if (errors.length) console.error(`${errors.length} banner requests failed: ${errors[0]}`);
  return { ms, result, latencies: latencies.sort((a, b) => a - b) };
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1));

async function measure(label: string, env: Record<string, string>): Promise<string[]> {
  const server = await startBenchServer({ ...env, BENCH_PORT: String(await freePort()) });
  const rows: string[] = [];
  try {
    const { origin } = server;
    const login = await fetch(`${origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ email: 'manager@hondaofdemo.com', password: 'manager123' }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const bannerUrl = `${origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
    const upload = async (filename: string, data: Buffer) => {
      const { body, contentType } = multipartBody([{ filename, data, contentType: 'text/csv' }]);
      const res = await fetch(`${origin}/api/dealers/${DEMO_DEALER.id}/inventory`, { method: 'POST', headers: { cookie, origin, 'content-type': contentType }, body: new Uint8Array(body) });
      const text = await res.text();
      return `${res.status} ${res.ok ? '' : (JSON.parse(text) as { error: { message: string } }).error.message}`.trim();
    };
    await fetch(bannerUrl, { headers: IMAGE_HEADERS });
    const idle = await duringAction(bannerUrl, () => new Promise((r) => setTimeout(r, 3000)));
    rows.push(`| ${label} | idle (3 s) | — | ${fmt(percentile(idle.latencies, 50))} | ${fmt(percentile(idle.latencies, 99))} | ${fmt(idle.latencies.at(-1)!)} | ${idle.latencies.length} |`);
    const file = maximumCsv();
    for (let round = 1; round <= ROUNDS; round++) {
      const r = await duringAction(bannerUrl, () => upload('max.csv', file));
      console.error(label, 'max', r.result, Math.round(r.ms), fmt(percentile(r.latencies, 99)));
      rows.push(
        `| ${label} | upload + apply of 50,000 vehicles (${(file.length / 1e6).toFixed(1)} MB), round ${round}: ${r.result} | ${fmt(r.ms)} | ${fmt(percentile(r.latencies, 50))} | ${fmt(percentile(r.latencies, 99))} | ${fmt(r.latencies.at(-1) ?? NaN)} | ${r.latencies.length} |`,
      );
    }
    for (const n of BOMBS) {
      const data = bomb(n);
      const r = await duringAction(bannerUrl, () => upload('bomb.csv', data));
      console.error(label, n, r.result, Math.round(r.ms));
      rows.push(
        `| ${label} | refuse ${n.toLocaleString('en-US')}-row CSV (${(data.length / 1e6).toFixed(1)} MB): ${r.result} | ${fmt(r.ms)} | ${fmt(percentile(r.latencies, 50))} | ${fmt(percentile(r.latencies, 99))} | ${fmt(r.latencies.at(-1) ?? NaN)} | ${r.latencies.length} |`,
      );
    }
  } finally {
    await server.stop();
  }
  return rows;
}

const out: string[] = [];
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-bench-inventory-'));
try {
  out.push(...(await measure('PGlite', { BENCH_DATA_DIR: dataDir, BENCH_DATABASE_URL: '' })));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (await postgresReachable(PG_URL)) {
  const schema = `bench_inv_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  try {
    out.push(...(await measure('PostgreSQL', { BENCH_DATABASE_URL: PG_URL, BENCH_SCHEMA: schema })));
  } finally {
    await dropSchemas(PG_URL, schema);
  }
}
console.log(`Inventory uploads beside the hot banner (${CLIENTS} clients back to back), ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, Node ${process.version}; latencies in ms.

| database | while | took (ms) | banner p50 | banner p99 | banner max | banner requests |
| --- | --- | --- | --- | --- | --- | --- |
${out.join('\n')}`);
