/**
 * Say the weights rule and show its effect: the Preview's upsell slot lists the
 * candidates the choice weighed, best first, with their weights and labels, and saving weights
 * changes both the upsell model and that list (same answer as the image endpoint).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { upsellChoiceText, type PreviewSlot } from '../../domain/configs';

let t: TestApp;
let cookie: string;
const A = DEMO_DEALER.id;
const base = `/api/dealers/${A}`;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
const put = (payload: object) => t.app.inject({ method: 'PUT', url: `${base}/configs`, payload, headers: { cookie } });

async function upsell(model: string): Promise<PreviewSlot & { text: string }> {
  const res = await get(`${base}/preview?model=${encodeURIComponent(model)}`);
  expect(res.statusCode, res.body).toBe(200);
  const slots = res.json().slots as PreviewSlot[];
  const slot = slots.find((s) => s.slot === 'upsell')!;
  // What the Preview screen writes under the upsell slot (the page model as the header slot names it).
  return { ...slot, text: upsellChoiceText(slots[0]!.model, slot.candidates ?? []) };
}

describe('Preview explains the upsell choice by inventory weights', () => {
  it('lists the candidates with weights and labels, and saving weights changes the upsell and the list', async () => {
    const weights = (await get(`${base}/configs`)).json().inventoryWeights as Record<string, number>;
    await put({ customUpsellLogic: 'manufacturer', inventoryWeights: { ...weights, pilot: 5, passport: 5 } });

    // Equal weights: the Honda rule's target (cr-v -> pilot) wins.
    const neutral = await upsell('CR-V');
    expect(neutral.model).toBe('Pilot');
    expect(neutral.candidates).toEqual([
      { model: 'Pilot', weight: 5, label: 'Normal Priority', rule: true },
      { model: 'Passport', weight: 5, label: 'Normal Priority', rule: false },
    ]);
    expect(neutral.text).toBe("CR-V → Pilot (Normal Priority, 5) over Passport (Normal Priority, 5); equal weights: the upsell rule's target");

    // A High Priority candidate beats the rule target.
    expect((await put({ inventoryWeights: { ...weights, pilot: 5, passport: 8 } })).statusCode).toBe(200);
    const high = await upsell('CR-V');
    expect(high).toMatchObject({ model: 'Passport', modelKey: 'passport' });
    expect(high.text).toBe('CR-V → Passport (High Priority, 8) over Pilot (Normal Priority, 5)');
    const img = await t.app.inject({ method: 'GET', url: high.imageUrl });
    expect(img.headers['x-banner-model']).toBe('passport');

    // A Low Priority rule target loses to a Normal one.
    expect((await put({ inventoryWeights: { ...weights, pilot: 2, passport: 5 } })).statusCode).toBe(200);
    expect((await upsell('CR-V')).text).toBe('CR-V → Passport (Normal Priority, 5) over Pilot (Low Priority, 2)');

    // Custom rules: the one candidate, whatever its weight.
    expect((await put({ customUpsellLogic: 'custom', customUpsellRules: { 'cr-v': 'pilot' } })).statusCode).toBe(200);
    const custom = await upsell('CR-V');
    expect(custom.candidates).toEqual([{ model: 'Pilot', weight: 2, label: 'Low Priority', rule: true }]);
    expect(custom.text).toBe('CR-V → Pilot (Low Priority, 2): the only candidate');
    // No rule at all: no candidates, the slot shows the model itself.
    const none = await upsell('Accord');
    expect(none).toMatchObject({ model: 'Accord', candidates: [] });
    expect(none.text).toBe('Accord has no upsell candidate: the upsell slot shows Accord itself');

    await put({ customUpsellLogic: 'manufacturer', inventoryWeights: weights, customUpsellRules: {} });
  });

  it('gives candidates only on the upsell slot', async () => {
    const slots = (await get(`${base}/preview?model=civic`)).json().slots as PreviewSlot[];
    expect(slots.map((s) => [s.slot, s.candidates !== undefined])).toEqual([
      ['header', false],
      ['primary', false],
      ['upsell', true],
    ]);
  });
});
