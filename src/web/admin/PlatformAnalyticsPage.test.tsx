/** Platform Analytics' portfolio table: the tag-health column (refusals of the last 24 h by reason) and its sort. */
import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { DealerListItem, DealerListPage, PlatformAnalytics } from '../../domain/admin';
import { server } from '../test/setup';
import { renderApp } from '../test/render';
import { PlatformAnalyticsPage } from './PlatformAnalyticsPage';

const none = { bot: 0, domain: 0, https: 0, 'rate-limit': 0, 'opted-out': 0, invalid: 0 };
const dealer = (id: string, name: string, tagHealth: DealerListItem['tagHealth']): DealerListItem => ({
  id,
  name,
  manufacturer: 'honda',
  manufacturerName: 'Honda',
  websiteUrl: 'https://example.com',
  provider: 'mxs',
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  impressions: 0,
  clicks: 0,
  ctr: null,
  window: { impressions: 0, clicks: 0, conversions: 0, ctr: null, previousImpressions: 0, trend: null },
  coverageGaps: { count: 0, models: [] },
  lastEventAt: null,
  tagHealth,
});

/** The admin API as the screen reads it; returns the dealer-list URLs asked for. */
function adminApi() {
  const asked: URL[] = [];
  const analytics: PlatformAnalytics = { period: '30d', from: '2026-02-08T00:00:00.000Z', to: '2026-03-10T00:00:00.000Z', dealers: [], series: [] };
  const page: DealerListPage = {
    items: [
      dealer('alpha', 'Alpha Motors', { counted: 40, refused: 3, byReason: { ...none, bot: 1, domain: 2 } }),
      dealer('beta', 'Beta Motors', { counted: 12, refused: 0, byReason: none }),
      dealer('gamma', 'Gamma Motors', { counted: 0, refused: 0, byReason: none }),
    ],
    total: 3,
    page: 1,
    pageSize: 25,
    window: { period: '30d', from: analytics.from, to: analytics.to },
  };
  server.use(
    http.get('/api/admin/analytics', () => HttpResponse.json(analytics)),
    http.get('/api/admin/manufacturers', () => HttpResponse.json({ manufacturers: [] })),
    http.get('/api/admin/dealers', ({ request }) => {
      asked.push(new URL(request.url));
      return HttpResponse.json(page);
    }),
  );
  return asked;
}

describe('PlatformAnalyticsPage tag health', () => {
  it("shows each dealer's refused beacons of the last 24 h, by reason for screen readers and on focus", async () => {
    adminApi();
    renderApp(<PlatformAnalyticsPage />);
    const alpha = await screen.findByTestId('tag-health-alpha');
    expect(alpha.textContent).toBe('3 refused');
    expect(alpha.getAttribute('aria-label')).toBe('3 beacons refused or dropped in the last 24 h: Bots: 1, Domain not allowed: 2');
    expect(alpha.tabIndex).toBe(0);
    expect(screen.getByTestId('tag-health-beta').textContent).toBe('No refusals');
    expect(screen.getByTestId('tag-health-gamma').textContent).toBe('No beacons');
  });

  it('sorts the table by refusals on the server, most first', async () => {
    const asked = adminApi();
    const { user } = renderApp(<PlatformAnalyticsPage />);
    await screen.findByTestId('tag-health-alpha');
    await user.click(screen.getByTestId('portfolio-sort-refused'));
    await vi.waitFor(() => expect(asked.some((u) => u.searchParams.get('sort') === 'refused')).toBe(true));
    const url = asked.find((u) => u.searchParams.get('sort') === 'refused')!;
    expect(url.searchParams.get('period')).toBe('30d');
    expect(url.searchParams.get('order') ?? 'desc').toBe('desc');
  });
});
