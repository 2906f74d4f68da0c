/**
 * Dealer Management (/admin/dealers; spec 01 §2; DECISIONS 9): search on name or id, the
 * manufacturer filter (All Manufacturers plus the distinct manufacturers), one card per dealer
 * (name, id, manufacturer, provider, status, Visit Site, all-time impressions, clicks, CTR (two decimals, domain/metrics FIGURE_DECIMALS) labelled 'All Time' (issue 14),
 * creation date, View Script; icons to open the script in a new tab, settings and delete with
 * confirmation), and the 'No dealers found' empty state.
 */
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { ActionIcon, Anchor, Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { Select, Tooltip } from '../components/deferred';
import { ExternalLink, Plus, Search, SearchX, Settings, Trash2 } from 'lucide-react';
import type { DealerListItem } from '../../domain/admin';
import { formatCount, formatCtr } from '../../domain/metrics';
import { ErrorNotice } from '../components/feedback';
import { useAdminDealers, useDeleteDealer } from './api';
import { CardGridSkeleton, useConfirmDelete, EmptyState, StatusBadge, providerLabel } from './parts';
import { Figure, PeriodCaption } from '../components/metrics';
import { periodLabel } from '../../domain/periods';
import { Truncated } from '../components/Truncated';

const ALL = '__all__';

export function DealersPage() {
  const dealers = useAdminDealers();
  const confirmDelete = useConfirmDelete<DealerListItem>(useDeleteDealer(), 'The dealer, its banners, inventory, feed and analytics are deleted for good. Its users are deactivated and signed out; assign them another dealer before reactivating them.');
  const [search, setSearch] = useState('');
  const [manufacturer, setManufacturer] = useState<string>(ALL);

  const manufacturers = useMemo(() => {
    const names = new Map((dealers.data ?? []).map((d) => [d.manufacturer, d.manufacturerName]));
    return [{ value: ALL, label: 'All Manufacturers' }, ...[...names].sort((a, b) => a[1].localeCompare(b[1])).map(([value, label]) => ({ value, label }))];
  }, [dealers.data]);

  const q = search.trim().toLowerCase();
  const shown = (dealers.data ?? []).filter(
    (d) => (manufacturer === ALL || d.manufacturer === manufacturer) && (!q || d.name.toLowerCase().includes(q) || d.id.toLowerCase().includes(q)),
  );

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
        <TextInput label="Search" placeholder="Search by name or id" leftSection={<Search size={16} />} value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
        <Select label="Manufacturer" data={manufacturers} value={manufacturer} onChange={(v) => setManufacturer(v ?? ALL)} allowDeselect={false} />
      </Group>
      {dealers.error ? (
        <ErrorNotice message={dealers.error.message} onRetry={() => void dealers.refetch()} />
      ) : dealers.isPending ? (
        <CardGridSkeleton height={220} />
      ) : shown.length === 0 ? (
        <EmptyState icon={SearchX} title="No dealers found" hint="Try adjusting your search or filter criteria." />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
          {shown.map((d) => (
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
      )}
      {confirmDelete.modal}
    </Stack>
  );
}
