/**
 * The Analytics screen and the dealer dashboard in a browser, with data that came in the way a
 * dealer's would: an inventory file uploaded through the API and beacons sent to the track route.
 * At 1280 and 390, every row of the per-model table reads what the test's own inputs say: the
 * beacons it sent (counts, CTR) and the file it uploaded (units, aged share, median days on lot,
 * stock priority), for all devices and for phones only (the CR-V beacons come from phones).
 * 'Raise upsell priority' saves the next weight band at both widths, the table shows it and the
 * banner endpoint then serves the raised model in the upsell slot of the Prologue page (desktop:
 * Pilot over the rule's CR-V; phone: CR-V raised level with Pilot, so the rule's CR-V again).
 * Every per-model row matches the API's answer to the same query, 'Same period last year' asks
 * for compare=year and shows that comparison, the chart metric switch renames the chart and its
 * legend, a custom range asks for the chosen days, and the dashboard shows Conversions and the
 * trend chart. Axe finds no serious or critical violation on the screen, in the By slot and By
 * creative tabs, or in the date-range picker (Period and Compare lists open, Custom range's From
 * and To showing), at either width; creative names read whole at both.
 * The Upsell Rules priority bands read whole at both widths.
 * Screenshots: test-results/analytics-report-{desktop,phone}.png, analytics-device-{desktop,phone}.png,
 * analytics-range-picker-{desktop,phone}.png, analytics-raise-priority{,-phone}.png,
 * analytics-by-{slot,creative}-{desktop,phone}.png, analytics-compare-year-clicks.png, analytics-custom-range.png,
 * dashboard-trend-{desktop,phone}.png, inventory-aged-action-{desktop,phone}.png, upsell-priorities-{desktop,phone}.png.
 */
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator } from 'playwright-core';
import { apiSignIn, DEALER_SITE_ORIGIN, DESKTOP_UA, fetchUnlessShed, launchBrowser, screenshotPath, seedAssets, startServer, patchDealerSettings, type RunningServer } from './harness';
import { contextPage, DESKTOP, DEMO_DEALER_ID, MOBILE, seriousViolations, settled, signInAs } from './a11y';
import { makeBanner, multipartBody } from '../fixtures/images';
import type { AnalyticsReport } from '../../src/domain/contracts/analytics';
import { formatCtr, formatTrend } from '../../src/domain/metrics';
import { formatPriority } from '../../src/domain/priority-scale';
import { priorityScore } from '../../src/domain/priority-score';
import { AGED_DAYS } from '../../src/domain/constants';
import { DEFAULT_WEIGHT } from '../../src/domain/defaults';
import { modelKey } from '../../src/domain/model-keys';

let server: RunningServer;
let browser: Browser;

