/**
 * The coverage matrix: GET /api/dealers/:dealerId/coverage gives one row per standard
 * model of the dealer, in catalogue order, and every cell is exactly what Preview (and so the
 * delivery endpoint) answers for that model, slot and device.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import type { CoverageAnswer } from '../../domain/contracts/configs';

let t: TestApp;
let cookie: string;
const base = `/api/dealers/${DEMO_DEALER.id}`;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
  const { body, contentType } = multipartBody([
    { filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) },
    { filename: 'new_2025_honda_civic_sport_350x564.jpg', data: await makeBanner(350, 564) },
  ]);
  const res = await t.app.inject({ method: 'POST', url: `${base}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  expect(res.statusCode).toBe(200);
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

it('has one row per standard model of the dealer models list, by display name, and no alias rows', async () => {
  const res = await get(`${base}/coverage`);
  expect(res.statusCode).toBe(200);
  const { models } = res.json() as CoverageAnswer;
  const catalogue = (await get(`${base}/models`)).json().models as Array<{ name: string; displayName: string }>;
  expect(models.map((m) => m.displayName)).toEqual(catalogue.map((m) => m.displayName).sort((a, b) => a.localeCompare(b)));
  expect(new Set(models.map((m) => m.model)).size).toBe(models.length);
});

it('gives every cell the answer Preview gives for that model and device', async () => {
  const { models } = (await get(`${base}/coverage`)).json() as CoverageAnswer;
  for (const row of models.filter((m) => ['civic', 'pilot', 'crv'].includes(m.model))) {
    for (const variant of ['desktop', 'mobile'] as const) {
      const preview = (await get(`${base}/preview?model=${row.model}&variant=${variant}`)).json();
      expect(row[variant], `${row.model} ${variant}`).toEqual(preview.slots);
    }
  }
  const civic = models.find((m) => m.model === 'civic')!;
  expect(civic.desktop.map((s) => [s.slot, s.source])).toEqual([
    ['header', 'asset'],
    ['primary', 'asset'],
    ['upsell', expect.any(String)],
  ]);
  expect(civic.mobile[0]).toMatchObject({ source: 'asset', status: 'mismatch', creative: { width: 1920, height: 300 } }); // the wide creative letterboxed in the mobile header
  const pilot = models.find((m) => m.model === 'pilot')!;
  expect(pilot.desktop.slice(0, 2).map((s) => s.status)).toEqual(['Missing', 'Missing']);
});
