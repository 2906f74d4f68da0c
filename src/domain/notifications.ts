/**
 * Dealer notifications (spec 01 §5 "notifications", §9 defaults): when
 * each e-mail is due, the key that makes it go out once, and its text. Pure: the
 * server's notification job (server/notifications) reads the figures and calls these.
 *
 * - `performanceAlerts`: CTR over the last 7 days below the dealer's `alertThreshold` (percent),
 *   at most once a day per dealer, and only with PERFORMANCE_ALERT_MIN_IMPRESSIONS impressions or
 *   more (below that a CTR says nothing: 0 clicks of 12 impressions is no alarm).
 * - `errorAlerts`: the dealer's inventory feed failed twice in a row (once per failing run), or
 *   events of the dealer were dead-lettered since the last such alert (at most once an hour).
 * - `weeklyReports`: Monday from WEEKLY_REPORT_HOUR in the dealer's time zone, the past week
 *   (Monday 00:00 to Monday 00:00 local) with impressions, clicks, CTR, conversions and the top models.
 * - `emailAlerts` off silences all three.
 */
import { tz } from '@date-fns/tz';
import { startOfDay, subDays } from 'date-fns';
import { ctr, formatCount, formatCtr, plural } from './metrics';
import { wallClock } from './schedule';

/** Fewest impressions in the 7-day window for a CTR alert to be meaningful. */
export const PERFORMANCE_ALERT_MIN_IMPRESSIONS = 100;
/** The window of the CTR the performance alert checks, days. */
export const PERFORMANCE_ALERT_DAYS = 7;
/** Local hour (0-23) on Monday from which the weekly report is due. */
export const WEEKLY_REPORT_HOUR = 8;
/** How often the notification job looks for due e-mails across all processes, milliseconds. */
export const NOTIFICATION_INTERVAL_MS = 5 * 60_000;
/** Models listed in the weekly report. */
export const WEEKLY_REPORT_TOP = 5;

export type NotificationKind = 'performance-alert' | 'feed-alert' | 'dead-letter-alert' | 'weekly-report';
/** What an Outbox message is: a dealer notification, or a new user's invitation (auth/invitations.ts). */
export type OutboxKind = NotificationKind | 'invitation';

/** Which e-mails a dealer's settings allow (spec 01 §5). */
export interface NotificationSwitches {
  emailAlerts: boolean;
  performanceAlerts: boolean;
  errorAlerts: boolean;
  weeklyReports: boolean;
}

/** True when the dealer's switches allow e-mails of `kind`: its own switch and the master `emailAlerts`. */
export function allows(s: NotificationSwitches, kind: NotificationKind): boolean {
  if (!s.emailAlerts) return false;
  if (kind === 'performance-alert') return s.performanceAlerts;
  if (kind === 'weekly-report') return s.weeklyReports;
  return s.errorAlerts;
}

/** Wall-clock parts of `at` in IANA time zone `timeZone` (e.g. 'Europe/Berlin'). @throws RangeError for an unknown zone. */
export function localParts(at: Date, timeZone: string): { date: string; weekday: number; hour: number; minute: number; second: number } {
  const parts = Object.fromEntries(wallClock(timeZone).formatToParts(at).map((p) => [p.type, p.value]));
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday ?? '');
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The dealer-local day of `at`, 'YYYY-MM-DD': the once-a-day key of the performance alert. */
export function localDay(at: Date, timeZone: string): string {
  return localParts(at, timeZone).date;
}

/**
 * The weekly report due at `now`, or null: due on Monday from WEEKLY_REPORT_HOUR local time. The
 * reported week runs from the previous local Monday 00:00 to this local Monday 00:00 (`from`
 * inclusive, `to` exclusive, as instants), computed in the dealer's time zone so that a
 * daylight-saving change inside the week makes it 167 or 169 hours long, never an hour off.
 * `key` names the Monday, so the report goes out once per week whenever the job first runs that Monday.
 * @throws RangeError for an unknown time zone.
 */
export function weeklyReportDue(now: Date, timeZone: string): { key: string; from: Date; to: Date } | null {
  const p = localParts(now, timeZone);
  if (p.weekday !== 1 || p.hour < WEEKLY_REPORT_HOUR) return null;
  const local = { in: tz(timeZone) };
  const to = startOfDay(now, local);
  return { key: `weekly:${p.date}`, from: new Date(subDays(to, 7, local).getTime()), to: new Date(to.getTime()) };
}

