/**
 * Campaigns in Chromium, as a dealer manager works: the empty Campaigns screen, a new campaign
 * created through the form by keyboard-usable controls (name, window in the dealer's time zone,
 * takeover, one slot, one model), a creative uploaded into it (a draft until published), an
 * existing asset of the dealer chosen as another (Choose creatives), publish,
 * Banner Preview "as of" the campaign's weekend showing its creative while now still shows the
 * regular one (and the coverage matrix's Civic header cell its creative), and End now after a
 * confirmation; on a phone, the screen, the Delete confirmation and Preview "as of" (a second
 * campaign's creative). The server's clock is pinned (TEST_CLOCK_FILE, test-clock.ts).
 * Screenshots at 1280 and 390 px; axe finds no serious or critical violation on the screen or its
 * dialogs (form, creative picker, End and Delete confirmations) at either width.
 * Then, at 1280 and again at 390 px, each width with a dealer of its own and the clock moved: a
 * takeover campaign created with future dates serves nothing before its start (banner endpoint
 * and fixture page), shows in Preview as of its start, takes the slot over at its start (Pause
 * through its card brings the regular banner back, Resume the campaign's) and stops at its end; a
 * rotate campaign splits the rotation buckets evenly with the regular banner, and End now stops it.
 * Every screen and dialog these journeys open passes axe. Screenshots: 90-94 (the screen),
 * 97-campaign-journey-* (takeover), 98-campaign-* (rotate), suffixed -desktop or -390.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { allowFixtureSites, apiSignIn, fetchUnlessShed, launchBrowser, newPage, screenshotPath, seedDealer, startDealerSite, startServer, type DealerSite, type RunningServer, type SeededDealer } from './harness';
import { animationsDone, contextPage, DESKTOP, MOBILE, seriousViolations } from './a11y';
import { makeBanner, multipartBody } from '../fixtures/images';

/** A dialog once open and settled: no serious or critical axe violation in it, and its screenshot `shot`. */
async function dialogChecked(page: Page, dialog: Locator, shot: string): Promise<void> {
  await dialog.waitFor();
  await animationsDone(page, '[role="dialog"]');
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  await page.screenshot({ path: screenshotPath(shot) });
}

const clockDir = mkdtempSync(path.join(os.tmpdir(), 'dcb-clock-'));
const CLOCK_FILE = path.join(clockDir, 'now');

let server: RunningServer;
let browser: Browser;
let dealer: SeededDealer;

beforeAll(async () => {
  writeFileSync(CLOCK_FILE, '2026-11-20T12:00:00Z');
  server = await startServer({ TEST_CLOCK_FILE: CLOCK_FILE });
  browser = await launchBrowser();
  dealer = await seedDealer(server.origin, 'Honda Campaign Motors');
  const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
  const current = (await (await fetch(`${server.origin}/api/dealers/${dealer.dealerId}`, { headers: { cookie: admin } })).json()) as { dealer: { security: Record<string, unknown> } };
  const saved = await fetch(`${server.origin}/api/admin/dealers/${dealer.dealerId}/settings`, {
    method: 'PUT',
    headers: { cookie: admin, 'content-type': 'application/json' },
    body: JSON.stringify({ security: current.dealer.security, timeZone: 'America/New_York' }),
  });
  expect(saved.status).toBe(200);
  // The regular Civic header banner.
  const cookie = await apiSignIn(server.origin, dealer.email, dealer.password);
  const { body, contentType } = multipartBody([{ filename: 'new_2026_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#2255aa') }]);
  const res = await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/assets`, { method: 'POST', headers: { cookie, 'content-type': contentType }, body: new Uint8Array(body) });
  expect(res.status).toBe(200);
  // A banner already in the library, newer than the regular one, that the campaign will take as a creative.
  const existing = multipartBody([{ filename: 'new_2026_honda_civic_lx_holiday_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#22aa77') }]);
  const res2 = await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/assets`, { method: 'POST', headers: { cookie, 'content-type': existing.contentType }, body: new Uint8Array(existing.body) });
  expect(res2.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(clockDir, { recursive: true, force: true });
});

