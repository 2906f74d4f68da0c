/**
 * The notification job shared by several server processes (spec 01 §5 notifications): two apps on
 * one database (two processes) run the same Monday pass at once over 40 dealers and a real SMTP
 * server receives every dealer's weekly report exactly once; a process that dies holding shards
 * (their leases never released) delays only those shards' dealers, whose reports go out once the
 * leases expire; a dealer whose check fails leaves the others' reports alone. The job's clock is
 * injected through `notifications.tick(now)`, so no test waits for a lease to expire.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { eq, like } from 'drizzle-orm';
import { startSmtpCapture, type SmtpCapture } from '../../../tests/fixtures/smtp';
import { createTestApp, type TestApp } from '../test-app';
import { buildApp } from '../app';
import { DEMO_DEALER } from '../db/seed';
import { newDealerRow } from '../db/dealer-row';
import { dealers, eventRollupsHourly, jobLeases, mailOutbox, manufacturers, users } from '../db/schema';
import { localParts } from '../../domain/notifications';
import { SERVER_TIME_ZONE } from '../dealers/service';
import { NOTIFICATION_JOB, NOTIFICATION_LEASE_MS, NOTIFICATION_SHARDS, type NotificationRun } from './service';
import { claimShard, ensureShardRows, releaseShard, renewShard, shardNames, shardOf } from '../maintenance/leases';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const DEALERS = Array.from({ length: 40 }, (_, i) => `scale-${String(i).padStart(2, '0')}`);
const managerOf = (id: string) => `manager@${id}.example`;
/** The shards holding the dealers: the only ones a pass claims. */
const LIVE_SHARDS = new Set(DEALERS.map((id) => shardOf(id, NOTIFICATION_SHARDS)));

let smtp: SmtpCapture;
let received: ParsedMail[];
let t: TestApp;
/** A second app on the same database: another server process. */
let other: FastifyInstance;

/** The first Monday 09:30 (server time) after `from`: the weekly report is due then. */
function nextMonday(from: number): number {
  let at = Math.ceil(from / HOUR) * HOUR + 30 * 60_000;
  for (let p = localParts(new Date(at), SERVER_TIME_ZONE); !(p.weekday === 1 && p.hour === 9); p = localParts(new Date(at), SERVER_TIME_ZONE)) at += HOUR / 2;
  return at;
}
/** Each test's Monday: a week after the previous test's. */
let monday = nextMonday(Date.now() + WEEK);

/** Recipient address of each mail received. */
const recipients = () => received.flatMap((m) => [m.to].flat().flatMap((a) => a?.value.map((v) => v.address ?? '') ?? []));
const total = (runs: Array<NotificationRun | null>, k: keyof NotificationRun) => runs.reduce((n, r) => n + (r?.[k] ?? 0), 0);

/** Rollups in the week before `at` (a Monday): dealer i had 100 + i impressions and i clicks. */
async function weekOfTraffic(at: number) {
  const hour = new Date(Math.floor((at - 3 * DAY) / HOUR) * HOUR);
  await t.database.db
    .insert(eventRollupsHourly)
    .values(DEALERS.map((dealerId, i) => ({ dealerId, hour, model: 'civic', slotType: 'header', creative: 'placeholder', impressions: 100 + i, clicks: i, conversions: 0 })));
}

beforeAll(async () => {
  smtp = await startSmtpCapture();
  received = smtp.received;
  t = await createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'dc-banners <alerts@dc-banners.test>' } });
  other = await buildApp({ config: t.config, db: t.database.db, logger: false });
  const db = t.database.db;
  const [honda] = await db.select().from(manufacturers).where(eq(manufacturers.id, DEMO_DEALER.manufacturer));
  // Only weekly reports: no performance or error alerts, and the demo dealer's e-mails off.
  await db.insert(dealers).values(
    DEALERS.map((id, i) => ({
      ...newDealerRow({ id, name: `Dealer ${i}`, manufacturer: honda!.id, websiteUrl: `https://www.${id}.example`, provider: DEMO_DEALER.provider, status: 'active' }, honda!),
      notifications: { emailAlerts: true, performanceAlerts: false, errorAlerts: false, weeklyReports: true, alertThreshold: 2 },
    })),
  );
  await db.insert(users).values(DEALERS.map((id) => ({ id: crypto.randomUUID(), email: managerOf(id), name: 'Manager', role: 'dealer-manager', dealerId: id, passwordHash: 'not-a-hash' })));
  const [demo] = await db.select({ n: dealers.notifications }).from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
  await db.update(dealers).set({ notifications: { ...demo!.n, emailAlerts: false } }).where(eq(dealers.id, DEMO_DEALER.id));
});
afterAll(async () => {
  await other?.close();
  await t?.close();
  await smtp?.close();
});
beforeEach(async () => {
  received.length = 0;
  monday += WEEK;
  await weekOfTraffic(monday);
});