/** A phone's browser: Chrome on Android, with the client hint it sends. */
const PHONE = { 'user-agent': 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36', 'sec-ch-ua-mobile': '?1' };

/** A Civic header banner of the demo dealer's, its file name long and without spaces: the By creative tab names the creative by it. */
const CIVIC_HEADER_FILE = 'new_2025_honda_civic_sport_spring_clearance_weekend_1920x300.jpg';
/** The banner request of the demo dealer's Civic header, as the embed script makes it (path and query; rotation bucket 0). */
const CIVIC_HEADER_REQUEST = `/api/scripts/${DEMO_DEALER_ID}/asset?model=civic&type=header&variant=desktop&r=0`;

/** One kind of beacon beforeAll sends: `n` of them, from page views `${pv}-0`.., with the banner request the slot showed when `asset` is given. */
interface Beacon {
  model: string;
  type: string;
  event: 'impression' | 'click' | 'conversion';
  n: number;
  pv: string;
  device: 'desktop' | 'mobile';
  asset?: string;
}

/**
 * The beacons beforeAll sends, as the dealer site's script would: per model, slot type and event,
 * from a desktop browser or a phone. The per-model table's figures are expected from these counts.
 */
const BEACONS: readonly Beacon[] = [
  { model: 'civic', type: 'header', event: 'impression', n: 40, pv: 'e2e-civic', device: 'desktop', asset: CIVIC_HEADER_REQUEST },
  { model: 'civic', type: 'header', event: 'click', n: 3, pv: 'e2e-civic', device: 'desktop', asset: CIVIC_HEADER_REQUEST },
  { model: 'civic', type: 'header', event: 'conversion', n: 1, pv: 'e2e-civic', device: 'desktop' },
  { model: 'crv', type: 'primary', event: 'impression', n: 25, pv: 'e2e-crv', device: 'mobile' },
  { model: 'pilot', type: 'upsell', event: 'impression', n: 12, pv: 'e2e-pilot', device: 'desktop' },
  { model: 'pilot', type: 'upsell', event: 'click', n: 1, pv: 'e2e-pilot', device: 'desktop' },
];

/** Sends the beacons `b` stands for to the track route, as the dealer site's script does. */
async function track(b: Beacon): Promise<void> {
  const from = b.device === 'mobile' ? PHONE : { 'user-agent': DESKTOP_UA };
  for (let i = 0; i < b.n; i++) {
    const beacon = { dealerId: DEMO_DEALER_ID, event: b.event, type: b.type, model: b.model, url: `${DEALER_SITE_ORIGIN}/new-inventory?model=${b.model}`, pv: `${b.pv}-${i}` };
    const body = JSON.stringify(b.asset ? { ...beacon, asset: `${server.origin}${b.asset}` } : beacon);
    const res = await fetchUnlessShed(`${server.origin}/api/analytics/track`, { method: 'POST', headers: { 'content-type': 'text/plain', ...from, origin: DEALER_SITE_ORIGIN }, body });
    expect(res.status).toBe(204);
  }
}

/** The inventory file beforeAll uploads. */
const INVENTORY_CSV = readFileSync(new URL('../fixtures/inventory/honda-inventory.csv', import.meta.url));

/** One model's stock in the uploaded file: its name as first written there and its vehicles' fields. */
interface Stock {
  name: string;
  days: number[];
  trims: Set<string>;
  exterior: Set<string>;
  interior: Set<string>;
  years: Set<string>;
}

/**
 * The uploaded file's stock per model (by model key, so 'CR-V' and 'CRV' are one model), read
 * here from the file: new vehicles with a model only, as the upload counts them (the file's used
 * Civic and its row without a model are not stock).
 */
function stockOfFile(): Map<string, Stock> {
  const stock = new Map<string, Stock>();
  for (const v of parseCsv(INVENTORY_CSV, { columns: true, bom: true, skip_empty_lines: true }) as Array<Record<string, string>>) {
    if (v.IsNew === 'false' || !v.Model!.trim()) continue;
    const key = modelKey(v.Model!);
    const s = stock.get(key) ?? { name: v.Model!.trim(), days: [], trims: new Set(), exterior: new Set(), interior: new Set(), years: new Set() };
    s.days.push(Number(v.DaysInStock));
    s.trims.add(v.Trim!);
    s.exterior.add(v.ExteriorColor!);
    s.interior.add(v.InteriorColor!);
    s.years.add(v.Year!);
    stock.set(key, s);
  }
  return stock;
}

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/**
 * The per-model table's rows as the test's inputs say they read, in the table's order (viewable
 * impressions, then clicks, conversions and units, most first): each model of the beacons
 * (`device`'s only, or all) and of the file, with its counts and CTR, units, aged share (units
 * on the lot AGED_DAYS or more), median days on lot, stock priority (the score of the file's
 * figures) and upsell priority (`upsell` by model key; DEFAULT_WEIGHT when not raised).
 */
function expectedModelRows(device: 'all' | 'mobile', upsell: Record<string, number>): string[][] {
  const stock = stockOfFile();
  const counts = new Map<string, { impression: number; click: number; conversion: number }>();
  for (const key of [...stock.keys(), ...BEACONS.map((b) => modelKey(b.model))]) counts.set(key, { impression: 0, click: 0, conversion: 0 });
  for (const b of BEACONS) if (device === 'all' || b.device === device) counts.get(modelKey(b.model))![b.event] += b.n;
  const n = (v: number) => v.toLocaleString('en-US');
  return [...counts]
    .map(([key, c]) => ({ key, c, s: stock.get(key) }))
    .sort((a, b) => b.c.impression - a.c.impression || b.c.click - a.c.click || b.c.conversion - a.c.conversion || (b.s?.days.length ?? 0) - (a.s?.days.length ?? 0) || a.key.localeCompare(b.key))
    .map(({ key, c, s }) => {
      const units = s?.days.length ?? 0;
      const aged = s?.days.filter((d) => d >= AGED_DAYS).length ?? 0;
      const stockPriority = s && priorityScore({
        totalUnits: units,
        agedUnits: aged,
        avgDaysOnLot: s.days.reduce((a, d) => a + d, 0) / units,
        trimCount: s.trims.size,
        exteriorColorCount: s.exterior.size,
        interiorColorCount: s.interior.size,
        yearCount: s.years.size,
      });
      return [
        s?.name ?? key,
        n(c.impression),
        n(c.click),
        formatCtr(c.impression > 0 ? (100 * c.click) / c.impression : null),
        n(c.conversion),
        s ? n(units) : '—',
        s ? `${((100 * aged) / units).toFixed(0)} %` : '—',
        s ? n(Math.round(median(s.days))) : '—',
        stockPriority ? formatPriority(stockPriority) : '—',
        formatPriority(upsell[key] ?? DEFAULT_WEIGHT),
      ];
    });
}

/**
 * The per-model table's rows as the page holds them, scrolled into its frame or not: each cell's
 * text, the upsell priority column (the last) as its badge reads, without the Raise button.
 */
const modelRowsShown = (table: Locator) =>
  table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((r) => [...(r as HTMLTableRowElement).cells].map((c, i, all) => (i === all.length - 1 ? (c.querySelector('[data-testid="upsell-priority"]') ?? c).textContent : c.textContent))),
    );

