/**
 * Response shapes of the admin API (docs/API.md "admin"), shared by the server (src/server/admin)
 * and the admin screens (src/web/admin).
 */
import type { AnalyticsPeriod, Dealer, Manufacturer, Role } from './schemas';
import type { TagRefusalReason } from './tag-health';

/**
 * A dealer card of Dealer Management and a row of the dashboard's Recent Dealers: only the fields
 * those screens show, plus the dealer's all-time figures (labelled periodLabel('all')).
 */
export interface DealerListItem extends Pick<Dealer, 'id' | 'name' | 'manufacturer' | 'manufacturerName' | 'websiteUrl' | 'provider' | 'status' | 'createdAt'> {
  impressions: number;
  clicks: number;
  /** Percent, null without impressions. */
  ctr: number | null;
  /** With `period` only (the portfolio table of Platform Analytics): the figures of the period's window. */
  window?: PortfolioFigures;
  /** With `period` only: the dealer's active catalogue models that have no active uploaded banner. */
  coverageGaps?: { count: number; models: string[] };
  /** With `period` only: ISO time of the dealer's newest recorded event (reporting lastEventAt), null before any. */
  lastEventAt?: string | null;
  /** With `period` only: the dealer's tag health of the last 24 h (whatever the period). */
  tagHealth?: PortfolioTagHealth;
}

/**
 * A dealer's beacons of the tag-health window (the last TAG_HEALTH_WINDOW_HOURS, domain/tag-health.ts)
 * for the portfolio table: how many were counted, how many were refused or dropped in all, and how
 * many for each reason (every reason present, 0 when none).
 */
export interface PortfolioTagHealth {
  counted: number;
  refused: number;
  byReason: Record<TagRefusalReason, number>;
}

/**
 * One dealer's figures over a period's window [from, to) (domain/periods.ts), for the portfolio
 * table: viewable impressions, clicks, conversions, CTR (percent, null without impressions), the
 * viewable impressions of the previous window of the same length and the trend between the two
 * (percent change, null without previous impressions; DECISIONS 18).
 */
export interface PortfolioFigures {
  impressions: number;
  clicks: number;
  conversions: number;
  ctr: number | null;
  previousImpressions: number;
  trend: number | null;
}

// The dealer list's parameters (plain values: the web app's list page reads them without zod).
/** What the dealer cards can be sorted by: the card's fields (created = creation date; figures are all-time). */
export const DEALER_LIST_SORTS = ['name', 'manufacturer', 'status', 'created', 'impressions', 'clicks', 'ctr'] as const;
export type DealerListSort = (typeof DEALER_LIST_SORTS)[number];
/**
 * What GET /api/admin/dealers sorts by: the card sorts plus conversions and, with a period only,
 * the trend of viewable impressions against the previous period and the beacons refused or
 * dropped in the last 24 h (the portfolio table; figures are of the period's window when a
 * period is given).
 */
export const PORTFOLIO_SORTS = [...DEALER_LIST_SORTS, 'conversions', 'trend', 'refused'] as const;
export type PortfolioSort = (typeof PORTFOLIO_SORTS)[number];
export const DEALER_LIST_DEFAULT_PAGE_SIZE = 24;
export const DEALER_LIST_MAX_PAGE_SIZE = 100;
/** The order a sort starts in when none is given: texts and dates ascending (oldest first), figures highest first. */
export const DEALER_LIST_DEFAULT_ORDER: Record<PortfolioSort, 'asc' | 'desc'> = {
  name: 'asc',
  manufacturer: 'asc',
  status: 'asc',
  created: 'asc',
  impressions: 'desc',
  clicks: 'desc',
  ctr: 'desc',
  conversions: 'desc',
  trend: 'desc',
  refused: 'desc',
};

/** GET /api/admin/dealers: one page of the dealer list and how many dealers match in all. */
export interface DealerListPage {
  items: DealerListItem[];
  /** Dealers matching the search and filter, over every page. */
  total: number;
  /** 1-based; past the last page `items` is empty. */
  page: number;
  pageSize: number;
  /** With `period` only: the period and its window [from, to) (ISO) the items' `window` figures cover. */
  window?: { period: AnalyticsPeriod; from: string; to: string };
}

/** A manufacturer card: the manufacturer plus how many dealers use it. */
export interface ManufacturerListItem extends Manufacturer {
  dealerCount: number;
}

export interface AdminUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  dealerId: string | null;
  dealerName: string | null;
  isActive: boolean;
  createdAt: string;
}

/**
 * The invitation e-mail of a user just created (POST /api/admin/users): its Outbox status, until
 * when the link works (ISO), and the link itself only when the e-mail did not go out (SMTP not
 * configured, or the send failed), for the admin to hand over another way.
 */
export interface InvitationSent {
  status: 'sent' | 'failed' | 'not-configured';
  expiresAt: string;
  link: string | null;
}

/** GET /api/admin/dashboard: the Admin Dashboard's cards (spec 01 §2, DECISIONS 18). */
export interface AdminDashboard {
  /** What the totals below cover: all recorded time (activeDealers: active now). */
  period: 'all';
  activeDealers: number;
  impressions: number;
  clicks: number;
  /** Average CTR across the platform, percent; null without impressions. */
  ctr: number | null;
  /** The same figures over the trend period (the last 30 days, domain/periods.ts), ISO window [from, to). */
  recent: { period: AnalyticsPeriod; from: string; to: string; impressions: number; clicks: number; ctr: number | null };
  /** Percent change of `recent` against the period before it (activeDealers: now vs the window's start); null (shown '--') without previous data. */
  trends: { activeDealers: number | null; impressions: number | null; clicks: number | null; ctr: number | null };
  /** The first 5 dealers (oldest first) with all-time figures. */
  recentDealers: DealerListItem[];
  /** Tracked events the database refused even alone, kept in event_dead_letters. */
  deadLetteredEvents: number;
}

/** GET /api/admin/analytics?period=: Platform Analytics (spec 01 §2); every figure covers `period`, the window [from, to). */
export interface PlatformAnalytics {
  period: AnalyticsPeriod;
  from: string;
  to: string;
  dealers: Array<{ id: string; name: string; manufacturerName: string; status: string; impressions: number; clicks: number; ctr: number | null; score: number }>;
  /** Per day (per hour for 24h) across all dealers, every bucket of the period present. */
  series: Array<{ bucket: string; impressions: number; clicks: number }>;
}

/** One render error reported by the web app's error screen (spec 01 §8), newest first in the log. */
export interface ClientErrorEntry {
  id: number;
  timestamp: string;
  message: string;
  stack: string | null;
  componentStack: string | null;
  url: string;
  userAgent: string | null;
  /** Email of the signed-in user, null when nobody was signed in. */
  user: string | null;
}

/** POST /api/admin/import's answer, `{ imported }` (DECISIONS 3). */
export interface ImportResult {
  manufacturers: number;
  dealers: number;
  users: number;
  /**
   * Emails of the users this import created: they were given a random password nobody knows, so
   * an admin must reset it (Users → Reset password) before they can sign in.
   */
  passwordResetRequired: string[];
}
