/**
 * A campaign's "Choose creatives" dialog against the assets and campaign APIs (MSW): it lists the
 * dealer's assets that fit the campaign's slots and models (its own creatives ticked, another
 * campaign's not tickable, misfits only counted), sends exactly the ticked difference as attach
 * and detach lists, and shows the server's refusal without closing.
 */
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { Asset } from '../../../domain/schemas';
import type { Campaign } from '../../../domain/contracts/campaigns';
import { server } from '../../test/setup';
import { renderApp, userOf } from '../../test/render';
import { CreativePicker } from './CreativePicker';

const DEALER = 'honda-of-demo';

function campaignOf(partial: Partial<Campaign>): Campaign {
  return {
    id: 'c-memorial',
    dealerId: DEALER,
    name: 'Memorial Day',
    mode: 'takeover',
    status: 'draft',
    state: 'draft',
    startsAt: '2027-05-20T04:00:00.000Z',
    endsAt: null,
    models: ['CR-V'],
    slots: ['header'],
    assetCount: 1,
    uploadedCount: 0,
    createdAt: '2027-05-01T00:00:00.000Z',
    updatedAt: '2027-05-01T00:00:00.000Z',
    ...partial,
  };
}

function assetOf(id: string, name: string, partial: Partial<Asset> = {}): Asset {
  return {
    id,
    dealerId: DEALER,
    name,
    type: 'header',
    model: 'CR-V',
    trim: 'EX',
    year: '2026',
    manufacturer: 'Honda',
    mimeType: 'image/jpeg',
    sizeBytes: 40_000,
    dimensions: { width: 1920, height: 300 },
    isActive: true,
    parsedMetadata: { isValid: true, year: '2026', manufacturer: 'honda', model: 'cr-v', trim: 'ex' } as Asset['parsedMetadata'],
    createdAt: '2027-05-01T00:00:00.000Z',
    url: `/api/dealers/${DEALER}/assets/${id}/image?h=abc`,
    startsAt: null,
    endsAt: null,
    schedule: 'live',
    replacements: [],
    neverShows: null,
    campaignId: null,
    ...partial,
  };
}

const memorial = campaignOf({});
const fall = campaignOf({ id: 'c-fall', name: 'Fall', models: [], slots: [] });
const ASSETS = [
  assetOf('a-own', 'new_2026_honda_cr-v_ex_memorial_1920x300.jpg', { campaignId: memorial.id, model: 'cr-v', trim: 'EX' }),
  assetOf('a-free', 'new_2026_honda_cr-v_ex_1920x300.jpg', { model: 'cr-v', trim: 'EX' }),
  assetOf('a-fall', 'new_2026_honda_cr-v_lx_fall_1920x300.jpg', { campaignId: fall.id }),
  // Misfits: an inline creative (the campaign is header only) and another model's.
  assetOf('a-inline', 'new_2026_honda_cr-v_ex_350x564.jpg', { type: 'primary', dimensions: { width: 350, height: 564 } }),
  assetOf('a-pilot', 'new_2026_honda_pilot_elite_1920x300.jpg', { model: 'Pilot' }),
];

function open(onPost: (body: unknown) => Response) {
  server.use(
    http.get(`/api/dealers/${DEALER}/assets`, () => HttpResponse.json({ assets: ASSETS, usage: { usedBytes: 0, quotaBytes: 1 } })),
    http.post(`/api/dealers/${DEALER}/campaigns/${memorial.id}/assets`, async ({ request }) => onPost(await request.json())),
    http.get(`/api/dealers/${DEALER}/campaigns`, () => HttpResponse.json({ campaigns: [memorial, fall], timeZone: 'America/New_York' })),
    http.get(`/api/dealers/${DEALER}/models`, () => HttpResponse.json({ models: [{ name: 'cr-v', displayName: 'CR-V' }, { name: 'pilot', displayName: 'Pilot' }] })),
  );
  const onClose = vi.fn();
  const view = renderApp(<CreativePicker dealerId={DEALER} campaign={memorial} campaigns={[memorial, fall]} onClose={onClose} />, { user: userOf('dealer-manager') });
  return { ...view, onClose };
}

describe('CreativePicker', () => {
  it("lists the assets that fit, ticks the campaign's own, and saves the difference as attach and detach", async () => {
    const sent: unknown[] = [];
    const { user, onClose } = open((body) => {
      sent.push(body);
      return HttpResponse.json({ campaign: { ...memorial, assetCount: 1 } });
    });
    const list = await screen.findByRole('list', { name: 'Assets that fit this campaign' });
    const names = within(list)
      .getAllByRole('listitem')
      .map((row) => within(row).getByRole('checkbox').getAttribute('aria-label'));
    expect(names).toEqual(['new_2026_honda_cr-v_ex_memorial_1920x300.jpg', 'new_2026_honda_cr-v_ex_1920x300.jpg', 'new_2026_honda_cr-v_lx_fall_1920x300.jpg']);
    expect(screen.getByTestId('picker-hidden').textContent).toContain('2 assets do not fit');

    const own = screen.getByRole('checkbox', { name: 'new_2026_honda_cr-v_ex_memorial_1920x300.jpg' }) as HTMLInputElement;
    const free = screen.getByRole('checkbox', { name: 'new_2026_honda_cr-v_ex_1920x300.jpg' }) as HTMLInputElement;
    const taken = screen.getByRole('checkbox', { name: 'new_2026_honda_cr-v_lx_fall_1920x300.jpg' }) as HTMLInputElement;
    expect([own.checked, free.checked, taken.checked, taken.disabled]).toEqual([true, false, false, true]);
    expect(screen.getByText('In Fall')).toBeTruthy();
    expect(await within(list).findAllByText('CR-V EX · 1920x300')).toHaveLength(3);
    const saveButton = screen.getByRole('button', { name: 'Save creatives' }) as HTMLButtonElement;
    expect(saveButton.disabled).toBe(true);

    await user.click(free);
    await user.click(own);
    expect(screen.getByTestId('picker-summary').textContent).toBe('1 to add, 1 to remove');
    await user.click(saveButton);
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent).toEqual([{ attach: ['a-free'], detach: ['a-own'] }]);
  });

  it("shows the server's refusal and stays open", async () => {
    const { user, onClose } = open(() =>
      HttpResponse.json(
        { error: { code: 'INVALID', message: "attach.0: new_2026_honda_cr-v_ex_1920x300.jpg does not fit the campaign's slots", fields: [{ path: 'attach.0', code: 'campaign_misfit', message: 'x' }] } },
        { status: 400 },
      ),
    );
    await user.click(await screen.findByRole('checkbox', { name: 'new_2026_honda_cr-v_ex_1920x300.jpg' }));
    await user.click(screen.getByRole('button', { name: 'Save creatives' }));
    expect(await screen.findByText(/does not fit the campaign's slots/)).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });
});
