/**
 * The one dealer table of the admin area (spec 01 §2 Dealer Management and Platform Analytics;
 * DECISIONS 18-19), shared by Dealer Management (/admin/dealers) and Platform Analytics'
 * portfolio (/admin/analytics): one row per dealer with its figures of a period (viewable
 * impressions, CTR with the clicks under it, conversions, the trend of viewable impressions
 * against the previous period), coverage gaps (catalogue models without an uploaded banner) and
 * tag health (the beacons refused or dropped in the last 24 h, by reason on hover and focus,
 * over the last recorded event). Platform Analytics adds the performance score (min(100,
 * 20 x CTR)); Dealer Management adds the dealer's id and provider, its creation date, and its own
 * row actions (passed in).
 *
 * Searching (name, id or website), the manufacturer filter, sorting and paging (25 a page) happen
 * on the server (GET /api/admin/dealers?period=); every piece of state (period, q, manufacturer,
 * sort, order, page) lives in the URL, so reload, Back and a shared link keep it. The dealer's
 * name (and a click anywhere else in the row but its own links and buttons) opens that dealer's
 * analytics (/admin/dealers/:id/analytics). Loading shows a skeleton, a failure one error notice
 * with Try again (and no empty state), no match the spec's empty state. The table fits its panel
 * at 1280 px with the sidebar open (two-word headers wrap, the manufacturer is a dimmed line under
 * the name and its header sorts by either); at phone widths it scrolls inside its own frame.
 */
