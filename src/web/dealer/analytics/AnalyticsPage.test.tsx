/**
 * The Analytics screen against a mocked API: the range picker asks the report for a fixed period,
 * a quick range or custom days (refusing an end before the start without asking), the comparison
 * and the CSV export follow the same choice, the model table shows figures beside inventory with
 * the stock and upsell priorities written alike on the one scale, and 'Raise upsell priority' asks
 * the server to raise the model (hidden for a viewer); the device switch narrows the report and its
 * exports to one device.
 */
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { Role } from '../../../domain/schemas';
import type { AnalyticsReport } from '../../../domain/contracts/analytics';
import { server } from '../../test/setup';
import { renderApp, userOf } from '../../test/render';
import { AnalyticsPage } from './AnalyticsPage';
import { chartRows, customRangeError, reportQuery } from './report';

const BASE = '/api/dealers/honda-of-demo';
const zero = { impressions: 0, clicks: 0, conversions: 0 };
const REPORT: AnalyticsReport = {
  device: 'all',
  range: { period: '7d', from: '2026-03-04', to: '2026-03-10', label: 'Last 7 Days', timeZone: 'UTC', unit: 'day', utcDays: true },
  window: { from: '2026-03-04T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' },
  comparison: { compare: 'previous', label: 'vs previous 7 days', from: '2026-02-25T00:00:00.000Z', to: '2026-03-04T00:00:00.000Z', utcDays: true },
  current: { impressions: 1200, clicks: 36, conversions: 3, ctr: 3, conversionRate: (3 * 100) / 36 },
  previous: { impressions: 1000, clicks: 20, conversions: 1, ctr: 2, conversionRate: 5 },
  trends: { impressions: 20, clicks: 80, ctr: 50, conversions: 200, conversionRate: 66.7 },
  series: [
    { bucket: '2026-03-09', impressions: 700, clicks: 21, conversions: 2 },
    { bucket: '2026-03-10', impressions: 500, clicks: 15, conversions: 1 },
  ],
  previousSeries: [
    { bucket: '2026-03-02', impressions: 400, clicks: 0, conversions: 0 },
    { bucket: '2026-03-03', impressions: 600, clicks: 20, conversions: 1 },
  ],
  models: [
    { model: 'civic', ...{ impressions: 1000, clicks: 30, conversions: 3 }, ctr: 3, conversionRate: 10, weightKey: 'civic', upsellWeight: 5, inventory: { units: 15, agedUnits: 6, agedShare: 40, medianDaysOnLot: 20, priorityScore: 9 } },
    { model: 'passport', ...{ impressions: 200, clicks: 6, conversions: 0 }, ctr: 3, conversionRate: 0, weightKey: 'passport', upsellWeight: 5, inventory: null },
    { model: 'pilot', ...zero, ctr: null, conversionRate: null, weightKey: 'pilot', upsellWeight: 10, inventory: { units: 3, agedUnits: 0, agedShare: 0, medianDaysOnLot: 45, priorityScore: 3 } },
  ],
  slots: [{ slot: 'header', impressions: 1200, clicks: 36, conversions: 3, ctr: 3, conversionRate: (3 * 100) / 36 }],
  creatives: [],
  placeholderShare: null,
  needBanner: [],
  lastUpdated: '2026-03-10T21:35:00.000Z',
};

/** The dealer's API as the screen reads it: the report queries asked and the models raised. */
function dealerApi() {
  const asked: URLSearchParams[] = [];
  const saved: unknown[] = [];
  server.use(
    http.get(BASE, () => HttpResponse.json({ dealer: { id: 'honda-of-demo', timeZone: 'America/New_York', configs: {} } })),
    http.get(`${BASE}/models`, () => HttpResponse.json({ models: [{ name: 'civic', displayName: 'Civic' }, { name: 'passport', displayName: 'Passport' }, { name: 'pilot', displayName: 'Pilot' }] })),
    http.get(`${BASE}/analytics/report`, ({ request }) => {
      asked.push(new URL(request.url).searchParams);
      return HttpResponse.json(REPORT);
    }),
    http.get(`${BASE}/configs`, () => HttpResponse.json({ inventoryWeights: { civic: 5, passport: 5, pilot: 10 } })),
    http.post(`${BASE}/upsell-priorities/:model/raise`, ({ params }) => {
      saved.push(params.model);
      return HttpResponse.json({ model: params.model, from: 5, priority: 8, label: 'High Priority', configs: { inventoryWeights: { civic: 5, passport: 8, pilot: 10 } } });
    }),
  );
  return { asked, saved };
}

const open = async (role: Role) => {
  const api = dealerApi();
  const rendered = renderApp(<AnalyticsPage />, { user: userOf(role) });
  await screen.findByRole('table', { name: 'Model performance and inventory' });
  return { ...rendered, ...api };
};
const last = (asked: URLSearchParams[]) => Object.fromEntries(asked.at(-1)!.entries());

describe('report helpers', () => {
  it('asks a fixed period, or custom days; 24h always compares with the previous 24 hours', () => {
    expect(reportQuery({ period: '30d' }, 'year', 'models')).toBe('period=30d&compare=year&table=models');
    expect(reportQuery({ period: '24h' }, 'year')).toBe('period=24h&compare=previous');
    expect(reportQuery({ from: '2026-03-01', to: '2026-03-10' }, 'previous')).toBe('from=2026-03-01&to=2026-03-10&compare=previous');
    expect(customRangeError('2026-03-10', '2026-03-01')).toBe('The end date is before the start date');
    expect(customRangeError('2026-03-01', '')).toBe('Enter both dates');
    expect(customRangeError('2025-01-01', '2026-03-01')).toBe('Choose at most 366 days');
    expect(customRangeError('2026-03-01', '2026-03-01')).toBeNull();
  });

  it('charts one metric beside the comparison bucket at the same position (CTR in percent)', () => {
    expect(chartRows(REPORT, 'impressions')).toEqual([
      { label: 'Mar 9', current: 700, comparison: 400 },
      { label: 'Mar 10', current: 500, comparison: 600 },
    ]);
    expect(chartRows(REPORT, 'ctr').map((r) => [r.current, r.comparison])).toEqual([[3, 0], [3, (20 * 100) / 600]]);
  });
});

