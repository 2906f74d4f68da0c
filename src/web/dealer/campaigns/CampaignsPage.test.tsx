/**
 * The Campaigns screen's cards against the campaigns API (MSW): each card offers only the actions
 * that can change something for the campaign's state (a published campaign whose end date has
 * passed can no longer be paused, ended or given creatives, but its dates can be edited to run it
 * again; a viewer sees no action), and the delete dialog says which creatives go with the
 * campaign and which stay.
 */
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { Campaign } from '../../../domain/contracts/campaigns';
import type { Role } from '../../../domain/schemas';
import { server } from '../../test/setup';
import { renderApp, userOf } from '../../test/render';
import { CampaignsPage, deleteConsequences } from './CampaignsPage';

const BASE = '/api/dealers/honda-of-demo';

function campaignOf(partial: Partial<Campaign>): Campaign {
  return {
    id: 'c-spring',
    dealerId: 'honda-of-demo',
    name: 'Spring Sale',
    mode: 'takeover',
    status: 'published',
    state: 'live',
    startsAt: '2027-03-01T05:00:00.000Z',
    endsAt: '2027-04-01T04:00:00.000Z',
    models: [],
    slots: [],
    assetCount: 3,
    uploadedCount: 2,
    createdAt: '2027-02-01T00:00:00.000Z',
    updatedAt: '2027-02-01T00:00:00.000Z',
    ...partial,
  };
}

/** The campaigns list answers `campaigns` until one is deleted; the ids deleted are collected. */
function answer(campaigns: Campaign[]): string[] {
  const deleted: string[] = [];
  server.use(
    http.get(`${BASE}/models`, () => HttpResponse.json({ models: [] })),
    http.get(`${BASE}/campaigns`, () => HttpResponse.json({ campaigns: campaigns.filter((c) => !deleted.includes(c.id)), timeZone: 'America/New_York' })),
    http.delete(`${BASE}/campaigns/:id`, ({ params }) => {
      deleted.push(String(params.id));
      return new HttpResponse(null, { status: 204 });
    }),
  );
  return deleted;
}

describe('CampaignsPage cards', () => {
  const live = campaignOf({});
  const past = campaignOf({ id: 'c-winter', name: 'Winter', state: 'ended', startsAt: '2026-12-01T05:00:00.000Z', endsAt: '2027-01-01T05:00:00.000Z' });

  async function cardButtons(role: Role, name: string): Promise<string[]> {
    answer([live, past]);
    renderApp(<CampaignsPage />, { user: userOf(role) });
    const card = await screen.findByRole('article', { name });
    return within(card)
      .queryAllByRole('button')
      .map((b) => b.textContent ?? '');
  }

  it('offers every action on a live campaign', async () => {
    expect(await cardButtons('dealer-manager', 'Spring Sale')).toEqual(['Pause', 'Upload creatives', 'Choose creatives', 'Edit', 'End now', 'Delete']);
  });

  it('offers only new dates or deletion once a published campaign has passed its end', async () => {
    const buttons = await cardButtons('dealer-manager', 'Winter');
    expect(within(screen.getByRole('article', { name: 'Winter' })).getByTestId('campaign-state').textContent).toBe('Ended');
    expect(buttons).toEqual(['Edit dates', 'Delete']);
  });

  it('offers a viewer no action', async () => {
    expect(await cardButtons('viewer', 'Spring Sale')).toEqual([]);
  });
});

describe('CampaignsPage delete', () => {
  it('names what is deleted and what stays in the dialog, then deletes on confirm', async () => {
    const deleted = answer([campaignOf({ status: 'draft', state: 'draft' })]);
    const { user } = renderApp(<CampaignsPage />, { user: userOf('dealer-manager') });
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete campaign?' });
    expect(within(dialog).getByTestId('delete-consequences').textContent).toBe(
      '2 creatives uploaded into it are deleted.1 creative chosen from your assets stays in your assets and goes back to its own schedule.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await vi.waitFor(() => expect(deleted).toEqual(['c-spring']));
  });

  it('says so when nothing but the campaign goes, or when every creative stays', () => {
    expect(deleteConsequences({ assetCount: 0, uploadedCount: 0 })).toEqual(['It has no creatives: nothing else is deleted.']);
    expect(deleteConsequences({ assetCount: 2, uploadedCount: 0 })).toEqual(['2 creatives chosen from your assets stay in your assets and go back to their own schedule.']);
    expect(deleteConsequences({ assetCount: 1, uploadedCount: 1 })).toEqual(['1 creative uploaded into it is deleted.']);
  });
});