import { useRef, type MouseEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { Badge, Group, Progress, Skeleton, Stack, Table, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { ArrowDown, ArrowUp, ArrowUpDown, SearchX } from 'lucide-react';
import { Select, Tooltip } from '../components/deferred';
import { ANALYTICS_PERIODS, type AnalyticsPeriod } from '../../domain/enums';
import { PERIOD_LABELS } from '../../domain/constants';
import { formatCount, formatCtr, formatTrend, performanceScore } from '../../domain/metrics';
import { PORTFOLIO_SORTS, type DealerListItem, type PortfolioSort } from '../../domain/admin';
import { TAG_REASON_TEXTS, TAG_REFUSAL_REASONS } from '../../domain/tag-health';
import type { DealerListParams } from '../../domain/contracts/admin';
import { ErrorNotice } from '../components/feedback';
import { useAdminDealers } from './api';
import { DealerFilters, ListPager, readListParams, ShowingCount, sortChanges, useLastPageWhenPast, type SortState } from './dealer-list';
import { EmptyState, StatusBadge } from './parts';
import { Truncated } from '../components/Truncated';
import { useListUrl } from '../components/list-url';
import { ActionsHeader } from '../components/table';

/** The period a table shows when the URL names none. */
export const DEFAULT_TABLE_PERIOD: AnalyticsPeriod = '30d';
/** Rows per page of the dealer table. */
export const DEALER_TABLE_PAGE_SIZE = 25;

/** The table's state from the URL (period, q, manufacturer, sort, order, page): unknown or malformed values fall back to the defaults. */
export function readTableParams(params: URLSearchParams, defaultSort: PortfolioSort) {
  const p = params.get('period');
  const period = (ANALYTICS_PERIODS as readonly string[]).includes(p ?? '') ? (p as AnalyticsPeriod) : DEFAULT_TABLE_PERIOD;
  return { ...readListParams(params, PORTFOLIO_SORTS, defaultSort), period };
}

/**
 * The table's state (from the URL) and its page of dealers from the server.
 * @param defaultSort the sort when the URL names none (written as no key).
 * @returns `state`, `update` (URL writer), `text`/`setText` (the search box), `table` (the query
 *   of GET /api/admin/dealers) and `sortBy` (a header click).
 */
export function useDealerTable(defaultSort: PortfolioSort) {
  const { params, update, text, setText } = useListUrl((p) => readTableParams(p, defaultSort).q);
  const state = readTableParams(params, defaultSort);
  const request: DealerListParams = {
    period: state.period,
    sort: state.sort,
    order: state.order,
    page: state.page === 1 ? undefined : state.page,
    pageSize: DEALER_TABLE_PAGE_SIZE,
    q: state.q.trim() || undefined,
    manufacturer: state.manufacturer || undefined,
  };
  const table = useAdminDealers(request);
  useLastPageWhenPast(table.data, table.isPlaceholderData, state.page, (page) => update({ page }, false));
  const sortBy = (sort: PortfolioSort) => update(sortChanges(state, sort, defaultSort));
  return { state, update, text, setText, table, sortBy };
}

/** What useDealerTable returns: the table's state and its data. */
export type DealerTableView = ReturnType<typeof useDealerTable>;

/** The period selector (Last 24 Hours … Last 90 Days); the default period is written as no key and the table goes back to page 1. */
export function PeriodSelect({ view, w }: { view: DealerTableView; w?: number }) {
  return (
    <Select
      label="Period"
      data={ANALYTICS_PERIODS.map((p) => ({ value: p, label: PERIOD_LABELS[p] }))}
      value={view.state.period}
      onChange={(v) => view.update({ period: !v || v === DEFAULT_TABLE_PERIOD ? null : v, page: null })}
      allowDeselect={false}
      w={w}
    />
  );
}

/** The button that sorts by `sort` (again: the other way), its arrow showing the current order. */
function SortButton({ label, sort, state, onSort }: { label: string; sort: PortfolioSort; state: SortState<PortfolioSort>; onSort: (s: PortfolioSort) => void }) {
  const active = state.sort === sort;
  const Arrow = !active ? ArrowUpDown : state.order === 'asc' ? ArrowUp : ArrowDown;
  return (
    <UnstyledButton onClick={() => onSort(sort)} data-testid={`portfolio-sort-${sort}`} style={{ fontWeight: 700, fontSize: 'inherit', display: 'inline-flex', alignItems: 'center', gap: 2, textAlign: 'inherit' }}>
      {label}
      <Arrow size={12} aria-hidden opacity={active ? 1 : 0.45} style={{ flexShrink: 0 }} />
      {!active && <VisuallyHidden>, sort</VisuallyHidden>}
    </UnstyledButton>
  );
}

/**
 * A sortable column header: a button per sort the column holds, one under the other as the cell
 * shows them (the dealer column: its name, then its manufacturer), with aria-sort on the header
 * cell while one of them is the table's sort. `maw` lets a long label wrap onto two lines; the
 * `note` under the label wraps within 110 px.
 */
function SortHeader({ sorts, state, onSort, align, maw, note }: { sorts: Array<{ label: string; sort: PortfolioSort }>; state: SortState<PortfolioSort>; onSort: (s: PortfolioSort) => void; align?: 'right'; maw?: number; note?: string }) {
  const active = sorts.some((s) => s.sort === state.sort);
  return (
    <Table.Th aria-sort={active ? (state.order === 'asc' ? 'ascending' : 'descending') : 'none'} style={{ textAlign: align, whiteSpace: maw ? 'normal' : 'nowrap', maxWidth: maw }}>
      <Stack gap={2} align={align === 'right' ? 'flex-end' : 'flex-start'}>
        {sorts.map((s) => (
          <SortButton key={s.sort} label={s.label} sort={s.sort} state={state} onSort={onSort} />
        ))}
        {note && (
          <Text size="xs" c="dimmed" fw={400} maw={110} style={{ whiteSpace: 'normal' }}>
            {note}
          </Text>
        )}
      </Stack>
    </Table.Th>
  );
}

/** Opens the row's dealer analytics on a click anywhere in the row but its own links and buttons. */
function rowClick(navigate: (to: string) => void, to: string) {
  return (e: MouseEvent<HTMLTableRowElement>) => {
    if ((e.target as HTMLElement).closest('a, button, input')) return;
    navigate(to);
  };
}

function Trend({ value }: { value: number | null }) {
  return (
    <Text size="sm" c={value === null ? 'dimmed' : value >= 0 ? 'teal.8' : 'red.8'} style={{ whiteSpace: 'nowrap' }}>
      {formatTrend(value)}
    </Text>
  );
}

/** A day as 'Mar 3' (this year) or 'Mar 3, 2025', the full time on hover. */
function Day({ at, testId }: { at: string; testId?: string }) {
  const d = new Date(at);
  return (
    <Text size="sm" style={{ whiteSpace: 'nowrap' }} title={d.toLocaleString()} data-testid={testId}>
      {d.toLocaleDateString([], { month: 'short', day: 'numeric', year: d.getFullYear() === new Date().getFullYear() ? undefined : 'numeric' })}
    </Text>
  );
}

/**
 * The tag-health cell: the beacons refused or dropped in the last 24 h (by reason on hover and
 * focus), or that none were while some were counted, or that none arrived; the last event under it.
 */
function TagHealthCell({ d }: { d: DealerListItem }) {
  const h = d.tagHealth;
  const reasons = h ? TAG_REFUSAL_REASONS.filter((r) => h.byReason[r] > 0).map((r) => `${TAG_REASON_TEXTS[r].label}: ${formatCount(h.byReason[r])}`) : [];
  return (
    <Stack gap={4} align="flex-start">
      {!h ? null : h.refused > 0 ? (
        <Tooltip label={`Refused or dropped in the last 24 h: ${reasons.join(', ')}`} multiline w={240}>
          <Badge color="orange" variant="light" size="sm" style={{ minWidth: 'max-content' }} tabIndex={0} data-testid={`tag-health-${d.id}`} aria-label={`${formatCount(h.refused)} beacons refused or dropped in the last 24 h: ${reasons.join(', ')}`}>
            {formatCount(h.refused)} refused
          </Badge>
        </Tooltip>
      ) : (
        <Badge color={h.counted > 0 ? 'teal' : 'gray'} variant="light" size="sm" style={{ minWidth: 'max-content' }} data-testid={`tag-health-${d.id}`}>
          {h.counted > 0 ? 'No refusals' : 'No beacons'}
        </Badge>
      )}
      {d.lastEventAt ? (
        <Day at={d.lastEventAt} />
      ) : (
        <Text size="sm" c="dimmed">
          Never
        </Text>
      )}
    </Stack>
  );
}

function Gaps({ d }: { d: DealerListItem }) {
  const gaps = d.coverageGaps;
  if (!gaps) return null;
  if (gaps.count === 0)
    return (
      <Badge color="teal" variant="light" size="sm" style={{ minWidth: 'max-content' }}>
        None
      </Badge>
    );
  const more = gaps.count - gaps.models.length;
  return (
    <Tooltip label={`${gaps.models.join(', ')}${more > 0 ? ` and ${more} more` : ''}`} multiline w={240}>
      <Badge color="orange" variant="light" size="sm" style={{ minWidth: 'max-content' }} tabIndex={0} aria-label={`${gaps.count} models without a banner: ${gaps.models.join(', ')}${more > 0 ? ` and ${more} more` : ''}`}>
        {gaps.count} {gaps.count === 1 ? 'model' : 'models'}
      </Badge>
    </Tooltip>
  );
}

/** Which screen the table is on: Platform Analytics adds the score, Dealer Management the id, provider and creation date. */
export type DealerTableVariant = 'analytics' | 'manage';

interface DealerTableProps {
  view: DealerTableView;
  variant: DealerTableVariant;
  /** Id of the heading that names the table (its accessible name). */
  labelledBy: string;
  /** The row's last cell: its links and buttons (settings, delete, ...). */
  actions: (d: DealerListItem) => ReactNode;
  /** Extra line under the dealer's name, manufacturer and status (Dealer Management: id and provider). */
  details?: (d: DealerListItem) => ReactNode;
  /** Where the row's drill-down goes back to ('dealers' = Dealer Management; default Platform Analytics). */
  from?: 'dealers';
  /** Shown in the filter row after search and manufacturer (Dealer Management: the period). */
  extraFilter?: ReactNode;
  /** Test id of the 'Showing 1–25 of 40 dealers' line. */
  countTestId: string;
}

/** The dealer's analytics page, in the table's period, knowing which list it came from. */
export function drillDownPath(id: string, period: AnalyticsPeriod, from?: 'dealers'): string {
  return `/admin/dealers/${encodeURIComponent(id)}/analytics?period=${period}${from ? `&from=${from}` : ''}`;
}

/**
 * The filters, the table with its loading, error and empty states, the 'Showing …' line and the
 * pager; see the module comment.
 */
export function DealerTable({ view, variant, labelledBy, actions, details, from, extraFilter, countTestId }: DealerTableProps) {
  const navigate = useNavigate();
  const { state, table, sortBy } = view;
  const data = table.data;
  const manage = variant === 'manage';
  const top = useRef<HTMLDivElement>(null);
  // A new page starts at its first row: the pager sits under the last one.
  const goTo = (page: number) => {
    view.update({ page });
    const el = top.current;
    if (el && el.getBoundingClientRect().top < 0) el.scrollIntoView({ block: 'start' });
  };
  return (
    <Stack gap="md" ref={top}>
      <DealerFilters text={view.text} onText={view.setText} searching={table.isFetching} manufacturer={state.manufacturer} onManufacturer={(manufacturer) => view.update({ manufacturer, page: null })} extra={extraFilter} />
      {table.error ? (
        <ErrorNotice message={table.error.message} onRetry={() => void table.refetch()} />
      ) : table.isPending ? (
        <Skeleton h={320} aria-label="Loading dealers" />
      ) : !data || data.items.length === 0 ? (
        <EmptyState icon={SearchX} title="No dealers found" hint="Try adjusting your search or filter criteria." />
      ) : (
        <>
          <ShowingCount data={data} testId={countTestId} />
          <Table.ScrollContainer minWidth={manage ? 860 : 780}>
            <Table highlightOnHover verticalSpacing="sm" horizontalSpacing={8} aria-labelledby={labelledBy} aria-busy={table.isPlaceholderData} data-testid="portfolio-table" style={{ opacity: table.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}>
              <Table.Thead>
                <Table.Tr>
                  <SortHeader
                    sorts={[
                      { label: 'Dealer', sort: 'name' },
                      { label: 'Manufacturer', sort: 'manufacturer' },
                    ]}
                    state={state}
                    onSort={sortBy}
                  />
                  <SortHeader sorts={[{ label: 'Viewable impressions', sort: 'impressions' }]} state={state} onSort={sortBy} align="right" maw={110} />
                  <SortHeader
                    sorts={[
                      { label: 'CTR', sort: 'ctr' },
                      { label: 'Clicks', sort: 'clicks' },
                    ]}
                    state={state}
                    onSort={sortBy}
                    align="right"
                  />
                  <SortHeader sorts={[{ label: 'Conversions', sort: 'conversions' }]} state={state} onSort={sortBy} align="right" />
                  <SortHeader sorts={[{ label: 'Trend', sort: 'trend' }]} state={state} onSort={sortBy} align="right" />
                  {!manage && <Table.Th style={{ whiteSpace: 'nowrap' }}>Score</Table.Th>}
                  <Table.Th style={{ whiteSpace: 'nowrap' }}>Gaps</Table.Th>
                  <SortHeader sorts={[{ label: 'Tag health', sort: 'refused' }]} state={state} onSort={sortBy} note="refused 24 h · last event" />
                  {manage && <SortHeader sorts={[{ label: 'Created', sort: 'created' }]} state={state} onSort={sortBy} />}
                  <ActionsHeader />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.items.map((d) => {
                  const w = d.window;
                  const score = performanceScore(w?.ctr ?? null);
                  const to = drillDownPath(d.id, state.period, from);
                  return (
                    <Table.Tr key={d.id} data-testid={`portfolio-row-${d.id}`} onClick={rowClick(navigate, to)} style={{ cursor: 'pointer' }}>
                      <Table.Td>
                        {/* A long name ends in '…' with the full name on hover and focus; the status and the manufacturer sit under it, so the table fits 1280 px. */}
                        <Stack gap={4} maw={manage ? 180 : 200} miw={140}>
                          <Truncated to={to} fw={700} size="sm">
                            {d.name}
                          </Truncated>
                          <Group gap={6} wrap="nowrap" miw={0}>
                            <StatusBadge status={d.status} />
                            <div style={{ minWidth: 0 }} data-testid={`portfolio-manufacturer-${d.id}`}>
                              <Truncated size="xs" c="dimmed">
                                {d.manufacturerName}
                              </Truncated>
                            </div>
                          </Group>
                          {details?.(d)}
                        </Stack>
                      </Table.Td>
                      <Table.Td ta="right" data-testid={`portfolio-impressions-${d.id}`}>
                        {formatCount(w?.impressions ?? 0)}
                      </Table.Td>
                      <Table.Td ta="right">
                        <Text size="sm" data-testid={`portfolio-ctr-${d.id}`}>
                          {formatCtr(w?.ctr ?? null)}
                        </Text>
                        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                          {formatCount(w?.clicks ?? 0)} {w?.clicks === 1 ? 'click' : 'clicks'}
                        </Text>
                      </Table.Td>
                      <Table.Td ta="right">{formatCount(w?.conversions ?? 0)}</Table.Td>
                      <Table.Td ta="right">
                        <Trend value={w?.trend ?? null} />
                      </Table.Td>
                      {!manage && (
                        <Table.Td>
                          <Group gap="xs" wrap="nowrap">
                            <Progress value={score} color={score >= 60 ? 'teal' : score >= 30 ? 'yellow' : 'red'} w={40} aria-label={`Performance score of ${d.name}`} />
                            <Text size="sm" fw={600} data-testid={`score-${d.id}`}>
                              {Math.round(score)}
                            </Text>
                          </Group>
                        </Table.Td>
                      )}
                      <Table.Td>
                        <Gaps d={d} />
                      </Table.Td>
                      <Table.Td>
                        <TagHealthCell d={d} />
                      </Table.Td>
                      {manage && (
                        <Table.Td>
                          <Day at={d.createdAt} testId={`portfolio-created-${d.id}`} />
                        </Table.Td>
                      )}
                      <Table.Td>{actions(d)}</Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <ListPager data={data} page={state.page} onPage={goTo} />
        </>
      )}
    </Stack>
  );
}
