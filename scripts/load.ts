/**
 * The load generator of `npm run bench`: `wrk` (C, Debian package `wrk`) when it is on
 * the PATH, so the generator is not what saturates first; autocannon's JavaScript API otherwise.
 *
 * One call is one run: `connections` connections for `seconds` seconds against one URL, with an
 * optional fresh body per request (`bodyTemplate` with `{n}` replaced by a counter unique across runs, for
 * beacons that each need their own page view; and `pathTemplate` likewise, for floods of unique
 * query strings). wrk runs with one thread (`-t1`) and reports through a Lua `done()` hook that
 * prints one JSON line: requests, answers with status ≥ 400, socket errors and latency percentiles.
 *
 * Returns requests/s over the run, p50 and p99 latency in milliseconds, answered and error counts,
 * and the equivalent command line for the report. Throws when wrk exits non-zero or prints no
 * summary.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or a template whose `{n}` is replaced by a counter unique across runs (the run's tag and a counter). */
  body?: string;
  bodyTemplate?: string;
  /** A path (and query) template whose `{n}` is replaced by a counter unique across runs (the run's tag and a counter). */
  pathTemplate?: string;
  /** With a template: `{i}` in it is replaced by the request counter modulo `cycle` (0 to cycle − 1), to spread requests evenly over `cycle` targets. */
  cycle?: number;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  /** 2xx and 3xx answers. */
  ok: number;
  /** Other status codes, socket errors and timeouts. */
  errors: number;
  /** `wrk` or `autocannon`. */
  tool: string;
  /** The equivalent command line (origin shown as {origin}). */
  command: string;
}

/** True when `wrk` is installed (the bench prefers it). */
export const WRK = spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;

let runs = 0;
/** A tag unique to one run of this process (pid and run number, base 36): `{n}` becomes `{tag}-{counter}`, so the rounds of a row never repeat a page view. */
const runTag = () => `${process.pid.toString(36)}${(runs++).toString(36)}`;

const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal for our ASCII texts

/** The Lua script of one wrk run: method, headers, per-request body/path and the JSON summary. */
function wrkScript(o: LoadOptions): string {
  const url = new URL(o.url);
  const headers = Object.entries(o.headers ?? {})
    .map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`)
    .join('\n');
  const dynamic = o.bodyTemplate !== undefined || o.pathTemplate !== undefined;
  return `
wrk.method = ${lua(o.method ?? 'GET')}
${headers}
${o.body !== undefined ? `wrk.body = ${lua(o.body)}` : ''}
${
  dynamic
    ? `local n = 0
local run = ${lua(runTag())}
local path = ${lua(o.pathTemplate ?? url.pathname + url.search)}
local body = ${o.bodyTemplate !== undefined ? lua(o.bodyTemplate) : 'nil'}
local cycle = ${Math.max(1, o.cycle ?? 1)}
request = function()
  n = n + 1
  local id = run .. "-" .. tostring(n)
  local i = tostring(n % cycle)
  local p = string.gsub(string.gsub(path, "{n}", id), "{i}", i)
  local b = body and string.gsub(string.gsub(body, "{n}", id), "{i}", i) or nil
  return wrk.format(nil, p, nil, b)
end`
    : ''
}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"durationUs":%d,"socketErrors":%d,"status":%d,"timeouts":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

function commandOf(o: LoadOptions, tool: string): string {
  const url = o.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, '{origin}');
  if (tool === 'wrk') return `wrk -t1 -c${o.connections} -d${o.seconds}s --latency -s <script: ${o.method ?? 'GET'}${o.bodyTemplate || o.pathTemplate ? ', a unique page view or model per request' : ''}> '${url}'`;
  const headers = Object.entries(o.headers ?? {}).map(([k, v]) => ` -H '${k}: ${v}'`).join('');
  const method = o.method && o.method !== 'GET' ? ` -m ${o.method}` : '';
  const body = o.body ?? o.bodyTemplate;
  return `npx autocannon -c ${o.connections} -d ${o.seconds}${method}${headers}${body ? ` -b '${body}'` : ''} '${url}'`;
}

async function runWrk(o: LoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dcb-wrk-'));
  const script = path.join(dir, 'run.lua');
  writeFileSync(script, wrkScript(o));
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--timeout', '10s', '-s', script, o.url], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text.slice(0, 400)}`))));
    });
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no summary: ${out.slice(0, 400)}`);
    const s = JSON.parse(line) as { requests: number; durationUs: number; socketErrors: number; status: number; timeouts: number; p50: number; p99: number };
    const errors = s.status + s.socketErrors + s.timeouts;
    return {
      rps: Math.round(s.requests / (s.durationUs / 1e6)),
      p50: s.p50 / 1000,
      p99: s.p99 / 1000,
      ok: s.requests - s.status,
      errors,
      tool: 'wrk',
      command: commandOf(o, 'wrk'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runAutocannon(o: LoadOptions): Promise<LoadResult> {
  let n = 0;
  const tag = runTag();
  const url = new URL(o.url);
  const dynamic = o.bodyTemplate !== undefined || o.pathTemplate !== undefined;
  const r = await autocannon({
    url: o.url,
    method: o.method ?? 'GET',
    headers: o.headers,
    body: o.body ?? o.bodyTemplate?.replaceAll('{n}', '0'),
    connections: o.connections,
    duration: o.seconds,
    requests: dynamic
      ? [
          {
            setupRequest: (req) => {
              n += 1;
              const i = String(n % Math.max(1, o.cycle ?? 1));
              return {
                ...req,
                path: (o.pathTemplate ?? url.pathname + url.search).replaceAll('{n}', `${tag}-${n}`).replaceAll('{i}', i),
                ...(o.bodyTemplate !== undefined ? { body: o.bodyTemplate.replaceAll('{n}', `${tag}-${n}`).replaceAll('{i}', i) } : {}),
              };
            },
          },
        ]
      : undefined,
  });
  const ok = r['2xx'] + (r['3xx'] ?? 0);
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, ok, errors: r.errors + r.timeouts + r.non2xx - (r['3xx'] ?? 0), tool: 'autocannon', command: commandOf(o, 'autocannon') };
}

/** One load run with wrk when installed, else autocannon. */
export function load(o: LoadOptions): Promise<LoadResult> {
  return WRK ? runWrk(o) : runAutocannon(o);
}
