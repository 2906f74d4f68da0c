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
import { Link } from 'react-router';
import { ActionIcon, Anchor, Button, Card, Group, SimpleGrid, Stack, Text, Title, VisuallyHidden } from '@mantine/core';
import { Tooltip } from '../components/deferred';
import { ArrowDown, ArrowUp, BarChart3, ExternalLink, Plus, SearchX, Settings, Trash2 } from 'lucide-react';
import { DEALER_LIST_DEFAULT_ORDER, DEALER_LIST_SORTS, type DealerListItem, type DealerListSort } from '../../domain/admin';
import type { DealerListParams } from '../../domain/contracts/admin';
import { formatCount, formatCtr } from '../../domain/metrics';
import { DealerFilters, ListPager, readListParams, ShowingCount, sortChanges, useLastPageWhenPast } from './dealer-list';
import { ErrorNotice } from '../components/feedback';
import { useAdminDealers, useDeleteDealer } from './api';
import { CardGridSkeleton, useConfirmDelete, EmptyState, StatusBadge, providerLabel } from './parts';
import { Figure, PeriodCaption } from '../components/metrics';
import { periodLabel } from '../../domain/periods';
import { Truncated } from '../components/Truncated';
import { useListUrl } from '../components/list-url';

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

export function DealersPage() {
  const { params, update, text, setText } = useListUrl((p) => readListParams(p, DEALER_LIST_SORTS, DEFAULT_SORT).q);
  const state = readListParams(params, DEALER_LIST_SORTS, DEFAULT_SORT);

  const request: DealerListParams = {
    page: state.page === 1 ? undefined : state.page,
    sort: state.sort === DEFAULT_SORT ? undefined : state.sort,
    order: state.order === DEALER_LIST_DEFAULT_ORDER[state.sort] ? undefined : state.order,
    q: state.q.trim() || undefined,
    manufacturer: state.manufacturer || undefined,
  };
  const dealers = useAdminDealers(request);
  const confirmDelete = useConfirmDelete<DealerListItem>(useDeleteDealer(), 'The dealer, its banners, inventory, feed and analytics are deleted for good. Its users are deactivated and signed out; assign them another dealer before reactivating them.');

  const data = dealers.data;
  useLastPageWhenPast(data, dealers.isPlaceholderData, state.page, (page) => update({ page }, false));

  const sortBy = (sort: DealerListSort) => update(sortChanges(state, sort, DEFAULT_SORT));
  const goTo = (page: number) => {
    update({ page });
    window.scrollTo({ top: 0 });
  };

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
      <DealerFilters text={text} onText={setText} searching={dealers.isFetching} manufacturer={state.manufacturer} onManufacturer={(manufacturer) => update({ manufacturer, page: null })} />
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
          <ShowingCount data={data} testId="dealer-count" />
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
          <ListPager data={data} page={state.page} onPage={goTo} />
        </>
      )}
      {confirmDelete.modal}
    </Stack>
  );
}
