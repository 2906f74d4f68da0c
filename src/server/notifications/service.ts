/**
 * Dealer notification e-mails (issue 15 "Notifications that notify"; spec 01 §5 notifications):
 * a periodic job finds the alerts and weekly reports due (rules in domain/notifications.ts), writes
 * each into the Outbox (`mail_outbox`) and sends it through SMTP when SMTP_URL is set.
 *
 * Once across processes: the job runs only after claiming its `job_leases` row (like retention),
 * and each message is written under a unique (dealer, dedupe key) before it is sent, so a message
 * found due twice is sent once. Recipients are the dealer's active dealer-managers. A failed send
 * is recorded as 'failed' with the SMTP error and not retried (the next alert or report is).
 */
import { and, count, desc, eq, gt, inArray, ne } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../db/client';
import { dealers, eventDeadLetters, feedRuns, mailOutbox, manufacturers, users } from '../db/schema';
import { creativePerformance } from '../analytics/service';
import { ranked } from '../reporting/service';
import { claimJob } from '../maintenance/retention';
import { SERVER_TIME_ZONE } from '../dealers/service';
import { PeriodicTask } from '../maintenance/periodic';
import { modelKey } from '../../domain/model-keys';
import { CREATIVE_LABELS, DELETED_ASSET_LABEL, MAX_ANALYTICS_MODELS } from '../../domain/constants';
import {
  allows,
  deadLetterAlertKey,
  deadLetterAlertMail,
  feedAlertDue,
  feedAlertMail,
  performanceAlertDue,
  performanceAlertMail,
  PERFORMANCE_ALERT_DAYS,
  weeklyReportDue,
  weeklyReportMail,
  type MailContent,
  type NotificationKind,
  type OutboxMessage,
} from '../../domain/notifications';

/** The job_leases row of the notification job. */
export const NOTIFICATION_JOB = 'notifications';
/** Newest Outbox messages the admin screen lists. */
export const OUTBOX_LIST_LIMIT = 100;

const DAY_MS = 86_400_000;


/** Sends notification e-mails through SMTP_URL, or nowhere when it is unset (the Outbox keeps them). */
export class Mailer {
  private readonly transport: Transporter | null;

  /** @param smtpUrl nodemailer's connection URL (smtp:// or smtps://), or undefined. @param from the From header. */
  constructor(smtpUrl: string | undefined, private readonly from: string) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  }

  /** True when SMTP_URL is set. */
  get configured(): boolean {
    return this.transport !== null;
  }

  /** Sends one message to `to`. @throws the SMTP error (connection refused, recipient rejected...). */
  async send(to: string[], mail: MailContent): Promise<void> {
    if (!this.transport) throw new Error('SMTP is not configured');
    await this.transport.sendMail({ from: this.from, to, subject: mail.subject, text: mail.text, html: mail.html });
  }

  /** Closes pooled SMTP connections. */
  close(): void {
    this.transport?.close();
  }
}

/** What one run of the job did: messages written to the Outbox, by status. */
export type NotificationRun = Record<'sent' | 'failed' | 'not-configured' | 'no-recipients', number>;

export interface NotificationOptions {
  mailer: Mailer;
  /** The job's clock (tests inject it). */
  now: Date;
  /** How often the job may run across processes (its claim), milliseconds. */
  intervalMs: number;
  /** IANA zone of the days and Mondays of dealers without a time-zone setting; default the server's. */
  timeZone?: string;
  log?: FastifyBaseLogger;
}

/**
 * Writes `mail` to the Outbox under (dealer, key), dated `now` (the job's clock, which "since the
 * last alert" is read against), and sends it. Returns the status written, or null when the key was
 * taken (already sent, or being sent by another process).
 */
async function deliver(
  db: Db,
  mailer: Mailer,
  dealerId: string,
  kind: NotificationKind,
  key: string,
  mail: MailContent,
  recipients: string[],
  now: Date,
): Promise<keyof NotificationRun | null> {
  const initial = !recipients.length ? 'no-recipients' : mailer.configured ? 'sending' : 'not-configured';
  const [row] = await db
    .insert(mailOutbox)
    .values({ dealerId, kind, dedupeKey: key, recipients, subject: mail.subject, textBody: mail.text, htmlBody: mail.html, status: initial, createdAt: now })
    .onConflictDoNothing()
    .returning({ id: mailOutbox.id });
  if (!row) return null;
  if (initial !== 'sending') return initial;
  try {
    await mailer.send(recipients, mail);
    await db.update(mailOutbox).set({ status: 'sent', sentAt: new Date() }).where(eq(mailOutbox.id, row.id));
    return 'sent';
  } catch (e) {
    const error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
    await db.update(mailOutbox).set({ status: 'failed', error }).where(eq(mailOutbox.id, row.id));
    return 'failed';
  }
}

/**
 * Impressions, clicks and conversions of a dealer's hours starting in [from, to) (server/reporting), in total and per
 * model key: the MAX_ANALYTICS_MODELS keys with the most impressions (the others count in the totals only).
 */
async function totals(db: Db, dealerId: string, from: Date, to: Date) {
  const rows = await ranked(db, dealerId, ['model'], { from, to }, MAX_ANALYTICS_MODELS);
  const sum = (k: 'impressions' | 'clicks' | 'conversions') => rows.reduce((n, r) => n + r[k], 0);
  return { impressions: sum('impressions'), clicks: sum('clicks'), conversions: sum('conversions'), models: rows.filter((r) => !r.rest) };
}

/**
 * One pass of the notification job at `opts.now`: claims NOTIFICATION_JOB for `intervalMs`; when
 * this process won the claim, checks every active dealer whose settings allow e-mails and delivers
 * what is due. Returns the counts, or null when another claim holds this interval.
 * @throws the database error of a failing query (messages already written stay written).
 */