/** A page in its own browser context (what axe needs) at `viewport`, signed in as the manager of `of` (the seeded dealer unless given). */
async function managerPage(viewport: { width: number; height: number }, of: SeededDealer = dealer): Promise<Page> {
  const { context, page } = await contextPage(browser, viewport);
  const [name, value] = (await apiSignIn(server.origin, of.email, of.password)).split(/=(.*)/s) as [string, string];
  await context.addCookies([{ name, value, url: server.origin }]);
  return page;
}

/** The header slot's asset name in Preview's status row, once loaded. */
async function previewHeaderName(page: Page): Promise<string> {
  const status = page.getByTestId('status-header');
  await status.getByText(/\.jpg$/).waitFor({ timeout: 30_000 });
  return (await status.innerText()).replace(/^header:\s*/, '').trim();
}

describe('Campaigns screen', () => {
  it('creates, fills, publishes, previews as of its start and ends a campaign', async () => {
    const page = await managerPage(DESKTOP);
    await page.goto(`${server.origin}/dealer/campaigns`);
    await page.getByRole('heading', { name: 'Campaigns', level: 2 }).waitFor();
    await page.getByText('No campaigns yet').waitFor();

    // The form: name, window (New York time), takeover, the header slot, Civic only.
    await page.getByRole('button', { name: 'New campaign' }).click();
    const form = page.getByRole('dialog', { name: 'New campaign' });
    await form.waitFor();
    await form.getByRole('button', { name: 'Create draft' }).click();
    await form.getByText('Name the campaign').waitFor(); // the form's own check, before any request
    await form.getByLabel(/^Name/).fill('Black Friday');
    await form.getByLabel('Starts').fill('2026-11-27T00:00');
    await form.getByLabel('Ends').fill('2026-11-30T00:00');
    await form.getByRole('checkbox', { name: 'Header', exact: true }).check();
    await form.getByRole('checkbox', { name: 'Civic', exact: true }).check();
    await animationsDone(page, '[role="dialog"]');
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await page.screenshot({ path: screenshotPath('90-campaign-form') });
    await form.getByRole('button', { name: 'Create draft' }).click();
    await form.waitFor({ state: 'hidden' });

    const card = page.getByRole('article', { name: 'Black Friday' });
    await expect.poll(() => card.getByTestId('campaign-state').textContent(), { timeout: 30_000 }).toBe('Draft');
    await card.getByText(/^Nov 27, 2026, 12:00\sAM – Nov 30, 2026, 12:00\sAM \(America\/New_York\)$/).waitFor();

    // A creative uploaded into the campaign.
    const chooser = page.waitForEvent('filechooser');
    await card.getByRole('button', { name: 'Upload creatives' }).click();
    await (await chooser).setFiles([{ name: 'new_2026_honda_civic_sport_blackfriday_1920x300.jpg', mimeType: 'image/jpeg', buffer: await makeBanner(1920, 300, 'jpeg', '#aa2222') }]);
    await card.getByText('1 creative').waitFor({ timeout: 30_000 });

    // An existing asset chosen as a creative too: the library's holiday banner leaves the regular rotation.
    await card.getByRole('button', { name: 'Choose creatives' }).click();
    const picker = page.getByRole('dialog', { name: 'Creatives of Black Friday' });
    await picker.getByRole('checkbox', { name: 'new_2026_honda_civic_lx_holiday_1920x300.jpg' }).check();
    await animationsDone(page, '[role="dialog"]');
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await picker.getByRole('button', { name: 'Save creatives' }).click();
    await picker.waitFor({ state: 'hidden' });
    await card.getByText('2 creatives').waitFor({ timeout: 30_000 });

    await card.getByRole('button', { name: 'Publish' }).click();
    await expect.poll(() => card.getByTestId('campaign-state').textContent(), { timeout: 30_000 }).toBe('Scheduled');
    await animationsDone(page);
    // The screen itself (the toasts above it come and go).
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await page.screenshot({ path: screenshotPath('91-campaigns-desktop'), fullPage: true });

    // Preview now: the regular banner; as of the campaign's Saturday: its creative.
    await page.goto(`${server.origin}/dealer/preview`);
    // The coverage matrix's Civic header cell (desktop) opens Civic in Preview.
    await page.getByRole('button', { name: /^Preview header for Civic:/ }).first().click();
    expect(await previewHeaderName(page)).toBe('new_2026_honda_civic_sport_1920x300.jpg');
    await page.getByTestId('preview-as-of').fill('2026-11-28T10:00');
    await expect.poll(() => previewHeaderName(page), { timeout: 30_000 }).toBe('new_2026_honda_civic_sport_blackfriday_1920x300.jpg');
    // The coverage matrix as of the same moment: the Civic header cell shows the campaign's
    // creative (the image Preview names), not the regular banner it shows now.
    const { assets } = (await (await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/assets`, { headers: { cookie: await apiSignIn(server.origin, dealer.email, dealer.password) } })).json()) as { assets: Array<{ id: string; name: string }> };
    const creative = assets.find((a) => a.name === 'new_2026_honda_civic_sport_blackfriday_1920x300.jpg');
    expect(creative).toBeDefined();
    const cell = page.getByTestId('coverage-civic-header').first();
    await expect.poll(() => cell.locator('img').getAttribute('src'), { timeout: 30_000 }).toBe(`/api/dealers/${dealer.dealerId}/assets/${creative!.id}/image`);
    expect(await cell.getByTestId('coverage-source').textContent()).toBe('Asset');
    await animationsDone(page);
    // The screen itself (the toasts above it come and go).
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await page.screenshot({ path: screenshotPath('92-preview-as-of'), fullPage: true });

    // End now, after a confirmation.
    await page.goto(`${server.origin}/dealer/campaigns`);
    await card.getByRole('button', { name: 'End now' }).click();
    const confirm = page.getByRole('dialog', { name: 'End campaign now?' });
    await dialogChecked(page, confirm, '94-campaign-end-confirm-desktop');
    await confirm.getByRole('button', { name: 'End now' }).click();
    await expect.poll(() => card.getByTestId('campaign-state').textContent(), { timeout: 30_000 }).toBe('Ended');
    await page.context().close();
  });

  it('reads well on a phone (390 px)', async () => {
    const page = await managerPage(MOBILE);
    await page.goto(`${server.origin}/dealer/campaigns`);
    await page.getByRole('article', { name: 'Black Friday' }).waitFor({ timeout: 30_000 });
    await animationsDone(page);
    // The screen itself (the toasts above it come and go).
    expect(await seriousViolations(page, 'main')).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: screenshotPath('93-campaigns-phone'), fullPage: true });
    // The Delete confirmation (an ended campaign can still be deleted) reads on a phone too.
    await page.getByRole('article', { name: 'Black Friday' }).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete campaign?' });
    await confirm.waitFor();
    await animationsDone(page, '[role="dialog"]');
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await page.screenshot({ path: screenshotPath('94-campaign-delete-confirm-phone') });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });

    // Preview "as of" on a phone. Black Friday has ended, so a second takeover (Civic header,
    // Nov 30 to Dec 2, New York time) is made ready through the API, its creative uploaded into it.
    const cookie = await apiSignIn(server.origin, dealer.email, dealer.password);
    const api = (method: string, url: string, body: unknown) =>
      fetch(`${server.origin}/api/dealers/${dealer.dealerId}${url}`, { method, headers: { cookie, 'content-type': 'application/json', origin: server.origin }, body: JSON.stringify(body) });
    const { campaigns } = (await (await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/campaigns`, { headers: { cookie } })).json()) as { campaigns: Array<{ name: string; models: string[] }> };
    const civic = campaigns.find((c) => c.name === 'Black Friday')!.models; // the model as the form saved it
    const created = await api('POST', '/campaigns', { name: 'Cyber Monday', mode: 'takeover', startsAt: '2026-11-30T00:00', endsAt: '2026-12-02T00:00', models: civic, slots: ['header'] });
    expect(created.status).toBe(200);
    const campaignId = ((await created.json()) as { campaign: { id: string } }).campaign.id;
    const upload = multipartBody([{ filename: 'new_2026_honda_civic_sport_cybermonday_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#aa7722') }], { campaignId });
    const uploaded = await fetch(`${server.origin}/api/dealers/${dealer.dealerId}/assets`, { method: 'POST', headers: { cookie, 'content-type': upload.contentType }, body: new Uint8Array(upload.body) });
    expect(uploaded.status).toBe(200);
    const creativeId = ((await uploaded.json()) as { results: Array<{ asset: { id: string } }> }).results[0]!.asset.id;
    expect((await api('POST', `/campaigns/${campaignId}/status`, { action: 'publish' })).status).toBe(200);

    // Now: the regular banner; as of Dec 1, 10:00 in New York: the campaign's creative, in the
    // status row and in the coverage matrix's Civic header cell (scrolled to inside its box).
    await page.goto(`${server.origin}/dealer/preview`);
    await page.getByRole('button', { name: /^Preview header for Civic:/ }).first().click();
    expect(await previewHeaderName(page)).toBe('new_2026_honda_civic_sport_1920x300.jpg');
    await page.getByTestId('preview-as-of').fill('2026-12-01T10:00');
    await expect.poll(() => previewHeaderName(page), { timeout: 30_000 }).toBe('new_2026_honda_civic_sport_cybermonday_1920x300.jpg');
    const cell = page.getByTestId('coverage-civic-header').first();
    await expect.poll(() => cell.locator('img').getAttribute('src'), { timeout: 30_000 }).toBe(`/api/dealers/${dealer.dealerId}/assets/${creativeId}/image`);
    await page.getByText('Showing 2026-12-01 10:00, not now').waitFor();
    await animationsDone(page);
    // The screen itself (the toasts above it come and go), no wider than the phone.
    expect(await seriousViolations(page, 'main')).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: screenshotPath('92-preview-as-of-phone'), fullPage: true });
    await page.context().close();
  });
});

