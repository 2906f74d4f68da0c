/**
 * The pieces of the server-paged dealer table (dealer-table.tsx, on Dealer Management and
 * Platform Analytics, GET /api/admin/dealers) that do not draw the table: reading its state from the URL,
 * the sort a click asks for, the search box with the manufacturer filter, the 'Showing 1–25 of 40
 * dealers' line, the pager, and the move to the last page when the one asked for is past the end.
 */
import { useEffect, useMemo, type ReactNode } from 'react';
import { Group, Loader, Pagination, SimpleGrid, Text, TextInput } from '@mantine/core';
import { Search } from 'lucide-react';
import { Select } from '../components/deferred';
import type { UrlChanges } from '../components/list-url';
import { formatCount } from '../../domain/metrics';
import { DEALER_LIST_DEFAULT_ORDER, type PortfolioSort } from '../../domain/admin';
import type { DealerListPage } from '../../domain/admin';
import { useManufacturers } from './api';

/** The manufacturer filter's value for 'All Manufacturers'. */
const ALL = '__all__';

/** A list's sort and order. */
export interface SortState<S extends PortfolioSort> {
  sort: S;
  order: 'asc' | 'desc';
}

/**
 * The list's state from the URL (sort, order, q, manufacturer, page): unknown or malformed values
 * fall back to `defaultSort`, its default order (domain/admin DEALER_LIST_DEFAULT_ORDER) and page 1.
 */
export function readListParams<S extends PortfolioSort>(params: URLSearchParams, sorts: readonly S[], defaultSort: S) {
  const s = params.get('sort');
  const sort = (sorts as readonly string[]).includes(s ?? '') ? (s as S) : defaultSort;
  const o = params.get('order');
  const order: 'asc' | 'desc' = o === 'asc' || o === 'desc' ? o : DEALER_LIST_DEFAULT_ORDER[sort];
  const page = Number(params.get('page'));
  return { sort, order, q: params.get('q') ?? '', manufacturer: params.get('manufacturer') ?? '', page: Number.isInteger(page) && page >= 1 ? page : 1 };
}

/**
 * The URL changes of a click on `sort`: the same sort flips its order, another starts in its
 * default order; defaults are written as no key, and the list goes back to page 1.
 */
export function sortChanges<S extends PortfolioSort>(state: SortState<S>, sort: S, defaultSort: S): UrlChanges {
  const order = sort === state.sort ? (state.order === 'asc' ? 'desc' : 'asc') : DEALER_LIST_DEFAULT_ORDER[sort];
  return { sort: sort === defaultSort ? null : sort, order: order === DEALER_LIST_DEFAULT_ORDER[sort] ? null : order, page: null };
}

/** The search box (name, id or website), the manufacturer filter (the manufacturers that have dealers) and `extra` (another filter) after them. */
export function DealerFilters({ text, onText, searching, manufacturer, onManufacturer, extra }: { text: string; onText: (text: string) => void; searching: boolean; manufacturer: string; onManufacturer: (id: string | null) => void; extra?: ReactNode }) {
  const makers = useManufacturers();
  const options = useMemo(() => {
    const used = (makers.data ?? []).filter((m) => m.dealerCount > 0 || m.id === manufacturer);
    return [{ value: ALL, label: 'All Manufacturers' }, ...used.sort((a, b) => a.name.localeCompare(b.name)).map((m) => ({ value: m.id, label: m.name }))];
  }, [makers.data, manufacturer]);
  return (
    <SimpleGrid cols={{ base: 1, xs: extra ? 3 : 2 }} spacing="md">
      <TextInput
        label="Search"
        placeholder="Search by name, id or website"
        leftSection={<Search size={16} />}
        rightSection={searching && text.trim() !== '' ? <Loader size={14} aria-hidden /> : null}
        value={text}
        onChange={(e) => onText(e.currentTarget.value)}
      />
      <Select label="Manufacturer" data={options} value={manufacturer || ALL} onChange={(v) => onManufacturer(!v || v === ALL ? null : v)} allowDeselect={false} />
      {extra}
    </SimpleGrid>
  );
}

/** The number of pages of a list answer (1 before the first answer). */
export function pageCount(data: DealerListPage | undefined): number {
  return data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
}

/**
 * A page past the end (its last dealers deleted, an old link) moves to the last page, once the
 * answer for it (not a placeholder) says it is empty.
 */
export function useLastPageWhenPast(data: DealerListPage | undefined, placeholder: boolean, page: number, goTo: (page: number) => void): void {
  const pages = pageCount(data);
  useEffect(() => {
    if (data && !placeholder && data.items.length === 0 && data.total > 0 && page > pages) goTo(pages);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reacts to the answer only
  }, [data, placeholder]);
}

/** 'Showing 1–25 of 40 dealers', read out politely when it changes. */
export function ShowingCount({ data, testId }: { data: DealerListPage; testId: string }) {
  const first = data.total > 0 ? (data.page - 1) * data.pageSize + 1 : 0;
  const last = first + Math.max(0, data.items.length - 1);
  return (
    <Text size="sm" c="dimmed" aria-live="polite" data-testid={testId}>
      {`Showing ${formatCount(first)}–${formatCount(last)} of ${formatCount(data.total)} dealer${data.total === 1 ? '' : 's'}`}
    </Text>
  );
}

/** The pager under a list, shown only when there is more than one page. */
export function ListPager({ data, page, onPage }: { data: DealerListPage; page: number; onPage: (page: number) => void }): ReactNode {
  const pages = pageCount(data);
  if (pages <= 1) return null;
  return (
    <Group justify="center">
      <Pagination total={pages} value={Math.min(page, pages)} onChange={onPage} siblings={1} boundaries={1} getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(p) => ({ 'aria-label': `Page ${p}` })} />
    </Group>
  );
}