describe('AnalyticsPage', () => {
  it('shows each model beside its inventory, with its stock and upsell priorities on the one scale', async () => {
    const { asked } = await open('dealer-manager');
    expect(last(asked)).toEqual({ period: '7d', compare: 'previous' });
    const table = screen.getByRole('table', { name: 'Model performance and inventory' });
    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['Model', 'Viewable impressions', 'Clicks', 'CTR', 'Conversions', 'Units', 'Aged share', 'Median days on lot', 'Stock priority', 'Upsell priority']);
    const civic = table.querySelector('[data-model="civic"]') as HTMLElement;
    expect([...civic.querySelectorAll('td')].map((c) => c.textContent)).toEqual([
      'Civic', '1,000', '30', '3.00%', '3', '15', '40 %', '20', '9 · High', expect.stringMatching(/^5 · Normal/),
    ]);
    expect(screen.getByText('Total Impressions')).toBeTruthy(); // the spec's card title, explained underneath
    expect(screen.getByText('Viewable impressions only (50 % in view for 1 s)')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Export Data' }).getAttribute('href')).toBe(`${BASE}/analytics/report.csv?period=7d&compare=previous&table=models`);
  }, 60_000); // typing dates on a busy 2-core machine

  it('narrows the report and its exports to one device with the device switch, and names it in the captions', async () => {
    const { user, asked } = await open('dealer-manager');
    server.use(
      http.get(`${BASE}/analytics/report`, ({ request }) => {
        const q = new URL(request.url).searchParams;
        asked.push(q);
        return HttpResponse.json({ ...REPORT, device: q.get('device') ?? 'all', current: { ...REPORT.current, impressions: 300 } });
      }),
    );
    const devices = screen.getByRole('radiogroup', { name: 'Device' });
    expect((within(devices).getByRole('radio', { name: 'All devices' }) as HTMLInputElement).checked).toBe(true);
    await user.click(within(devices).getByText('Mobile'));
    await vi.waitFor(() => expect(last(asked)).toEqual({ period: '7d', compare: 'previous', device: 'mobile' }));
    expect(await screen.findByText('300')).toBeTruthy();
    expect(screen.getAllByText('Last 7 Days · Mobile').length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: 'Export Data' }).getAttribute('href')).toBe(`${BASE}/analytics/report.csv?period=7d&compare=previous&device=mobile&table=models`);
    expect(screen.getByRole('link', { name: 'Chart CSV' }).getAttribute('href')).toBe(`${BASE}/analytics/report.csv?period=7d&compare=previous&device=mobile&table=days`);
    await user.click(within(devices).getByText('All devices'));
    await vi.waitFor(() => expect(last(asked)).toEqual({ period: '7d', compare: 'previous' }));
  }, 60_000);

  it('asks for custom days, and not while the end is before the start', async () => {
    const { user, asked } = await open('dealer-manager');
    const period = screen.getByRole('textbox', { name: 'Period' }) as HTMLInputElement;
    await vi.waitFor(() => expect(period.disabled).toBe(false), { timeout: 5000 });
    await user.click(period);
    await user.click(within(await screen.findByRole('listbox')).getByRole('option', { name: 'Custom range' }));
    const n = asked.length;
    const from = screen.getByLabelText('From');
    const to = screen.getByLabelText('To');
    await user.type(to, '2026-03-01');
    await user.type(from, '2026-03-10');
    expect(screen.getByRole('status').textContent).toBe('The end date is before the start date');
    expect(asked.length).toBe(n);
    // No range to export: Export Data is a disabled link, and says so.
    const exportLink = screen.getByRole('link', { name: 'Export Data' });
    expect(exportLink.getAttribute('aria-disabled')).toBe('true');
    expect(exportLink.hasAttribute('href')).toBe(false);
    await user.clear(from);
    await user.type(from, '2026-02-20');
    await vi.waitFor(() => expect(last(asked)).toEqual({ from: '2026-02-20', to: '2026-03-01', compare: 'previous' }));
    await user.click(screen.getByRole('tab', { name: 'By slot' }));
    expect(screen.getByRole('link', { name: 'Export Data' }).hasAttribute('aria-disabled')).toBe(false);
    expect(screen.getByRole('link', { name: 'Export Data' }).getAttribute('href')).toBe(`${BASE}/analytics/report.csv?from=2026-02-20&to=2026-03-01&compare=previous&table=slots`);
  }, 60_000); // typing dates on a busy 2-core machine

  it('Raise upsell priority asks the server to raise that model; a viewer has no such button', async () => {
    const { user, saved, unmount } = await open('dealer-manager');
    expect(screen.queryByRole('button', { name: /^Raise upsell priority of Pilot/ })).toBeNull(); // already 10
    await user.click(screen.getByRole('button', { name: 'Raise upsell priority of Passport to 8 (High Priority)' }));
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved).toEqual(['passport']);
    unmount();
    await open('viewer');
    expect(screen.queryByRole('button', { name: /^Raise upsell priority/ })).toBeNull();
  }, 60_000);
});
