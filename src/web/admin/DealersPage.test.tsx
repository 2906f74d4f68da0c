/** Dealer Management as the admin's dealer table: what it asks the server for, its row contents and its empty state. */
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { DealerListItem, DealerListPage } from '../../domain/admin';
import { server } from '../test/setup';
import { renderApp } from '../test/render';
import { DealersPage } from './DealersPage';

const none = { bot: 0, domain: 0, https: 0, 'rate-limit': 0, 'opted-out': 0, invalid: 0 };
const alpha: DealerListItem = {
  id: 'alpha-motors',
  name: 'Alpha Motors',
  manufacturer: 'honda',
  manufacturerName: 'Honda',
  websiteUrl: 'https://alpha.example.com',
  provider: 'dealer-inspire',
  status: 'active',
  createdAt: '2026-01-05T00:00:00.000Z',
  impressions: 900,
  clicks: 30,
  ctr: 3.33,
  window: { impressions: 200, clicks: 10, conversions: 2, ctr: 5, previousImpressions: 100, trend: 100 },
  coverageGaps: { count: 0, models: [] },
  lastEventAt: null,
  tagHealth: { counted: 10, refused: 0, byReason: none },
};

/** The admin API as the screen reads it, answering `items`; returns the dealer-list URLs asked for. */
function adminApi(items: DealerListItem[]) {
  const asked: URL[] = [];
  server.use(
    http.get('/api/admin/manufacturers', () => HttpResponse.json({ manufacturers: [] })),
    http.get('/api/admin/dealers', ({ request }) => {
      asked.push(new URL(request.url));
      const page: DealerListPage = { items, total: items.length, page: 1, pageSize: 25, window: { period: '30d', from: '2026-02-08T00:00:00.000Z', to: '2026-03-10T00:00:00.000Z' } };
      return HttpResponse.json(page);
    }),
  );
  return asked;
}

describe('DealersPage', () => {
  it("asks for one page of 25 with the period's figures, oldest first, and shows the card's contents on a row", async () => {
    const asked = adminApi([alpha]);
    const { user } = renderApp(<DealersPage />);
    const row = await screen.findByTestId('portfolio-row-alpha-motors');
    const first = asked[0]!.searchParams;
    expect(Object.fromEntries(first)).toEqual({ period: '30d', sort: 'created', order: 'asc', pageSize: '25' });
    expect(within(row).getByRole('link', { name: 'Alpha Motors' }).getAttribute('href')).toBe('/admin/dealers/alpha-motors/analytics?period=30d&from=dealers');
    expect(within(row).getByTestId('dealer-id-alpha-motors').textContent).toBe('alpha-motors · Dealer Inspire');
    expect(within(row).getByTestId('portfolio-ctr-alpha-motors').textContent).toBe('5.00%');
    expect(row.textContent).toContain('10 clicks');
    expect(within(row).getByRole('link', { name: 'View Script of Alpha Motors' }).getAttribute('href')).toBe('/scripts/alpha-motors');
    expect(within(row).getByRole('link', { name: 'Visit Site of Alpha Motors' }).getAttribute('href')).toBe('https://alpha.example.com');
    expect(within(row).getByRole('link', { name: 'Settings of Alpha Motors' }).getAttribute('href')).toBe('/admin/dealers/alpha-motors/settings');
    within(row).getByRole('button', { name: 'Delete Alpha Motors' });
    screen.getByRole('link', { name: 'Add Dealer' });

    await user.click(screen.getByTestId('portfolio-sort-impressions'));
    await vi.waitFor(() => expect(asked.some((u) => u.searchParams.get('sort') === 'impressions')).toBe(true));
    expect(asked.find((u) => u.searchParams.get('sort') === 'impressions')!.searchParams.get('order')).toBe('desc');
  });

  it("shows the spec's empty state when no dealer matches, and no table", async () => {
    adminApi([]);
    renderApp(<DealersPage />);
    await screen.findByText('No dealers found');
    screen.getByText('Try adjusting your search or filter criteria.');
    expect(screen.queryByTestId('portfolio-table')).toBeNull();
  });
});