/** The performance alert's once-a-day key at `now`: the dealer-local day, 'performance:YYYY-MM-DD'. */
export function performanceAlertKey(now: Date, timeZone: string): string {
  return `performance:${localDay(now, timeZone)}`;
}

/** The performance alert due for these 7-day totals, or null (see module doc). `thresholdPercent` is the dealer's alertThreshold. */
export function performanceAlertDue(
  totals: { impressions: number; clicks: number },
  thresholdPercent: number,
  now: Date,
  timeZone: string,
): { key: string; ctrPercent: number } | null {
  const rate = ctr(totals.clicks, totals.impressions);
  if (rate === null || totals.impressions < PERFORMANCE_ALERT_MIN_IMPRESSIONS || rate >= thresholdPercent) return null;
  return { key: performanceAlertKey(now, timeZone), ctrPercent: rate };
}

/**
 * The feed alert due for the dealer's newest finished runs (newest first), or null: the two newest
 * both ended in 'error'. Keyed by the newest run, so each failing run after the first alerts once.
 */
export function feedAlertDue(runs: Array<{ id: number; status: string; error: string | null }>): { key: string; error: string } | null {
  const [last, before] = runs;
  if (!last || !before || last.status !== 'error' || before.status !== 'error') return null;
  return { key: `feed-failed:${last.id}`, error: last.error ?? 'Unknown error' };
}

/** The dead-letter alert key for `now`: one per UTC hour at most. */
export function deadLetterAlertKey(now: Date): string {
  return `dead-letters:${now.toISOString().slice(0, 13)}`;
}

/** One Outbox message as GET /api/admin/outbox lists it (newest first). */
export interface OutboxMessage {
  id: number;
  /** ISO time the message was written. */
  createdAt: string;
  /** The dealer the message is about; null for an invitation of a user without a dealer (an admin). */
  dealerId: string | null;
  kind: OutboxKind;
  recipients: string[];
  subject: string;
  /** The plain-text body. */
  text: string;
  /** 'sending', 'sent', 'failed', 'not-configured' (no SMTP_URL: kept here only) or 'no-recipients'. */
  status: string;
  error: string | null;
  sentAt: string | null;
}

/** GET /api/admin/outbox: whether SMTP_URL is set, and the newest messages. */
export interface OutboxResponse {
  mailConfigured: boolean;
  messages: OutboxMessage[];
}

/** An e-mail ready to send: subject, plain text and HTML. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}


const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Wraps paragraphs (and an optional table) in the plain HTML every mail client renders. */
function htmlMail(title: string, paragraphs: string[], tables: Array<{ caption: string; head: string[]; rows: string[][] }> = []): string {
  const cell = (tag: 'th' | 'td', v: string) => `<${tag} style="text-align:left;padding:4px 12px 4px 0;border-bottom:1px solid #ddd">${escapeHtml(v)}</${tag}>`;
  const tableHtml = tables
    .map(
      (t) =>
        `<h3 style="margin:20px 0 4px;font-size:16px">${escapeHtml(t.caption)}</h3><table style="border-collapse:collapse;margin:0 0 12px"><thead><tr>${t.head.map((h) => cell('th', h)).join('')}</tr></thead><tbody>${t.rows
          .map((r) => `<tr>${r.map((v) => cell('td', v)).join('')}</tr>`)
          .join('')}</tbody></table>`,
    )
    .join('');
  return `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#222;max-width:640px"><h2>${escapeHtml(title)}</h2>${paragraphs
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('')}${tableHtml}<p style="color:#777;font-size:12px">dc-banners · change which e-mails you get in your dealer's notification settings.</p></body></html>`;
}

/** The performance alert e-mail. */
export function performanceAlertMail(dealerName: string, ctrPercent: number, thresholdPercent: number, totals: { impressions: number; clicks: number }): MailContent {
  const subject = `${dealerName}: banner CTR ${formatCtr(ctrPercent)} is below your ${thresholdPercent}% alert threshold`;
  const lines = [
    `Over the last ${PERFORMANCE_ALERT_DAYS} days your banners had ${plural(totals.impressions, 'impression')} and ${plural(totals.clicks, 'click')}: a CTR of ${formatCtr(ctrPercent)}, below your alert threshold of ${thresholdPercent}%.`,
    'Fresh creatives for your most-viewed models and upsell rules toward models you have in stock usually help. See Analytics for the models that need attention.',
  ];
  return { subject, text: `${lines.join('\n\n')}\n`, html: htmlMail(subject, lines) };
}

