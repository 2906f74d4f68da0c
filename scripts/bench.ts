/**
 * `npm run bench`: measures the dealer-site-facing paths on this machine and prints a Markdown
 * report (with `--write`, also to docs/PERFORMANCE.md). The load generator is `wrk`
 * (scripts/load.ts; autocannon when wrk is not installed), the servers run in their own processes
 * (scripts/bench-server.ts, with the production logging settings), and every row runs in
 * BENCH_ROUNDS (3) interleaved rounds: round 1 of every row, then round 2 of every row..., so a
 * slow moment of the machine touches every row alike. The report gives medians with the range,
 * the share of the ceiling measured in the same run (a bare Fastify route answering 204), and the
 * server's CPU microseconds per request.
 *
 * Rows:
 * - the ceiling: a bare Fastify POST and GET answering 204;
 * - per database (embedded PGlite, and PostgreSQL when BENCH_DATABASE_URL or the local test server
 *   at postgres://postgres@127.0.0.1:5432/test answers): POST track (text/plain beacon, each its own
 *   page view), the hot WebP banner, the same with If-None-Match (304), the embed script;
 * - nginx serving the same WebP bytes from disk, when `nginx` is installed (one worker);
 * - abuse (once per database): the hot banner beside a flood of unique models, and during 4
 *   maximum-size uploads with sign-ins timed;
 * - ingestion integrity: after SIGTERM, every acknowledged track event is in the database; and
 *   after kill -9 in the middle of a track load (BENCH_CRASH_SECONDS, 6), how many were lost;
 * - cold restart (per database, without and with the start-up banner warm-up): p99 of the hot banner in the first 4 s after a restart under
 *   load against the steady state, and the encodings the restarted process made of it;
 * - the embed script size, the page speed of the tag on the fixture dealer pages in Debian
 *   Chromium (CLS, FCP and LCP deltas), the tag on the e2e tests' fixture dealer pages with exact
 *   counting (scripts/bench-sites.ts), and the web app's first load per route (scripts/web-budget.ts).
 * - spread dealers (scripts/bench-spread.ts): the hot banner and the beacons of the one-dealer rows
 *   spread evenly over BENCH_DEALERS copies of the demo dealer, against the one-dealer rows;
 * - data volume (scripts/bench-volume.ts): generated dealers and events on PostgreSQL, the
 *   reporting endpoints and jobs timed at each volume of BENCH_VOLUMES;
 * - notification job (scripts/bench-jobs.ts, PostgreSQL only): the weekly report + alerts pass over
 *   BENCH_JOBS_DEALERS (1,000) dealers by one and by two processes, and an idle pass.
 * Exits 1 when a web first-load budget is exceeded (the performance targets are reported, not enforced).
 * Env: BENCH_SECONDS (10) per row and round, BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
 * BENCH_PAGE_LOADS (5) paired page loads per page and profile, BENCH_DEALERS (1000).
 * BENCH_ONLY selects one part and prints only it:
 * - `volume` (or `--volume-only`): the data-volume table;
 * - `cold-restart`: the cold-restart section;
 * - `jobs`: the notification-job section;
 * - `sites`: the dealer-sites section (scripts/bench-sites.ts; BENCH_SITES_LOADS pairs, default 10;
 *   BENCH_SITES_ONLY, a case-insensitive regex, picks pages by name); with `--write` it replaces
 *   only that section of docs/PERFORMANCE.md;
 * - any other value, a case-insensitive regex: only the load rows whose name matches (and the
 *   ceilings), their table, then stop (no abuse, integrity, page-speed or web-size sections), e.g.
 *   `BENCH_ONLY='hot WebP banner|track, (PGlite|PostgreSQL)(, spread|$)'` for the one-dealer and spread rows.
 * BENCH_HOT_PATHS=compare (with BENCH_ONLY): each database's rows also from a second server that
 * answers every request through Fastify (rows named "…, no hot paths"), in the same interleaved rounds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { buildEmbed } from './build-embed';
import { load, WRK, type LoadOptions, type LoadResult } from './load';
import { routeSizes, routeSizesMarkdown } from './web-budget';
import { openDatabase } from '../src/server/db/client';
import { events } from '../src/server/db/schema';
import { DEMO_DEALER } from '../src/server/db/seed';
import { MAX_IMAGE_PIXELS } from '../src/domain/constants';
import { multipartBody } from '../tests/fixtures/images';
import { freePort, startServer } from '../tests/e2e/harness';
import { DEALER_CACHE_TTL_MS } from '../src/server/dealer-sites';
import { measurePageSpeed, pageSpeedMarkdown } from '../tests/e2e/page-speed';
import { volumeBench, volumeOnly, withVolumeSection } from './bench-volume';
import { jobsBench } from './bench-jobs';
import { postgresReachable, startBenchServer, type BenchServer } from './bench-process';
import { SPREAD_DEALER_PREFIX } from './bench-spread';
import { WARM_UP_SHAPES } from '../src/server/delivery/warm-up';
import { sitesBench, writeSitesSection } from './bench-sites';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PAGE_LOADS = Number(process.env.BENCH_PAGE_LOADS ?? 5);
const DEALERS = Number(process.env.BENCH_DEALERS ?? 1000);
/** BENCH_ONLY: the load rows to run (see the module doc); null = every row and section. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
const wanted = (row: string) => !ONLY || ONLY.test(row);
/** BENCH_HOT_PATHS=compare: every app row also from a server without the hot paths (only with BENCH_ONLY). */
const COMPARE_HOT_PATHS = process.env.BENCH_HOT_PATHS === 'compare' && ONLY !== null;
const NO_HOT_PATHS = ', no hot paths';
const CRASH_SECONDS = Number(process.env.BENCH_CRASH_SECONDS ?? 6);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const IMAGE_HEADERS = { accept: 'image/webp,*/*', 'user-agent': UA };
const TRACK_HEADERS = { 'content-type': 'text/plain', 'user-agent': UA, origin: 'https://www.hondaofdemo.com' };
/** An impression beacon; the load generator replaces `{n}` per request, so each is its own page view (one impression per page view and slot is stored). */
const BEACON_TEMPLATE = JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: 'view-bench-{n}' });

