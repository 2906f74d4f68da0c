/**
 * Inventory files that cannot stop the server, through the HTTP API: CSV bombs of 200,000,
 * 1,000,000 and 10,000,000 short rows refused with the row limit after reading only the start of
 * the file, the other limits (columns, cell, line, model name) named in their refusals, a file of
 * exactly 50,000 vehicles accepted and applied, feeds past a limit failing their run with its
 * message, and other requests answered while a maximum upload is parsed and applied. Nothing
 * stored changes on a refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type http from 'node:http';
import { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { multipartBody } from '../../../tests/fixtures/images';
import { startLocalServer, type LocalServer } from '../../../tests/fixtures/http-server';
import {
  INVENTORY_LIMIT_TEXT,
  MAX_INVENTORY_BYTES,
  MAX_INVENTORY_CELL_CHARS,
  MAX_INVENTORY_COLUMNS,
  MAX_INVENTORY_LINE_BYTES,
  MAX_INVENTORY_MODEL_CHARS,
  MAX_VEHICLES,
} from '../../domain/constants';
import type { FeedRunView, InventoryPreview, StoredInventory } from '../../domain/inventory';

const A = DEMO_DEALER.id;
const base = `/api/dealers/${A}/inventory`;
const fixture = readFileSync(path.resolve('tests/fixtures/inventory/honda-inventory.csv'));

/** A JSON array of `n` minimal vehicles. */
const vehiclesJson = (n: number) => `[${Array.from({ length: n }, (_, i) => `{"Model":"Civic","VIN":"V${i}"}`).join(',')}]`;

