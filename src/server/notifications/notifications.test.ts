/**
 * Notification e-mails received by a real SMTP server
 * (smtp-server on 127.0.0.1, parsed with mailparser): the performance alert once per day, the
 * weekly report's content, feed and dead-letter alerts, nothing with emailAlerts off, the Outbox
 * without SMTP. The job's clock is injected through `app.notifications.tick(now)`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { startSmtpCapture, type SmtpCapture } from '../../../tests/fixtures/smtp';
import { createTestApp, createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { eventDeadLetters, eventRollupsHourly, feedRuns, users } from '../db/schema';
import { eq } from 'drizzle-orm';
import { localParts, NOTIFICATION_INTERVAL_MS, PERFORMANCE_ALERT_MIN_IMPRESSIONS } from '../../domain/notifications';
import { SERVER_TIME_ZONE } from '../dealers/service';

const HOUR = 3_600_000;
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const MANAGER = 'manager@hondaofdemo.com';

let smtp: SmtpCapture;
let received: ParsedMail[];

let t: TestApp;
let admin: string;
/**
 * The job's clock: every tick moves past the job's claim interval, so each tick may run. The tests
 * before the weekly report's own tick at the start, a day later and four days later, none of which
 * may be a Monday morning (a weekly report would go out) whatever day the suite runs: the clock
 * starts at the first 00:30 (server time) after now on a Tuesday, Wednesday, Friday or Saturday, at
 * most three days ahead, so the beacons sent now stay within the 7-day alert window.
 */
let clock = nextLocal(Date.now(), [2, 3, 5, 6], 0);
const tick = (at?: number) => {
  clock = at ?? clock + NOTIFICATION_INTERVAL_MS + 1000;
  return t.app.notifications.tick(new Date(clock));
};
const to = (m: ParsedMail) => [m.to].flat().flatMap((a) => a?.value.map((v) => v.address) ?? []);

