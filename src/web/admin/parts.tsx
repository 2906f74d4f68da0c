/**
 * Small pieces the admin screens share: the dealer status badge (active in green, spec 01 §4),
 * a metric card with its trend text, the confirm-before-delete modal, small figures, card-grid
 * loading and empty states.
 */
import { useState, type ReactNode } from 'react';
import { Badge, Button, Center, Group, Modal, Paper, SimpleGrid, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import type { LucideIcon } from 'lucide-react';
import { formatTrend } from '../../domain/metrics';

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={status === 'active' ? 'green' : 'gray'} variant={status === 'active' ? 'light' : 'outline'}>
      {status}
    </Badge>
  );
}

/** A metric card: value (undefined while loading) and, when given, the trend versus the previous period. */
export function MetricCard({ label, value, trend, trendLabel, icon: Icon, color }: { label: string; value: string | undefined; trend?: number | null; trendLabel?: string; icon: LucideIcon; color: string }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={6}>
          <Text size="sm" c="dimmed" fw={500}>
            {label}
          </Text>
          {value === undefined ? (
            <Skeleton h={34} w={90} />
          ) : (
            <Text fz={28} fw={700} lh={1.1} data-testid={`metric-${label}`}>
              {value}
            </Text>
          )}
          {trend !== undefined && (
            <Text size="xs" c={trend === null ? 'dimmed' : trend >= 0 ? 'teal.7' : 'red.7'}>
              {formatTrend(trend)} {trendLabel}
            </Text>
          )}
        </Stack>
        <ThemeIcon variant="light" color={color} size={44} radius="md">
          <Icon size={22} />
        </ThemeIcon>
      </Group>
    </Paper>
  );
}

/** "Delete X?" confirmation; `onConfirm` runs the delete, the modal shows `error` when it fails. */
export function ConfirmDelete({ opened, title, body, busy, error, onCancel, onConfirm }: { opened: boolean; title: string; body: ReactNode; busy: boolean; error?: string | null; onCancel: () => void; onConfirm: () => void }) {
  // Keep the last title while the modal fades out (the caller has already cleared its target).
  const [shownTitle, setShownTitle] = useState(title);
  if (opened && title !== shownTitle) setShownTitle(title);
  return (
    <Modal opened={opened} onClose={onCancel} title={opened ? title : shownTitle} centered>
      <Stack>
        <Text size="sm">{body}</Text>
        {error && (
          <Text size="sm" c="red" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
          <Button color="red" onClick={onConfirm} loading={busy}>
            Delete
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** A small labelled figure (label above, bold value), used on dealer and analytics cards. */
export function Figure({ label, value }: { label: string; value: string | number }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700}>{value}</Text>
    </div>
  );
}

const PROVIDER_LABELS: Record<string, string> = { mxs: 'MXS', 'dealer-inspire': 'Dealer Inspire', custom: 'Custom' };
/** Display name of an inventory provider. */
export const providerLabel = (p: string) => PROVIDER_LABELS[p] ?? p;

/** Loading placeholder for a grid of cards. */
export function CardGridSkeleton({ height }: { height: number }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
      {[0, 1, 2].map((i) => (
        <Skeleton key={i} h={height} radius="md" />
      ))}
    </SimpleGrid>
  );
}

/** Centred empty state: an icon, a title and a hint. */
export function EmptyState({ icon: Icon, title, hint }: { icon: LucideIcon; title: string; hint: string }) {
  return (
    <Center py="xl">
      <Stack align="center" gap={6}>
        <ThemeIcon size={52} radius="xl" variant="light" color="gray">
          <Icon size={26} />
        </ThemeIcon>
        <Text fw={600}>{title}</Text>
        <Text size="sm" c="dimmed">
          {hint}
        </Text>
      </Stack>
    </Center>
  );
}
