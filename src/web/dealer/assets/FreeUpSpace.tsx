/**
 * 'Free up space' (DECISIONS 12): the server groups the dealer's assets by model, trim,
 * slot and size and keeps, per group, the asset delivery shows first (the newest live one); it offers
 * only assets that can never show again (live ones rotate). The dialog
 * lists each group with what it keeps and a ticked checkbox per offered asset; the dealer unticks what
 * should stay, sees the running total, and only the ticked assets are deleted, after confirmation.
 */
import { useId, useState } from 'react';
import { Alert, Badge, Button, Checkbox, Group, Paper, Skeleton, Stack, Text, ThemeIcon, Title, VisuallyHidden } from '@mantine/core';
import { Modal } from '../../components/deferred';
import { notifications } from '@mantine/notifications';
import { AlertTriangle, CircleCheck, Sparkles } from 'lucide-react';
import { useCleanupPlan, useFreeUpSpace, type CleanupAsset, type CleanupGroup, type CleanupPlan } from './api';
import { assetTypeLabel, formatKb, formatMb } from './format';

/** Bytes as KB below 1 MB, else MB. */
const formatBytes = (bytes: number) => (bytes < 1024 * 1024 ? formatKb(bytes) : formatMb(bytes));

/** Upload date and time, so two uploads of one day can be told apart. */
const formatWhen = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The 'Free up space' dialog of a dealer; its content (and the plan) is loaded afresh each time it opens. */
export function FreeUpSpace({ dealerId, opened, onClose }: { dealerId: string; opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Free up space</Text>} size="lg" centered>
      <CleanupContent dealerId={dealerId} onClose={onClose} />
    </Modal>
  );
}

/** Loading, error, empty or the plan itself. */
function CleanupContent({ dealerId, onClose }: { dealerId: string; onClose: () => void }) {
  const plan = useCleanupPlan(dealerId);
  if (plan.isPending) {
    return (
      <Stack gap="sm" aria-busy="true">
        <VisuallyHidden role="status">Loading what can be freed…</VisuallyHidden>
        <Skeleton h={20} w="70%" />
        <Skeleton h={96} />
        <Skeleton h={96} />
      </Stack>
    );
  }
  if (plan.error) {
    return (
      <Stack>
        <Alert color="red" variant="light" icon={<AlertTriangle size={18} />} title="Could not work out what to free up" role="alert">
          {plan.error.message}
        </Alert>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button onClick={() => void plan.refetch()} loading={plan.isFetching}>
            Try again
          </Button>
        </Group>
      </Stack>
    );
  }
  if (plan.data.groups.length === 0) {
    return (
      <Stack align="center" gap="xs" py="md" ta="center">
        <ThemeIcon size={44} radius="xl" variant="light" color="teal">
          <Sparkles size={22} />
        </ThemeIcon>
        <Title order={4}>Nothing to free up</Title>
        <Text size="sm" c="dimmed" maw={420}>
          Every banner is the one shown for its model, trim, slot and size, so none can be removed without changing your site.
        </Text>
        <Button variant="default" mt="sm" onClick={onClose} data-autofocus>
          Close
        </Button>
      </Stack>
    );
  }
  return <CleanupForm dealerId={dealerId} plan={plan.data} onClose={onClose} />;
}

