/**
 * The notification-job rows of `npm run bench` (`BENCH_ONLY=jobs npm run bench` alone; also
 * `npx tsx scripts/bench-jobs.ts`): how long the notification job's pass over BENCH_JOBS_DEALERS
 * dealers (1,000 by default) takes on PostgreSQL, run by 1 and by 2 server processes at once.
 * `jobsBench()` returns the Markdown section; run as a script, it prints it.
 *
 * Setup, in a schema of its own (dropped at the end): the catalogue, the dealers (e-mails on,
 * default settings) each with an active dealer-manager, and three weeks of hourly rollups per dealer
 * (3 models; a CTR below the default alert threshold), written with INSERT ... SELECT. A local SMTP
 * server in this process (smtp-server) takes the e-mails and counts them. BENCH_JOBS_NO_SMTP=1
 * leaves SMTP unset (the messages stay in the Outbox as 'not-configured'): the database part alone.
 *
 * Passes, each by child processes (this file with the argument `worker`), which open the database
 * and connect first, then start together when told to; the time is from "go" to the last
 * process's answer:
 * - Monday 09:30 (server time), 1 process: every dealer's weekly report and performance alert are due;
 * - the next Monday 09:30, 2 processes: the same work shared;
 * - 5 minutes later, 1 process: nothing left due (the pass every NOTIFICATION_INTERVAL_MS costs).
 * Env: BENCH_DATABASE_URL (default the local test server), BENCH_JOBS_DEALERS, BENCH_JOBS_NO_SMTP,
 * BENCH_JOBS_CONCURRENCY (dealers checked at once per process; default NOTIFICATION_CONCURRENCY),
 * BENCH_JOBS_PROF=1 (each worker writes a V8 CPU profile to /tmp/jobprof).
 *
 * Measured on the shared 2-core machine, 1,000 dealers, 1.5M rollups, 2,000 e-mails per Monday
 * pass (1 process / 2 processes / idle pass): load average ~27: 52 s / 39 s / 1.5 s; load ~11:
 * 20 s / 27 s / 1.1 s (the two processes then only compete with each other for two cores). An
 * earlier run, before localParts cached its formatters, under load ~27: 100 s / 52 s / 5 s.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { openDatabase } from '../src/server/db/client';
import { seedCatalogue } from '../src/server/db/seed';
import { newDealerRow } from '../src/server/db/dealer-row';
import { dealers, manufacturers, users } from '../src/server/db/schema';
import { Mailer, runNotificationJob, type NotificationRun } from '../src/server/notifications/service';
import { localParts, NOTIFICATION_INTERVAL_MS } from '../src/domain/notifications';
import { SERVER_TIME_ZONE } from '../src/server/dealers/service';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { dropSchemas } from '../src/server/db/drop-schemas';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DEALERS = Number(process.env.BENCH_JOBS_DEALERS ?? 1000);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** What a worker is told on its command line. */
interface WorkerArgs {
  schemaName: string;
  smtpUrl: string;
  now: number;
}