/** Feed server routes: path -> handler. */
const feedRoutes: Record<string, (res: http.ServerResponse) => void> = {
  '/many.json': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(vehiclesJson(MAX_VEHICLES + 1)),
  // Chunked (no Content-Length): the client counts the body as it arrives.
  '/huge.json': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const more = () => {
      while (sent <= MAX_INVENTORY_BYTES && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  },
};

let t: TestApp;
let cookie: string;
let feedHost: LocalServer;

beforeAll(async () => {
  feedHost = await startLocalServer((req, res) => {
    const handler = feedRoutes[req.url ?? ''];
    if (handler) handler(res);
    else res.writeHead(404, 'Not Found').end();
  });
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' } }));
  // A stored inventory that every refusal below must leave as it is.
  expect((await send(base, 'honda-inventory.csv', fixture)).statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
  await feedHost.close();
});

function send(url: string, filename: string, data: Buffer) {
  const { body, contentType } = multipartBody([{ filename, data, contentType: 'text/csv' }]);
  return t.app.inject({ method: 'POST', url, payload: body, headers: { cookie, 'content-type': contentType } });
}
const stored = async () => (await t.app.inject({ method: 'GET', url: base, headers: { cookie } })).json().inventory as StoredInventory | null;

/**
 * Uploads a CSV of a `Model` header and `rows` rows of "C" as a multipart stream generated while
 * the server reads it (64 KB at a time), never held whole; `pulled()` says how many bytes of the
 * file the server asked for.
 */
function sendGeneratedCsv(url: string, rows: number) {
  const boundary = '----dcbgenerated';
  const line = Buffer.from('C\n');
  const block = Buffer.alloc(64 * 1024 - ((64 * 1024) % line.length));
  for (let i = 0; i < block.length; i += line.length) line.copy(block, i);
  let pulled = 0;
  async function* body() {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bomb.csv"\r\nContent-Type: text/csv\r\n\r\nModel\n`);
    let left = rows * line.length;
    while (left > 0) {
      const part = left >= block.length ? block : block.subarray(0, left);
      left -= part.length;
      pulled += part.length;
      yield part;
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  const res = t.app.inject({
    method: 'POST',
    url,
    payload: Readable.from(body()),
    headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  return { res, pulled: () => pulled };
}

describe('CSV bombs', () => {
  it.each([
    ['200,000 rows (400 KB)', 200_000],
    ['1,000,000 rows (2 MB)', 1_000_000],
    ['10,000,000 rows (20 MB)', 10_000_000],
  ])('%s: refused with the row limit after reading only the start of the file; nothing stored changes', async (_name, rows) => {
    const before = await stored();
    for (const url of [`${base}/preview`, base]) {
      const { res, pulled } = sendGeneratedCsv(url, rows);
      const answer = await res;
      expect(answer.statusCode).toBe(422);
      expect(answer.json().error).toEqual({ code: 'OVER_LIMIT', message: 'Inventory file has more than 50,000 rows' });
      // 50,001 rows are 100 KB: the server stopped reading within a few 64 KB slices of them.
      expect(pulled()).toBeLessThan(1024 * 1024);
    }
    expect(await stored()).toEqual(before);
  });
});

describe('the other limits, each named in its refusal', () => {
  const header = 'Model,Trim,Notes';
  it.each([
    ['columns', `${Array.from({ length: MAX_INVENTORY_COLUMNS + 1 }, (_, i) => `c${i}`).join(',')}\nCivic\n`, `${INVENTORY_LIMIT_TEXT.columns} (line 1)`],
    ['cell length', `${header}\nCivic,LX,ok\nCivic,LX,${'x'.repeat(MAX_INVENTORY_CELL_CHARS + 1)}\n`, `${INVENTORY_LIMIT_TEXT.cell} (line 3)`],
    ['line length', `${header}\nCivic,LX,ok\n\nCivic,LX,ok${',x'.repeat(MAX_INVENTORY_LINE_BYTES / 2)}\n`, `${INVENTORY_LIMIT_TEXT.line} (line 4)`],
    // One quoted field over many short lines: the record is bounded as well as the line.
    ['record length', `${header}\nCivic,LX,"${'yy\n'.repeat(MAX_INVENTORY_LINE_BYTES / 3 + 1)}"\n`, INVENTORY_LIMIT_TEXT.line],
  ])('%s: 422 naming the limit; nothing stored changes', async (_name, csv, message) => {
    const before = await stored();
    for (const url of [`${base}/preview`, base]) {
      const res = await send(url, 'limit.csv', Buffer.from(csv));
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toEqual({ code: 'OVER_LIMIT', message });
    }
    expect(await stored()).toEqual(before);
  });

  it('a file over 20 MB is refused with 413 naming the size; nothing stored changes', async () => {
    const before = await stored();
    const res = await send(base, 'big.csv', Buffer.alloc(MAX_INVENTORY_BYTES + 1, 0x0a));
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'Inventory file is larger than 20 MB (20971520 bytes)' });
    expect(await stored()).toEqual(before);
  });

  it('a JSON file of more than 50,000 vehicles is refused before it is parsed', async () => {
    const res = await send(`${base}/preview`, 'many.json', Buffer.from(`{"Inventory":{"ListOfVehicles":${vehiclesJson(MAX_VEHICLES + 1)}}}`));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toEqual({ code: 'OVER_LIMIT', message: 'Inventory file has more than 50,000 vehicles' });
  });

  it('a model name longer than 100 characters skips its row with that reason, CSV and JSON alike', async () => {
    const long = 'M'.repeat(MAX_INVENTORY_MODEL_CHARS + 1);
    const csv = await send(`${base}/preview`, 'models.csv', Buffer.from(`Model,Trim\nCivic,LX\n${long},LX\n${'N'.repeat(MAX_INVENTORY_MODEL_CHARS)},LX\n`));
    expect(csv.statusCode).toBe(200);
    const p = csv.json() as InventoryPreview;
    expect(p.skipped).toEqual([{ row: 2, line: 3, reason: 'model name is longer than 100 characters' }]);
    expect(p.summary.totalUnits).toBe(2);

    const json = await send(`${base}/preview`, 'models.json', Buffer.from(JSON.stringify([{ Model: long }, { Model: 'Civic' }])));
    expect((json.json() as InventoryPreview).skipped).toEqual([{ row: 1, reason: 'model name is longer than 100 characters' }]);
  });
});

describe('reading in slices', () => {
  it('numbers skipped rows by their file line across slice boundaries, blank lines and multi-line cells', async () => {
    // About 60 KB (several 8 KB slices): CRLF line ends, a blank line every 7 rows, a quoted note
    // spanning two lines every 5 rows, and a used vehicle every 97 rows, whose lines are expected.
    const lines: string[] = ['Model,Trim,IsNew,Notes'];
    const expected: Array<{ row: number; line: number; reason: string }> = [];
    for (let row = 1; row <= 1_500; row++) {
      if (row % 7 === 0) lines.push('');
      const used = row % 97 === 0;
      if (used) expected.push({ row, line: lines.length + 1, reason: 'not a new vehicle (IsNew is false)' });
      const note = row % 5 === 0 ? `"first\r\nsecond ${'n'.repeat(row % 13)}"` : 'x'.repeat(row % 17);
      lines.push(`Civic,LX,${used ? 'false' : 'true'},${note}`);
    }
    // lines[] holds whole records; a two-line note makes later records start one file line further.
    const fileLines: number[] = [];
    let fileLine = 1;
    for (const l of lines) {
      fileLines.push(fileLine);
      fileLine += l.split('\r\n').length;
    }
    const want = expected.map((e) => ({ ...e, line: fileLines[e.line - 1] }));
    const res = await send(`${base}/preview`, 'slices.csv', Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`));
    expect(res.statusCode).toBe(200);
    const p = res.json() as InventoryPreview;
    expect(p.skipped).toEqual(want);
    expect(p.summary.totalUnits).toBe(1_500 - want.length);
  });
});

describe('the maximum file', () => {
  it('a CSV of exactly 50,000 vehicles is accepted and applied, while other requests are answered', async () => {
    const rows = ['VIN,StockNumber,Make,Model,Trim,Year,DaysInStock,ExteriorColor,InteriorColor,BodyStyle,IsCertified,CityMPG,HighwayMPG,IsNew'];
    const models = ['Civic', 'Accord', 'CR-V', 'Pilot', 'HR-V', 'Odyssey'];
    for (let i = 0; i < MAX_VEHICLES; i++) {
      rows.push(`1HGCY1F3${String(i).padStart(9, '0')},H${i},Honda,${models[i % models.length]},${i % 3 ? 'LX' : 'EX'},2025,${i % 120},Platinum White Pearl,Black,Sedan,false,30,38,true`);
    }
    const file = Buffer.from(rows.join('\n'));
    let uploadAnswered = false;
    const upload = send(base, 'max.csv', file).then((res) => {
      uploadAnswered = true;
      return res;
    });
    // GET /healthz one after another until the upload is answered, each sent on a later turn of
    // the event loop as a request from the network would arrive: the server turns its loop between
    // slices of parsing and between the apply's statements, so other requests are answered
    // meanwhile (before: a handful, none from the first parsed byte until the apply).
    let answeredMeanwhile = 0;
    while (!uploadAnswered) {
      await new Promise((resolve) => setImmediate(resolve));
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      if (!uploadAnswered) answeredMeanwhile += 1;
    }
    const res = await upload;
    expect(res.statusCode).toBe(200);
    expect(res.json().inventory.summary).toMatchObject({ totalUnits: MAX_VEHICLES, modelCount: 6 });
    expect(answeredMeanwhile).toBeGreaterThan(20);
    const inv = await stored();
    expect(inv).toMatchObject({ source: 'upload', summary: { totalUnits: MAX_VEHICLES, modelCount: 6 } });
    expect(inv!.models.map((m) => m.totalUnits).reduce((a, b) => a + b, 0)).toBe(MAX_VEHICLES);
    // The largest file the product takes: seconds on a quiet machine, over 30 s beside a busy suite.
  }, 120_000);
});

describe('feeds past a limit', () => {
  const mapping = { model: 'Model', trim: '', year: '', daysOnLot: '', vin: 'VIN', stock: '' };
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) => t.app.inject({ method, url, payload, headers: { cookie } });

  it.each([
    ['/many.json', 'Inventory feed has more than 50,000 vehicles'],
    ['/huge.json', 'Inventory feed is larger than 20 MB (20971520 bytes)'],
  ])('%s: Test Feed answers 422 and a run fails naming the limit; the stored inventory stays', async (feedPath, message) => {
    const before = await stored();
    const test = await call('POST', `${base}/feed/test`, { feedUrl: `${feedHost.origin}${feedPath}`, fieldMapping: mapping });
    expect(test.statusCode).toBe(422);
    expect(test.json().error).toEqual({ code: 'OVER_LIMIT', message });

    const save = await call('PUT', `${base}/feed`, { feedUrl: `${feedHost.origin}${feedPath}`, updateFrequency: 'daily', fieldMapping: mapping });
    expect(save.statusCode).toBe(200);
    await t.app.feeds.tick();
    const runs = (await call('GET', `${base}/feed`)).json().runs as FeedRunView[];
    expect(runs[0]).toMatchObject({ status: 'error', vehicleCount: null, error: message });
    expect(await stored()).toEqual(before);
  });
});
