/**
 * Dealer notification e-mails (spec 01 §5 notifications): a periodic job finds the alerts and
 * weekly reports due (rules in domain/notifications.ts), writes each into the Outbox
 * (`mail_outbox`) and sends it through SMTP when SMTP_URL is set.
 *
 * Shared by every server process: the dealers are split into NOTIFICATION_SHARDS shards (a hash of
 * the dealer id), each a `job_leases` row that a process claims with a lease (maintenance/leases.ts)
 * before it checks the shard's dealers, so processes running the pass at the same time split the
 * dealers between them, and a shard whose process died is claimed again once its lease expired.
 * Within a process, NOTIFICATION_CONCURRENCY dealers are checked at once; what a shard's dealers
 * have due is read with one statement per kind of check for the whole shard. Exactly-once mail
 * rests on the Outbox: each message is written under a unique (dealer, dedupe key) before it is
 * sent, so a message found due twice (a lease taken over mid-shard) is sent once. Recipients are
 * the dealer's active dealer-managers. A failed send is recorded as 'failed' with the SMTP error and
 * not retried (the next alert or report is).
 */
import { and, count, desc, eq, inArray, lte, max, ne, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import PQueue from 'p-queue';
import type { Db } from '../db/client';
import { dealers, eventDeadLetters, feedRuns, mailOutbox, manufacturers, users } from '../db/schema';
import { SERVER_TIME_ZONE } from '../dealers/service';
import { PeriodicTask } from '../maintenance/periodic';
import { claimShard, ensureShardRows, releaseShard, renewShard, shardNames, shardOf, type ShardLease } from '../maintenance/leases';
import { alertTotals, weeklyFigures } from './stats';
import type { Notifications } from '../../domain/schemas';
import {
  allows,
  deadLetterAlertKey,
  deadLetterAlertMail,
  feedAlertDue,
  feedAlertMail,
  performanceAlertDue,
  performanceAlertKey,
  performanceAlertMail,
  PERFORMANCE_ALERT_DAYS,
  weeklyReportDue,
  weeklyReportMail,
  type MailContent,
  type NotificationKind,
  type OutboxMessage,
} from '../../domain/notifications';

/** The job's name: its shards' job_leases rows are '<NOTIFICATION_JOB>:<i>/<shards>'. */
export const NOTIFICATION_JOB = 'notifications';
/** Newest Outbox messages the admin screen lists. */
export const OUTBOX_LIST_LIMIT = 100;

const DAY_MS = 86_400_000;


/**
 * Sends notification e-mails through SMTP_URL, or nowhere when it is unset (the Outbox keeps them).
 * Connections are pooled (at most NOTIFICATION_CONCURRENCY, one message at a time each): a pass
 * sending hundreds of messages opens a handful of connections, not one per message. The URL's own
 * query (e.g. `?pool=false`) overrides this.
 */
export class Mailer {
  private readonly transport: Transporter | null;

  /** @param smtpUrl nodemailer's connection URL (smtp:// or smtps://), or undefined. @param from the From header. */
  constructor(smtpUrl: string | undefined, private readonly from: string) {
    this.transport = smtpUrl ? nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: NOTIFICATION_CONCURRENCY }) : null;
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

/** Messages written to the Outbox, by the status they were written with. */
export type MailStatus = 'sent' | 'failed' | 'not-configured' | 'no-recipients';

/**
 * What one pass of the job did in this process: messages written to the Outbox by status, the
 * shards it claimed, the dealers it checked (those of its shards with e-mails on) and the dealers
 * whose check failed (logged; the other dealers went on).
 */
export type NotificationRun = Record<MailStatus, number> & { shards: number; dealers: number; errors: number };

export interface NotificationOptions {
  mailer: Mailer;
  /** The job's clock (tests inject it): the instant the pass runs at. */
  now: Date;
  /** How often each shard runs across processes, milliseconds (NOTIFICATION_INTERVAL_MS). */
  intervalMs: number;
  /** IANA zone of the days and Mondays of dealers without a time-zone setting; default the server's. */
  timeZone?: string;
  log?: FastifyBaseLogger;
  /** Shards the dealers are split into (job_leases rows); default NOTIFICATION_SHARDS. Every process must use the same. */
  shards?: number;
  /** How long a claimed shard is this process's before others may take it over, milliseconds; default NOTIFICATION_LEASE_MS. */
  leaseMs?: number;
  /** Dealers checked at once in this process; default NOTIFICATION_CONCURRENCY. */
  concurrency?: number;
  /** Checked before each shard is claimed; true ends the pass early (server closing). */
  shouldStop?: () => boolean;
}

/** Shards the dealers are split into: job_leases rows 'notifications:<i>/<NOTIFICATION_SHARDS>'. */
export const NOTIFICATION_SHARDS = 32;
/** How long a claimed shard stays this process's without renewal, milliseconds; renewed every third of it while worked on. */
export const NOTIFICATION_LEASE_MS = 120_000;
/**
 * Dealers one process checks at once: each holds at most one database connection, and the
 * PostgreSQL pool has 10 (db/client.ts), so requests keep the rest. PGlite has one connection;
 * there the checks only pipeline.
 */
export const NOTIFICATION_CONCURRENCY = 4;
/** Shards one process works on at once: the next shard's reads overlap the current one's e-mails. */
const SHARDS_AT_ONCE = 2;

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
): Promise<MailStatus | null> {
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

/** An active dealer with e-mails on, as the pass reads it. */
interface DealerRow {
  id: string;
  name: string;
  manufacturerId: string;
  notifications: Notifications;
  timeZone: string | null;
}

/** One e-mail found due for a dealer; `mail` is read when it is sent (the weekly report's figures). */
interface DueMail {
  kind: NotificationKind;
  key: string;
  mail: () => Promise<MailContent> | MailContent;
}

/** Active dealers whose settings allow e-mails (emailAlerts), by shard (shardOf their id). */
async function dealersByShard(db: Db, shards: number): Promise<Map<number, DealerRow[]>> {
  const rows = await db
    .select({ id: dealers.id, name: dealers.name, manufacturerId: dealers.manufacturerId, notifications: dealers.notifications, timeZone: dealers.timeZone })
    .from(dealers)
    .where(eq(dealers.status, 'active'));
  const byShard = new Map<number, DealerRow[]>();
  for (const d of rows) {
    if (!d.notifications.emailAlerts) continue;
    const shard = shardOf(d.id, shards);
    const list = byShard.get(shard) ?? [];
    list.push(d);
    byShard.set(shard, list);
  }
  return byShard;
}

/**
 * What is due for `list` (one shard's dealers) at `now`, read with one statement per kind of
 * check for all of them: Outbox keys already taken (performance alert of the day, weekly report of
 * the week), the performance alert's 7-day totals (alertTotals), the two newest finished feed runs,
 * dead letters since the last dead-letter alert, and the recipients. A dealer whose own rules fail
 * (say, an unknown time zone) is reported through `onError` and left out.
 */
async function findDue(
  db: Db,
  list: DealerRow[],
  now: Date,
  defaultZone: string,
  weeklyMail: (dealer: DealerRow, due: { from: Date; to: Date }, timeZone: string) => Promise<MailContent>,
  onError: (dealer: DealerRow, e: unknown) => void,
): Promise<Array<{ dealer: DealerRow; recipients: string[]; due: DueMail[] }>> {
  const rules = new Map<string, { timeZone: string; performanceKey: string | null; weekly: ReturnType<typeof weeklyReportDue> }>();
  for (const d of list) {
    try {
      const timeZone = d.timeZone ?? defaultZone;
      rules.set(d.id, {
        timeZone,
        performanceKey: allows(d.notifications, 'performance-alert') ? performanceAlertKey(now, timeZone) : null,
        weekly: allows(d.notifications, 'weekly-report') ? weeklyReportDue(now, timeZone) : null,
      });
    } catch (e) {
      onError(d, e);
    }
  }
  const ok = list.filter((d) => rules.has(d.id));
  const ids = ok.map((d) => d.id);
  if (!ids.length) return [];

  // Keys already in the Outbox: no need to read the figures of an alert or report already sent.
  const keys = [...new Set([...rules.values()].flatMap((r) => [r.performanceKey, r.weekly?.key]).filter((k): k is string => !!k))];
  const taken = new Set<string>();
  if (keys.length) {
    const rows = await db
      .select({ dealerId: mailOutbox.dealerId, key: mailOutbox.dedupeKey })
      .from(mailOutbox)
      .where(and(inArray(mailOutbox.dealerId, ids), inArray(mailOutbox.dedupeKey, keys)));
    for (const r of rows) taken.add(`${r.dealerId}\n${r.key}`);
  }
  const open = (id: string, key: string | null | undefined): key is string => !!key && !taken.has(`${id}\n${key}`);

  const performanceIds = ids.filter((id) => open(id, rules.get(id)!.performanceKey));
  const week = await alertTotals(db, performanceIds, new Date(now.getTime() - PERFORMANCE_ALERT_DAYS * DAY_MS), now);

  const errorIds = ok.filter((d) => allows(d.notifications, 'feed-alert')).map((d) => d.id);
  const runsOf = new Map<string, Array<{ id: number; status: string; error: string | null }>>();
  const deadLetters = new Map<string, number>();
  if (errorIds.length) {
    const ranked = db
      .select({
        dealerId: feedRuns.dealerId,
        id: feedRuns.id,
        status: feedRuns.status,
        error: feedRuns.error,
        rank: sql<number>`row_number() over (partition by ${feedRuns.dealerId} order by ${feedRuns.startedAt} desc, ${feedRuns.id} desc)`.as('rank'),
      })
      .from(feedRuns)
      .where(and(inArray(feedRuns.dealerId, errorIds), ne(feedRuns.status, 'running')))
      .as('ranked');
    const runs = await db.select().from(ranked).where(lte(ranked.rank, 2));
    runs.sort((a, b) => Number(a.rank) - Number(b.rank));
    for (const r of runs) runsOf.set(r.dealerId, [...(runsOf.get(r.dealerId) ?? []), { id: r.id, status: r.status, error: r.error }]);

    // Dead letters since the dealer's last dead-letter alert (none yet: the last day).
    const lastAlert = db
      .select({ dealerId: mailOutbox.dealerId, at: max(mailOutbox.createdAt).as('at') })
      .from(mailOutbox)
      .where(and(inArray(mailOutbox.dealerId, errorIds), eq(mailOutbox.kind, 'dead-letter-alert')))
      .groupBy(mailOutbox.dealerId)
      .as('last_alert');
    const dayAgo = new Date(now.getTime() - DAY_MS).toISOString();
    const fresh = await db
      .select({ dealerId: eventDeadLetters.dealerId, n: count() })
      .from(eventDeadLetters)
      .leftJoin(lastAlert, eq(lastAlert.dealerId, eventDeadLetters.dealerId))
      .where(and(inArray(eventDeadLetters.dealerId, errorIds), sql`${eventDeadLetters.createdAt} > coalesce(${lastAlert.at}, ${dayAgo}::timestamptz)`))
      .groupBy(eventDeadLetters.dealerId);
    for (const f of fresh) deadLetters.set(f.dealerId, Number(f.n));
  }

  const found: Array<{ dealer: DealerRow; due: DueMail[] }> = [];
  for (const d of ok) {
    const n = d.notifications;
    const rule = rules.get(d.id)!;
    const due: DueMail[] = [];
    const totals = week.get(d.id);
    const alert = totals && open(d.id, rule.performanceKey) ? performanceAlertDue(totals, n.alertThreshold, now, rule.timeZone) : null;
    if (alert) due.push({ kind: 'performance-alert', key: alert.key, mail: () => performanceAlertMail(d.name, alert.ctrPercent, n.alertThreshold, totals!) });
    if (allows(n, 'feed-alert')) {
      const feed = feedAlertDue(runsOf.get(d.id) ?? []);
      if (feed) due.push({ kind: 'feed-alert', key: feed.key, mail: () => feedAlertMail(d.name, feed.error) });
      const fresh = deadLetters.get(d.id) ?? 0;
      if (fresh > 0) due.push({ kind: 'dead-letter-alert', key: deadLetterAlertKey(now), mail: () => deadLetterAlertMail(d.name, fresh) });
    }
    const weekly = rule.weekly;
    if (weekly && open(d.id, weekly.key)) due.push({ kind: 'weekly-report', key: weekly.key, mail: () => weeklyMail(d, weekly, rule.timeZone) });
    if (due.length) found.push({ dealer: d, due });
  }

  const recipients = new Map<string, string[]>();
  if (found.length) {
    const managers = await db
      .select({ dealerId: users.dealerId, email: users.email })
      .from(users)
      .where(and(inArray(users.dealerId, found.map((f) => f.dealer.id)), eq(users.role, 'dealer-manager'), eq(users.isActive, true)));
    for (const m of managers) recipients.set(m.dealerId!, [...(recipients.get(m.dealerId!) ?? []), m.email]);
  }
  return found.map((f) => ({ ...f, recipients: (recipients.get(f.dealer.id) ?? []).sort() }));
}

/**
 * One pass of the notification job at `opts.now`, shared by every process that runs it (see module
 * doc): claims the due shards of NOTIFICATION_JOB that have dealers with e-mails on, one at a
 * time (leases.ts) until none is left, and for each reads what its dealers have due (findDue) and
 * delivers it, NOTIFICATION_CONCURRENCY dealers at once. A claimed shard is next due `intervalMs` after `now`. A dealer whose check or
 * send fails is logged and counted in `errors`; a shard whose reads fail is logged, recorded in its
 * job_leases row and tried again next interval. Returns the counts, or null when no shard was due
 * (other processes, or this one, ran them this interval).
 */
export async function runNotificationJob(db: Db, opts: NotificationOptions): Promise<NotificationRun | null> {
  const { mailer, now, log } = opts;
  const defaultZone = opts.timeZone ?? SERVER_TIME_ZONE;
  const shards = opts.shards ?? NOTIFICATION_SHARDS;
  const leaseMs = opts.leaseMs ?? NOTIFICATION_LEASE_MS;
  const shouldStop = opts.shouldStop ?? (() => false);
  const names = shardNames(NOTIFICATION_JOB, shards);
  // Real time elapsed since the pass began, on the job's clock: leases run from when they are taken.
  const started = performance.now();
  const clock = () => new Date(now.getTime() + Math.floor(performance.now() - started));
  const queue = new PQueue({ concurrency: Math.max(1, opts.concurrency ?? NOTIFICATION_CONCURRENCY) });
  const run: NotificationRun = { sent: 0, failed: 0, 'not-configured': 0, 'no-recipients': 0, shards: 0, dealers: 0, errors: 0 };

  await ensureShardRows(db, names, now);
  // Only shards with dealers are claimed: a small installation (PGlite, a handful of dealers) makes
  // a few statements per pass, not two per shard.
  const roster = await dealersByShard(db, shards);
  const live = names.filter((_, i) => roster.has(i));
  let catalogues: Promise<Map<string, Array<{ name: string; displayName: string }>>> | undefined;
  const weeklyMail = async (d: DealerRow, due: { from: Date; to: Date }, timeZone: string) => {
    catalogues ??= db
      .select({ id: manufacturers.id, models: manufacturers.models })
      .from(manufacturers)
      .then((rows) => new Map(rows.map((m) => [m.id, m.models])));
    const figures = await weeklyFigures(db, d.id, due.from, due.to, (await catalogues).get(d.manufacturerId) ?? [], now);
    return weeklyReportMail(d.name, figures, due.from, due.to, timeZone);
  };
  const failed = (d: DealerRow, e: unknown) => {
    run.errors += 1;
    log?.error({ err: e, dealerId: d.id, job: NOTIFICATION_JOB }, 'notification check of a dealer failed');
  };

  const runShard = async (claimed: ShardLease) => {
    let lease: ShardLease | null = claimed;
    let renewing: Promise<unknown> | undefined;
    // Renews the lease once a third of it has passed; false once it was lost to another process.
    const holding = async () => {
      if (lease && !renewing && lease.until.getTime() - clock().getTime() < (leaseMs * 2) / 3) {
        renewing = renewShard(db, lease, leaseMs, clock()).then(
          (l) => {
            lease = l;
            renewing = undefined;
            if (!l) log?.warn({ job: NOTIFICATION_JOB, shard: claimed.name }, 'notification shard lease lost to another process; leaving the rest of it');
          },
          (e: unknown) => {
            // Unsure whether it is still ours: leave the shard to whoever claims it once the lease expires.
            lease = null;
            log?.error({ err: e, job: NOTIFICATION_JOB, shard: claimed.name }, 'notification shard lease could not be renewed; leaving the rest of it');
          },
        );
      }
      await renewing;
      return lease !== null;
    };
    const before = { ...run };
    try {
      const list = roster.get(claimed.index) ?? [];
      const work = await findDue(db, list, now, defaultZone, weeklyMail, failed);
      run.dealers += list.length;
      await Promise.all(
        work.map(({ dealer, recipients, due }) =>
          queue.add(async () => {
            if (!(await holding())) return;
            try {
              for (const m of due) {
                const status = await deliver(db, mailer, dealer.id, m.kind, m.key, await m.mail(), recipients, now);
                if (!status) continue;
                run[status] += 1;
                log?.info({ dealerId: dealer.id, kind: m.kind, key: m.key, status }, 'notification written to the outbox');
              }
            } catch (e) {
              failed(dealer, e);
            }
          }),
        ),
      );
      const result = `dealers ${run.dealers - before.dealers}, sent ${run.sent - before.sent}, failed ${run.failed - before.failed}, errors ${run.errors - before.errors}`;
      if (lease) await releaseShard(db, lease, new Date(now.getTime() + opts.intervalMs), now, result);
    } catch (e) {
      log?.error({ err: e, job: NOTIFICATION_JOB, shard: claimed.name }, 'notification shard failed; it is tried again next interval');
      const result = `failed: ${e instanceof Error ? e.message : String(e)}`;
      if (lease) await releaseShard(db, lease, new Date(now.getTime() + opts.intervalMs), now, result).catch(() => false);
    }
  };

  const worker = async () => {
    while (!shouldStop()) {
      const lease = await claimShard(db, live, now, new Date(clock().getTime() + leaseMs));
      if (!lease) return;
      run.shards += 1;
      await runShard(lease);
    }
  };
  if (live.length) await Promise.all(Array.from({ length: Math.min(SHARDS_AT_ONCE, live.length) }, worker));
  return run.shards ? run : null;
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
 * `intervalMs` it runs a pass (runNotificationJob), which claims whatever shards are due; tests
 * call `tick(now)`. `options` overrides the pass's shards, lease and concurrency.
 */
export class NotificationScheduler extends PeriodicTask<NotificationRun | null> {
  constructor(
    db: Db,
    readonly mailer: Mailer,
    intervalMs: number,
    log?: FastifyBaseLogger,
    timeZone?: string,
    options: Pick<NotificationOptions, 'shards' | 'leaseMs' | 'concurrency'> = {},
  ) {
    super('notification job', (now, shouldStop) => runNotificationJob(db, { ...options, mailer, now, intervalMs: Math.max(1, intervalMs), timeZone, log, shouldStop }), log);
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.mailer.close();
  }
}
