/**
 * The data-volume table of `npm run bench` (scripts/bench.ts calls volumeBench; `npm run bench --
 * --volume-only` or BENCH_ONLY=volume runs it alone). For each volume of BENCH_VOLUMES (events,
 * default "1000000,20000000"), on PostgreSQL (BENCH_DATABASE_URL, default the local test server)
 * in a fresh schema dropped afterwards:
 * 1. generates BENCH_VOLUME_DEALERS (1,000) dealers and the events over BENCH_VOLUME_DAYS (365)
 *    days ending now (src/server/db/volume.ts), then VACUUM ANALYZE as autovacuum would;
 * 2. disk: pg_total_relation_size of the events partitions with event_keys, and of every rollup table (indexes included) per
 *    million events, as generated, then after the rollup pruning at the generation time (pruneHourlyRollups) and VACUUM FULL
 *    of the rollups (the steady state the target is measured in; the endpoints then read that state);
 * 3. the notification job (weekly report and alerts for every dealer; runNotificationJob in this
 *    process) at the last Monday 09:00 UTC, when the weekly report is due;
 * 4. over HTTP against a server started the bench way (scripts/bench-server.ts) with the demo
 *    admin's cookie: dealer analytics 7/30/90 d, the dealer dashboard (stats/trend, 7 days) and the
 *    CSV export 90 d of the biggest and of the median dealer; the admin dashboard, the admin's dealer
 *    list and platform analytics 30/90 d; one warm-up call, then BENCH_VOLUME_CALLS (7) timed
 *    calls one after another, reported as p50 / p95 (nearest rank) in milliseconds;
 * 5. retention (pruneExpired) with the default EVENT_RETENTION_DAYS (90): the first pass at `now`
 *    catches up with the generated history (drops every events partition older than 90 days,
 *    prunes the hourly rollups older than 92 days), as after a first deployment on old data; then
 *    the steady passes: an hour later (an ordinary hourly run), a day later (a day of hourly
 *    rollups expires) and a week later (one weekly events partition expires), each from the state
 *    the one before left.
 * Returns the section as Markdown; progress goes to stderr. Each volume's row starts with the load
 * average when it started (the machine may be shared).
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/server/db/client';
import { seedDemoData, DEMO_ACCOUNTS } from '../src/server/db/seed';
import { generateVolume, type VolumeResult } from '../src/server/db/volume';
import { Mailer, NOTIFICATION_JOB, runNotificationJob } from '../src/server/notifications/service';
import { pruneExpired } from '../src/server/maintenance/retention';
import { pruneHourlyRollups } from '../src/server/reporting/service';
import { loadConfig } from '../src/server/config';
import { postgresReachable, startBenchServer } from './bench-process';
import { dropSchemas } from '../src/server/db/drop-schemas';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const VOLUMES = (process.env.BENCH_VOLUMES ?? '1000000,20000000').split(',').map((v) => Number(v.trim()));
const DEALERS = Number(process.env.BENCH_VOLUME_DEALERS ?? 1000);
const DAYS = Number(process.env.BENCH_VOLUME_DAYS ?? 365);
const CALLS = Number(process.env.BENCH_VOLUME_CALLS ?? 7);
/** Every rollup table, the URL dictionary and the rollup details: the "rollups" of the disk rows. */
const ROLLUP_TABLES = ['event_rollups_hourly', 'event_rollups_daily', 'rollup_details', 'dealer_rollups_hourly', 'dealer_rollups_daily', 'dealer_rollup_totals', 'platform_rollups_hourly', 'platform_rollups_daily', 'event_urls'];
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The retention passes keep what a server with the default configuration keeps (EVENT_RETENTION_DAYS). */
const RETENTION_DAYS = loadConfig({}).eventRetentionDays;

/** True when only the data-volume table should run (`--volume-only` or BENCH_ONLY=volume). */
export function volumeOnly(): boolean {
  return process.argv.includes('--volume-only') || process.env.BENCH_ONLY === 'volume';
}

