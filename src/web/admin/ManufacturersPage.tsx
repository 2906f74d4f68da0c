/**
 * Manufacturer Management (/admin/manufacturers; spec 01 §2, §3, §5; DECISIONS 9): search by name,
 * cards (initial, name, counts of models, mappings, upsell rules and trim patterns, color dots,
 * creation date, provider compatibility chips, edit and delete), both empty states, and the
 * add/edit form. Beyond the spec the form also edits the catalogue (ManufacturerForm.tsx).
 */
import { lazy, Suspense, useState } from 'react';
import { ActionIcon, Avatar, Badge, Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { Tooltip } from '../components/deferred';
import { Factory, Pencil, Plus, Search, Trash2 } from 'lucide-react';
import type { ManufacturerListItem } from '../../domain/admin';
import { ErrorNotice } from '../components/feedback';
import { useDeleteManufacturer, useManufacturers } from './api';
import { CardGridSkeleton, useConfirmDelete, EmptyState, providerLabel } from './parts';
import { Figure } from '../components/metrics';
import { Truncated } from '../components/Truncated';
import { readableTextOn } from '../theme';

/**
 * The add/edit drawer with its form, its checks (zod and the shared schemas) and its inputs is a
 * chunk of its own, fetched when the drawer first opens: the list does not need it.
 */
const ManufacturerForm = lazy(async () => ({ default: (await import('./ManufacturerForm')).ManufacturerForm }));

export function ManufacturersPage() {
  const list = useManufacturers();
  const confirmDelete = useConfirmDelete<ManufacturerListItem>(useDeleteManufacturer(), 'The manufacturer and its catalog are deleted. A manufacturer that dealers still use cannot be deleted.');
  const [search, setSearch] = useState('');
  /** null = form closed; 'new' = add mode; otherwise the manufacturer being edited. */
  const [editing, setEditing] = useState<ManufacturerListItem | 'new' | null>(null);

  const q = search.trim().toLowerCase();
  const shown = (list.data ?? []).filter((m) => !q || m.name.toLowerCase().includes(q));

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Manufacturer Management</Title>
          <Text c="dimmed">Brands, their model catalog and the defaults new dealers start from.</Text>
        </div>
        <Button leftSection={<Plus size={16} />} onClick={() => setEditing('new')}>
          Add Manufacturer
        </Button>
      </Group>
      <TextInput label="Search" placeholder="Search manufacturers by name" leftSection={<Search size={16} />} value={search} onChange={(e) => setSearch(e.currentTarget.value)} maw={420} />
      {list.error ? (
        <ErrorNotice message={list.error.message} onRetry={() => void list.refetch()} />
      ) : list.isPending ? (
        <CardGridSkeleton height={200} />
      ) : shown.length === 0 ? (
        <EmptyState icon={Factory} title="No manufacturers found" hint={q ? 'Try adjusting your search criteria.' : 'Get started by adding your first manufacturer.'} />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
          {shown.map((m) => (
            <Card key={m.id} withBorder radius="md" padding="lg" data-testid={`manufacturer-card-${m.id}`}>
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Group wrap="nowrap" style={{ minWidth: 0 }}>
                  <Avatar radius="md" size="lg" styles={{ placeholder: { background: m.primaryColor, color: readableTextOn(m.primaryColor) } }} src={m.logoUrl || null} alt={m.name}>
                    {m.name.charAt(0).toUpperCase()}
                  </Avatar>
                  <div style={{ minWidth: 0 }}>
                    <Truncated fw={700}>{m.name}</Truncated>
                    <Text size="xs" c="dimmed">
                      {m.models.length} model{m.models.length === 1 ? '' : 's'} configured · {m.dealerCount} dealer{m.dealerCount === 1 ? '' : 's'}
                    </Text>
                  </div>
                </Group>
                <Group gap={4} wrap="nowrap">
                  <Tooltip label="Edit">
                    <ActionIcon variant="subtle" color="gray" onClick={() => setEditing(m)} aria-label={`Edit ${m.name}`}>
                      <Pencil size={16} />
                    </ActionIcon>
                  </Tooltip>
                  <Tooltip label="Delete">
                    <ActionIcon variant="subtle" color="red" onClick={() => confirmDelete.ask(m)} aria-label={`Delete ${m.name}`}>
                      <Trash2 size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </Group>
              <SimpleGrid cols={3} mt="md">
                <Figure label="Mappings" value={Object.keys(m.defaultModelMappings).length} />
                <Figure label="Upsell rules" value={Object.keys(m.defaultUpsellRules).length} />
                <Figure label="Trim patterns" value={Object.keys(m.defaultTrimPatterns).length} />
              </SimpleGrid>
              <Group justify="space-between" mt="md">
                <Group gap={6}>
                  <ColorDot color={m.primaryColor} />
                  <ColorDot color={m.secondaryColor} />
                </Group>
                <Text size="xs" c="dimmed">
                  Created {new Date(m.createdAt).toLocaleDateString()}
                </Text>
              </Group>
              <Group gap={6} mt="sm">
                {m.providerCompatibility.length === 0 ? (
                  <Text size="xs" c="dimmed">
                    No provider compatibility set
                  </Text>
                ) : (
                  m.providerCompatibility.map((p) => (
                    <Badge key={p} variant="outline" size="sm">
                      {providerLabel(p)}
                    </Badge>
                  ))
                )}
              </Group>
            </Card>
          ))}
        </SimpleGrid>
      )}
      {editing !== null && (
        <Suspense fallback={null}>
          <ManufacturerForm manufacturer={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
        </Suspense>
      )}
      {confirmDelete.modal}
    </Stack>
  );
}

function ColorDot({ color }: { color: string }) {
  return <span title={color} style={{ display: 'inline-block', width: 16, height: 16, borderRadius: '50%', background: color, border: '1px solid var(--mantine-color-gray-4)' }} />;
}
