/**
 * Inventory upload through the HTTP API (spec 02 §2 Inventory, §5 Inventory upload;
 * DECISIONS 21, 25): every accepted JSON shape, the CSV fixture with BOM, CRLF and quoted commas
 * and newlines, the spec's error texts, the limits, malformed rows, and apply in one transaction
 * with regenerated inventory-optimised upsell rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { dealers } from '../db/schema';
import { multipartBody } from '../../../tests/fixtures/images';
import { INVENTORY_LIMIT_TEXT, INVENTORY_TEXT, MAX_INVENTORY_BYTES, MAX_VEHICLES } from '../../domain/constants';
import type { InventoryPreview, StoredInventory } from '../../domain/inventory';

const FIXTURES = path.resolve('tests/fixtures/inventory');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const A = DEMO_DEALER.id;
const base = `/api/dealers/${A}/inventory`;

let t: TestApp;
let cookie: string;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
});
afterAll(() => t.close());

function send(url: string, filename: string, data: Buffer) {
  const { body, contentType } = multipartBody([{ filename, data }]);
  return t.app.inject({ method: 'POST', url, payload: body, headers: { cookie, 'content-type': contentType } });
}
const preview = (filename: string, data: Buffer) => send(`${base}/preview`, filename, data);
const stored = async () => (await t.app.inject({ method: 'GET', url: base, headers: { cookie } })).json().inventory as StoredInventory | null;

describe('inventory preview', () => {
  it('parses the CSV fixture (BOM, CRLF, quoted comma and newline) into totals, breakdown, priority groups, insights and rules', async () => {
    const res = await preview('honda-inventory.csv', fixture('honda-inventory.csv'));
    expect(res.statusCode).toBe(200);
    const p = res.json() as InventoryPreview;
    // 28 data rows: 26 new vehicles with a model, one used (IsNew false) and one without a model.
    expect(p.rowsRead).toBe(28);
    expect(p.skippedCount).toBe(2);
    expect(p.skipped).toEqual([
      // Numbered as the dealer's editor shows the file: the header is line 1 and row 15's quoted
      // field spans two lines (file lines 16-17), so data row 27 is line 29.
      { row: 27, line: 29, reason: 'not a new vehicle (IsNew is false)' },
      { row: 28, line: 30, reason: 'no model' },
    ]);
    expect(p.summary).toMatchObject({ totalUnits: 26, modelCount: 4, agedUnits: 6 });
    // (8 x 75 + ... ) hand-computed: civic 4x75 + 10x20, cr-v 7x10, accord 2x95, pilot 3x45 = 895 / 26.
    expect(p.summary.avgDaysOnLot).toBe(34.4);
    const byKey = Object.fromEntries(p.models.map((m) => [m.key, m]));
    // "CR-V" and "CRV" are one model (DECISIONS 25), shown as first seen.
    expect(Object.keys(byKey).sort()).toEqual(['accord', 'civic', 'cr-v', 'pilot']);
    expect(byKey['cr-v']).toMatchObject({ model: 'CR-V', totalUnits: 7, trims: { EX: 4, 'EX-L': 3 } });
    expect(byKey.civic).toMatchObject({ totalUnits: 14, agedUnits: 4, avgDaysOnLot: 35.7, trims: { LX: 3, Sport: 6, EX: 5 } });
    expect(byKey.civic!.colors.exterior['Sonic Gray, Pearl']).toBe(1);
    // Priority scores (spec 02 §9): civic 5 + 5x4/14 = 6.43 -> 6; cr-v 5 - 0.5 = 4.5 -> 5;
    // accord 5 + 4 - 2 + 3 = 10; pilot 5 - 2 = 3.
    expect(p.models.map((m) => [m.key, m.priorityScore])).toEqual([
      ['accord', 10],
      ['civic', 6],
      ['cr-v', 5],
      ['pilot', 3],
    ]);
    expect(p.priorityGroups.map((g) => [g.label, g.models])).toEqual([
      ['High Priority', ['accord']],
      ['Normal Priority', ['civic', 'cr-v']],
      ['Low Priority', ['pilot']],
    ]);
    expect(p.insights.agedModels.map((m) => [m.key, m.agedUnits])).toEqual([
      ['accord', 2],
      ['civic', 4],
    ]);
    expect(p.insights.deepTrimModels).toEqual([
      { key: 'civic', model: 'Civic', trims: [{ trim: 'Sport', units: 6 }, { trim: 'EX', units: 5 }] },
    ]);
    // Spec 01 §9: civic has deep trims with a top trim (Sport) other than the first (LX) -> Higher Trim;
    // accord's first candidate cr-v qualifies (7 units, 2 trims, none aged); cr-v keeps its existing
    // rule pilot (in stock); pilot's candidate and existing target (odyssey) are not in stock.
    expect(p.upsellRules).toEqual({ civic: 'civic', accord: 'cr-v', 'cr-v': 'pilot' });
    expect(await stored()).toBeNull();
  });

  it.each([
    'direct-array.json',
    'inventory-listofvehicles.json',
    'lowercase-listofvehicles.json',
    'vehicles-key.json',
    'inventory-key.json',
  ])('accepts the JSON shape of %s, with its days-on-lot spelling', async (name) => {
    const res = await preview(name, fixture(name));
    expect(res.statusCode).toBe(200);
    const p = res.json() as InventoryPreview;
    expect(p.summary).toMatchObject({ totalUnits: 5, modelCount: 2, agedUnits: 2 });
    expect(p.models.map((m) => m.key).sort()).toEqual(['civic', 'cr-v']);
  });

  it('reports malformed CSV rows by number and reason and keeps the good rows', async () => {
    const res = await preview('malformed-rows.csv', fixture('malformed-rows.csv'));
    expect(res.statusCode).toBe(200);
    const p = res.json() as InventoryPreview;
    expect(p.rowsRead).toBe(8);
    expect(p.summary.totalUnits).toBe(6);
    expect(p.skipped).toEqual([
      { row: 3, line: 4, reason: 'line 4 has 4 fields, the header has 15' },
      { row: 6, line: 7, reason: 'year "twenty25" is not a number' },
    ]);
  });

  it("numbers skipped CSV rows by the line they start on in the file, whatever line breaks and blank lines come before", async () => {
    // Line 1 header; 2 good; 3 blank; 4 all-empty record; 5-6 one record whose quoted note holds a
    // CRLF; 7 used; 8 short; 9 good; 10 no model. CRLF throughout.
    const csv = [
      'Model,Trim,IsNew,Notes',
      'Civic,LX,true,',
      '',
      ',,,',
      'Civic,EX,true,"two\r\nlines"',
      'Accord,LX,false,',
      'Pilot,EX',
      'Accord,SE,true,',
      ',LX,true,',
    ].join('\r\n');
    const p = (await preview('lines.csv', Buffer.from(`\uFEFF${csv}\r\n`))).json() as InventoryPreview;
    expect(p.summary.totalUnits).toBe(3);
    expect(p.skipped).toEqual([
      { row: 3, line: 7, reason: 'not a new vehicle (IsNew is false)' },
      { row: 4, line: 8, reason: 'line 8 has 2 fields, the header has 4' },
      { row: 6, line: 10, reason: 'no model' },
    ]);
  });

  it('numbers skipped JSON vehicles by their position in the array, counting from 1', async () => {
    const doc = [{ Model: 'Civic' }, 'oops', { Model: 'Civic', IsNew: false }, { Trim: 'LX' }, { Model: 'Accord' }];
    const p = (await preview('items.json', Buffer.from(JSON.stringify(doc)))).json() as InventoryPreview;
    expect(p.skipped).toEqual([
      { row: 2, reason: 'not a vehicle object' },
      { row: 3, reason: 'not a new vehicle (IsNew is false)' },
      { row: 4, reason: 'no model' },
    ]);
  });

  it.each([
    ['bad-structure.json', fixture('bad-structure.json'), INVENTORY_TEXT.badStructure],
    ['inventory.txt', Buffer.from('Model\nCivic\n'), INVENTORY_TEXT.unsupported],
    ['inventory.xlsx', Buffer.from('PK'), INVENTORY_TEXT.unsupported],
    ['no-new-vehicles.json', fixture('no-new-vehicles.json'), INVENTORY_TEXT.noNew],
    ['broken.json', Buffer.from('[{"Model": "Civic",'), `${INVENTORY_TEXT.failed}: the JSON is malformed`],
    ['empty.csv', Buffer.from(''), `${INVENTORY_TEXT.failed}: the CSV file is empty`],
  ])('refuses %s with a message naming the problem', async (name, data, message) => {
    const res = await preview(name, data);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain(message);
  });

  it('refuses a file over 20 MB and an inventory of more than 50,000 vehicles', async () => {
    const big = Buffer.alloc(MAX_INVENTORY_BYTES + 1, 0x20);
    const tooBig = await preview('big.json', big);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: INVENTORY_LIMIT_TEXT.bytes('file') });
    expect(INVENTORY_LIMIT_TEXT.bytes('file')).toBe('Inventory file is larger than 20 MB (20971520 bytes)');

    const many = Buffer.from(JSON.stringify(Array.from({ length: MAX_VEHICLES + 1 }, () => ({ Model: 'Civic' }))));
    const tooMany = await preview('many.json', many);
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().error).toEqual({ code: 'OVER_LIMIT', message: 'Inventory file has more than 50,000 vehicles' });
  });

  it('is refused for a viewer', async () => {
    const viewer = await t.login(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password);
    const { body, contentType } = multipartBody([{ filename: 'direct-array.json', data: fixture('direct-array.json') }]);
    const res = await t.app.inject({ method: 'POST', url: base, payload: body, headers: { cookie: viewer, 'content-type': contentType } });
    expect(res.statusCode).toBe(403);
  });
});

describe('apply inventory', () => {
  it('stores the data and the generated rules in one step, bumps the dealer version, and drives the inventory upsell strategy', async () => {
    const [before] = await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, A));
    const res = await send(base, 'honda-inventory.csv', fixture('honda-inventory.csv'));
    expect(res.statusCode).toBe(200);
    const inv = await stored();
    expect(inv).toMatchObject({ source: 'upload', summary: { totalUnits: 26, modelCount: 4 }, upsellRules: { civic: 'civic', accord: 'cr-v', 'cr-v': 'pilot' } });
    const [after] = await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, A));
    expect(after!.v).toBeGreaterThan(before!.v);

    const rules = (await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/upsell-rules`, headers: { cookie } })).json();
    expect(rules.inventory).toMatchObject({ totalUnits: 26 });
    expect(rules.rules.inventory).toEqual({ civic: 'civic', accord: 'cr-v', 'cr-v': 'pilot' });

    // With the inventory strategy saved, the upsell slot for accord shows cr-v (same choice as delivery).
    const save = await t.app.inject({ method: 'PUT', url: `/api/dealers/${A}/configs`, payload: { customUpsellLogic: 'inventory' }, headers: { cookie } });
    expect(save.statusCode).toBe(200);
    const pv = (await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/preview?model=accord`, headers: { cookie } })).json();
    expect(pv.slots.find((s: { slot: string }) => s.slot === 'upsell')).toMatchObject({ model: 'CR-V', modelKey: 'crv' });
  });

  it('a bad file changes nothing already stored', async () => {
    const before = await stored();
    expect(before).not.toBeNull();
    for (const [name, data] of [
      ['bad-structure.json', fixture('bad-structure.json')],
      ['no-new-vehicles.json', fixture('no-new-vehicles.json')],
      ['inventory.txt', Buffer.from('x')],
    ] as const) {
      const res = await send(base, name, data);
      expect(res.statusCode).toBe(400);
    }
    expect(await stored()).toEqual(before);
  });
});