/** A worker: opens the database, says 'ready', waits for a line on stdin, runs one pass and prints its result. */
async function worker(args: WorkerArgs) {
  const database = await openDatabase({ databaseUrl: PG_URL, schemaName: args.schemaName });
  await database.db.execute(sql`select 1`);
  const mailer = new Mailer(process.env.BENCH_JOBS_NO_SMTP ? undefined : args.smtpUrl, 'dc-banners <alerts@bench.test>');
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const started = performance.now();
  const concurrency = process.env.BENCH_JOBS_CONCURRENCY ? Number(process.env.BENCH_JOBS_CONCURRENCY) : undefined;
  const run = await runNotificationJob(database.db, { mailer, now: new Date(args.now), intervalMs: NOTIFICATION_INTERVAL_MS, concurrency });
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, run })}\n`);
  mailer.close();
  await database.close();
  process.exit(0); // stdin, still open, would keep the process alive
}

/** The JSON lines a child prints, one at a time; rejects when it exits first. */
function messagesOf(child: ReturnType<typeof spawn>) {
  const seen: Array<Record<string, unknown>> = [];
  const waiting: Array<{ resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (l) => {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(l) as Record<string, unknown>;
    } catch {
      return; // not our line
    }
    const w = waiting.shift();
    if (w) w.resolve(m);
    else seen.push(m);
  });
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`worker exited (${code})`));
  });
  return () => new Promise<Record<string, unknown>>((resolve, reject) => {
    const m = seen.shift();
    if (m) resolve(m);
    else waiting.push({ resolve, reject });
  });
}

/** Starts `n` workers for a pass at `now`, starts them together and resolves with the wall time and each one's result. */
async function pass(n: number, args: Omit<WorkerArgs, 'now'>, now: number) {
  const file = fileURLToPath(import.meta.url);
  const children = Array.from({ length: n }, () => {
    const child = spawn(process.execPath, [...(process.env.BENCH_JOBS_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/jobprof'] : []), '--import', 'tsx', file, 'worker', JSON.stringify({ ...args, now })], { stdio: ['pipe', 'pipe', 'inherit'] });
    return { child, next: messagesOf(child) };
  });
  await Promise.all(children.map((c) => c.next()));
  const started = performance.now();
  for (const c of children) c.child.stdin!.write('go\n');
  const done = (await Promise.all(children.map((c) => c.next()))) as Array<{ ms: number; run: NotificationRun | null }>;
  return { wallMs: performance.now() - started, done };
}

/**
 * A local SMTP server that takes every message and only counts it: unlike the tests' capture
 * (tests/fixtures/smtp.ts), it does not parse the messages, so its own work stays out of the times.
 */
async function startSmtpSink() {
  const received = { length: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received.length += 1;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { received, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(resolve)) };
}

/** The first Monday 09:30 (server time) after `from`. */
function nextMonday(from: number): number {
  let at = Math.ceil(from / HOUR) * HOUR + 30 * 60_000;
  for (let p = localParts(new Date(at), SERVER_TIME_ZONE); !(p.weekday === 1 && p.hour === 9); p = localParts(new Date(at), SERVER_TIME_ZONE)) at += HOUR / 2;
  return at;
}

/**
 * Runs the three passes (see the module doc) in a schema of its own on BENCH_DATABASE_URL (the local
 * test server by default) and drops it after.
 * @returns the report's Markdown section (a heading, the set-up line and the table).
 * @throws when PostgreSQL cannot be reached or a worker fails.
 */
export async function jobsBench(): Promise<string> {
  const schemaName = `bench_jobs_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const database = await openDatabase({ databaseUrl: PG_URL, schemaName });
  const smtp = await startSmtpSink();
  try {
    await database.migrate();
    const db = database.db;
    await seedCatalogue(db);
    const [honda] = await db.select().from(manufacturers).where(eq(manufacturers.id, 'honda'));
    const ids = Array.from({ length: DEALERS }, (_, i) => `bench-${String(i).padStart(5, '0')}`);
    const setupStart = performance.now();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await db.insert(dealers).values(chunk.map((id) => newDealerRow({ id, name: `Dealer ${id}`, manufacturer: honda!.id, websiteUrl: `https://www.${id}.example`, provider: 'mxs', status: 'active' }, honda!)));
      await db.insert(users).values(chunk.map((id) => ({ id: randomUUID(), email: `manager@${id}.example`, name: 'Manager', role: 'dealer-manager', dealerId: id, passwordHash: 'bench' })));
    }
    const second = nextMonday(Date.now() + 14 * DAY);
    const first = second - 7 * DAY;
    const from = new Date(second - 21 * DAY).toISOString();
    // Three weeks of hours × 3 models per dealer: 40-80 impressions and 0-1 clicks an hour (CTR about 1 %).
    await db.execute(sql`
      INSERT INTO event_rollups_hourly (dealer_id, hour, model, slot_type, creative, impressions, clicks, conversions)
      SELECT d.id, ${from}::timestamptz + h * interval '1 hour', m.model, 'header', 'placeholder',
             40 + (h * 7 + length(d.id)) % 41, (h % 2), (h % 50 = 0)::int
      FROM dealers d, generate_series(0, 21 * 24 - 1) h, (VALUES ('civic'), ('crv'), ('accord')) m(model)
      WHERE d.id LIKE 'bench-%'`);
    await db.execute(sql`ANALYZE`);
    const [rollups] = ((await db.execute(sql`select count(*)::int as n from event_rollups_hourly`)) as unknown as { rows: Array<{ n: number }> }).rows;
    const setupMs = performance.now() - setupStart;

    const args = { schemaName, smtpUrl: smtp.url };
    const one = await pass(1, args, first);
    const mailsOne = smtp.received.length;
    const two = await pass(2, args, second);
    const mailsTwo = smtp.received.length - mailsOne;
    const idle = await pass(1, args, second + NOTIFICATION_INTERVAL_MS);

    const target = (p: Awaited<ReturnType<typeof pass>>) => (p.wallMs <= 60_000 ? 'met' : '**not met**');
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const row = (label: string, p: Awaited<ReturnType<typeof pass>>, mails: number) => {
      const runs = p.done.map((d) => d.run);
      const sum = (k: keyof NotificationRun) => runs.reduce((n, r) => n + (r?.[k] ?? 0), 0);
      return `| ${label} | ${p.done.length} | ${s(p.wallMs)} | ${p.done.map((d) => s(d.ms)).join(' / ')} | ${sum('dealers')} | ${p.done.map((d) => d.run?.shards ?? 0).join(' / ')} | ${sum('sent')} | ${mails} | ${sum('errors')} |`;
    };
    return `## Notification job: ${DEALERS} dealers on PostgreSQL

Setup ${s(setupMs)}: ${DEALERS} dealers with a manager, ${rollups!.n} hourly rollups; mail to ${process.env.BENCH_JOBS_NO_SMTP ? 'nowhere (BENCH_JOBS_NO_SMTP: the Outbox only)' : 'a local SMTP server'} (scripts/bench-jobs.ts). Target: the weekly report + alerts pass over 1,000 dealers ≤ 60 s (one process: ${target(one)}).

| pass | processes | wall time | each process | dealers checked | shards per process | sent | e-mails received | dealer errors |
|---|---|---|---|---|---|---|---|---|
${row('Monday 09:30: weekly report + performance alert due for every dealer', one, mailsOne)}
${row('next Monday 09:30: the same, two processes', two, mailsTwo)}
${row('5 minutes later: nothing due', idle, smtp.received.length - mailsOne - mailsTwo)}
`;
  } finally {
    await smtp.close();
    await database.close();
    await dropSchemas(PG_URL, schemaName);
  }
}

// Run as a script (a pass's worker, or the report); imported by scripts/bench.ts, it runs nothing.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'worker') await worker(JSON.parse(process.argv[3]!) as WorkerArgs);
  else process.stdout.write(await jobsBench());
}
