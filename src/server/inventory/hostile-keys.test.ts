/**
 * Inventory upload with trims, colours, body styles and models named after Object.prototype
 * members: every count in the preview, the applied inventory and the
 * stored one read back is exact, as it is for ordinary names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { multipartBody } from '../../../tests/fixtures/images';
import type { InventoryModelView, InventoryPreview, StoredInventory } from '../../domain/inventory';

const base = `/api/dealers/${DEMO_DEALER.id}/inventory`;
const HEADER = 'Model,Trim,Year,DaysInStock,ExteriorColor,InteriorColor,BodyStyle,IsNew';
const ROWS = [
  ...Array<string>(3).fill('Civic,__proto__,2025,10,constructor,__proto__,__proto__,true'),
  ...Array<string>(2).fill('Civic,constructor,2025,10,__proto__,hasOwnProperty,constructor,true'),
  'Civic,hasOwnProperty,2026,70,constructor,constructor,Sedan,true',
  'Civic,toString,2025,5,valueOf,toString,Sedan,true',
  ...Array<string>(2).fill('__proto__,Base,2025,1,White,Black,SUV,true'),
  'constructor,EX,2025,1,White,Black,SUV,true',
];
const csv = (rows: string[]) => Buffer.from([HEADER, ...rows].join('\r\n') + '\r\n');
/** The same inventory with ordinary names, for comparing the scores. */
const ORDINARY: Array<[RegExp, string]> = [[/__proto__/g, 'Alpha'], [/constructor/g, 'Beta'], [/hasOwnProperty/g, 'Gamma'], [/toString/g, 'Delta'], [/valueOf/g, 'Epsilon']];
const ordinary = (row: string) => ORDINARY.reduce((r, [re, name]) => r.replace(re, name), row);

let t: TestApp;
let cookie: string;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
});
afterAll(() => t.close());

function send(url: string, data: Buffer) {
  const { body, contentType } = multipartBody([{ filename: 'hostile.csv', data, contentType: 'text/csv' }]);
  return t.app.inject({ method: 'POST', url, payload: body, headers: { cookie, 'content-type': contentType } });
}

/** Own entries sorted by key (stored JSONB does not keep key order), so "__proto__" is compared as the key it is. */
const own = (r: Record<string, number>) => Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1));

function expectCivic(models: InventoryModelView[]) {
  const civic = models.find((m) => m.key === 'civic')!;
  expect(civic).toMatchObject({ model: 'Civic', totalUnits: 7, agedUnits: 1 });
  expect(own(civic.trims)).toEqual([['__proto__', 3], ['constructor', 2], ['hasOwnProperty', 1], ['toString', 1]]);
  expect(own(civic.colors.exterior)).toEqual([['__proto__', 2], ['constructor', 4], ['valueOf', 1]]);
  expect(own(civic.colors.interior)).toEqual([['__proto__', 3], ['constructor', 1], ['hasOwnProperty', 2], ['toString', 1]]);
  expect(own(civic.bodyStyles)).toEqual([['Sedan', 2], ['__proto__', 3], ['constructor', 2]]);
  expect(own(civic.years)).toEqual([['2025', 6], ['2026', 1]]);
  const byKey = new Map(models.map((m) => [m.key, m]));
  expect(byKey.get('__proto__')).toMatchObject({ model: '__proto__', totalUnits: 2 });
  expect(byKey.get('constructor')).toMatchObject({ model: 'constructor', totalUnits: 1 });
  expect(own(byKey.get('constructor')!.trims)).toEqual([['EX', 1]]);
}

describe('inventory with hostile trim, colour and model names', () => {
  it('previews exact counts, and the same scores as with ordinary names', async () => {
    const res = await send(`${base}/preview`, csv(ROWS));
    expect(res.statusCode).toBe(200);
    const p = res.json() as InventoryPreview;
    expect(p.skippedCount).toBe(0);
    expect(p.summary).toMatchObject({ totalUnits: 10, modelCount: 3, agedUnits: 1 });
    expectCivic(p.models);
    expect(p.priorityGroups.flatMap((g) => g.models).sort()).toEqual(['__proto__', 'civic', 'constructor']);

    const control = (await send(`${base}/preview`, csv(ROWS.map(ordinary)))).json() as InventoryPreview;
    const scores = (v: InventoryPreview) => v.models.map((m) => [ordinary(m.key).toLowerCase(), m.priorityScore, m.avgDaysOnLot]).sort();
    expect(scores(p)).toEqual(scores(control));
  });

  it('applies and stores the same exact counts', async () => {
    const res = await send(base, csv(ROWS));
    expect(res.statusCode).toBe(200);
    expectCivic((res.json().inventory as StoredInventory).models);
    const again = await t.app.inject({ method: 'GET', url: base, headers: { cookie } });
    expect(again.statusCode).toBe(200);
    expectCivic((again.json().inventory as StoredInventory).models);
    const rules = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/upsell-rules`, headers: { cookie } });
    expect(rules.statusCode).toBe(200);
  });
});