/** Moves the server's clock (app.now) to `iso`. */
const setServerClock = (iso: string) => writeFileSync(CLOCK_FILE, iso);

/** The UTC instant (ISO 8601) of `local`, a date-time as the campaign form takes it in New York's winter time (EST, UTC-5), moved by `deltaMs`. */
const newYorkInstant = (local: string, deltaMs = 0) => new Date(Date.parse(`${local}:00-05:00`) + deltaMs).toISOString();

/**
 * The widths the two journeys below run at, each with a dealer, campaign names and windows of its
 * own (New York time, all in EST); the server's clock only moves forward, through them in this
 * order. A lean run takes the same steps and checks (axe on every screen and dialog it opens) with
 * fewer intermediate screenshots: the takeover is shown in full at desktop, the rotate on the phone.
 */
const WIDTHS = [
  {
    label: 'desktop',
    viewport: DESKTOP,
    dealer: 'Honda Window Motors',
    takeover: { name: 'Holiday Sale', clock: '2026-12-10T12:00:00Z', starts: '2026-12-19T00:00', ends: '2026-12-22T00:00', lean: false },
    rotate: { name: 'Winter Rotate', clock: '2027-01-05T12:00:00Z', starts: '2027-01-08T00:00', ends: '2027-01-11T00:00', lean: true },
  },
  {
    label: '390',
    viewport: MOBILE,
    dealer: 'Honda Window Motors 390',
    takeover: { name: 'Holiday Sale 390', clock: '2027-01-15T12:00:00Z', starts: '2027-01-19T00:00', ends: '2027-01-22T00:00', lean: true },
    rotate: { name: 'Winter Rotate 390', clock: '2027-02-01T12:00:00Z', starts: '2027-02-05T00:00', ends: '2027-02-08T00:00', lean: false },
  },
] as const;

