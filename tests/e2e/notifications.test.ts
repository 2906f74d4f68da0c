/**
 * Notifications end to end: shoppers' traffic with a CTR below the demo dealer's alert
 * threshold reaches the server through the beacon endpoint; the running server's notification job
 * e-mails the dealer-manager through a real SMTP server started here; the admin finds the message
 * in the Outbox marked Sent. Screenshots: the Outbox and the e-mail's HTML as a mail client shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { startSmtpCapture, type SmtpCapture } from '../fixtures/smtp';
import type { Browser } from 'playwright-core';
import { closeAll, DEALER_SITE_ORIGIN, DESKTOP_UA, launchBrowser, newPage, screenshotPath, signInThroughForm, startServer, type RunningServer } from './harness';
import { weeklyReportMail } from '../../src/domain/notifications';

let smtp: SmtpCapture;
let received: ParsedMail[];

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  received = smtp.received;
  server = await startServer({ SMTP_URL: smtp.url, NOTIFICATION_INTERVAL_MS: '1000' });
  browser = await launchBrowser();
});
afterAll(() => closeAll(browser, server, smtp));

describe('notification e-mails', () => {
  it('e-mails the dealer manager a performance alert for a low CTR and lists it in the Outbox', async () => {
    const beacon = (event: 'impression' | 'click', i: number) =>
      fetch(`${server.origin}/api/analytics/track`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN },
        body: JSON.stringify({ dealerId: 'honda-of-demo', event, type: 'header', model: 'civic', url: `${DEALER_SITE_ORIGIN}/new-inventory?model=civic`, pv: `notify${String(i).padStart(10, '0')}` }),
      });
    // The click first, so that whenever the job runs (every second) once 100 impressions are in,
    // the CTR it reads is between 1/100 and 1/150.
    expect((await beacon('impression', 0)).status).toBe(204);
    expect((await beacon('click', 0)).status).toBe(204);
    for (let i = 1; i < 150; i += 1) expect((await beacon('impression', i)).status).toBe(204);

    await expect.poll(() => received.length, { timeout: 60_000 }).toBe(1);
    const mail = received[0]!;
    expect([mail.to].flat().flatMap((a) => a?.value.map((v) => v.address))).toEqual(['manager@hondaofdemo.com']);
    expect(mail.subject).toMatch(/^Honda of Demo: banner CTR (0\.(6[7-9]|[7-9]\d)|1\.00)% is below your 2% alert threshold$/);
    expect(mail.text).toContain('impressions and 1 click:');

    const page = await newPage(browser);
    await signInThroughForm(page, `${server.origin}/`, 'admin@dc-banners.com', 'admin123');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Outbox', exact: true }).click();
    await page.getByRole('heading', { name: 'Outbox' }).waitFor();
    await page.getByText(mail.subject!).click();
    await page.getByText('Sent', { exact: true }).waitFor();
    await page.getByText('manager@hondaofdemo.com').waitFor();
    await page.screenshot({ path: screenshotPath('90-admin-outbox'), fullPage: true });

    await page.setContent(mail.html as string);
    await page.screenshot({ path: screenshotPath('91-performance-alert-email') });
    await page.close();
  });

  it('renders the weekly report as a mail client shows it: totals, then the top models and top creatives as tables', async () => {
    const mail = weeklyReportMail(
      'Honda of Demo',
      {
        impressions: 12480,
        clicks: 402,
        conversions: 17,
        models: [{ model: 'Civic', impressions: 6200, clicks: 240 }, { model: 'CR-V', impressions: 4100, clicks: 121 }, { model: 'Pilot', impressions: 2180, clicks: 41 }],
        creatives: [
          { name: 'new_2026_honda_civic_sport_holiday_1920x300.jpg', model: 'Civic', slot: 'header', impressions: 3100, clicks: 142 },
          { name: 'new_2026_honda_civic_sport_1920x300.jpg', model: 'Civic', slot: 'header', impressions: 3100, clicks: 98 },
          { name: 'Placeholder', model: 'Pilot', slot: 'upsell', impressions: 2180, clicks: 41 },
        ],
      },
      new Date('2026-11-16T05:00:00Z'),
      new Date('2026-11-23T05:00:00Z'),
      'America/New_York',
    );
    const page = await newPage(browser, { viewport: { width: 720, height: 900 } });
    await page.setContent(mail.html);
    expect(await page.getByRole('table').count()).toBe(2);
    await page.getByRole('heading', { name: 'Top creatives' }).waitFor();
    expect(await page.getByRole('table').nth(1).getByRole('row').nth(1).textContent()).toContain('new_2026_honda_civic_sport_holiday_1920x300.jpg');
    await page.screenshot({ path: screenshotPath('92-weekly-report-email'), fullPage: true });
    await page.close();
  });
});