const settings = (notifications: Record<string, unknown>) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/admin/dealers/${DEMO_DEALER.id}/settings`,
    headers: { cookie: admin, origin: 'http://localhost:3000' },
    payload: { notifications: { emailAlerts: true, performanceAlerts: true, errorAlerts: true, weeklyReports: true, alertThreshold: 2, ...notifications } },
  });

/** `impressions` page views with an impression each and `clicks` of them clicked, through the beacon endpoint. */
async function shopperTraffic(impressions: number, clicks: number) {
  const beacon = (event: 'impression' | 'click', i: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/analytics/track',
      payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event, type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: `pv${String(i).padStart(14, '0')}` }),
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER_UA, origin: DEMO_DEALER.websiteUrl },
    });
  for (let i = 0; i < impressions; i += 1) expect((await beacon('impression', i)).statusCode).toBe(204);
  for (let i = 0; i < clicks; i += 1) expect((await beacon('click', i)).statusCode).toBe(204);
  await t.app.events.flush();
}

/** The first instant after `from` that is `hour`:30 on one of `weekdays` (0 Sunday … 6 Saturday) in `zone` (default the server's time zone). */
function nextLocal(from: number, weekdays: number[], hour: number, zone = SERVER_TIME_ZONE): number {
  let at = Math.ceil(from / HOUR) * HOUR + 30 * 60_000;
  for (let p = localParts(new Date(at), zone); !(weekdays.includes(p.weekday) && p.hour === hour); p = localParts(new Date(at), zone)) at += HOUR / 2;
  return at;
}
/** The first instant after `from` that is Monday `hour`:30 in `zone`. */
const nextMonday = (from: number, hour: number, zone = SERVER_TIME_ZONE) => nextLocal(from, [1], hour, zone);

beforeAll(async () => {
  smtp = await startSmtpCapture();
  received = smtp.received;
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { env: { SMTP_URL: smtp.url, MAIL_FROM: 'dc-banners <alerts@dc-banners.test>' } }));
  // A second, inactive manager: only active dealer-managers receive e-mails (never viewers).
  const [manager] = await t.database.db.select().from(users).where(eq(users.email, MANAGER));
  await t.database.db.insert(users).values({ ...manager!, id: crypto.randomUUID(), email: 'former@hondaofdemo.com', isActive: false });
});
afterAll(async () => {
  await t.close();
  await smtp?.close();
});
beforeEach(async () => {
  received.length = 0;
  expect((await settings({})).statusCode).toBe(200);
});

describe('notification e-mails through SMTP', () => {
  it('sends the performance alert once a day while the 7-day CTR is below the threshold', async () => {
    await shopperTraffic(PERFORMANCE_ALERT_MIN_IMPRESSIONS + 20, 1); // CTR 0.83 % < 2 %
    const run = await tick();
    expect(run).toMatchObject({ sent: 1, failed: 0 });
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect(to(mail)).toEqual([MANAGER]);
    expect(mail.from?.text).toContain('alerts@dc-banners.test');
    expect(mail.subject).toBe('Honda of Demo: banner CTR 0.83% is below your 2% alert threshold');
    expect(mail.text).toContain('120 impressions and 1 click:');
    expect(mail.html).toContain('<h2>Honda of Demo: banner CTR 0.83% is below your 2% alert threshold</h2>');

    await tick(); // same day, a later run: no second alert
    expect(received).toHaveLength(1);
    const tomorrow = clock + 24 * HOUR;
    await tick(tomorrow);
    expect(received).toHaveLength(2);
  });

  it('sends nothing with emailAlerts off, and no performance alert above the threshold', async () => {
    expect((await settings({ emailAlerts: false })).statusCode).toBe(200);
    await t.database.db.insert(feedRuns).values([
      { dealerId: DEMO_DEALER.id, status: 'error', error: 'HTTP 500', startedAt: new Date(clock - 2 * HOUR), finishedAt: new Date(clock - 2 * HOUR) },
      { dealerId: DEMO_DEALER.id, status: 'error', error: 'HTTP 500', startedAt: new Date(clock - HOUR), finishedAt: new Date(clock - HOUR) },
    ]);
    await tick(clock + 3 * 24 * HOUR);
    expect(received).toHaveLength(0);

    expect((await settings({ alertThreshold: 0.5, errorAlerts: false })).statusCode).toBe(200); // CTR 0.83 % >= 0.5 %
    await tick();
    expect(received).toHaveLength(0);
  });

  it('alerts once per failing run when the feed failed twice in a row', async () => {
    expect((await settings({ performanceAlerts: false, weeklyReports: false })).statusCode).toBe(200);
    await tick(); // the two failed runs of the previous test
    expect(received.map((m) => m.subject)).toEqual(['Honda of Demo: the inventory feed failed twice in a row']);
    expect(received[0]!.text).toContain('The latest error: HTTP 500');
    await tick();
    expect(received).toHaveLength(1);
    await t.database.db.insert(feedRuns).values({ dealerId: DEMO_DEALER.id, status: 'success', vehicleCount: 10, startedAt: new Date(clock), finishedAt: new Date(clock) });
    await tick();
    expect(received).toHaveLength(1);
  });

  it('alerts when tracked events were dead-lettered since the last alert, at most once an hour', async () => {
    expect((await settings({ performanceAlerts: false, weeklyReports: false })).statusCode).toBe(200);
    // Just before an hour starts, so the second pass is in another hour (another alert key): only
    // "since the last alert", read on the job's own clock, keeps it from alerting again.
    clock = Math.ceil((clock + 10_000) / HOUR) * HOUR - 2000;
    await t.database.db.insert(eventDeadLetters).values([1, 2, 3].map((i) => ({ dealerId: DEMO_DEALER.id, payload: `{"n":${i}}`, error: 'value too long', createdAt: new Date(clock) })));
    await tick(clock + 1000);
    expect(received.map((m) => m.subject)).toEqual(['Honda of Demo: 3 tracking events could not be stored']);
    await tick();
    expect(received).toHaveLength(1); // none new since the alert
  });

  it('sends the weekly report on Monday morning with the week figures, top models and top creatives, once', async () => {
    expect((await settings({ performanceAlerts: false, errorAlerts: false })).statusCode).toBe(200);
    const monday = nextMonday(clock + 8 * 24 * HOUR, 9); // after every earlier test's clock
    const inWeek = new Date(Math.floor((monday - 3 * 24 * HOUR) / HOUR) * HOUR);
    const row = (model: string, impressions: number, clicks: number, conversions: number, creative = '') => ({ dealerId: DEMO_DEALER.id, hour: inWeek, model, slotType: 'header', creative, impressions, clicks, conversions });
    // CR-V's events predate creative recording (''): it is in the totals and top models, not in the top creatives.
    await t.database.db.insert(eventRollupsHourly).values([row('crv', 400, 12, 2), row('accord', 100, 1, 0, 'placeholder'), row('pilot', 250, 9, 1, 'cdn')]);
    await tick(nextMonday(monday - 7 * 24 * HOUR, 7) + 0); // Monday 07:30: not yet
    expect(received).toHaveLength(0);
    await tick(monday);
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect(to(mail)).toEqual([MANAGER]);
    expect(mail.subject).toMatch(/^Honda of Demo: banner report for \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/);
    expect(mail.text).toContain('Impressions: 750\nClicks: 22\nCTR: 2.93%\nConversions: 3');
    expect(mail.text).toContain('Top models:\n- CR-V: 400 impressions, 12 clicks, CTR 3.00%\n- Pilot: 250 impressions, 9 clicks, CTR 3.60%\n- Accord: 100 impressions, 1 click, CTR 1.00%');
    expect(mail.html).toContain('<td style="text-align:left;padding:4px 12px 4px 0;border-bottom:1px solid #ddd">CR-V</td>');
    expect(mail.text).toContain('Top creatives:\n- CDN image (Pilot, header): 250 impressions, 9 clicks, CTR 3.60%\n- Placeholder (Accord, header): 100 impressions, 1 click, CTR 1.00%\n');
    expect(mail.html).toContain('>Top creatives</h3>');
    await tick(monday + 2 * HOUR);
    expect(received).toHaveLength(1);
  });

  it('lists every message in the admin Outbox with its status', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/outbox', headers: { cookie: admin } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { mailConfigured: boolean; messages: Array<{ kind: string; status: string; recipients: string[] }> };
    expect(body.mailConfigured).toBe(true);
    expect(body.messages.map((m) => m.kind).sort()).toEqual(['dead-letter-alert', 'feed-alert', 'performance-alert', 'performance-alert', 'weekly-report']);
    expect(new Set(body.messages.map((m) => m.status))).toEqual(new Set(['sent']));
  });

  it("reads the weekly report's Monday in the dealer's own time zone", async () => {
    // A zone whose Monday 09:30 is not yet (or no longer) Monday for the server.
    const from = clock + 8 * 24 * HOUR;
    const zone = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'].find((z) => localParts(new Date(nextMonday(from, 9, z)), SERVER_TIME_ZONE).weekday !== 1)!;
    expect((await settings({ performanceAlerts: false, errorAlerts: false })).statusCode).toBe(200);
    const saved = await t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${DEMO_DEALER.id}/settings`, headers: { cookie: admin, origin: 'http://localhost:3000' }, payload: { timeZone: zone } });
    expect(saved.statusCode).toBe(200);
    const before = received.length;
    const monday = nextMonday(from, 9, zone);
    await tick(monday);
    expect(received).toHaveLength(before + 1);
    expect(received.at(-1)!.subject).toContain(`to ${localParts(new Date(monday - 24 * HOUR), zone).date}`); // the week ends on the dealer's Sunday
    const reset = await t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${DEMO_DEALER.id}/settings`, headers: { cookie: admin, origin: 'http://localhost:3000' }, payload: { timeZone: SERVER_TIME_ZONE } });
    expect(reset.statusCode).toBe(200);
  });
});

describe('notification e-mails without SMTP', () => {
  it('keeps them in the Outbox and says e-mail is not configured', async () => {
    const bare = await createTestApp();
    try {
      const cookie = await bare.login('admin@dc-banners.com', 'admin123');
      await bare.database.db.insert(feedRuns).values([
        { dealerId: DEMO_DEALER.id, status: 'error', error: 'timeout', finishedAt: new Date() },
        { dealerId: DEMO_DEALER.id, status: 'error', error: 'timeout', finishedAt: new Date() },
      ]);
      expect(await bare.app.notifications.tick(new Date())).toMatchObject({ 'not-configured': 1, sent: 0 });
      const res = await bare.app.inject({ method: 'GET', url: '/api/admin/outbox', headers: { cookie } });
      const body = res.json() as { mailConfigured: boolean; messages: Array<{ kind: string; status: string; recipients: string[]; text: string }> };
      expect(body.mailConfigured).toBe(false);
      expect(body.messages).toHaveLength(1);
      expect(body.messages[0]).toMatchObject({ kind: 'feed-alert', status: 'not-configured', recipients: [MANAGER] });
      expect(body.messages[0]!.text).toContain('The latest error: timeout');
    } finally {
      await bare.close();
    }
  });
});
