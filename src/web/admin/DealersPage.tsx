/**
 * Dealer Management (/admin/dealers; spec 01 §2; DECISIONS 9): search on name, id or website, the
 * manufacturer filter (All Manufacturers plus the manufacturers that have dealers), one card per
 * dealer (name, id, manufacturer, provider, status, Visit Site, all-time impressions, clicks, CTR
 * (two decimals, domain/metrics FIGURE_DECIMALS) labelled 'All Time', creation date, View Script;
 * icons to open the script in a new tab, settings and delete with confirmation), and the 'No
 * dealers found' empty state. Each card also opens the dealer's analytics (the portfolio's drill-down). Searching, filtering, sorting and paging happen on the server
 * (GET /api/admin/dealers), one page of cards at a time; the state lives in the URL's search
 * parameters (q, manufacturer, sort, order, page) so reload, back and a shared link keep it.
 */
import { useEffect, useMemo } from 'react';
import { Link } from 'react-router';
import { ActionIcon, Anchor, Button, Card, Group, Loader, Pagination, SimpleGrid, Stack, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { Select, Tooltip } from '../components/deferred';
import { ArrowDown, ArrowUp, BarChart3, ExternalLink, Plus, Search, SearchX, Settings, Trash2 } from 'lucide-react';
import { DEALER_LIST_DEFAULT_ORDER, DEALER_LIST_DEFAULT_PAGE_SIZE, DEALER_LIST_SORTS, type DealerListItem, type DealerListSort } from '../../domain/admin';
import type { DealerListParams } from '../../domain/contracts/admin';
import { formatCount, formatCtr } from '../../domain/metrics';
import { ErrorNotice } from '../components/feedback';
import { useAdminDealers, useDeleteDealer, useManufacturers } from './api';
import { CardGridSkeleton, useConfirmDelete, EmptyState, StatusBadge, providerLabel } from './parts';
import { Figure, PeriodCaption } from '../components/metrics';
import { periodLabel } from '../../domain/periods';
import { Truncated } from '../components/Truncated';
import { useListUrl } from '../components/list-url';

const ALL = '__all__';
/** Milliseconds of typing pause before the search goes to the server. */
const DEFAULT_SORT: DealerListSort = 'created';
const SORT_LABELS: Record<DealerListSort, string> = {
  name: 'Name',
  manufacturer: 'Manufacturer',
  status: 'Status',
  created: 'Created',
  impressions: 'Impressions',
  clicks: 'Clicks',
  ctr: 'CTR',
};

/** The list's state from the URL: unknown or malformed values fall back to the defaults. */
function readParams(params: URLSearchParams) {
  const sortParam = params.get('sort');
  const sort = (DEALER_LIST_SORTS as readonly string[]).includes(sortParam ?? '') ? (sortParam as DealerListSort) : DEFAULT_SORT;
  const orderParam = params.get('order');
  const order = orderParam === 'asc' || orderParam === 'desc' ? orderParam : DEALER_LIST_DEFAULT_ORDER[sort];
  const pageParam = Number(params.get('page'));
  return {
    q: params.get('q') ?? '',
    manufacturer: params.get('manufacturer') ?? '',
    sort,
    order,
    page: Number.isInteger(pageParam) && pageParam >= 1 ? pageParam : 1,
  };
}

export function DealersPage() {
  const { params, update, text, setText } = useListUrl((p) => readParams(p).q);
  const state = readParams(params);

  const request: DealerListParams = {
    page: state.page === 1 ? undefined : state.page,
    sort: state.sort === DEFAULT_SORT ? undefined : state.sort,
    order: state.order === DEALER_LIST_DEFAULT_ORDER[state.sort] ? undefined : state.order,
    q: state.q.trim() || undefined,
    manufacturer: state.manufacturer || undefined,
  };
  const dealers = useAdminDealers(request);
  const makers = useManufacturers();
  const confirmDelete = useConfirmDelete<DealerListItem>(useDeleteDealer(), 'The dealer, its banners, inventory, feed and analytics are deleted for good. Its users are deactivated and signed out; assign them another dealer before reactivating them.');

  const manufacturers = useMemo(() => {
    const used = (makers.data ?? []).filter((m) => m.dealerCount > 0 || m.id === state.manufacturer);
    return [{ value: ALL, label: 'All Manufacturers' }, ...used.sort((a, b) => a.name.localeCompare(b.name)).map((m) => ({ value: m.id, label: m.name }))];
  }, [makers.data, state.manufacturer]);

  const data = dealers.data;
  const pageSize = data?.pageSize ?? DEALER_LIST_DEFAULT_PAGE_SIZE;
  const pages = data ? Math.max(1, Math.ceil(data.total / pageSize)) : 1;
  // A page past the end (the last dealers of it deleted, an old link) moves to the last page.
  useEffect(() => {
    if (data && !dealers.isPlaceholderData && data.items.length === 0 && data.total > 0 && state.page > pages) update({ page: pages }, false);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reacts to the answer only
  }, [data, dealers.isPlaceholderData]);

  const sortBy = (sort: DealerListSort) => {
    const order = sort === state.sort ? (state.order === 'asc' ? 'desc' : 'asc') : DEALER_LIST_DEFAULT_ORDER[sort];
    update({ sort: sort === DEFAULT_SORT ? null : sort, order: order === DEALER_LIST_DEFAULT_ORDER[sort] ? null : order, page: null });
  };
  const goTo = (page: number) => {
    update({ page });
    window.scrollTo({ top: 0 });
  };

  const first = data && data.total > 0 ? (data.page - 1) * data.pageSize + 1 : 0;
  const last = data ? first + data.items.length - (data.items.length > 0 ? 1 : 0) : 0;

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Dealer Management</Title>
          <Text c="dimmed">Every dealership on the platform.</Text>
        </div>
        <Button component={Link} to="/admin/dealers/new" leftSection={<Plus size={16} />}>
          Add Dealer
        </Button>
      </Group>
      <Group grow align="flex-end">
        <TextInput
          label="Search"
          placeholder="Search by name, id or website"
          leftSection={<Search size={16} />}
          rightSection={dealers.isFetching && text.trim() !== '' ? <Loader size={14} aria-hidden /> : null}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <Select
          label="Manufacturer"
          data={manufacturers}
          value={state.manufacturer || ALL}
          onChange={(v) => update({ manufacturer: !v || v === ALL ? null : v, page: null })}
          allowDeselect={false}
        />
      </Group>
      <Group gap="xs" role="group" aria-label="Sort dealers" wrap="wrap">
        <Text size="sm" c="dimmed" aria-hidden>
          Sort by
        </Text>
        {DEALER_LIST_SORTS.map((sort) => {
          const active = state.sort === sort;
          const Arrow = state.order === 'asc' ? ArrowUp : ArrowDown;
          return (
            <Button
              key={sort}
              size="compact-sm"
              variant={active ? 'light' : 'subtle'}
              color={active ? undefined : 'gray'}
              aria-pressed={active}
              data-testid={`sort-${sort}`}
              rightSection={active ? <Arrow size={14} aria-hidden /> : null}
              onClick={() => sortBy(sort)}
            >
              {SORT_LABELS[sort]}
              {active && <VisuallyHidden>{state.order === 'asc' ? ', ascending' : ', descending'}</VisuallyHidden>}
            </Button>
          );
        })}
      </Group>
      {dealers.error ? (
        <ErrorNotice message={dealers.error.message} onRetry={() => void dealers.refetch()} />
      ) : dealers.isPending ? (
        <CardGridSkeleton height={220} />
      ) : !data || data.items.length === 0 ? (
        <EmptyState icon={SearchX} title="No dealers found" hint="Try adjusting your search or filter criteria." />
      ) : (
        <>
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="dealer-count">
            {`Showing ${formatCount(first)}–${formatCount(last)} of ${formatCount(data.total)} dealer${data.total === 1 ? '' : 's'}`}
          </Text>
          <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }} aria-busy={dealers.isPlaceholderData} style={{ opacity: dealers.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}>
            {data.items.map((d) => (
    <Card key={d.id} withBorder radius="md" padding="lg" data-testid={`dealer-card-${d.id}`}>
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div style={{ minWidth: 0 }}>
          <Truncated fw={700}>{d.name}</Truncated>
          <Truncated size="xs" c="dimmed">
            {d.id}
          </Truncated>
        </div>
        <Group gap={4} wrap="nowrap">
          <Tooltip label="Open script in a new tab">
            <ActionIcon variant="subtle" color="gray" component="a" href={`/scripts/dc-banners-${d.id}.js`} target="_blank" rel="noreferrer" aria-label={`Open script of ${d.name} in a new tab`}>
              <ExternalLink size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Analytics">
            <ActionIcon variant="subtle" color="gray" component={Link} to={`/admin/dealers/${d.id}/analytics`} aria-label={`Analytics of ${d.name}`}>
              <BarChart3 size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Settings">
            <ActionIcon variant="subtle" color="gray" component={Link} to={`/admin/dealers/${d.id}/settings`} aria-label={`Settings of ${d.name}`}>
              <Settings size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Delete">
            <ActionIcon variant="subtle" color="red" onClick={() => confirmDelete.ask(d)} aria-label={`Delete ${d.name}`}>
              <Trash2 size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      <Group gap="xs" mt="sm" wrap="nowrap">
        <StatusBadge status={d.status} />
        <Truncated size="sm">{d.manufacturerName}</Truncated>
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          · {providerLabel(d.provider)}
        </Text>
      </Group>
      <Anchor href={d.websiteUrl} target="_blank" rel="noreferrer" size="sm" mt={6}>
        Visit Site
      </Anchor>
      <Group mt="md" mb={4}>
        <PeriodCaption label={periodLabel('all')} testId={`dealer-period-${d.id}`} />
      </Group>
      <SimpleGrid cols={3}>
        <Figure label="Impressions" value={formatCount(d.impressions)} />
        <Figure label="Clicks" value={formatCount(d.clicks)} />
        <Figure label="CTR" value={formatCtr(d.ctr)} />
      </SimpleGrid>
      <Group justify="space-between" mt="md">
        <Text size="xs" c="dimmed">
          Created {new Date(d.createdAt).toLocaleDateString()}
        </Text>
        <Anchor component={Link} to={`/scripts/${d.id}`} size="sm">
          View Script
        </Anchor>
      </Group>
    </Card>
            ))}
          </SimpleGrid>
          {pages > 1 && (
            <Group justify="center">
              <Pagination total={pages} value={Math.min(state.page, pages)} onChange={goTo} siblings={1} boundaries={1} getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(page) => ({ 'aria-label': `Page ${page}` })} />
            </Group>
          )}
        </>
      )}
      {confirmDelete.modal}
    </Stack>
  );
}
