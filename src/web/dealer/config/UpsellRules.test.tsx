/** The Upsell Rules screen: the strategy, custom rules, the upsell priorities beside the stock's, and what a viewer may do. */
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { UpsellRulesView } from '../../../domain/configs';
import type { Role } from '../../../domain/schemas';
import { server } from '../../test/setup';
import { renderApp, userOf } from '../../test/render';
import { configsViewOf } from '../../test/configs';
import { UpsellRules } from './UpsellRules';

const BASE = '/api/dealers/honda-of-demo';
const CONFIGS = configsViewOf({ customUpsellRules: { Civic: 'Accord' } });
const RULES: UpsellRulesView = {
  strategy: 'manufacturer',
  rules: { manufacturer: { Civic: 'Accord', Accord: 'Pilot' }, inventory: {}, custom: { Civic: 'Accord' } },
  active: { Civic: 'Accord', Accord: 'Pilot' },
  manufacturerDefaults: { Civic: 'Accord', Accord: 'Pilot' },
  inventory: null,
};

/** The dealer's API as the screen reads it; returns the bodies PUT /configs received. */
function dealerApi(stock: Array<{ key: string; priorityScore: number }> | null = null) {
  const saved: unknown[] = [];
  server.use(
    http.get(`${BASE}/inventory`, () => HttpResponse.json({ inventory: stock && { models: stock } })),
    http.get(`${BASE}/configs`, () => HttpResponse.json(CONFIGS)),
    http.get(`${BASE}/upsell-rules`, () => HttpResponse.json(RULES)),
    http.get(`${BASE}/models`, () => HttpResponse.json({ models: [{ name: 'Civic', displayName: 'Civic' }, { name: 'Accord', displayName: 'Accord' }, { name: 'Pilot', displayName: 'Pilot' }] })),
    http.put(`${BASE}/configs`, async ({ request }) => {
      saved.push(await request.json());
      return HttpResponse.json({ ...CONFIGS, version: 2 });
    }),
  );
  return saved;
}

const open = async (role: Role, stock: Array<{ key: string; priorityScore: number }> | null = null) => {
  const saved = dealerApi(stock);
  const rendered = renderApp(<UpsellRules />, { user: userOf(role) });
  await screen.findByRole('heading', { name: 'Upsell Rules' });
  return { ...rendered, saved };
};

describe('UpsellRules', () => {
  it('shows a viewer the rules as view-only: strategies and Save disabled, no rule can be removed', async () => {
    await open('viewer');
    expect(screen.getByTestId('view-only-notice')).toBeTruthy();
    for (const s of ['manufacturer', 'inventory', 'custom']) expect((screen.getByTestId(`strategy-${s}`) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByRole('button', { name: /^Remove/ })).toBeNull();
  });

  it('lets a manager choose Custom Rules and saves the strategy with the rules as edited', async () => {
    const { user, saved } = await open('dealer-manager');
    expect(screen.queryByTestId('view-only-notice')).toBeNull();
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true); // nothing changed yet
    await user.click(screen.getByTestId('strategy-custom'));
    expect(screen.getByTestId('strategy-custom').getAttribute('aria-pressed')).toBe('true');
    await vi.waitFor(() => expect(save.disabled).toBe(false));
    await user.click(save);
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toMatchObject({ customUpsellLogic: 'custom', customUpsellRules: { Civic: 'Accord' } });
  });

  it('keeps the strategy and says why when Inventory Optimized is chosen before any inventory exists', async () => {
    const { user } = await open('dealer-manager');
    await user.click(screen.getByTestId('strategy-inventory'));
    const dialog = await screen.findByRole('dialog', { name: 'Inventory data needed' });
    expect(within(dialog).getByRole('button', { name: 'Go to Inventory' })).toBeTruthy();
    expect(screen.getByTestId('strategy-inventory').getAttribute('aria-pressed')).toBe('false');
    expect(screen.getByTestId('strategy-manufacturer').getAttribute('aria-pressed')).toBe('true');
  });

  it('shows each model stock priority beside its upsell priority and copies them with Use stock priorities', async () => {
    const { user, saved } = await open('dealer-manager', [
      { key: 'civic', priorityScore: 9 },
      { key: 'pilot', priorityScore: 2 },
    ]);
    expect((await screen.findByTestId('stock-Civic')).textContent).toBe('Stock priority 9 · High');
    expect(screen.getByTestId('stock-Pilot').textContent).toBe('Stock priority 2 · Low');
    expect(screen.queryByTestId('stock-Accord')).toBeNull(); // not in stock: nothing suggested
    expect(screen.getByTestId('weight-Civic').textContent).toBe('5');
    await user.click(screen.getByRole('button', { name: 'Use stock priorities' }));
    expect(['Civic', 'Accord', 'Pilot'].map((m) => screen.getByTestId(`weight-${m}`).textContent)).toEqual(['9', '5', '2']);
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    await vi.waitFor(() => expect(save.disabled).toBe(false));
    await user.click(save);
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toMatchObject({ inventoryWeights: { Civic: 9, Accord: 5, Pilot: 2 } });
  });

  it('edits the rules of Manufacturer Defaults here (the one place rules are edited) and saves them with the strategy', async () => {
    const { user, saved } = await open('dealer-manager');
    const rules = screen.getByRole('heading', { name: 'Manufacturer Rules' }).closest('.mantine-Paper-root') as HTMLElement;
    expect(within(rules).getByText('No upsell rules defined. Click "Add Rule" to get started.')).toBeTruthy();
    // With none of the dealer's own, the manufacturer's paths are in force.
    expect(within(screen.getByTestId('active-rules')).getAllByText(/^(Civic|Accord|Pilot)$/).map((b) => b.textContent)).toEqual(['Civic', 'Accord', 'Accord', 'Pilot']);
    await user.click(within(rules).getByRole('button', { name: 'Load Manufacturer Defaults' }));
    expect(within(rules).getByRole<HTMLInputElement>('textbox', { name: 'Primary model 1' }).value).toBe('Accord');
    await user.click(within(rules).getByRole('button', { name: 'Remove Accord' }));
    // Active Rules follow the rules being edited: only Civic -> Accord is left.
    expect(within(screen.getByTestId('active-rules')).getAllByText(/^(Civic|Accord|Pilot)$/).map((b) => b.textContent)).toEqual(['Civic', 'Accord']);
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    await vi.waitFor(() => expect(save.disabled).toBe(false));
    await user.click(save);
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toMatchObject({ customUpsellLogic: 'manufacturer', upsellMap: { Civic: 'Accord' } });
  });

  it('shows a viewer the Manufacturer Rules without a way to change them', async () => {
    await open('viewer');
    const rules = screen.getByRole('heading', { name: 'Manufacturer Rules' }).closest('.mantine-Paper-root') as HTMLElement;
    expect(within(rules).queryByRole('button')).toBeNull();
    expect(within(rules).getByText('No upsell rules defined.')).toBeTruthy();
  });

  it('offers no stock priorities without inventory', async () => {
    await open('dealer-manager');
    await screen.findByTestId('weight-Civic');
    expect(screen.queryByRole('button', { name: 'Use stock priorities' })).toBeNull();
    expect(screen.queryByTestId('stock-Civic')).toBeNull();
  });
});