/** Fills and submits the New campaign form for a Civic header campaign, once the filled form has passed axe and its screenshot `shot` is taken. */
async function createCampaign(page: Page, c: { name: string; mode: 'Takeover' | 'Rotate'; starts: string; ends: string }, shot: string): Promise<void> {
  await page.getByRole('button', { name: 'New campaign' }).click();
  const form = page.getByRole('dialog', { name: 'New campaign' });
  await form.waitFor();
  await form.getByLabel(/^Name/).fill(c.name);
  await form.getByLabel('Starts').fill(c.starts);
  await form.getByLabel('Ends').fill(c.ends);
  await form.getByText(c.mode, { exact: true }).click();
  await form.getByRole('checkbox', { name: 'Header', exact: true }).check();
  await form.getByRole('checkbox', { name: 'Civic', exact: true }).check();
  await dialogChecked(page, form, shot);
  await form.getByRole('button', { name: 'Create draft' }).click();
  await form.waitFor({ state: 'hidden' });
}

/** Uploads `filename` (a 1920x300 banner of `color`) into the campaign card `card` through its Upload creatives button. */
async function uploadInto(page: Page, card: Locator, filename: string, color: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await card.getByRole('button', { name: 'Upload creatives' }).click();
  await (await chooser).setFiles([{ name: filename, mimeType: 'image/jpeg', buffer: await makeBanner(1920, 300, 'jpeg', color) }]);
  await card.getByText('1 creative').waitFor({ timeout: 30_000 });
}