export async function runNotificationJob(db: Db, opts: NotificationOptions): Promise<NotificationRun | null> {
  const { mailer, now } = opts;
  const defaultZone = opts.timeZone ?? SERVER_TIME_ZONE;
  if (!(await claimJob(db, NOTIFICATION_JOB, opts.intervalMs, now))) return null;
  const run: NotificationRun = { sent: 0, failed: 0, 'not-configured': 0, 'no-recipients': 0 };
  const rows = await db
    .select({ id: dealers.id, name: dealers.name, notifications: dealers.notifications, timeZone: dealers.timeZone, catalogue: manufacturers.models })
    .from(dealers)
    .leftJoin(manufacturers, eq(manufacturers.id, dealers.manufacturerId))
    .where(eq(dealers.status, 'active'));
  for (const dealer of rows) {
    const n = dealer.notifications;
    if (!n.emailAlerts) continue;
    // The dealer's local day and Monday (its time-zone setting, issue 15; unset: the server's).
    const timeZone = dealer.timeZone ?? defaultZone;
    const managers = await db
      .select({ email: users.email })
      .from(users)
      .where(and(eq(users.dealerId, dealer.id), eq(users.role, 'dealer-manager'), eq(users.isActive, true)));
    const recipients = managers.map((m) => m.email).sort();
    const send = async (kind: NotificationKind, key: string, mail: MailContent) => {
      const status = await deliver(db, mailer, dealer.id, kind, key, mail, recipients, now);
      if (status) {
        run[status] += 1;
        opts.log?.info({ dealerId: dealer.id, kind, key, status }, 'notification written to the outbox');
      }
    };

    if (allows(n, 'performance-alert')) {
      const week = await totals(db, dealer.id, new Date(now.getTime() - PERFORMANCE_ALERT_DAYS * DAY_MS), now);
      const due = performanceAlertDue(week, n.alertThreshold, now, timeZone);
      if (due) await send('performance-alert', due.key, performanceAlertMail(dealer.name, due.ctrPercent, n.alertThreshold, week));
    }

    if (allows(n, 'feed-alert')) {
      const runs = await db
        .select({ id: feedRuns.id, status: feedRuns.status, error: feedRuns.error })
        .from(feedRuns)
        .where(and(eq(feedRuns.dealerId, dealer.id), ne(feedRuns.status, 'running')))
        .orderBy(desc(feedRuns.startedAt), desc(feedRuns.id))
        .limit(2);
      const due = feedAlertDue(runs);
      if (due) await send('feed-alert', due.key, feedAlertMail(dealer.name, due.error));

      const [lastAlert] = await db
        .select({ at: mailOutbox.createdAt })
        .from(mailOutbox)
        .where(and(eq(mailOutbox.dealerId, dealer.id), eq(mailOutbox.kind, 'dead-letter-alert')))
        .orderBy(desc(mailOutbox.createdAt))
        .limit(1);
      const since = lastAlert?.at ?? new Date(now.getTime() - DAY_MS);
      const [fresh] = await db
        .select({ n: count() })
        .from(eventDeadLetters)
        .where(and(eq(eventDeadLetters.dealerId, dealer.id), gt(eventDeadLetters.createdAt, since)));
      if (fresh && fresh.n > 0) await send('dead-letter-alert', deadLetterAlertKey(now), deadLetterAlertMail(dealer.name, fresh.n));
    }

    if (allows(n, 'weekly-report')) {
      const due = weeklyReportDue(now, timeZone);
      if (due) {
        const week = await totals(db, dealer.id, due.from, due.to);
        const names = new Map((dealer.catalogue ?? []).map((m) => [modelKey(m.name), m.displayName]));
        const models = week.models.map((m) => ({ model: names.get(m.model) ?? m.model, impressions: m.impressions, clicks: m.clicks }));
        const { creatives: byCreative } = await creativePerformance(db, dealer.id, due.from, due.to, {}, now);
        const creatives = byCreative
          .filter((c) => c.kind !== 'unknown')
          .map((c) => ({ name: c.name ?? CREATIVE_LABELS[c.kind] ?? DELETED_ASSET_LABEL, model: names.get(modelKey(c.model)) ?? c.model, slot: c.slot, impressions: c.impressions, clicks: c.clicks }));
        await send('weekly-report', due.key, weeklyReportMail(dealer.name, { ...week, models, creatives }, due.from, due.to, timeZone));
      }
    }
  }
  return run;
}

/** The newest OUTBOX_LIST_LIMIT Outbox messages, newest first, optionally of the given dealers only. */
export async function listOutbox(db: Db, dealerIds?: string[]): Promise<OutboxMessage[]> {
  const rows = await db
    .select()
    .from(mailOutbox)
    .where(dealerIds ? inArray(mailOutbox.dealerId, dealerIds) : undefined)
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(OUTBOX_LIST_LIMIT);
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    dealerId: r.dealerId,
    kind: r.kind as NotificationKind,
    recipients: r.recipients,
    subject: r.subject,
    text: r.textBody,
    status: r.status,
    error: r.error,
    sentAt: r.sentAt?.toISOString() ?? null,
  }));
}

/**
 * The notification scheduler (owned by the app, like the feed and retention schedulers): every
 * `intervalMs` it tries to claim the notification job; tests call `tick(now)`.
 */
export class NotificationScheduler extends PeriodicTask<NotificationRun | null> {
  constructor(db: Db, readonly mailer: Mailer, intervalMs: number, log?: FastifyBaseLogger, timeZone?: string) {
    super('notification job', (now) => runNotificationJob(db, { mailer, now, intervalMs: Math.max(1, intervalMs), timeZone, log }), log);
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.mailer.close();
  }
}