interface Row extends LoadResult {
  name: string;
  /** Server CPU time (user + system) per answered request, microseconds; null when unknown. */
  cpuUs: number | null;
}

/** CPU seconds (user + system) the processes have used so far, from /proc (Linux); null elsewhere. */
function cpuSeconds(pids: number | number[] | undefined): number | null {
  try {
    let ticks = 0;
    for (const pid of [pids ?? []].flat()) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return pids === undefined ? null : ticks / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100;

type RunOptions = Omit<LoadOptions, 'connections' | 'seconds'> & { connections?: number };

/** One load run against the server of `pid` (or the processes of `pid`), with that server's CPU time per answered request. */
async function run(name: string, opts: RunOptions, pid: number | number[] | undefined, seconds = SECONDS): Promise<Row> {
  const before = cpuSeconds(pid);
  const r = await load({ connections: CONNECTIONS, seconds, ...opts });
  const after = cpuSeconds(pid);
  const answered = r.ok + r.errors;
  return { ...r, name, cpuUs: before === null || after === null || answered === 0 ? null : Math.round(((after - before) * 1e6) / answered) };
}

type DbTarget = { dataDir: string } | { url: string; schema: string };

/** The bench server's env for a database. */
async function dbEnv(db: DbTarget): Promise<Record<string, string>> {
  const env: Record<string, string> = { BENCH_PORT: String(await freePort()) };
  if ('dataDir' in db) env.BENCH_DATA_DIR = db.dataDir;
  else Object.assign(env, { BENCH_DATABASE_URL: db.url, BENCH_SCHEMA: db.schema });
  return env;
}

/** Counts stored events of a bench database (PGlite directory or PostgreSQL schema, dropped after). */
async function storedEvents(db: DbTarget): Promise<number> {
  if ('dataDir' in db) {
    const database = await openDatabase({ dataDir: db.dataDir });
    const n = await database.db.$count(events);
    await database.close();
    return n;
  }
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const n = Number((await c.query(`SELECT count(*) AS n FROM "${db.schema}".events`)).rows[0].n);
  await c.query(`DROP SCHEMA "${db.schema}" CASCADE`);
  await c.end();
  return n;
}

/** nginx (one worker) serving `bytes` as /banner.webp from a temporary directory; null when nginx is not installed. */
async function startNginx(bytes: Buffer): Promise<{ url: string; pids: () => number[]; stop(): void } | null> {
  if (spawnSync('nginx', ['-v'], { stdio: 'ignore' }).error) return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-nginx-'));
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, 'banner.webp'), bytes);
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp; uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  types { image/webp webp; }
  server { listen 127.0.0.1:${port}; root ${dir}; }
}
`,
  );
  const child = spawn('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/banner.webp`;
  for (let i = 0; i < 50; i++) {
    if ((await fetch(url).catch(() => null))?.ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const pids = () => {
    const out = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout;
    return [child.pid!, ...out.split('\n').filter(Boolean).map(Number)];
  };
  return {
    url,
    pids,
    stop: () => {
      child.kill('SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The production entry (src/server/main.ts) with WORKERS=2 on PostgreSQL in its own schema, the
 * demo dealer's rate limit off as on the bench server: the multi-process figure beside the
 * single-process rows. Its CPU is the workers' and the primary's.
 */
async function startWorkers(schema: string) {
  const server = await startServer({ WORKERS: '2', DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, LOG_LEVEL: 'info', LOG_PUBLIC_SAMPLE_RATE: '0', FEED_SCHEDULER_INTERVAL_MS: '0', NOTIFICATION_INTERVAL_MS: '0' });
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`UPDATE "${schema}".dealers SET security = security || '{"rateLimitEnabled": false}'::jsonb WHERE id = $1`, [DEMO_DEALER.id]);
  await c.end();
  await new Promise((r) => setTimeout(r, 2 * DEALER_CACHE_TTL_MS)); // every worker reads the new settings
  const pids = () => [server.process.pid!, ...spawnSync('pgrep', ['-P', String(server.process.pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number)];
  return { origin: server.origin, pids, stop: () => server.stop() };
}

interface AppServer {
  label: string;
  db: DbTarget;
  server: BenchServer;
  assetUrl: string;
  etag: string;
  script: string;
}

/** Starts the app on `db` and checks its hot banner is the uploaded asset. */
async function startApp(label: string, db: DbTarget, env: Record<string, string> = {}): Promise<AppServer> {
  const server = await startBenchServer({ ...(await dbEnv(db)), BENCH_SPREAD_DEALERS: String(DEALERS), ...env });
  const { origin } = server;
  const script = await (await fetch(`${origin}/scripts/dc-banners-${DEMO_DEALER.id}.js`)).text();
  const assetUrl = `${origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
  const first = await fetch(assetUrl, { headers: IMAGE_HEADERS });
  if (first.headers.get('x-banner-source') !== 'asset') throw new Error('bench banner was not uploaded');
  await warmSpreadDealers(origin);
  return { label, db, server, assetUrl, etag: first.headers.get('etag')!, script };
}

/** The hot banner of spread dealer `{i}` (load.ts `cycle`), as a path template. */
const SPREAD_BANNER_PATH = `/api/scripts/${SPREAD_DEALER_PREFIX}{i}/asset?model=civic&type=header&variant=desktop`;
/** A beacon of spread dealer `{i}`, each its own page view. */
const SPREAD_BEACON_TEMPLATE = BEACON_TEMPLATE.replace(JSON.stringify(DEMO_DEALER.id), JSON.stringify(`${SPREAD_DEALER_PREFIX}{i}`));

/** Asks every spread dealer's banner once (10 at a time), as the one-dealer rows' banner was: the rows measure warm caches. */
async function warmSpreadDealers(origin: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < DEALERS; i = next++) {
      const res = await fetch(`${origin}${SPREAD_BANNER_PATH.replace('{i}', String(i))}`, { headers: IMAGE_HEADERS });
      if (res.headers.get('x-banner-source') !== 'asset') throw new Error(`spread dealer ${i}: no asset banner (${res.status})`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
}

/** The spread-dealers rows of app `a` (the one-dealer rows' load over DEALERS dealers). */
function spreadRows(a: AppServer): PlannedRow[] {
  return [
    { name: spreadRow(trackRow(a.label)), opts: { url: `${a.server.origin}/api/analytics/track`, method: 'POST', bodyTemplate: SPREAD_BEACON_TEMPLATE, cycle: DEALERS, headers: TRACK_HEADERS }, pid: () => a.server.child.pid, ceiling: BARE_POST },
    { name: spreadRow(bannerRow(a.label)), opts: { url: a.assetUrl, pathTemplate: SPREAD_BANNER_PATH, cycle: DEALERS, headers: IMAGE_HEADERS }, pid: () => a.server.child.pid, ceiling: BARE_GET },
  ];
}

/** Target lines of the spread rows: ≥ 0.8 × the one-dealer row's throughput, p99 < 10 ms. */
function spreadTargets(summaries: Map<string, Summary>, label: string): string[] {
  const ms = (x: number) => (x >= 100 ? String(Math.round(x)) : x.toFixed(1));
  return [trackRow(label), bannerRow(label)].flatMap((one) => {
    const single = summaries.get(one);
    const spread = summaries.get(spreadRow(one));
    if (!single || !spread) return [];
    const ratio = spread.rps / single.rps;
    const met = ratio >= 0.8 && spread.p99 < 10 ? 'met' : '**not met**';
    return [`| ${spreadRow(one)}: ≥ 0.8 × one dealer, p99 < 10 ms | ${spread.rps}/s = ${ratio.toFixed(2)} × ${single.rps}/s; p99 ${ms(spread.p99)} ms (one dealer ${ms(single.p99)} ms) | ${met} |`];
  });
}

/** A row of the interleaved rounds: what to run, against which process, and the ceiling it is a share of. */
interface PlannedRow {
  name: string;
  opts: RunOptions;
  pid: () => number | number[] | undefined;
  /** Name of the row whose median is this row's ceiling. */
  ceiling?: string;
}

interface Summary {
  name: string;
  rounds: Row[];
  rps: number;
  rpsMin: number;
  rpsMax: number;
  p50: number;
  p99: number;
  p99Max: number;
  cpuUs: number | null;
  errors: number;
  share: number | null;
  command: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Waits until the processes of every planned row are quiet (under 10 % of a core over 250 ms, at
 * most 30 s): a row starts when the previous one's leftovers (events still being written after a
 * track row, garbage collection) are done, on every server, so no row pays for another's work.
 */
async function settle(plan: PlannedRow[]): Promise<void> {
  const pids = [...new Set(plan.flatMap((p) => [p.pid() ?? []].flat()))];
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const before = cpuSeconds(pids);
    await new Promise((r) => setTimeout(r, 250));
    const after = cpuSeconds(pids);
    if (before === null || after === null || after - before < 0.025) return;
  }
}

/** Runs every planned row ROUNDS times, interleaved (each on quiet servers: settle), and summarises each by its medians. */
async function interleaved(plan: PlannedRow[]): Promise<Map<string, Summary>> {
  const rounds = new Map<string, Row[]>(plan.map((p) => [p.name, []]));
  for (let r = 1; r <= ROUNDS; r++) {
    for (const p of plan) {
      await settle(plan);
      const row = await run(p.name, p.opts, p.pid());
      rounds.get(p.name)!.push(row);
      process.stderr.write(`bench round ${r}/${ROUNDS}: ${p.name}: ${row.rps}/s, p99 ${row.p99} ms, ${row.errors} errors\n`);
    }
  }
  const out = new Map<string, Summary>();
  for (const p of plan) {
    const rows = rounds.get(p.name)!;
    const cpus = rows.map((r) => r.cpuUs).filter((c): c is number => c !== null);
    out.set(p.name, {
      name: p.name,
      rounds: rows,
      rps: Math.round(median(rows.map((r) => r.rps))),
      rpsMin: Math.min(...rows.map((r) => r.rps)),
      rpsMax: Math.max(...rows.map((r) => r.rps)),
      p50: median(rows.map((r) => r.p50)),
      p99: median(rows.map((r) => r.p99)),
      p99Max: Math.max(...rows.map((r) => r.p99)),
      cpuUs: cpus.length ? Math.round(median(cpus)) : null,
      errors: rows.reduce((n, r) => n + r.errors, 0),
      share: null,
      command: rows[0]!.command,
    });
  }
  for (const p of plan) if (p.ceiling) out.get(p.name)!.share = out.get(p.name)!.rps / out.get(p.ceiling)!.rps;
  return out;
}

/** Hot banner under abuse: a flood of unique models, and maximum-size uploads. */
interface AbuseResult {
  label: string;
  /** The hot banner alone, just before the flood. */
  alone: Row;
  /** The hot banner with a 10-connection flood of unique unknown models beside it. */
  banner: Row;
  flood: Row;
  /** The hot banner while 4 clients upload maximum-size images back to back. */
  bannerDuringUploads: Row;
  uploads: number;
  /** Sign-in durations during the uploads, milliseconds, sorted. */
  signIns: number[];
}

/**
 * The hot banner alone, then beside a flood of unique `model=` values (10 connections; each request
 * a model never asked before), then beside 4 clients uploading maximum-size (MAX_IMAGE_PIXELS)
 * JPEGs back to back, with a sign-in timed every 1.5 s during the uploads (§13).
 */
async function abuseRows(app: AppServer): Promise<AbuseResult> {
  const { label, assetUrl } = app;
  const { origin } = app.server;
  const pid = app.server.child.pid;
  const alone = await run(`GET hot banner alone, ${label}`, { url: assetUrl, headers: IMAGE_HEADERS }, pid);
  const floodRun = run(
    `flood: unique unknown models, 10 connections, ${label}`,
    { url: assetUrl, connections: 10, headers: IMAGE_HEADERS, pathTemplate: `/api/scripts/${DEMO_DEALER.id}/asset?model=flood{n}&type=header&variant=desktop` },
    undefined,
  );
  const banner = await run(`GET hot banner beside the flood, ${label}`, { url: assetUrl, headers: IMAGE_HEADERS }, pid);
  const flood = await floodRun;

  const manager = await fetch(`${origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ email: 'manager@hondaofdemo.com', password: 'manager123' }) });
  const cookie = manager.headers.get('set-cookie')!.split(';')[0]!;
  const side = Math.floor(Math.sqrt(MAX_IMAGE_PIXELS));
  const big = await sharp({ create: { width: side, height: side, channels: 3, background: '#336699' } }).jpeg({ quality: 80 }).toBuffer();
  let stop = false;
  let uploads = 0;
  const uploader = async () => {
    while (!stop) {
      const { body, contentType } = multipartBody([{ filename: `new_2025_honda_civic_sport_${side}x${side}.jpg`, data: big }]);
      const res = await fetch(`${origin}/api/dealers/${DEMO_DEALER.id}/assets`, { method: 'POST', headers: { cookie, origin, 'content-type': contentType }, body: new Uint8Array(body) });
      const result = (await res.json()) as { results?: Array<{ ok: boolean; asset?: { id: string } }> };
      const id = result.results?.[0]?.asset?.id;
      if (res.ok && id) {
        uploads += 1;
        // Keep the dealer under its storage quota.
        await fetch(`${origin}/api/dealers/${DEMO_DEALER.id}/assets/${id}`, { method: 'DELETE', headers: { cookie, origin } });
      }
    }
  };
  const uploaders = Array.from({ length: 4 }, uploader);
  const signIns: number[] = [];
  const signInLoop = (async () => {
    while (!stop) {
      const t0 = performance.now();
      await fetch(`${origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ email: 'viewer@hondaofdemo.com', password: 'viewer123' }) });
      signIns.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 1500));
    }
  })();
  const bannerDuringUploads = await run(`GET hot banner during 4 maximum-size uploads, ${label}`, { url: assetUrl, headers: IMAGE_HEADERS }, pid);
  stop = true;
  await Promise.all([...uploaders, signInLoop]);
  return { label, alone, banner, flood, bannerDuringUploads, uploads, signIns: signIns.sort((a, b) => a - b) };
}

interface CrashResult {
  label: string;
  acknowledged: number;
  stored: number;
  rps: number;
}

/** kill -9 of the server in the middle of a sustained track load: acknowledged events against events found afterwards. */
async function crashLoss(label: string, db: DbTarget): Promise<CrashResult> {
  const server = await startBenchServer(await dbEnv(db));
  server.child.removeAllListeners('exit');
  const exited = new Promise((r) => server.child.once('exit', r));
  const loadRun = load({ url: `${server.origin}/api/analytics/track`, method: 'POST', bodyTemplate: BEACON_TEMPLATE, headers: TRACK_HEADERS, connections: CONNECTIONS, seconds: CRASH_SECONDS + 1 });
  setTimeout(() => server.child.kill('SIGKILL'), CRASH_SECONDS * 1000);
  const r = await loadRun;
  await exited;
  return { label, acknowledged: r.ok, stored: await storedEvents(db), rps: Math.round(r.ok / CRASH_SECONDS) };
}

/** The bench server's /metrics token (scripts/bench-server.ts). */
const BENCH_METRICS_TOKEN = 'bench-metrics-token-0123456789';

/** One cold-restart measurement: a restarted process under load, its first seconds against its steady state. */
interface ColdRound {
  cold: Row;
  steady: Row;
  encodings: number;
  waited: number;
  /** 1-minute load average of the machine when the round started and ended. */
  load: [number, number];
}

/** Restarts the app on `db` with `env` and measures one cold-restart round (see coldRestartSection). */
async function coldRound(db: DbTarget, env: Record<string, string>, label: string, coldSeconds: number): Promise<ColdRound> {
  const loadBefore = os.loadavg()[0]!;
  const metric = (text: string, re: RegExp) => [...text.matchAll(re)].reduce((n, m) => n + Number(m[m.length - 1]), 0);
  const first = await startBenchServer(env); // seeds the database and uploads the banner
  await first.stop();
  const server = await startBenchServer(env); // the restart: nothing cached, nothing encoded
  const url = `${server.origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
  const cold = await run(`cold restart, first ${coldSeconds} s, ${label}`, { url, headers: IMAGE_HEADERS }, server.child.pid, coldSeconds);
  const metrics = await (await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } })).text();
  const encodings = metric(metrics, /^dcb_banner_encodings_total\{format="(webp|orig)"\} (\d+)$/gm);
  const waited = metric(metrics, /^dcb_cache_lookups_total\{cache="bytes",result="miss"\} (\d+)$/gm);
  const steady = await run(`steady state, ${label}`, { url, headers: IMAGE_HEADERS }, server.child.pid);
  const source = (await fetch(url, { headers: IMAGE_HEADERS })).headers.get('x-banner-source');
  await server.stop();
  if (source !== 'asset') throw new Error(`cold restart: the bench banner is ${source}, not the uploaded asset`);
  return { cold, steady, encodings, waited, load: [loadBefore, os.loadavg()[0]!] };
}

/**
 * The cold-restart rows: the app is started on a database (seeded, the civic banner uploaded),
 * stopped, and started again; the moment it listens, the hot WebP banner is loaded with
 * CONNECTIONS connections for 4 s, then, its caches warm, for SECONDS more (the steady state).
 * Twice per database: with the start-up banner warm-up turned off (BANNER_WARM_UP=0: every cold
 * request waits for the resize, the "before") and as configured by default (delivery/warm-up.ts:
 * the banner is encoded before the process listens). Every row runs BENCH_ROUNDS interleaved
 * rounds (round 1 of every row, then round 2...), each on a fresh database, so a slow moment of a
 * shared machine touches every row alike; the report gives the medians (and the worst round) of
 * both p99s and of the per-round ratio (target ≤ 3), the server CPU per request in both phases,
 * the most encodings a restarted process made (dcb_banner_encodings_total: the warm-up encodes the
 * banner in each of its request shapes, WARM_UP_SHAPES), the median of the requests that found no
 * encoded bytes (dcb_cache_lookups_total bytes misses, the warm-up's own lookups included: without
 * it, every request of the first wave) and the machine's load average over the rounds. Returns the
 * report's Markdown section. Select it alone with BENCH_ONLY=cold-restart.
 */
async function coldRestartSection(): Promise<string> {
  const COLD_SECONDS = 4;
  const targets: Array<[string, () => DbTarget]> = [['PGlite', () => ({ dataDir: mkdtempSync(path.join(os.tmpdir(), 'dcb-bench-')) })]];
  if (await postgresReachable(PG_URL)) targets.push(['PostgreSQL', () => ({ url: PG_URL, schema: `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}` })]);
  const rows = targets.flatMap(([database, makeDb]) =>
    [false, true].map((warmUp) => ({ label: `${database}, ${warmUp ? 'warm-up (default)' : 'no warm-up (BANNER_WARM_UP=0)'}`, warmUp, makeDb, rounds: [] as ColdRound[] })),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      const db = row.makeDb();
      const env = { ...(await dbEnv(db)), ...(row.warmUp ? {} : { BANNER_WARM_UP: '0' }) };
      try {
        const r = await coldRound(db, env, row.label, COLD_SECONDS);
        row.rounds.push(r);
        process.stderr.write(
          `bench cold restart, ${row.label}, round ${round + 1}: first ${COLD_SECONDS} s p99 ${r.cold.p99} ms (${r.cold.rps}/s, ${r.cold.errors} errors), steady p99 ${r.steady.p99} ms, ${r.encodings} encodings, ${r.waited} bytes misses, load ${r.load[0].toFixed(1)}-${r.load[1].toFixed(1)}\n`,
        );
      } finally {
        if ('dataDir' in db) rmSync(db.dataDir, { recursive: true, force: true });
        else await storedEvents(db); // drops the PostgreSQL schema
      }
    }
  }
  const lines = rows.map(({ label, warmUp, rounds }) => {
    const ratios = rounds.map((r) => r.cold.p99 / Math.max(r.steady.p99, 0.001));
    const ratio = median(ratios);
    const cpu = (rs: Row[]) => (rs.some((r) => r.cpuUs === null) ? '?' : String(Math.round(median(rs.map((r) => r.cpuUs!)))));
    const encodings = Math.max(...rounds.map((r) => r.encodings));
    // One encoding per banner and size: the one size requested, or each size the warm-up makes.
    const sizes = warmUp ? WARM_UP_SHAPES.length : 1;
    const loads = rounds.flatMap((r) => r.load);
    return `| ${label} | ${Math.round(median(rounds.map((r) => r.cold.rps)))}/s, p99 ${median(rounds.map((r) => r.cold.p99)).toFixed(1)} ms (worst ${Math.max(...rounds.map((r) => r.cold.p99)).toFixed(1)}), ${rounds.reduce((n, r) => n + r.cold.errors, 0)} errors, ${cpu(rounds.map((r) => r.cold))} µs CPU/request | ${Math.round(median(rounds.map((r) => r.steady.rps)))}/s, p99 ${median(rounds.map((r) => r.steady.p99)).toFixed(1)} ms, ${cpu(rounds.map((r) => r.steady))} µs CPU/request | ${ratio.toFixed(2)} × (${ratios.map((x) => x.toFixed(1)).join(', ')}) (${ratio <= 3 ? 'met' : '**not met**'}) | ${encodings} for ${sizes} size${sizes > 1 ? 's' : ''} (${encodings <= sizes ? 'met' : '**not met**'}) | ${median(rounds.map((r) => r.waited))} | ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} |`;
  });
  return `## Cold restart

The app is restarted on its database (nothing cached) and the hot WebP banner is loaded with ${CONNECTIONS} connections the moment it listens: the first 4 s against the steady state of the same request in the same process just after (${SECONDS} s). Per database, without the start-up banner warm-up (BANNER_WARM_UP=0) and with it (the default: the hottest banners are encoded before the process listens, for at most BANNER_WARM_UP_WAIT_MS; what is left then waits for idle moments below the requests' priority; delivery/warm-up.ts). ${ROUNDS} interleaved rounds per row, each on a fresh database: medians (the ratio is the median of the rounds' ratios, listed). Encodings: the most resizes a restarted process made (dcb_banner_encodings_total; the warm-up makes one per request shape: desktop 1x, mobile 2x, desktop 2x). Bytes cache misses: lookups that found no encoded bytes and waited for an encoding (concurrent ones share one), the warm-up's own lookups included. Load: the machine's 1-minute load average at the rounds' starts and ends. Targets: p99 of the first 4 s ≤ 3 × the steady p99; one encoding per banner and size.

| restart | first 4 s after the restart | steady state | p99 ratio (≤ 3; per round) | encodings (one per size) | bytes cache misses | load average |
|---|---|---|---|---|---|---|
${lines.join('\n')}
`;
}

// ---------------------------------------------------------------------------------------------

if (volumeOnly()) {
  // With --write, docs/PERFORMANCE.md's data-volume section is replaced after each volume (a long 20M run cut short keeps the 1M figures).
  const doc = path.resolve('docs/PERFORMANCE.md');
  const write = (section: string) => {
    if (process.argv.includes('--write')) writeFileSync(doc, withVolumeSection(readFileSync(doc, 'utf8'), section));
  };
  process.stdout.write(await volumeBench(write));
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'sites') {
  // The dealer-sites section alone; with --write it replaces its section of docs/PERFORMANCE.md after each page and profile.
  const write = process.argv.includes('--write');
  const section = await sitesBench((partial) => write && writeSitesSection(partial));
  if (write) writeSitesSection(section);
  process.stdout.write(section);
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'jobs') {
  process.stdout.write(await jobsBench());
  process.exit(0);
}
const coldRestart = ONLY ? '' : await coldRestartSection(); // its own servers, before the other rows start theirs
if (process.env.BENCH_ONLY === 'cold-restart') {
  process.stdout.write(await coldRestartSection());
  process.exit(0);
}
const BARE_POST = 'bare Fastify POST answering 204 (the ceiling)';
const BARE_GET = 'bare Fastify GET answering 204 (the ceiling)';
const NGINX = 'nginx serving the same WebP bytes from disk (1 worker)';
const trackRow = (label: string) => `POST /api/analytics/track, ${label}`;
const WORKERS_TRACK = trackRow('PostgreSQL, WORKERS=2 (two processes: not a one-process figure)');
const bannerRow = (label: string) => `GET hot WebP banner, ${label}`;
/** The spread-dealers variant of a one-dealer row. */
const spreadRow = (row: string) => `${row}, spread over ${DEALERS} dealers (copies inserted by SQL)`;

const embed = await buildEmbed();
const pgSchema = () => `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const freshDir = () => mkdtempSync(path.join(os.tmpdir(), 'dcb-bench-'));

const bare = await startBenchServer({ BENCH_MODE: 'baseline' });
const apps: AppServer[] = [await startApp('PGlite', { dataDir: freshDir() })];
if (await postgresReachable(PG_URL)) apps.push(await startApp('PostgreSQL', { url: PG_URL, schema: pgSchema() }));
if (COMPARE_HOT_PATHS) {
  // The same rows from a second server per database that answers everything through Fastify.
  apps.push(await startApp(`PGlite${NO_HOT_PATHS}`, { dataDir: freshDir() }, { BENCH_HOT_PATHS: '0' }));
  if (apps.length > 2) apps.push(await startApp(`PostgreSQL${NO_HOT_PATHS}`, { url: PG_URL, schema: pgSchema() }, { BENCH_HOT_PATHS: '0' }));
}
const workersSchema = pgSchema();
const workers = apps.length > 1 && wanted(WORKERS_TRACK) ? await startWorkers(workersSchema) : null;
const webp = Buffer.from(await (await fetch(apps[0]!.assetUrl, { headers: IMAGE_HEADERS })).arrayBuffer());
const nginx = wanted(NGINX) ? await startNginx(webp) : null;

const allRows: PlannedRow[] = [
  { name: BARE_POST, opts: { url: `${bare.origin}/204`, method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } }, pid: () => bare.child.pid },
  { name: BARE_GET, opts: { url: `${bare.origin}/204` }, pid: () => bare.child.pid },
  ...apps.flatMap((a): PlannedRow[] => [
    { name: trackRow(a.label), opts: { url: `${a.server.origin}/api/analytics/track`, method: 'POST', bodyTemplate: BEACON_TEMPLATE, headers: TRACK_HEADERS }, pid: () => a.server.child.pid, ceiling: BARE_POST },
    { name: bannerRow(a.label), opts: { url: a.assetUrl, headers: IMAGE_HEADERS }, pid: () => a.server.child.pid, ceiling: BARE_GET },
    { name: `GET banner, If-None-Match (304), ${a.label}`, opts: { url: a.assetUrl, headers: { ...IMAGE_HEADERS, 'if-none-match': a.etag } }, pid: () => a.server.child.pid, ceiling: BARE_GET },
    { name: `GET embed script, ${a.label}`, opts: { url: `${a.server.origin}/scripts/dc-banners-${DEMO_DEALER.id}.js`, headers: { 'accept-encoding': 'br' } }, pid: () => a.server.child.pid, ceiling: BARE_GET },
  ]),
  ...(nginx ? [{ name: NGINX, opts: { url: nginx.url }, pid: () => undefined, ceiling: BARE_GET }] : []),
  ...(workers ? [{ name: WORKERS_TRACK, opts: { url: `${workers.origin}/api/analytics/track`, method: 'POST' as const, bodyTemplate: BEACON_TEMPLATE, headers: TRACK_HEADERS }, pid: workers.pids, ceiling: BARE_POST }] : []),
  ...apps.flatMap(spreadRows),
];
// The rows BENCH_ONLY names, and the ceilings they are measured against.
const plan = allRows.filter((p) => wanted(p.name) || allRows.some((q) => wanted(q.name) && q.ceiling === p.name));
const summaries = await interleaved(plan);
if (ONLY) {
  // BENCH_ONLY: these rows' table, then stop.
  nginx?.stop();
  await bare.stop();
  await workers?.stop();
  for (const a of apps) {
    await a.server.stop();
    await storedEvents(a.db); // drops a PostgreSQL schema
    if ('dataDir' in a.db) rmSync(a.db.dataDir, { recursive: true, force: true });
  }
  const ms = (x: number) => (x >= 100 ? String(Math.round(x)) : x.toFixed(1));
  process.stdout.write(`| row | requests/s (median, range) | share of the ceiling | p50 ms | p99 ms (median, worst round) | server CPU µs/request | errors |
|---|---|---|---|---|---|---|
${[...summaries.values()].map((s) => `| ${s.name} | ${s.rps} (${s.rpsMin}–${s.rpsMax}) | ${s.share === null ? 'ceiling' : `${s.share.toFixed(2)} ×`} | ${ms(s.p50)} | ${ms(s.p99)} (${ms(s.p99Max)}) | ${s.cpuUs ?? '?'} | ${s.errors} |`).join('\n')}

| target | measured | |
|---|---|---|
${apps.flatMap((a) => spreadTargets(summaries, a.label)).join('\n')}
`);
  process.exit(0);
}
const abuse: AbuseResult[] = [];
for (const a of apps) abuse.push(await abuseRows(a));
nginx?.stop();
await bare.stop();
if (workers) {
  await workers.stop();
  await storedEvents({ url: PG_URL, schema: workersSchema }); // drops the schema
}
const integrity: Array<{ label: string; acknowledged: number; stored: number }> = [];
for (const a of apps) {
  const code = await a.server.stop();
  if (code !== 0) throw new Error(`bench server exit code ${code}`);
  const stored = await storedEvents(a.db);
  if ('dataDir' in a.db) rmSync(a.db.dataDir, { recursive: true, force: true });
  integrity.push({ label: a.label, acknowledged: summaries.get(trackRow(a.label))!.rounds.reduce((n, r) => n + r.ok, 0), stored });
}
const crashes: CrashResult[] = [];
{
  const dir = freshDir();
  crashes.push(await crashLoss('PGlite', { dataDir: dir }));
  rmSync(dir, { recursive: true, force: true });
  if (apps.length > 1) crashes.push(await crashLoss('PostgreSQL', { url: PG_URL, schema: pgSchema() }));
}
const pageSpeed = await measurePageSpeed(PAGE_LOADS);
// The web app's route chunks as this commit builds them (about 15 s).
if (spawnSync('npm', ['run', 'build:web'], { stdio: 'ignore' }).status !== 0) throw new Error('bench: npm run build:web failed');
const webSizes = routeSizes();
const volumeSection = await volumeBench();
const sitesSection = await sitesBench();
const jobsSection = (await postgresReachable(PG_URL)) ? await jobsBench() : '## Notification job\n\nNot measured: no PostgreSQL at BENCH_DATABASE_URL.\n';

// ---------------------------------------------------------------------------------------------

const pct = (x: number | null) => (x === null ? '' : `${Math.round(x * 100)} %`);
const ms = (x: number) => (x >= 100 ? String(Math.round(x)) : x.toFixed(1));
const cpu = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}`;
const tool = WRK ? '`wrk` (one thread)' : 'autocannon (wrk is not installed: the generator may saturate before the server)';
const yes = (ok: boolean) => (ok ? 'met' : '**not met**');
const targetRows = apps.flatMap((a) => {
  const t = summaries.get(trackRow(a.label))!;
  const b = summaries.get(bannerRow(a.label))!;
  const n = nginx ? summaries.get(NGINX)! : null;
  const ab = abuse.find((x) => x.label === a.label)!;
  const kept = ab.banner.rps / ab.alone.rps;
  return [
    `| POST track ≥ 0.5 × bare POST, ${a.label} | ${t.rps}/s = ${t.share!.toFixed(2)} × | ${yes(t.share! >= 0.5)} |`,
    `| POST track p99 < 10 ms, ${a.label} | ${ms(t.p99)} ms | ${yes(t.p99 < 10)} |`,
    `| GET hot banner ≥ 0.6 × bare GET, ${a.label} | ${b.rps}/s = ${b.share!.toFixed(2)} × | ${yes(b.share! >= 0.6)} |`,
    ...(n ? [`| GET hot banner ≥ 0.5 × nginx, ${a.label} | ${(b.rps / n.rps).toFixed(2)} × | ${yes(b.rps / n.rps >= 0.5)} |`] : []),
    `| GET hot banner p99 < 10 ms, ${a.label} | ${ms(b.p99)} ms | ${yes(b.p99 < 10)} |`,
    `| hot banner keeps ≥ 70 % beside a flood of unique models, ${a.label} | ${pct(kept)} | ${yes(kept >= 0.7)} |`,
  ];
});
for (const a of apps) targetRows.push(...spreadTargets(summaries, a.label));
const workersTrack = summaries.get(WORKERS_TRACK);
if (workersTrack) {
  targetRows.push(`| (beside it) POST track with WORKERS=2, PostgreSQL, against the one-process bare POST | ${workersTrack.rps}/s = ${workersTrack.share!.toFixed(2)} ×, p99 ${ms(workersTrack.p99)} ms | ${yes(workersTrack.share! >= 0.5 && workersTrack.p99 < 10)} |`);
}

const report = `# Performance

Measured by \`npm run bench\` (scripts/bench.ts) on ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}. Load generator: ${tool}, ${CONNECTIONS} connections, from its own process; each server runs in its own process (scripts/bench-server.ts) with the production logging settings (level info, public routes unsampled). Every row ran ${ROUNDS} interleaved rounds of ${SECONDS} s; figures are medians, with the range of the rounds.

## Endpoints

| row | requests/s (median, range) | share of the ceiling in this run | p50 ms | p99 ms (median, worst round) | server CPU µs/request | errors |
|---|---|---|---|---|---|---|
${[...summaries.values()].map((s) => `| ${s.name} | ${s.rps} (${s.rpsMin}–${s.rpsMax}) | ${s.share === null ? 'ceiling' : `${s.share.toFixed(2)} ×`} | ${ms(s.p50)} | ${ms(s.p99)} (${ms(s.p99Max)}) | ${s.cpuUs ?? '?'} | ${s.errors} |`).join('\n')}

"Share of the ceiling": the row's median against the bare Fastify route of the same method measured in the same run (GET rows against the bare GET). "Server CPU µs/request" is the server process's own CPU time (user + system, from /proc) divided by the requests it answered; the PostgreSQL rows exclude the PostgreSQL server's own CPU. Beacons each carry their own page view, so every one is stored.

Commands (\`{origin}\` is the bench server):

${[...summaries.values()].map((s) => `- ${s.name}: \`${s.command}\``).join('\n')}

## Targets

| target | measured | |
|---|---|---|
${targetRows.join('\n')}

## Abuse resistance

| database | hot banner alone | beside a flood of unique models (10 connections) | kept | flood answered | hot banner during 4 maximum-size uploads | uploads stored | sign-in during the uploads (median / max) |
|---|---|---|---|---|---|---|---|
${abuse
  .map((a) => {
    const mid = a.signIns[Math.floor(a.signIns.length / 2)] ?? 0;
    const max = a.signIns[a.signIns.length - 1] ?? 0;
    return `| ${a.label} | ${a.alone.rps}/s, p99 ${ms(a.alone.p99)} ms | ${a.banner.rps}/s, p99 ${ms(a.banner.p99)} ms | ${pct(a.banner.rps / a.alone.rps)} | ${a.flood.rps}/s | ${a.bannerDuringUploads.rps}/s, p99 ${ms(a.bannerDuringUploads.p99)} ms | ${a.uploads} | ${Math.round(mid)} / ${Math.round(max)} ms (${a.signIns.length} sign-ins) |`;
  })
  .join('\n')}

Targets: beside the flood the hot banner keeps ≥ 70 % of its throughput; during the uploads its p99 stays < 50 ms and a sign-in takes < 1 s. The uploads are ${Math.floor(Math.sqrt(MAX_IMAGE_PIXELS))}x${Math.floor(Math.sqrt(MAX_IMAGE_PIXELS))} JPEGs (MAX_IMAGE_PIXELS), each deleted after it is stored to stay under the quota.

## Ingestion integrity

${integrity.map((i) => `- ${i.label}: ${i.acknowledged} track requests answered 204 over the rounds; ${i.stored} events in the database after SIGTERM (${i.stored >= i.acknowledged ? 'every acknowledged event stored' : 'LOST EVENTS'}).`).join('\n')}

Events lost on kill -9 under load (${CONNECTIONS} connections; the server is killed after ${CRASH_SECONDS} s; docs/OPERATIONS.md "What a crash can lose"):

| database | acknowledged (204) | stored after the crash | lost | lost, as time at the measured rate |
|---|---|---|---|---|
${crashes
  .map((c) => {
    const lost = Math.max(0, c.acknowledged - c.stored);
    return `| ${c.label} | ${c.acknowledged} | ${c.stored} | ${lost} (${((lost / Math.max(1, c.acknowledged)) * 100).toFixed(2)} %) | ${c.rps ? Math.round((lost / c.rps) * 1000) : '?'} ms at ${c.rps}/s |`;
  })
  .join('\n')}

## Embed script

| | bytes |
|---|---|
| bundle for mxs dealers (dist/embed/dc-banners.mxs.js) | ${embed['dist/embed/dc-banners.mxs.js']!.bytes} |
| the same gzipped | ${embed['dist/embed/dc-banners.mxs.js']!.gzipBytes} |
| demo dealer script with configuration, gzipped | ${gzipSync(apps[0]!.script).length} |
| demo dealer script with configuration, brotli (budget 4352) | ${brotliCompressSync(apps[0]!.script).length} |

${coldRestart}
${pageSpeedMarkdown(pageSpeed, PAGE_LOADS)}

${sitesSection}

## Web app first load per route

\`npm run size\` (scripts/web-budget.ts), from the build's Vite manifest: the files a cold browser fetches to draw the screen, gzip -9; budgets: sign-in 150 KB, every other screen 200 KB.

${routeSizesMarkdown(webSizes)}

${volumeSection}

${jobsSection}`;
process.stdout.write(report);
const overBudget = webSizes.filter((r) => r.jsBytes > r.budgetBytes);
if (overBudget.length) {
  process.stderr.write(`bench: web first load over budget: ${overBudget.map((r) => r.route).join(', ')}\n`);
  process.exitCode = 1;
}
if (process.argv.includes('--write')) writeFileSync(path.resolve('docs/PERFORMANCE.md'), report);
