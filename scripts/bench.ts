/**
 * `npm run bench`: measures the public, dealer-site-facing paths on this machine and prints a
 * Markdown report (with `--write`, also to docs/PERFORMANCE.md):
 * - embed script size, raw and gzipped, for the demo dealer with its configuration injected;
 * - GET banner image (hot, WebP), the same with If-None-Match (304), POST track, GET script,
 *   each with autocannon (50 connections, 5 s) against the real app listening on loopback,
 *   on the embedded PGlite database;
 * - ingestion integrity: every 204-acknowledged track event is stored after the final flush.
 * The demo dealer's rate limit is switched off for the run (it would cap a single client at 100/min).
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { eq } from 'drizzle-orm';
import { buildEmbed } from './build-embed';
import { loadConfig } from '../src/server/config';
import { openDatabase } from '../src/server/db/client';
import { seedDemoData, DEMO_ACCOUNTS, DEMO_DEALER } from '../src/server/db/seed';
import { buildApp } from '../src/server/app';
import { dealers, events } from '../src/server/db/schema';
import { forgetDealer } from '../src/server/delivery/service';
import { makeBanner, multipartBody } from '../tests/fixtures/images';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

async function run(name: string, opts: autocannon.Options) {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return {
    name,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    ok: r['2xx'] + (r['3xx'] ?? 0),
    errors: r.errors + r.non2xx - (r['3xx'] ?? 0),
  };
}

const embed = await buildEmbed();
const database = await openDatabase({});
await database.migrate();
await seedDemoData(database.db);
const [d] = await database.db.select().from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
await database.db.update(dealers).set({ security: { ...d!.security, rateLimitEnabled: false } }).where(eq(dealers.id, DEMO_DEALER.id));
forgetDealer(DEMO_DEALER.id);

const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_ORIGIN: 'http://127.0.0.1:0', WEB_DIST_DIR: path.resolve('dist/web'), EMBED_DIST_FILE: path.resolve('dist/embed/dc-banners.js') });
const app = await buildApp({ config, db: database.db, logger: false });
const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: DEMO_ACCOUNTS[1]!.email, password: DEMO_ACCOUNTS[1]!.password } });
const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
const upload = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
await app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: upload.body, headers: { cookie, 'content-type': upload.contentType } });
const origin = await app.listen({ host: '127.0.0.1', port: 0 });

const script = await (await fetch(`${origin}/scripts/dc-banners-${DEMO_DEALER.id}.js`)).text();
const scriptGzip = gzipSync(script).length;
const assetUrl = `${origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
const first = await fetch(assetUrl, { headers: { accept: 'image/webp,*/*' } });
const etag = first.headers.get('etag')!;
const trackBody = JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic' });

const results = [];
results.push(await run('GET banner image (WebP, hot)', { url: assetUrl, headers: { accept: 'image/webp,*/*', 'user-agent': UA } }));
results.push(await run('GET banner image, If-None-Match (304)', { url: assetUrl, headers: { accept: 'image/webp,*/*', 'if-none-match': etag } }));
const before = await database.db.$count(events);
const track = await run('POST track (text/plain beacon)', {
  url: `${origin}/api/analytics/track`,
  method: 'POST',
  body: trackBody,
  headers: { 'content-type': 'text/plain', 'user-agent': UA, origin: 'https://www.hondaofdemo.com' },
});
results.push(track);
results.push(await run('GET embed script', { url: `${origin}/scripts/dc-banners-${DEMO_DEALER.id}.js` }));
await app.close(); // flushes buffered events
const stored = (await database.db.$count(events)) - before;
await database.close();

const report = `# Performance

Measured by \`npm run bench\` (scripts/bench.ts) on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, embedded PGlite, ${CONNECTIONS} connections for ${DURATION_S} s per row, client and server on the same machine (the client takes CPU from the server).

## Embed script

| | bytes |
|---|---|
| bundle (dist/embed/dc-banners.js) | ${embed.bytes} |
| bundle gzipped | ${embed.gzipBytes} |
| demo dealer script with configuration, gzipped (budget 3072) | ${scriptGzip} |

## Public endpoints

| path | requests/s | p50 ms | p99 ms | 2xx/3xx | errors |
|---|---|---|---|---|---|
${results.map((r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.ok} | ${r.errors} |`).join('\n')}

Ingestion integrity: ${track.ok} track requests answered 204 within the measured window, ${stored} events stored after the shutdown flush (${stored >= track.ok ? 'every acknowledged event stored; requests still in flight when the clock stopped were stored too' : 'LOST EVENTS'}).
`;
process.stdout.write(report);
if (process.argv.includes('--write')) writeFileSync(path.resolve('docs/PERFORMANCE.md'), report);
