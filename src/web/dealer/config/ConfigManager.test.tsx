/** The Configuration screen's Upsell Rules tab: the rules in force shown read-only, edited on Upsell Rules only. */
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ManufacturerDefaults } from '../../../domain/contracts/configs';
import type { UpsellRulesView } from '../../../domain/configs';
import { DEFAULT_BANNER_SIZES } from '../../../domain/constants';
import type { Role } from '../../../domain/schemas';
import { server } from '../../test/setup';
import { renderApp, userOf } from '../../test/render';
import { configsViewOf } from '../../test/configs';
import { ConfigManager } from './ConfigManager';

const BASE = '/api/dealers/honda-of-demo';
const CONFIGS = configsViewOf({ upsellMap: { Civic: 'Pilot' }, inventoryWeights: { Civic: 7 } });
const RULES: UpsellRulesView = {
  strategy: 'manufacturer',
  rules: { manufacturer: { Civic: 'Pilot' }, inventory: {}, custom: {} },
  active: { Civic: 'Pilot', Accord: 'Accord' },
  manufacturerDefaults: { Civic: 'Accord' },
  inventory: null,
};
const DEFAULTS: ManufacturerDefaults = {
  modelMap: { civic: 'Civic', accord: 'Accord', pilot: 'Pilot' },
  upsellMap: { Civic: 'Accord' },
  trimPatterns: {},
  inventoryWeights: { Civic: 5, Accord: 5, Pilot: 5 },
  bannerSizes: DEFAULT_BANNER_SIZES,
};

/** The screen opened on its Upsell Rules tab as `role`; returns the bodies PUT /configs received. */
async function openUpsellTab(role: Role) {
  const saved: Array<Record<string, unknown>> = [];
  server.use(
    http.get(`${BASE}/configs`, () => HttpResponse.json(CONFIGS)),
    http.get(`${BASE}/configs/defaults`, () => HttpResponse.json(DEFAULTS)),
    http.get(`${BASE}/upsell-rules`, () => HttpResponse.json(RULES)),
    http.get(`${BASE}/models`, () => HttpResponse.json({ models: [{ name: 'Civic', displayName: 'Civic' }, { name: 'Accord', displayName: 'Accord' }, { name: 'Pilot', displayName: 'Pilot' }] })),
    http.put(`${BASE}/configs`, async ({ request }) => {
      saved.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json({ ...CONFIGS, version: 2 });
    }),
  );
  const rendered = renderApp(<ConfigManager />, { user: userOf(role) });
  await screen.findByRole('heading', { name: 'Configuration' });
  await rendered.user.click(screen.getByRole('tab', { name: 'Upsell Rules' }));
  return { ...rendered, saved };
}

describe('ConfigManager Upsell Rules tab', () => {
  it('shows the strategy and the rules in force read-only, with a link to Upsell Rules where they are edited', async () => {
    await openUpsellTab('dealer-manager');
    const summary = await screen.findByTestId('rules-read-only');
    expect(summary.textContent).toContain('Strategy in force: Manufacturer Defaults (2 rules)');
    expect(within(summary).getByRole('group', { name: 'Civic to Pilot' })).toBeTruthy();
    expect(within(summary).getByRole('group', { name: 'Accord to Higher Trim' })).toBeTruthy();
    const panel = screen.getByRole('tabpanel');
    expect(within(panel).queryByRole('textbox')).toBeNull();
    expect(within(panel).queryByRole('button', { name: 'Add Rule' })).toBeNull();
    expect(within(panel).getByRole('link', { name: 'Edit on Upsell Rules' }).getAttribute('href')).toBe('/dealer/upsells');
  });

  it('offers a viewer the link to view them', async () => {
    await openUpsellTab('viewer');
    await screen.findByTestId('rules-read-only');
    expect(within(screen.getByRole('tabpanel')).getByRole('link', { name: 'View on Upsell Rules' }).getAttribute('href')).toBe('/dealer/upsells');
  });

  it('saves a mapping without writing back the rules or priorities it only showed', async () => {
    const { user, saved } = await openUpsellTab('dealer-manager');
    await user.click(screen.getByRole('tab', { name: 'Model Mapping' }));
    await user.click(screen.getByRole('button', { name: 'Add Mapping' }));
    await user.type(screen.getByRole('textbox', { name: 'Inventory model 4' }), 'civic sport');
    await user.type(screen.getByRole('textbox', { name: 'Standard model 4' }), 'Civic');
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    await vi.waitFor(() => expect(save.disabled).toBe(false));
    await user.click(save);
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]!.modelMap).toMatchObject({ 'civic sport': 'Civic' });
    expect(saved[0]).not.toHaveProperty('upsellMap');
    expect(saved[0]).not.toHaveProperty('inventoryWeights');
  });

  it("Reset says it puts the manufacturer's rules back and Save then sends them", async () => {
    const { user, saved } = await openUpsellTab('dealer-manager');
    await user.click(screen.getByRole('button', { name: 'Reset to Honda Defaults' }));
    expect((await screen.findByTestId('rules-reset-pending')).textContent).toContain("Reset puts Honda's recommended upsell rules back");
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    await vi.waitFor(() => expect(save.disabled).toBe(false));
    await user.click(save);
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toMatchObject({ upsellMap: { Civic: 'Accord' }, inventoryWeights: { Civic: 5, Accord: 5, Pilot: 5 } });
  });
});
