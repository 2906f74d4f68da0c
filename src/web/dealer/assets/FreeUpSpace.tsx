/**
 * 'Free up space' (DECISIONS 12, replacing the spec's silent cleanup): lists, per model, the older
 * assets the server would remove (the newest of each model, type and size is kept) and deletes
 * them only after confirmation.
 */
import { Button, Group, List, Modal, Skeleton, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useCleanupPlan, useFreeUpSpace } from './api';
import { formatDate, formatKb as kb } from './format';

/** The 'Free up space' confirmation dialog of a dealer. */
export function FreeUpSpace({ dealerId, opened, onClose }: { dealerId: string; opened: boolean; onClose: () => void }) {
  const plan = useCleanupPlan(dealerId, opened);
  const free = useFreeUpSpace(dealerId);
  const victims = plan.data?.groups.flatMap((g) => g.remove) ?? [];

  const confirm = () =>
    free.mutate(
      victims.map((a) => a.id),
      {
        onSuccess: (r) => {
          notifications.show({ color: 'teal', message: `${r.deleted} older assets deleted, ${kb(r.freedBytes)} freed` });
          onClose();
        },
        onError: (e) => notifications.show({ color: 'red', title: 'Free up space failed', message: e.message }),
      },
    );

  return (
    <Modal opened={opened} onClose={onClose} title="Free up space" size="lg" centered>
      {plan.isPending ? (
        <Skeleton h={120} />
      ) : plan.error ? (
        <Text c="red">{plan.error.message}</Text>
      ) : victims.length === 0 ? (
        <Text size="sm">Nothing to free up: every asset is the newest of its model, type and size.</Text>
      ) : (
        <Stack>
          <Text size="sm">
            These older assets have a newer asset of the same model, type and size. Deleting them frees {kb(plan.data!.freedBytes)}. This cannot be undone.
          </Text>
          {plan.data!.groups.map((g) => (
            <div key={g.model}>
              <Title order={6}>{g.model}</Title>
              <List size="sm" data-testid={`cleanup-${g.model}`}>
                {g.remove.map((a) => (
                  <List.Item key={a.id}>
                    {a.name} · {a.dimensions.width}x{a.dimensions.height} · {kb(a.sizeBytes)} · {formatDate(a.createdAt)}
                  </List.Item>
                ))}
              </List>
            </div>
          ))}
        </Stack>
      )}
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button color="red" onClick={confirm} disabled={victims.length === 0} loading={free.isPending}>
          Delete {victims.length} older {victims.length === 1 ? 'asset' : 'assets'}
        </Button>
      </Group>
    </Modal>
  );
}
