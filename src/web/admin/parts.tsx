/**
 * Small pieces the admin screens share: the dealer status badge (active in green, spec 01 §4),
 * delete with confirmation, provider labels, card-grid loading and empty states. Metric
 * cards and figures live in components/metrics.tsx, shared with the dealer screens.
 */
import { useState, type ReactNode } from 'react';
import { Badge, Button, Center, Group, SimpleGrid, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import { Modal } from '../components/deferred';
import type { LucideIcon } from 'lucide-react';
import { notifications } from '@mantine/notifications';
import type { UseMutationResult } from '@tanstack/react-query';

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={status === 'active' ? 'green' : 'gray'} variant={status === 'active' ? 'light' : 'outline'}>
      {status}
    </Badge>
  );
}

/** "Delete X?" confirmation; `onConfirm` runs the delete, the modal shows `error` when it fails. */
function ConfirmDelete({ opened, title, body, busy, error, onCancel, onConfirm }: { opened: boolean; title: string; body: ReactNode; busy: boolean; error?: string | null; onCancel: () => void; onConfirm: () => void }) {
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

/**
 * Delete with confirmation (DECISIONS 9): `ask(item)` opens 'Delete {name}?' with `body`; Delete
 * runs `remove` with the item's id, notifies '{name} deleted' and closes; a failure shows the
 * server's message in the modal; Cancel clears it. Render `modal` once in the screen.
 */
export function useConfirmDelete<T extends { id: string; name: string }>(remove: UseMutationResult<void, Error, string>, body: ReactNode) {
  const [victim, setVictim] = useState<T | null>(null);
  const onConfirm = () =>
    victim &&
    remove.mutate(victim.id, {
      onSuccess: () => {
        notifications.show({ color: 'teal', message: `${victim.name} deleted` });
        setVictim(null);
      },
    });
  const onCancel = () => {
    remove.reset();
    setVictim(null);
  };
  const modal = (
    <ConfirmDelete opened={victim !== null} title={`Delete ${victim?.name ?? ''}?`} body={body} busy={remove.isPending} error={remove.error?.message} onCancel={onCancel} onConfirm={onConfirm} />
  );
  return { ask: setVictim, modal };
}

const PROVIDER_LABELS: Record<string, string> = { mxs: 'MXS', 'dealer-inspire': 'Dealer Inspire', custom: 'Custom' };
/** Display name of an inventory provider. */
/** The IANA zones this browser knows, for a Time zone select, with `current` kept even when the list lacks it ('UTC' in some browsers). */
export function timeZoneOptions(current: string): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes(current) ? zones : [current, ...zones];
}

export const providerLabel = (p: string) => (Object.hasOwn(PROVIDER_LABELS, p) ? PROVIDER_LABELS[p]! : p);

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