/** The groups with their checkboxes, the running total and the confirm button. */
function CleanupForm({ dealerId, plan, onClose }: { dealerId: string; plan: CleanupPlan; onClose: () => void }) {
  const free = useFreeUpSpace(dealerId);
  // Unticked ids, so everything (also anything a refetch adds) starts ticked.
  const [kept, setKept] = useState<ReadonlySet<string>>(new Set());
  const all = plan.groups.flatMap((g) => g.remove);
  const ticked = all.filter((a) => !kept.has(a.id));
  const tickedBytes = ticked.reduce((n, a) => n + a.sizeBytes, 0);

  const setTicked = (ids: string[], on: boolean) =>
    setKept((prev) => {
      const next = new Set(prev);
      for (const id of ids) {
        if (on) next.delete(id);
        else next.add(id);
      }
      return next;
    });

  const confirm = () =>
    free.mutate(
      ticked.map((a) => a.id),
      {
        onSuccess: (r) => {
          notifications.show({ color: 'teal', message: `${plural(r.deleted, 'asset', 'assets')} deleted, ${formatBytes(r.freedBytes)} freed` });
          if (r.skipped.length > 0) {
            notifications.show({
              color: 'yellow',
              message: `${plural(r.skipped.length, 'asset was', 'assets were')} not deleted: they changed meanwhile and are now kept or already gone.`,
            });
          }
          onClose();
        },
      },
    );

  const allTicked = ticked.length === all.length;
  return (
    <Stack gap="md">
      <Text size="sm">
        Each group below holds banners of the same model, trim, slot and size. The ones offered can never show again (switched off or past
        their end date); live banners of a group take turns (A/B) and are never offered. Untick any you want to keep. Deleting cannot be undone.
      </Text>
      <Checkbox
        label={`Select all (${all.length})`}
        checked={allTicked}
        indeterminate={!allTicked && ticked.length > 0}
        onChange={(e) => setTicked(all.map((a) => a.id), e.currentTarget.checked)}
      />
      {plan.groups.map((g) => (
        <CleanupGroupCard key={g.keep.id} group={g} isTicked={(id) => !kept.has(id)} onTick={(id, on) => setTicked([id], on)} />
      ))}
      {free.error && (
        <Alert color="red" variant="light" icon={<AlertTriangle size={18} />} title="Free up space failed" role="alert">
          {free.error.message}
        </Alert>
      )}
      <Group justify="space-between" align="center" gap="sm" pt="xs" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
        <Text size="sm" aria-live="polite" data-testid="cleanup-total">
          {ticked.length === 0 ? 'Nothing selected' : `${plural(ticked.length, 'asset', 'assets')} selected · frees ${formatBytes(tickedBytes)}`}
        </Text>
        <Group gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" onClick={confirm} disabled={ticked.length === 0} loading={free.isPending}>
            Delete {plural(ticked.length, 'asset', 'assets')}
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

/** One model/trim/slot/size group: what is kept and a checkbox per asset to remove. */
function CleanupGroupCard({ group: g, isTicked, onTick }: { group: CleanupGroup; isTicked: (id: string) => boolean; onTick: (id: string, on: boolean) => void }) {
  const titleId = useId();
  const title = [g.model, g.trim].filter(Boolean).join(' ');
  return (
    <Paper withBorder radius="md" p="sm" role="group" aria-labelledby={titleId} data-testid={`cleanup-group-${g.keep.id}`}>
      <Group gap="xs" mb={6} id={titleId}>
        <Title order={6}>{title}</Title>
        <Badge variant="light" size="sm" tt="none">
          {assetTypeLabel(g.slot)}
        </Badge>
        <Badge variant="outline" color="gray" size="sm" tt="none">
          {g.size}
        </Badge>
      </Group>
      <Group gap={6} wrap="nowrap" mb="xs">
        <CircleCheck size={16} color="var(--mantine-color-teal-7)" aria-hidden style={{ flexShrink: 0 }} />
        <Text size="sm">
          Keeps: <b>{g.keep.name}</b> ({formatWhen(g.keep.createdAt)}){!g.keep.isActive && ' · inactive'}
        </Text>
      </Group>
      <Stack gap={6} pl={22}>
        {g.remove.map((a) => (
          <RemoveCheckbox key={a.id} asset={a} checked={isTicked(a.id)} onChange={(on) => onTick(a.id, on)} />
        ))}
      </Stack>
    </Paper>
  );
}

/** One asset offered for removal: ticked means it is deleted on confirmation. */
function RemoveCheckbox({ asset: a, checked, onChange }: { asset: CleanupAsset; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <Checkbox
      color="red"
      checked={checked}
      onChange={(e) => onChange(e.currentTarget.checked)}
      label={a.name}
      aria-label={`Remove ${a.name}`}
      description={[formatWhen(a.createdAt), formatKb(a.sizeBytes), a.isActive ? null : 'inactive'].filter(Boolean).join(' · ')}
    />
  );
}