const log = (msg: string) => process.stderr.write(`bench volume: ${msg}\n`);

/** Nearest-rank percentile of `xs` (milliseconds). */
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** scripts/bench-server.ts on `schema` of PG_URL, resolved once it listens. */
const startServer = (schema: string) => startBenchServer({ BENCH_DATABASE_URL: PG_URL, BENCH_SCHEMA: schema, BENCH_PORT: '0' });

/** One timed endpoint: its name, p50 and p95 in milliseconds, and the bytes of its answer. */
interface Timing {
  name: string;
  p50: number;
  p95: number;
  bytes: number;
}

/** GETs `url` once to warm up, then CALLS times one after another. @throws when an answer is not 200. */
async function time(name: string, url: string, cookie: string, origin: string): Promise<Timing> {
  const call = async () => {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { cookie, origin } });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${name}: ${url} answered ${res.status}: ${Buffer.from(body).toString().slice(0, 200)}`);
    return { ms: performance.now() - t0, bytes: body.byteLength };
  };
  await call();
  const runs: Array<{ ms: number; bytes: number }> = [];
  for (let i = 0; i < CALLS; i++) runs.push(await call());
  const ms = runs.map((r) => r.ms);
  const t = { name, p50: percentile(ms, 50), p95: percentile(ms, 95), bytes: runs[0]!.bytes };
  log(`${name}: p50 ${t.p50.toFixed(0)} ms, p95 ${t.p95.toFixed(0)} ms`);
  return t;
}

/** What one volume measured. */
interface VolumeRun {
  events: number;
  /** os.loadavg() and the cores when the volume started: the machine may be shared (other processes' load changes times, not sizes). */
  load: number[];
  cpus: number;
  /** When it started (UTC, to the minute). */
  startedAt: string;
  gen: VolumeResult;
  bigEvents: number;
  medianEvents: number;
  diskBytes: number;
  eventsBytes: number;
  rollupBytes: number;
  rollupRows: number;
  /** After the rollup pruning at the generation time and VACUUM FULL of the rollups (events kept): all, and the rollups. */
  prunedBytes: number;
  prunedRollupBytes: number;
  notifications: { seconds: number; dealers: number; messages: number };
  timings: Timing[];
  /** The first retention pass (catch-up) and the steady ones after it: an hour, a day and a week later. */
  retention: { catchUp: RetentionRun; hour: RetentionRun; day: RetentionRun; week: RetentionRun };
}

/** One retention pass: its time and what it deleted. */
interface RetentionRun {
  seconds: number;
  events: number;
  partitions: number;
  hourlyRollups: number;
}

/** The last Monday 09:00 UTC at or before `now` (the weekly report is due from 08:00 on Mondays). */
function lastMondayMorning(now: Date): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 9));
  while (d.getUTCDay() !== 1 || d > now) d.setTime(d.getTime() - DAY_MS);
  return d;
}

async function measureVolume(events: number): Promise<VolumeRun> {
  const started = { load: loadavg(), cpus: cpus().length, startedAt: `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC` };
  const schema = `benchvol_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const database = await openDatabase({ databaseUrl: PG_URL, schemaName: schema });
  const { db } = database;
  const one = async <T>(q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as { rows: T[] }).rows[0]!;
  try {
    await database.migrate();
    await seedDemoData(db);
    log(`${events} events, ${DEALERS} dealers, ${DAYS} days into schema ${schema}`);
    const gen = await generateVolume(db, {
      dealers: DEALERS,
      events,
      days: DAYS,
      onProgress: (p) => log(`${p.events} events, ${Math.round(p.events / Math.max(p.seconds, 1e-3))} events/s`),
    });
    log(`generated ${gen.events.total} events in ${gen.eventSeconds.toFixed(0)} s (dealers ${gen.dealerSeconds.toFixed(0)} s)`);
    await db.execute(sql`VACUUM ANALYZE events`);
    await db.execute(sql`VACUUM ANALYZE event_rollups_hourly`);
    const sizes = () =>
      one<{ e: string; r: string; n: string }>(
        // events and the hourly rollups are partitioned (a parent holds nothing): their partitions, and the counting keys that replace the events' unique indexes.
        sql`SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('events')) + pg_total_relation_size('event_keys') AS e,
          ${sql.raw(ROLLUP_TABLES.map((t) => `greatest((SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('${t}')), pg_total_relation_size('${t}'))`).join(' + '))} AS r,
          (SELECT count(*) FROM event_rollups_hourly) AS n`,
      );
    const size = await sizes();
    // The steady state (docs/OPERATIONS.md "Disk per million events"): the rollups the screens no longer read pruned at
    // the generation time, as the hourly retention job keeps them, and compacted; the events kept. The endpoints below read this state.
    const p0 = performance.now();
    while ((await pruneHourlyRollups(db, new Date(), 50_000)) > 0);
    for (const t of ROLLUP_TABLES) await db.execute(sql.raw(`VACUUM FULL ANALYZE ${t}`));
    const pruned = await sizes();
    log(`rollups pruned and compacted in ${((performance.now() - p0) / 1000).toFixed(0)} s`);
    const big = gen.dealers[0]!;
    const median = gen.dealers[Math.floor(gen.dealers.length / 2)]!;
    const count = async (id: string) => Number((await one<{ n: string }>(sql`SELECT count(*) AS n FROM events WHERE dealer_key = (SELECT key FROM dealers WHERE id = ${id})`)).n);

    // The notification job once, in this process, when the weekly report is due; then kept from the server's own scheduler.
    const mailer = new Mailer(undefined, 'bench <bench@localhost>');
    const t0 = performance.now();
    const run = await runNotificationJob(db, { mailer, now: lastMondayMorning(new Date()), intervalMs: 300_000, timeZone: 'UTC' });
    const notifySeconds = (performance.now() - t0) / 1000;
    mailer.close();
    if (!run) throw new Error('the notification job was not claimed');
    await db.execute(sql`UPDATE job_leases SET next_run_at = now() + interval '1 day' WHERE name = ${NOTIFICATION_JOB}`);
    const dealerCount = Number((await one<{ n: string }>(sql`SELECT count(*) AS n FROM dealers WHERE status = 'active'`)).n);
    log(`notification job: ${notifySeconds.toFixed(1)} s`);

    const server = await startServer(schema);
    const timings: Timing[] = [];
    try {
      const admin = DEMO_ACCOUNTS.find((a) => a.role === 'admin')!;
      const login = await fetch(`${server.origin}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.origin },
        body: JSON.stringify({ email: admin.email, password: admin.password }),
      });
      if (login.status !== 200) throw new Error(`admin sign-in answered ${login.status}`);
      const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const at = (p: string) => `${server.origin}${p}`;
      for (const [label, d] of [['biggest dealer', big], ['median dealer', median]] as const) {
        for (const period of ['7d', '30d', '90d']) timings.push(await time(`dealer analytics ${period}, ${label}`, at(`/api/dealers/${d.id}/analytics?period=${period}`), cookie, server.origin));
        timings.push(await time(`dealer dashboard (stats/trend 7 days), ${label}`, at(`/api/dealers/${d.id}/stats/trend?days=7`), cookie, server.origin));
        timings.push(await time(`CSV export 90d, ${label}`, at(`/api/dealers/${d.id}/analytics/export.csv?period=90d`), cookie, server.origin));
      }
      timings.push(await time('admin dashboard', at('/api/admin/dashboard'), cookie, server.origin));
      timings.push(await time('admin dealer list', at('/api/admin/dealers'), cookie, server.origin));
      for (const period of ['30d', '90d']) timings.push(await time(`platform analytics ${period}`, at(`/api/admin/analytics?period=${period}`), cookie, server.origin));
    } finally {
      await server.stop();
    }

    // Retention with the default 90 days: the first pass catches up with the generated year, the next (an hour later) is the steady hourly run.
    const retentionPass = async (now: Date): Promise<RetentionRun> => {
      const t1 = performance.now();
      const pruned = await pruneExpired(db, { retentionDays: RETENTION_DAYS, now });
      const r = { seconds: (performance.now() - t1) / 1000, events: pruned.events, partitions: pruned.eventPartitions, hourlyRollups: pruned.hourlyRollups };
      log(`retention pass at ${now.toISOString()}: ${r.seconds.toFixed(2)} s, ${r.partitions} partitions (${r.events} events), ${r.hourlyRollups} hourly rollups`);
      return r;
    };
    const now = new Date();
    const later = (ms: number) => new Date(now.getTime() + ms);
    const catchUp = await retentionPass(now);
    const hour = await retentionPass(later(HOUR_MS));
    const day = await retentionPass(later(DAY_MS));
    const retention = { catchUp, hour, day, week: await retentionPass(later(7 * DAY_MS)) };

    return {
      events,
      ...started,
      gen,
      bigEvents: await count(big.id),
      medianEvents: await count(median.id),
      diskBytes: Number(size.e) + Number(size.r),
      eventsBytes: Number(size.e),
      rollupBytes: Number(size.r),
      rollupRows: Number(size.n),
      prunedBytes: Number(pruned.e) + Number(pruned.r),
      prunedRollupBytes: Number(pruned.r),
      notifications: { seconds: notifySeconds, dealers: dealerCount, messages: Object.values(run).reduce((a, b) => a + b, 0) },
      timings,
      retention,
    };
  } finally {
    await database.close();
    await dropSchemas(PG_URL, schema);
  }
}

/** A retention pass as a table cell: time, then what it deleted. */
const retentionCell = (r: RetentionRun) => `${ms(r.seconds * 1000)} ms (${r.partitions} partitions: ${n(r.events)} events; ${n(r.hourlyRollups)} hourly rollups)`;
const ms = (x: number) => (x >= 100 ? String(Math.round(x)) : x.toFixed(1));
const n = (x: number) => x.toLocaleString('en-US');
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/**
 * Measures every volume of BENCH_VOLUMES (see the module doc) and returns the "Data volume"
 * section of the bench report as Markdown; a one-line note when PostgreSQL does not answer.
 * `onVolume` receives the section of the volumes measured so far after each one (so a long run
 * stopped during a later volume keeps the earlier ones).
 * @throws when an endpoint answers other than 200 or a job fails (the schema is dropped all the same).
 */
export async function volumeBench(onVolume?: (section: string) => void): Promise<string> {
  if (!(await postgresReachable(PG_URL))) return `## Data volume\n\nNot measured: PostgreSQL at ${PG_URL.replace(/\/\/[^@]*@/, '//')} did not answer.\n`;
  const runs: VolumeRun[] = [];
  for (const events of VOLUMES) {
    runs.push(await measureVolume(events));
    onVolume?.(volumeSection(runs));
  }
  return volumeSection(runs);
}

/** The section of the volumes measured so far. */
function volumeSection(runs: VolumeRun[]): string {
  const head = `| | ${runs.map((r) => `${n(r.gen.events.total)} events`).join(' | ')} |\n|---|${runs.map(() => '---').join('|')}|`;
  const row = (label: string, f: (r: VolumeRun) => string) => `| ${label} | ${runs.map(f).join(' | ')} |`;
  const names = runs[0]?.timings.map((t) => t.name) ?? [];
  return `## Data volume (PostgreSQL)

${DEALERS} dealers (sizes skewed: weight 1 / rank^0.9), events over the last ${DAYS} days with a diurnal pattern (src/server/db/volume.ts, \`npm run seed:volume\`), in a fresh schema, VACUUM ANALYZE after loading. Endpoints over HTTP against scripts/bench-server.ts as the demo admin: one warm-up call, then ${CALLS} calls one after another; p50 / p95 (nearest rank) in ms. Targets: dealer analytics p95 ≤ 150 ms; admin dashboard, dealer list, platform analytics p95 ≤ 300 ms; CSV export 90 d ≤ 1 s; weekly report + alerts for 1,000 dealers ≤ 60 s; retention pass ≤ 1 s; disk ≤ 150 MB per million events.

${head}
${row('load average when it started (1 / 5 / 15 min; shared machine)', (r) => `${r.load.map((x) => x.toFixed(1)).join(' / ')} on ${r.cpus} cores, ${r.startedAt}`)}
${row('generation (events/s)', (r) => `${Math.round(r.gen.eventSeconds)} s (${n(Math.round(r.gen.events.total / r.gen.eventSeconds))}/s) + dealers ${Math.round(r.gen.dealerSeconds)} s`)}
${row('impressions / clicks / conversions', (r) => `${n(r.gen.events.impression)} / ${n(r.gen.events.click)} / ${n(r.gen.events.conversion)}`)}
${row('events of the biggest / median dealer', (r) => `${n(r.bigEvents)} / ${n(r.medianEvents)}`)}
${row('disk: events + rollups incl. indexes', (r) => `${mb(r.diskBytes)} MB (events ${mb(r.eventsBytes)}, rollups ${mb(r.rollupBytes)}: ${n(r.rollupRows)} rows)`)}
${row('disk per million events', (r) => `${mb((r.diskBytes * 1e6) / Math.max(1, r.gen.events.total))} MB`)}
${row('disk per million events, rollups pruned as the retention job keeps them (steady state; target)', (r) => `${mb((r.prunedBytes * 1e6) / Math.max(1, r.gen.events.total))} MB (rollups ${mb(r.prunedRollupBytes)} MB)`)}
${names.map((name) => row(name, (r) => { const t = r.timings.find((x) => x.name === name)!; return `${ms(t.p50)} / ${ms(t.p95)}`; })).join('\n')}
${row('weekly report + alerts pass (notification job)', (r) => `${r.notifications.seconds.toFixed(1)} s (${n(r.notifications.dealers)} dealers, ${n(r.notifications.messages)} messages)`)}
${row(`retention, first pass over the generated history (catch-up, ${RETENTION_DAYS} days kept; the rollups were pruned before the endpoints)`, (r) => retentionCell(r.retention.catchUp))}
${row('retention, steady pass an hour later', (r) => retentionCell(r.retention.hour))}
${row('retention, steady pass a day later (a day of hourly rollups expires)', (r) => retentionCell(r.retention.day))}
${row('retention, steady pass a week later (a weekly partition expires)', (r) => retentionCell(r.retention.week))}
`;
}

/**
 * Replaces the data-volume section's heading, introduction and table in the Markdown `doc`
 * (docs/PERFORMANCE.md) with `section` (from its "## Data volume" heading to the end of its
 * table), keeping the notes written below the table; appends `section` when the doc has none.
 */
export function withVolumeSection(doc: string, section: string): string {
  const start = doc.indexOf('## Data volume');
  if (start < 0) return `${doc.trimEnd()}\n\n${section}`;
  const tableAt = doc.indexOf('\n|', start);
  const next = doc.indexOf('\n## ', start + 1);
  let end = next < 0 ? doc.length : next + 1;
  if (tableAt >= 0 && (next < 0 || tableAt < next)) {
    const afterTable = doc.indexOf('\n\n', tableAt + 1);
    if (afterTable >= 0 && afterTable < end) end = afterTable + 1;
  }
  return `${doc.slice(0, start)}${section}${doc.slice(end)}`;
}