/**
 * The model the public banner endpoint shows in the upsell slot of a search page for `pageModel`
 * (X-Banner-Model, the model key), as the demo dealer's site asks for it (desktop, no dealer
 * version in the URL: the server's current choice).
 */
async function upsellServed(pageModel: string): Promise<string> {
  const res = await fetchUnlessShed(`${server.origin}/api/scripts/${DEMO_DEALER_ID}/asset?model=${pageModel}&type=upsell&variant=desktop`);
  expect(res.status).toBeLessThan(400);
  await res.arrayBuffer();
  return res.headers.get('x-banner-model') ?? '';
}

/** The texts of the labels among `labels` cut with '…': wider inside than the box they show in. */
const cutLabels = (labels: Locator) => labels.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent));

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  await patchDealerSettings(server.origin, DEMO_DEALER_ID, { rateLimitEnabled: false });
  const manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  const { body, contentType } = multipartBody([{ filename: 'honda-inventory.csv', data: INVENTORY_CSV }]);
  const up = await fetchUnlessShed(`${server.origin}/api/dealers/${DEMO_DEALER_ID}/inventory`, { method: 'POST', body: new Uint8Array(body), headers: { cookie: manager, 'content-type': contentType, origin: server.origin } });
  expect(up.status).toBe(200);
  await seedAssets(server.origin, manager, DEMO_DEALER_ID, [{ filename: CIVIC_HEADER_FILE, data: await makeBanner(1920, 300) }]);
  for (const b of BEACONS) await track(b);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it('shows per-model figures beside stock, raises a model\'s upsell priority, and asks for a custom range', async () => {
  // Upsell priorities the test has raised, by model key.
  const upsell: Record<string, number> = {};
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer/analytics`);
    const table = page.getByRole('table', { name: 'Model performance and inventory' });
    await table.waitFor({ timeout: 30_000 });
    await settled(page);
    // Every row, cell by cell, as the beacons sent and the file uploaded say.
    await expect.poll(() => modelRowsShown(table), { timeout: 15_000 }).toEqual(expectedModelRows('all', upsell));
    expect(await page.getByText('Viewable impressions only (50 % in view for 1 s)').count()).toBe(1);
    await page.screenshot({ path: screenshotPath(`analytics-report-${name}`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    // Every stock and upsell priority reads whole ('5 · Normal', not '5 · Nor…').
    expect(await cutLabels(table.locator('.mantine-Badge-label'))).toEqual([]);

    // The other two tables, each checked with axe inside its tab panel.
    for (const [tab, tableName, shot] of [['By slot', 'Slot performance', 'analytics-by-slot'], ['By creative', 'Creative performance', 'analytics-by-creative']] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('table', { name: tableName }).waitFor();
      await settled(page);
      expect(await seriousViolations(page, '[role="tabpanel"]')).toEqual([]);
      if (tab === 'By creative') {
        // Each creative's name reads whole: not cut inside its box, nor by the table's scrolling
        // frame (the Creative column is the first: it shows without scrolling, even at 390).
        const creatives = page.getByRole('table', { name: tableName });
        const names = creatives.locator('[data-testid="creative-row"] > td:first-child > div > div > p');
        expect(await names.count()).toBe(await creatives.getByTestId('creative-row').count());
        expect(await names.allTextContents()).toContain(CIVIC_HEADER_FILE);
        expect(await cutLabels(names)).toEqual([]);
        const outsideFrame = await names.evaluateAll((els) =>
          els
            .filter((e) => {
              const frame = e.closest('.mantine-ScrollArea-viewport')!.getBoundingClientRect();
              const box = e.getBoundingClientRect();
              return box.left < frame.left || box.right > frame.right + 0.5;
            })
            .map((e) => e.textContent),
        );
        expect(outsideFrame).toEqual([]);
      }
      await page.getByRole('tabpanel').screenshot({ path: screenshotPath(`${shot}-${name}`) });
    }
    await page.getByRole('tab', { name: 'By model' }).click();
    await table.waitFor();

    // Mobile only: the phone beacons' figures (the CR-V's), every other model at 0 beside its stock.
    const devices = page.getByRole('radiogroup', { name: 'Device' });
    await devices.getByText('Mobile', { exact: true }).click();
    await expect.poll(() => modelRowsShown(table), { timeout: 15_000 }).toEqual(expectedModelRows('mobile', upsell));
    expect(await page.getByRole('link', { name: 'Export Data' }).getAttribute('href')).toContain('device=mobile');
    await settled(page);
    await page.screenshot({ path: screenshotPath(`analytics-device-${name}`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    // The date-range picker: the Period list open, the Compare list open, then Custom range with
    // its From and To fields showing.
    for (const [list, option] of [['Period', 'Custom range'], ['Compare with', 'Same period last year']] as const) {
      await page.getByRole('textbox', { name: list }).click();
      await page.getByRole('option', { name: option }).waitFor();
      await settled(page);
      expect(await seriousViolations(page), `${list} list open`).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('option', { name: option }).waitFor({ state: 'hidden' });
    }
    await page.getByRole('textbox', { name: 'Period' }).click();
    await page.getByRole('option', { name: 'Custom range' }).click();
    await page.getByRole('textbox', { name: 'From', exact: true }).waitFor();
    await page.getByRole('textbox', { name: 'To', exact: true }).waitFor();
    await settled(page);
    expect(await seriousViolations(page), 'Custom range').toEqual([]);
    await page.screenshot({ path: screenshotPath(`analytics-range-picker-${name}`), fullPage: false });
    await context.close();
  }

  const { context, page } = await contextPage(browser, DESKTOP);
  await signInAs(context, server.origin, 'manager');
  const reportUrls: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/analytics/report?')) reportUrls.push(r.url());
  });
  await page.goto(`${server.origin}/dealer/analytics`);
  const table = page.getByRole('table', { name: 'Model performance and inventory' });
  await table.waitFor({ timeout: 30_000 });
  const pilot = table.locator('[data-model="pilot"]');
  // Stock and upsell priority: one scale, written alike; Raise moves the upsell priority one band.
  await pilot.getByTestId('stock-priority').waitFor();
  expect(await pilot.getByTestId('stock-priority').textContent()).toMatch(/^\d+ · (Low|Normal|High)$/);
  expect(await pilot.getByTestId('upsell-priority').textContent()).toBe('5 · Normal');
  // The Prologue page's upsell candidates are CR-V (the manufacturer rule) and Pilot, both at 5: the rule's CR-V shows.
  expect(await upsellServed('prologue')).toBe('crv');
  await pilot.getByRole('button', { name: 'Raise upsell priority of Pilot to 8 (High Priority)' }).click();
  await pilot.getByTestId('upsell-priority').getByText('8 · High', { exact: true }).waitFor({ timeout: 15_000 });
  // Pilot now outranks CR-V: the banner endpoint serves Pilot in the Prologue page's upsell slot.
  expect(await upsellServed('prologue')).toBe('pilot');
  upsell.pilot = 8;
  await expect.poll(() => modelRowsShown(table), { timeout: 15_000 }).toEqual(expectedModelRows('all', upsell));
  await page.screenshot({ path: screenshotPath('analytics-raise-priority'), fullPage: false });

  // Every row of the per-model table against the API's answer to the same query (the screen's
  // last report request, asked again): figures, units, aged share, days on lot and both priorities.
  const screenAsked = reportUrls.at(-1)!;
  const answer = (await page.evaluate(async (url) => (await fetch(url)).json(), screenAsked)) as AnalyticsReport;
  expect(answer.models.length).toBeGreaterThan(0);
  expect(await table.locator('tbody tr').count()).toBe(answer.models.length);
  for (const m of answer.models) {
    const row = table.locator(`[data-model="${m.model}"]`);
    const inv = m.inventory;
    expect((await row.locator('td').allTextContents()).slice(1, 9), m.model).toEqual([
      m.impressions.toLocaleString('en-US'),
      m.clicks.toLocaleString('en-US'),
      formatCtr(m.ctr),
      m.conversions.toLocaleString('en-US'),
      inv ? inv.units.toLocaleString('en-US') : '—',
      inv?.agedShare == null ? '—' : `${inv.agedShare.toFixed(0)} %`,
      inv?.medianDaysOnLot == null ? '—' : Math.round(inv.medianDaysOnLot).toLocaleString('en-US'),
      inv ? formatPriority(inv.priorityScore) : '—',
    ]);
    if (m.upsellWeight === null || !m.weightKey) expect(await row.locator('td').nth(9).textContent()).toBe('—');
    else expect(await row.getByTestId('upsell-priority').textContent()).toBe(formatPriority(m.upsellWeight));
  }
  expect(answer.models.find((m) => m.model === 'pilot')?.upsellWeight).toBe(8);

  // Same period last year: the screen asks for compare=year, and the comparison label and the
  // cards' changes follow the API's answer to it.
  const chartCaption = page.getByTestId('analytics-chart-range');
  expect(await chartCaption.textContent()).toBe(`${answer.range.label} ${answer.comparison.label}`);
  const yearAsked = page.waitForResponse((r) => r.url().includes('/analytics/report?') && new URL(r.url()).searchParams.get('compare') === 'year');
  await page.getByRole('textbox', { name: 'Compare with' }).click();
  await page.getByRole('option', { name: 'Same period last year' }).click();
  const yearReport = (await (await yearAsked).json()) as AnalyticsReport;
  expect(yearReport.comparison.compare).toBe('year');
  expect(yearReport.comparison.label).not.toBe(answer.comparison.label);
  expect(yearReport.comparison.from.slice(0, 4)).toBe(String(Number(answer.range.from.slice(0, 4)) - 1));
  await expect.poll(() => chartCaption.textContent(), { timeout: 15_000 }).toBe(`${yearReport.range.label} ${yearReport.comparison.label}`);
  await page.getByText(`${formatTrend(yearReport.trends.impressions)} ${yearReport.comparison.label}`, { exact: true }).first().waitFor();
  expect(await page.getByRole('link', { name: 'Export Data' }).getAttribute('href')).toContain('compare=year');

  // The chart's metric switch: its title and both legend entries name the chosen metric.
  // The legend's entries, in text order (the chart draws them in an order of its own).
  const legend = async () => (await page.locator('[class*="-legendItemName"]').allTextContents()).sort();
  const comparedWith = yearReport.comparison.label.replace(/^vs /, '');
  expect(await legend()).toEqual([`Viewable impressions (${yearReport.range.label})`, `Viewable impressions (${comparedWith})`].sort());
  await page.getByRole('radiogroup', { name: 'Chart metric' }).getByText('Clicks', { exact: true }).click();
  await expect.poll(legend, { timeout: 15_000 }).toEqual([`Clicks (${yearReport.range.label})`, `Clicks (${comparedWith})`].sort());
  await page.getByRole('heading', { name: 'Clicks', level: 4 }).waitFor();
  await settled(page);
  await page.screenshot({ path: screenshotPath('analytics-compare-year-clicks'), fullPage: true });

  // A custom range of local days: today and the 6 days before.
  await page.getByRole('textbox', { name: 'Period' }).click();
  await page.getByRole('option', { name: 'Custom range' }).click();
  const timeZone = (await page.evaluate(async () => (await (await fetch('/api/dealers/honda-of-demo')).json()).dealer.timeZone)) as string;
  const day = (offset: number) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date(Date.now() + offset * 86_400_000));
  const asked = page.waitForRequest((r) => r.url().includes('/analytics/report?') && r.url().includes(`from=${day(-6)}`));
  await page.getByRole('textbox', { name: 'From', exact: true }).fill(day(-6));
  await page.getByRole('textbox', { name: 'To', exact: true }).fill(day(0));
  await asked;
  // The range holds every beacon sent: the table reads as for the default range.
  await expect.poll(() => modelRowsShown(table), { timeout: 15_000 }).toEqual(expectedModelRows('all', upsell));
  await settled(page);
  await page.screenshot({ path: screenshotPath('analytics-custom-range'), fullPage: true });
  await context.close();

  // At 390 Raise works alike. CR-V (5) is now below Pilot (8) on the Prologue page, which shows
  // Pilot; raised to 8, CR-V is level with Pilot and the manufacturer rule's CR-V shows again.
  const phone = await contextPage(browser, MOBILE);
  await signInAs(phone.context, server.origin, 'manager');
  await phone.page.goto(`${server.origin}/dealer/analytics`);
  const phoneTable = phone.page.getByRole('table', { name: 'Model performance and inventory' });
  await phoneTable.waitFor({ timeout: 30_000 });
  await expect.poll(() => modelRowsShown(phoneTable), { timeout: 15_000 }).toEqual(expectedModelRows('all', upsell));
  expect(await upsellServed('prologue')).toBe('pilot');
  const crv = phoneTable.locator('tbody tr', { has: phone.page.getByRole('cell', { name: 'CR-V', exact: true }) });
  await crv.getByRole('button', { name: 'Raise upsell priority of CR-V to 8 (High Priority)' }).click();
  await crv.getByTestId('upsell-priority').getByText('8 · High', { exact: true }).waitFor({ timeout: 15_000 });
  expect(await upsellServed('prologue')).toBe('crv');
  upsell.crv = 8;
  await expect.poll(() => modelRowsShown(phoneTable), { timeout: 15_000 }).toEqual(expectedModelRows('all', upsell));
  await crv.getByTestId('upsell-priority').scrollIntoViewIfNeeded();
  // The pointer leaves the Raise button, so its tooltip does not cover the row in the screenshot.
  await phone.page.mouse.move(0, 0);
  await expect.poll(() => phone.page.getByRole('tooltip').count(), { timeout: 15_000 }).toBe(0);
  await settled(phone.page);
  await phone.page.screenshot({ path: screenshotPath('analytics-raise-priority-phone'), fullPage: false });
  await phone.context.close();
}, 300_000);

it('the dashboard shows Conversions and the viewable-impressions trend chart', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer`);
    await page.getByTestId('stat-conversions').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('stat-conversions').textContent()).toBe('1');
    await page.getByRole('heading', { name: 'Viewable impressions per day' }).waitFor();
    await page.locator('.recharts-surface').first().waitFor({ timeout: 30_000 });
    await settled(page);
    await page.screenshot({ path: screenshotPath(`dashboard-trend-${name}`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  }
}, 120_000);