describe('the notification job shared by two processes', () => {
  it("sends every dealer's weekly report exactly once when both run the pass at the same time", async () => {
    const runs = await Promise.all([t.app.notifications.tick(new Date(monday)), other.notifications.tick(new Date(monday))]);
    // Each shard with dealers was claimed, and each dealer checked, by one of the two.
    expect(total(runs, 'shards')).toBe(LIVE_SHARDS.size);
    expect(total(runs, 'dealers')).toBe(DEALERS.length);
    expect(total(runs, 'sent')).toBe(DEALERS.length);
    expect(total(runs, 'errors')).toBe(0);
    expect(recipients().sort()).toEqual(DEALERS.map(managerOf).sort());
    const mail = received.find((m) => [m.to].flat()[0]?.value[0]?.address === managerOf('scale-07'))!;
    expect(mail.subject).toMatch(/^Dealer 7: banner report for /);
    expect(mail.text).toContain('Impressions: 107\nClicks: 7\n');

    // A later pass the same morning by either process: the reports are in the Outbox, none goes twice.
    await Promise.all([t.app.notifications.tick(new Date(monday + HOUR)), other.notifications.tick(new Date(monday + HOUR))]);
    expect(received).toHaveLength(DEALERS.length);
    const rows = await t.database.db.select({ status: mailOutbox.status }).from(mailOutbox).where(like(mailOutbox.dealerId, 'scale-%'));
    expect(rows).toHaveLength(DEALERS.length);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['sent']));
  });

  it("picks up a dead process's shards once their leases expired, and only then", async () => {
    const db = t.database.db;
    const names = shardNames(NOTIFICATION_JOB, NOTIFICATION_SHARDS);
    const at = new Date(monday);
    // The dead process: claims eight shards with dealers at the pass's instant and never releases them.
    const live = names.filter((_, i) => LIVE_SHARDS.has(i));
    await ensureShardRows(db, names, at);
    const held = new Set<number>();
    for (let i = 0; i < 8; i += 1) held.add((await claimShard(db, live, at, new Date(monday + NOTIFICATION_LEASE_MS)))!.index);
    const stranded = DEALERS.filter((id) => held.has(shardOf(id, NOTIFICATION_SHARDS)));
    expect(stranded.length).toBeGreaterThanOrEqual(8);

    const first = await t.app.notifications.tick(at);
    expect(first).toMatchObject({ shards: LIVE_SHARDS.size - held.size, dealers: DEALERS.length - stranded.length, sent: DEALERS.length - stranded.length });
    expect(recipients().sort()).toEqual(DEALERS.filter((id) => !stranded.includes(id)).map(managerOf).sort());

    // Before the leases expire the other process finds them held; after, it sends the stranded reports.
    await other.notifications.tick(new Date(monday + NOTIFICATION_LEASE_MS - 1000));
    expect(received).toHaveLength(DEALERS.length - stranded.length);
    const late = await other.notifications.tick(new Date(monday + NOTIFICATION_LEASE_MS));
    expect(late?.sent).toBe(stranded.length);
    expect(recipients().sort()).toEqual(DEALERS.map(managerOf).sort());
  });

  it("sends the other dealers' reports when one dealer's check fails", async () => {
    // A time zone the settings screen would refuse, written straight into the row.
    await t.database.db.update(dealers).set({ timeZone: 'Mars/Olympus_Mons' }).where(eq(dealers.id, 'scale-13'));
    try {
      const run = await t.app.notifications.tick(new Date(monday));
      expect(run).toMatchObject({ errors: 1, sent: DEALERS.length - 1, dealers: DEALERS.length });
      expect(recipients().sort()).toEqual(DEALERS.filter((id) => id !== 'scale-13').map(managerOf).sort());
    } finally {
      await t.database.db.update(dealers).set({ timeZone: null }).where(eq(dealers.id, 'scale-13'));
    }
  });
});

describe('shard leases', () => {
  it('let a holder whose lease expired and was taken over neither renew nor release it', async () => {
    const db = t.database.db;
    const names = shardNames('lease-test', 2);
    const at = monday;
    await ensureShardRows(db, names, new Date(at));
    const a = (await claimShard(db, names, new Date(at), new Date(at + 60_000)))!;
    const b = (await claimShard(db, names, new Date(at), new Date(at + 60_000)))!;
    expect(new Set([a.index, b.index])).toEqual(new Set([0, 1]));
    expect(await claimShard(db, names, new Date(at + 59_000), new Date(at + 119_000))).toBeNull();

    // a renews in time and keeps its shard; b does not, and its shard is taken over.
    const renewed = (await renewShard(db, a, 60_000, new Date(at + 30_000)))!;
    expect(renewed.until.getTime()).toBe(at + 90_000);
    const taken = (await claimShard(db, names, new Date(at + 60_000), new Date(at + 120_000)))!;
    expect(taken.name).toBe(b.name);
    expect(await renewShard(db, b, 60_000, new Date(at + 61_000))).toBeNull();
    expect(await releaseShard(db, b, new Date(at + 300_000), new Date(at + 61_000), 'late')).toBe(false);

    expect(await releaseShard(db, taken, new Date(at + 300_000), new Date(at + 70_000), 'done')).toBe(true);
    const rows = await db.select().from(jobLeases).where(like(jobLeases.name, 'lease-test:%'));
    expect(rows.find((r) => r.name === b.name)).toMatchObject({ nextRunAt: new Date(at + 300_000), lastResult: 'done' });
  });
});
