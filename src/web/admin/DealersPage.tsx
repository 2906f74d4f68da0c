/**
 * Dealer Management (/admin/dealers; spec 01 §2; DECISIONS 9, 18-19): the admin's dealers as the
 * one dealer table of the admin area (dealer-table.tsx, the same component as Platform
 * Analytics' portfolio): search on name, id or website, the manufacturer filter (All
 * Manufacturers plus the manufacturers that have dealers) and the period, sortable columns,
 * 25 dealers a page, all on the server with the state in the URL.
 *
 * The spec draws one card per dealer; at dozens of dealers a card grid cannot be compared or
 * scanned (2,958 px tall at 32), so each card's contents are a row here: name (a link into the
 * dealer's analytics, the drill-down), id, manufacturer, provider and status badge; viewable
 * impressions, clicks and CTR (two decimals, domain/metrics FIGURE_DECIMALS) of the chosen period,
 * with conversions, trend, coverage gaps and tag health beside them; the creation date; and the
 * card's icons and links as the row's actions: open the script in a new tab, settings, delete
 * (with its confirmation), Visit Site and View Script (/scripts/{dealerId}). Empty state:
 * 'No dealers found' / 'Try adjusting your search or filter criteria.' (rendered by the table).
 */
import { Link } from 'react-router';
import { ActionIcon, Anchor, Button, Group, Stack, Text, Title } from '@mantine/core';
import { Tooltip } from '../components/deferred';
import { ExternalLink, Plus, Settings, Trash2 } from 'lucide-react';
import type { DealerListItem, PortfolioSort } from '../../domain/admin';
import { useDeleteDealer } from './api';
import { useConfirmDelete, providerLabel } from './parts';
import { Truncated } from '../components/Truncated';
import { DealerTable, PeriodSelect, useDealerTable } from './dealer-table';

/** Newest-last by default, as dealers were added. */
const DEFAULT_SORT: PortfolioSort = 'created';

/** The row's actions: the card's icons (script in a new tab, settings, delete) over its Visit Site and View Script links, one under the other. */
function RowActions({ d, onDelete }: { d: DealerListItem; onDelete: (d: DealerListItem) => void }) {
  return (
    <Stack gap={2} align="flex-end">
      <Group gap={2} wrap="nowrap">
        <Tooltip label="Open script in a new tab">
          <ActionIcon variant="subtle" color="gray" component="a" href={`/scripts/dc-banners-${d.id}.js`} target="_blank" rel="noreferrer" aria-label={`Open script of ${d.name} in a new tab`}>
            <ExternalLink size={16} />
          </ActionIcon>
        </Tooltip>
        <Tooltip label="Settings">
          <ActionIcon variant="subtle" color="gray" component={Link} to={`/admin/dealers/${encodeURIComponent(d.id)}/settings`} aria-label={`Settings of ${d.name}`}>
            <Settings size={16} />
          </ActionIcon>
        </Tooltip>
        <Tooltip label="Delete">
          <ActionIcon variant="subtle" color="red" onClick={() => onDelete(d)} aria-label={`Delete ${d.name}`}>
            <Trash2 size={16} />
          </ActionIcon>
        </Tooltip>
      </Group>
      <Stack gap={0} align="flex-end">
        <Anchor href={d.websiteUrl} target="_blank" rel="noreferrer" size="xs" style={{ whiteSpace: 'nowrap' }} aria-label={`Visit Site of ${d.name}`}>
          Visit Site
        </Anchor>
        <Anchor component={Link} to={`/scripts/${encodeURIComponent(d.id)}`} size="xs" style={{ whiteSpace: 'nowrap' }} aria-label={`View Script of ${d.name}`}>
          View Script
        </Anchor>
      </Stack>
    </Stack>
  );
}

export function DealersPage() {
  const view = useDealerTable(DEFAULT_SORT);
  const confirmDelete = useConfirmDelete<DealerListItem>(useDeleteDealer(), 'The dealer, its banners, inventory, feed and analytics are deleted for good. Its users are deactivated and signed out; assign them another dealer before reactivating them.');

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2} id="dealers-title">
            Dealer Management
          </Title>
          <Text c="dimmed">Every dealership on the platform.</Text>
        </div>
        <Button component={Link} to="/admin/dealers/new" leftSection={<Plus size={16} />}>
          Add Dealer
        </Button>
      </Group>
      <DealerTable
        view={view}
        variant="manage"
        labelledBy="dealers-title"
        countTestId="dealer-count"
        from="dealers"
        extraFilter={<PeriodSelect view={view} />}
        details={(d) => (
          <div style={{ minWidth: 0 }} data-testid={`dealer-id-${d.id}`}>
            <Truncated size="xs" c="dimmed">
              {`${d.id} · ${providerLabel(d.provider)}`}
            </Truncated>
          </div>
        )}
        actions={(d) => <RowActions d={d} onDelete={confirmDelete.ask} />}
      />
      {confirmDelete.modal}
    </Stack>
  );
}
