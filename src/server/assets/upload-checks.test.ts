/**
 * Upload checks: a file that can never show is stored with a warning saying so and the
 * nearest model; a make other than the dealer's is flagged; the same bytes for the same model and
 * trim are answered as already uploaded (nothing stored), for another model stored with a note.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { assets } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import type { UploadResult } from '../../domain/contracts/assets';

let t: TestApp;
let cookie: string;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
});
afterAll(() => t.close());

async function upload(filename: string, data: Buffer): Promise<UploadResult> {
  const { body, contentType } = multipartBody([{ filename, data }]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  expect(res.statusCode).toBe(200);
  return res.json().results[0];
}
const stored = async () => (await t.database.db.select({ id: assets.id }).from(assets).where(eq(assets.dealerId, DEMO_DEALER.id))).length;

it('stores a file of no model of the dealer with "Will never show" and the nearest model', async () => {
  const typo = await upload('new_2025_honda_civc_sport_1920x300.jpg', await makeBanner(1920, 300));
  expect(typo).toMatchObject({ ok: true, warnings: ['Will never show: "civc" is not a model of this dealer. Did you mean Civic?'] });
  const other = await upload('new_2025_toyota_camry_le_1920x300.jpg', await makeBanner(1920, 300));
  expect(other.ok && other.warnings).toEqual([
    'The file name names the make "toyota", but this dealer\'s banners are for Honda: check it is the right file.',
    'Will never show: "camry" is not a model of this dealer. Check the model in the file name or add a model mapping.',
  ]);
  const good = await upload('new_2025_honda_cr-v_ex_1920x300.jpg', await makeBanner(1920, 300));
  expect(good).toMatchObject({ ok: true, warnings: [] });
  // The Asset Manager's cards say it too (the check made again when the list is read).
  const list = (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/assets`, headers: { cookie } })).json().assets as Array<{ name: string; neverShows: string | null }>;
  const neverShows = (name: string) => list.find((a) => a.name === name)?.neverShows;
  expect(neverShows('new_2025_honda_civc_sport_1920x300.jpg')).toBe('Will never show: "civc" is not a model of this dealer. Did you mean Civic?');
  expect(neverShows('new_2025_toyota_camry_le_1920x300.jpg')).toMatch(/^Will never show: "camry"/);
  expect(neverShows('new_2025_honda_cr-v_ex_1920x300.jpg')).toBeNull();
});

it('answers the same file for the same model and trim as already uploaded and stores nothing; for another model it stores it with a note', async () => {
  const file = await makeBanner(1920, 300);
  expect(await upload('new_2025_honda_accord_se_1920x300.jpg', file)).toMatchObject({ ok: true, warnings: [] });
  const before = await stored();
  expect(await upload('new_2025_honda_accord_se_1920x300.jpg', file)).toEqual({
    filename: 'new_2025_honda_accord_se_1920x300.jpg',
    ok: false,
    error: 'Already uploaded: the same file is stored as new_2025_honda_accord_se_1920x300.jpg',
  });
  expect(await stored()).toBe(before);
  // Another year and the trim in capitals: still the same model, trim and bytes.
  expect(await upload('new_2024_honda_accord_SE_1920x300.jpg', file)).toMatchObject({ ok: false, error: /^Already uploaded/ });
  expect(await upload('new_2025_honda_pilot_se_1920x300.jpg', file)).toMatchObject({ ok: true, warnings: ['The same image is also stored as new_2025_honda_accord_se_1920x300.jpg.'] });
  expect(await stored()).toBe(before + 1);
});