it('the Inventory screen\'s aged inventory insight raises a model\'s upsell priority', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer/inventory?tab=upload`);
    const aged = page.getByTestId('aged-models');
    await aged.waitFor({ timeout: 30_000 });
    await settled(page);
    if (name === 'desktop') {
      // Accord: both units aged, upsell priority 5 (Normal) -> 8 (High).
      await aged.getByRole('button', { name: 'Raise upsell priority of Accord to 8 (High Priority)' }).click();
      await aged.getByText('Upsell priority 8 · High').first().waitFor({ timeout: 15_000 });
    }
    await aged.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath(`inventory-aged-action-${name}`), fullPage: false });
    expect(await seriousViolations(page, '[data-testid="aged-models"]')).toEqual([]);
    await context.close();
  }
}, 120_000);

it('Upsell Rules shows every upsell priority band whole, at 1280 and 390', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
    const { context, page } = await contextPage(browser, viewport);
    await signInAs(context, server.origin, 'manager');
    await page.goto(`${server.origin}/dealer/upsells`);
    await page.getByRole('heading', { name: 'Upsell Priorities (inventory weights)' }).waitFor({ timeout: 30_000 });
    const bands = page.locator('.mantine-Badge-label', { hasText: /^(Low|Normal|High) Priority$/ });
    await bands.first().waitFor();
    await settled(page);
    expect(await bands.count()).toBeGreaterThan(0);
    expect(await cutLabels(bands)).toEqual([]);
    await bands.first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: screenshotPath(`upsell-priorities-${name}`), fullPage: false });
    await context.close();
  }
}, 120_000);