/** Once the page has settled: with `axe`, no serious or critical violation on the screen itself (the toasts above it come and go); with `shot`, a full-page screenshot of that name. */
async function screenChecked(page: Page, opts: { axe?: boolean; shot?: string }): Promise<void> {
  if (!opts.axe && !opts.shot) return;
  await animationsDone(page);
  if (opts.axe) expect(await seriousViolations(page, 'main')).toEqual([]);
  if (opts.shot) await page.screenshot({ path: screenshotPath(opts.shot), fullPage: true });
}

const state = (card: Locator) => card.getByTestId('campaign-state').textContent();

/**
 * The campaign windows as the dealer's site sees them, with the server's clock moved instead of
 * waiting, at 1280 and at 390 px: campaigns created, filled and published through the Campaigns
 * screen of a dealer of their own (New York time, its fixture search page allowed), then the public
 * banner endpoint (X-Banner-Creative per rotation bucket `r`) and the fixture page's header image
 * (at the same width) prove what shows before, at and after each window. Nothing is written while
 * the clock moves, so the server's choice caches must expire at the window's boundaries on their own.
 */
for (const w of WIDTHS) {
  describe(`campaign windows on the dealer page (clock moved), at ${w.viewport.width} px`, () => {
    let windowDealer: SeededDealer;
    let site: DealerSite;
    let regularId = '';
    /** The screenshot name `name` of this width. */
    const shot = (name: string) => `${name}-${w.label}`;

    beforeAll(async () => {
      windowDealer = await seedDealer(server.origin, w.dealer);
      await allowFixtureSites(server.origin, windowDealer.dealerId, 'America/New_York');
      // The regular Civic header banner, live all along.
      const cookie = await apiSignIn(server.origin, windowDealer.email, windowDealer.password);
      const { body, contentType } = multipartBody([{ filename: 'new_2026_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#2255aa') }]);
      const res = await fetch(`${server.origin}/api/dealers/${windowDealer.dealerId}/assets`, { method: 'POST', headers: { cookie, 'content-type': contentType }, body: new Uint8Array(body) });
      expect(res.status).toBe(200);
      regularId = ((await res.json()) as { results: Array<{ asset: { id: string } }> }).results[0]!.asset.id;
      site = await startDealerSite(`${server.origin}/scripts/dc-banners-${windowDealer.dealerId}.js`, 'provider-srp.html');
    });
    afterAll(async () => {
      await site?.close();
    });

    /** The id of the dealer's asset uploaded as `filename` (the asset list, as its manager reads it). */
    async function assetId(filename: string): Promise<string> {
      const cookie = await apiSignIn(server.origin, windowDealer.email, windowDealer.password);
      const { assets } = (await (await fetch(`${server.origin}/api/dealers/${windowDealer.dealerId}/assets`, { headers: { cookie } })).json()) as { assets: Array<{ id: string; name: string }> };
      const found = assets.find((a) => a.name === filename);
      if (!found) throw new Error(`no asset ${filename} among ${assets.map((a) => a.name).join(', ')}`);
      return found.id;
    }

    /** The creatives the public banner endpoint answers for the Civic desktop header, rotation buckets 0..n-1 (X-Banner-Creative). */
    async function delivered(n: number): Promise<string[]> {
      const out: string[] = [];
      for (let r = 0; r < n; r++) {
        // Asked again after a load-shedding 503 on a busy machine, as the embed script's image would be.
        const res = await fetchUnlessShed(`${server.origin}/api/scripts/${windowDealer.dealerId}/asset?model=civic&type=header&variant=desktop&r=${r}`);
        expect(res.status).toBeLessThan(400);
        await res.arrayBuffer();
        out.push(res.headers.get('x-banner-creative') ?? '');
      }
      return out;
    }

    /**
     * Opens the fixture Civic search page at this width in a fresh browser (no HTTP cache) whose
     * session drew rotation bucket `bucket`, and says which creative its header image is
     * (X-Banner-Creative); with `name`, a screenshot of the page once the image has loaded.
     */
    async function pageHeader(bucket: number, name?: string): Promise<string> {
      const page = await newPage(browser, { viewport: w.viewport });
      try {
        await page.addInitScript((r) => sessionStorage.setItem('dcb_r', r), String(bucket));
        const image = page.waitForResponse((r) => r.url().includes('/asset?') && new URL(r.url()).searchParams.get('type') === 'header');
        await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
        const creative = (await image).headers()['x-banner-creative'] ?? '';
        await page.waitForFunction(() => (document.querySelector('.dc-banner[data-dc-type="header"] img') as HTMLImageElement | null)?.complete === true);
        if (name) await page.screenshot({ path: screenshotPath(name) });
        return creative;
      } finally {
        await page.context().close();
      }
    }

    it(`a takeover campaign with future dates shows nothing live, shows in Preview as of its start, takes over at its start and stops at its end (${w.viewport.width} px)`, async () => {
      const t = w.takeover;
      /** An intermediate screenshot's name; none on the lean run. */
      const extra = (name: string) => (t.lean ? undefined : shot(name));
      const holiday = 'new_2026_honda_civic_sport_holiday_1920x300.jpg';
      setServerClock(t.clock);
      const page = await managerPage(w.viewport, windowDealer);
      await page.goto(`${server.origin}/dealer/campaigns`);
      await page.getByText('No campaigns yet').waitFor({ timeout: 30_000 });
      // Midnight to midnight, New York time (EST, UTC-5): 05:00 UTC.
      await createCampaign(page, { name: t.name, mode: 'Takeover', starts: t.starts, ends: t.ends }, shot('97-campaign-journey-0-form'));
      const card = page.getByRole('article', { name: t.name });
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Draft');
      await uploadInto(page, card, holiday, '#aa2222');
      const holidayId = await assetId(holiday);
      // A draft's creative is not live: the regular banner still shows.
      expect(await delivered(2)).toEqual([regularId, regularId]);
      await card.getByRole('button', { name: 'Publish' }).click();
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Scheduled');
      await screenChecked(page, { axe: true, shot: extra('97-campaign-journey-1-scheduled') });

      // Published, but before its window: nothing of it is live, on the endpoint or on the page.
      expect(await delivered(2)).toEqual([regularId, regularId]);
      expect(await pageHeader(0, extra('97-campaign-journey-2-page-before'))).toBe(regularId);

      // Preview: now the regular banner, as of the campaign's start its creative.
      await page.goto(`${server.origin}/dealer/preview`);
      await page.getByRole('button', { name: /^Preview header for Civic:/ }).first().click();
      expect(await previewHeaderName(page)).toBe('new_2026_honda_civic_sport_1920x300.jpg');
      await page.getByTestId('preview-as-of').fill(t.starts);
      await expect.poll(() => previewHeaderName(page), { timeout: 30_000 }).toBe(holiday);
      await screenChecked(page, { axe: true, shot: shot('97-campaign-journey-3-preview-as-of-start') });

      // One second before its start (23:59:59 the day before, in New York): still the regular banner.
      setServerClock(newYorkInstant(t.starts, -1000));
      expect(await delivered(2)).toEqual([regularId, regularId]);
      // At its start it takes the slot over: every bucket, and the page.
      setServerClock(newYorkInstant(t.starts));
      expect(await delivered(4)).toEqual([holidayId, holidayId, holidayId, holidayId]);
      expect(await pageHeader(1, shot('97-campaign-journey-4-page-takeover'))).toBe(holidayId);
      await page.goto(`${server.origin}/dealer/campaigns`);
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Live');
      await screenChecked(page, { shot: shot('97-campaign-journey-5-live') });

      // Pause through the card: the regular banner is back in every bucket; Resume: the campaign's again.
      await card.getByRole('button', { name: 'Pause' }).click();
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Paused');
      await expect.poll(() => delivered(2), { timeout: 30_000 }).toEqual([regularId, regularId]);
      await screenChecked(page, { shot: extra('97-campaign-journey-5a-paused') });
      await card.getByRole('button', { name: 'Resume' }).click();
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Live');
      await expect.poll(() => delivered(2), { timeout: 30_000 }).toEqual([holidayId, holidayId]);

      // The Edit campaign dialog (opened, checked with axe, left unchanged).
      await card.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = page.getByRole('dialog', { name: 'Edit campaign' });
      await expect.poll(() => edit.getByLabel(/^Name/).inputValue(), { timeout: 30_000 }).toBe(t.name);
      await dialogChecked(page, edit, shot('97-campaign-journey-5b-edit'));
      await edit.getByRole('button', { name: 'Cancel' }).click();
      await edit.waitFor({ state: 'hidden' });

      // The last second of its window, then its end: the regular banner is back.
      setServerClock(newYorkInstant(t.ends, -1000));
      expect(await delivered(2)).toEqual([holidayId, holidayId]);
      setServerClock(newYorkInstant(t.ends));
      expect(await delivered(4)).toEqual([regularId, regularId, regularId, regularId]);
      expect(await pageHeader(0, extra('97-campaign-journey-6-page-after'))).toBe(regularId);
      await page.reload();
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Ended');
      await screenChecked(page, { shot: extra('97-campaign-journey-7-ended') });
      // The Delete confirmation (checked with axe, cancelled).
      await card.getByRole('button', { name: 'Delete' }).click();
      const confirmDelete = page.getByRole('dialog', { name: 'Delete campaign?' });
      await dialogChecked(page, confirmDelete, shot('97-campaign-journey-8-delete-confirm'));
      await confirmDelete.getByRole('button', { name: 'Cancel' }).click();
      await confirmDelete.waitFor({ state: 'hidden' });
      await page.context().close();
    });

    it(`a rotate campaign splits the slot with the regular banner inside its window, and End now stops it (${w.viewport.width} px)`, async () => {
      const r = w.rotate;
      /** An intermediate screenshot's name; none on the lean run. */
      const extra = (name: string) => (r.lean ? undefined : shot(name));
      const winter = 'new_2026_honda_civic_sport_winter_1920x300.jpg';
      setServerClock(r.clock);
      const page = await managerPage(w.viewport, windowDealer);
      await page.goto(`${server.origin}/dealer/campaigns`);
      await page.getByRole('article', { name: w.takeover.name }).waitFor({ timeout: 30_000 });
      await createCampaign(page, { name: r.name, mode: 'Rotate', starts: r.starts, ends: r.ends }, shot('98-campaign-form'));
      const card = page.getByRole('article', { name: r.name });
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Draft');
      await uploadInto(page, card, winter, '#7722aa');
      const winterId = await assetId(winter);

      // The creative picker (opened, checked with axe, left unchanged).
      await card.getByRole('button', { name: 'Choose creatives' }).click();
      const picker = page.getByRole('dialog', { name: `Creatives of ${r.name}` });
      await picker.getByRole('checkbox', { name: winter }).waitFor();
      await dialogChecked(page, picker, shot('98-campaign-picker'));
      await picker.getByRole('button', { name: 'Cancel' }).click();
      await picker.waitFor({ state: 'hidden' });

      await card.getByRole('button', { name: 'Publish' }).click();
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Scheduled');
      const N = 10;
      const count = (list: string[]) => ({ regular: list.filter((c) => c === regularId).length, winter: list.filter((c) => c === winterId).length });
      expect(count(await delivered(N))).toEqual({ regular: N, winter: 0 });

      // From its start (midnight New York = 05:00 UTC) the buckets split evenly between the two.
      setServerClock(newYorkInstant(r.starts));
      expect(count(await delivered(N))).toEqual({ regular: N / 2, winter: N / 2 });
      // On the page: two sessions of different buckets see the two creatives.
      const shown = [await pageHeader(0, extra('98-campaign-rotate-page-bucket0')), await pageHeader(1, extra('98-campaign-rotate-page-bucket1'))];
      expect(shown.sort()).toEqual([regularId, winterId].sort());

      // End now, after the confirmation (checked with axe): the regular banner alone again.
      await page.reload();
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Live');
      await card.getByRole('button', { name: 'End now' }).click();
      const confirm = page.getByRole('dialog', { name: 'End campaign now?' });
      await dialogChecked(page, confirm, shot('98-campaign-end-confirm'));
      await confirm.getByRole('button', { name: 'End now' }).click();
      await expect.poll(() => state(card), { timeout: 30_000 }).toBe('Ended');
      expect(count(await delivered(N))).toEqual({ regular: N, winter: 0 });
      await screenChecked(page, { axe: true, shot: shot('98-campaign-rotate-ended') });
      await page.context().close();
    });
  });
}