/** The feed alert e-mail. */
export function feedAlertMail(dealerName: string, error: string): MailContent {
  const subject = `${dealerName}: the inventory feed failed twice in a row`;
  const lines = [
    `The last two runs of your automatic inventory feed failed. The latest error: ${error}`,
    'Banners keep using the inventory of the last successful run. Check the feed URL under Inventory → Automatic Feed.',
  ];
  return { subject, text: `${lines.join('\n\n')}\n`, html: htmlMail(subject, lines) };
}

/** The dead-letter alert e-mail. */
export function deadLetterAlertMail(dealerName: string, count: number): MailContent {
  const subject = `${dealerName}: ${plural(count, 'tracking event')} could not be stored`;
  const lines = [
    `Since the last alert, ${plural(count, 'tracking event')} from your website could not be stored and ${count === 1 ? 'was' : 'were'} set aside for the platform team.`,
    'Your banners keep showing; the platform team has been told through its dashboard.',
  ];
  return { subject, text: `${lines.join('\n\n')}\n`, html: htmlMail(subject, lines) };
}

/** The week's figures of one dealer, for the weekly report. */
export interface WeeklyFigures {
  impressions: number;
  clicks: number;
  conversions: number;
  /** Per model (display name), any order; the report lists the top WEEKLY_REPORT_TOP by clicks, then impressions. */
  models: Array<{ model: string; impressions: number; clicks: number }>;
  /**
   * Per creative and slot, any order: `name` is the asset's file name, or what showed
   * instead ('Placeholder', 'CDN image', 'Fallback image'); the report lists the top WEEKLY_REPORT_TOP
   * by clicks, then impressions.
   */
  creatives: Array<{ name: string; model: string; slot: string; impressions: number; clicks: number }>;
}

/** The first WEEKLY_REPORT_TOP rows by clicks, then impressions. */
const topOf = <T extends { impressions: number; clicks: number }>(rows: T[]): T[] =>
  [...rows].sort((a, b) => b.clicks - a.clicks || b.impressions - a.impressions).slice(0, WEEKLY_REPORT_TOP);

/** The weekly report e-mail for the week `from` (inclusive) to `to` (exclusive), dates shown in `timeZone`: totals, top models, top creatives. */
export function weeklyReportMail(dealerName: string, f: WeeklyFigures, from: Date, to: Date, timeZone: string): MailContent {
  const last = localDay(new Date(to.getTime() - 1), timeZone);
  const first = localDay(from, timeZone);
  const subject = `${dealerName}: banner report for ${first} to ${last}`;
  const summary = [
    `Impressions: ${formatCount(f.impressions)}`,
    `Clicks: ${formatCount(f.clicks)}`,
    `CTR: ${formatCtr(ctr(f.clicks, f.impressions))}`,
    `Conversions: ${formatCount(f.conversions)}`,
  ];
  const figures = (x: { impressions: number; clicks: number }) => [formatCount(x.impressions), formatCount(x.clicks), formatCtr(ctr(x.clicks, x.impressions))];
  const line = (label: string, x: { impressions: number; clicks: number }) =>
    `- ${label}: ${plural(x.impressions, 'impression')}, ${plural(x.clicks, 'click')}, CTR ${formatCtr(ctr(x.clicks, x.impressions))}`;
  const models = topOf(f.models);
  const creatives = topOf(f.creatives);
  const creativeLabel = (c: WeeklyFigures['creatives'][number]) => `${c.name} (${c.model}, ${c.slot})`;
  const tables = [
    { caption: 'Top models', head: ['Model', 'Impressions', 'Clicks', 'CTR'], rows: models.map((m) => [m.model, ...figures(m)]) },
    { caption: 'Top creatives', head: ['Creative', 'Model', 'Slot', 'Impressions', 'Clicks', 'CTR'], rows: creatives.map((c) => [c.name, c.model, c.slot, ...figures(c)]) },
  ].filter((t) => t.rows.length > 0);
  const topText = models.length
    ? `Top models:\n${models.map((m) => line(m.model, m)).join('\n')}${creatives.length ? `\n\nTop creatives:\n${creatives.map((c) => line(creativeLabel(c), c)).join('\n')}` : ''}`
    : 'No banner was shown this week.';
  const text = `Your banners from ${first} to ${last}:\n\n${summary.join('\n')}\n\n${topText}\n`;
  const html = htmlMail(subject, [`Your banners from ${first} to ${last}.`, ...summary, ...(models.length ? [] : ['No banner was shown this week.'])], tables);
  return { subject, text, html };
}
