/**
 * The Script page's "Is my tag working?" panel against the tag health API (MSW): the last beacon
 * per site and slot, refusals by reason with what each means and what to do, its empty, error and
 * "none counted" states, and "Test my page" showing the server's findings and field errors.
 */
import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { PageCheck, TagHealth } from '../../../domain/contracts/tag-health';
import { TAG_REASON_TEXTS } from '../../../domain/tag-health';
import { server } from '../../test/setup';
import { renderApp, userOf } from '../../test/render';
import { TagHealthPanel } from './TagHealthPanel';

const DEALER = 'honda-of-demo';
const SITE = 'https://www.hondaofdemo.com';
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

function healthOf(partial: Partial<TagHealth>): TagHealth {
  return { windowHours: 24, since: minutesAgo(24 * 60), seen: [], counts: [], ...partial };
}

function open(health: TagHealth | (() => Response)) {
  server.use(http.get(`/api/dealers/${DEALER}/tag-health`, () => (typeof health === 'function' ? health() : HttpResponse.json(health))));
  return renderApp(<TagHealthPanel dealerId={DEALER} />, { user: userOf('viewer') });
}

describe('TagHealthPanel', () => {
  it('lists the last beacon per site and slot and the refusals by reason with what to do', async () => {
    open(
      healthOf({
        seen: [
          { origin: SITE, slotType: 'header', lastSeenAt: minutesAgo(5), lastCountedAt: minutesAgo(5) },
          { origin: 'https://staging.hondaofdemo.net', slotType: 'primary', lastSeenAt: minutesAgo(120), lastCountedAt: null },
        ],
        counts: [
          { origin: SITE, reason: 'counted', beacons: 40 },
          { origin: SITE, reason: 'bot', beacons: 250 },
          { origin: 'https://staging.hondaofdemo.net', reason: 'domain', beacons: 7 },
        ],
      }),
    );
    const table = await screen.findByRole('table', { name: 'Last beacon per site and slot' });
    const rows = within(table).getAllByRole('row');
    expect(rows[1]!.textContent).toContain(SITE);
    expect(rows[1]!.textContent).toContain('SRP Header');
    expect(rows[1]!.textContent).toContain('5 minutes ago');
    expect(rows[2]!.textContent).toContain('Never');
    expect(screen.getByTestId('tag-health-summary').textContent).toContain('40 counted in the last 24 hours');
    const bots = screen.getByTestId('reason-bot');
    expect(bots.textContent).toContain('250 beacons');
    expect(bots.textContent).toContain(TAG_REASON_TEXTS.bot.explanation);
    expect(bots.textContent).toContain(TAG_REASON_TEXTS.bot.action);
    const domain = screen.getByTestId('reason-domain');
    expect(domain.textContent).toContain('7 beacons');
    expect(domain.textContent).toContain('https://staging.hondaofdemo.net (7)');
    expect(screen.queryByTestId('reason-counted')).toBeNull();
  });

  it('says so when beacons arrive but none is counted', async () => {
    open(healthOf({ seen: [{ origin: SITE, slotType: 'header', lastSeenAt: minutesAgo(1), lastCountedAt: null }], counts: [{ origin: SITE, reason: 'bot', beacons: 3 }] }));
    expect((await screen.findByTestId('tag-health-summary')).textContent).toContain('none was counted');
  });

  it('shows the empty state before any beacon, and no refusals', async () => {
    open(healthOf({}));
    await screen.findByText('No beacon yet');
    expect(screen.getByTestId('no-refusals').textContent).toContain('None');
  });

  it('shows an error with a retry when the tag health cannot be loaded', async () => {
    open(() => HttpResponse.json({ error: { code: 'UNAVAILABLE', message: 'Database unavailable' } }, { status: 503 }));
    await screen.findByText('Tag health could not be loaded', undefined, { timeout: 10_000 });
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('tests a page address and shows the findings and the beacons seen from it', async () => {
    let asked = '';
    server.use(
      http.get(`/api/dealers/${DEALER}/tag-health/page-check`, ({ request }) => {
        asked = new URL(request.url).searchParams.get('url') ?? '';
        const result: PageCheck = {
          url: 'http://hondaofdemo.com/new-inventory',
          origin: 'http://hondaofdemo.com',
          findings: [
            { check: 'domain', status: 'problem', reason: 'domain', message: 'hondaofdemo.com is not on your allowed domains.' },
            { check: 'www', status: 'problem', reason: 'domain', message: 'list hondaofdemo.com instead' },
            { check: 'blocklist', status: 'ok', reason: null, message: 'No ad-blocker rule matches.' },
          ],
          seen: [],
          counts: [],
        };
        return HttpResponse.json(result);
      }),
    );
    const { user } = open(healthOf({}));
    await user.type(screen.getByRole('textbox', { name: 'Page address' }), 'http://hondaofdemo.com/new-inventory');
    await user.click(screen.getByRole('button', { name: 'Test page' }));
    const result = await screen.findByTestId('page-check');
    expect(asked).toBe('http://hondaofdemo.com/new-inventory');
    expect(result.textContent).toContain('2 problems found');
    expect(result.textContent).toContain('list hondaofdemo.com instead');
    expect(screen.getByTestId('page-check-seen').textContent).toContain('No beacon has been seen from http://hondaofdemo.com yet');
  });

  it("shows the server's field error for an address it refuses", async () => {
    server.use(
      http.get(`/api/dealers/${DEALER}/tag-health/page-check`, () =>
        HttpResponse.json({ error: { code: 'INVALID', message: 'Invalid request', fields: [{ path: 'url', code: 'too_big', message: 'Too long' }] } }, { status: 400 }),
      ),
    );
    const { user } = open(healthOf({}));
    await user.type(screen.getByRole('textbox', { name: 'Page address' }), 'x');
    await user.click(screen.getByRole('button', { name: 'Test page' }));
    await screen.findByText('Too long');
  });
});
