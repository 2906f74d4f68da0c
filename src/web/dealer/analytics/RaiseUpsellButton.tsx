/**
 * 'Raise upsell priority' for one model outside the Analytics table (the Inventory screen's "Aged
 * inventory to push" insight): reads the dealer's upsell priorities, shows the model's one on the
 * one priority scale (domain/priority-scale.ts), and asks the server to raise it one band. Nothing
 * for a viewer or while the priorities load; no button at 10.
 */
import { Button, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { ArrowUpCircle } from 'lucide-react';
import { DEFAULT_WEIGHT } from '../../../domain/defaults';
import { modelKey } from '../../../domain/model-keys';
import { formatPriority, priorityLabel, raisedPriority } from '../../../domain/priority-scale';
import { useCanEdit } from '../../components/auth';
import { useConfigs } from '../config/api';
import { useRaiseUpsellPriority } from './report';

export function RaiseUpsellButton({ dealerId, model, label }: { dealerId: string; model: string; label: string }) {
  const canEdit = useCanEdit();
  const configs = useConfigs(canEdit ? dealerId : null);
  const raise = useRaiseUpsellPriority(dealerId);
  if (!canEdit || !configs.data) return null;
  const entry = Object.entries(configs.data.inventoryWeights).find(([name]) => modelKey(name) === modelKey(model));
  const weightKey = entry?.[0] ?? model;
  const priority = entry?.[1] ?? DEFAULT_WEIGHT;
  const next = raisedPriority(priority);
  return (
    <Group gap={6} wrap="nowrap" style={{ flexShrink: 0 }}>
      <Text size="xs" c="dimmed" data-testid="upsell-priority" style={{ whiteSpace: 'nowrap' }}>
        Upsell priority {formatPriority(priority)}
      </Text>
      {next !== null && (
        <Button
          size="compact-xs"
          variant="light"
          leftSection={<ArrowUpCircle size={14} />}
          loading={raise.isPending}
          aria-label={`Raise upsell priority of ${label} to ${next} (${priorityLabel(next)})`}
          onClick={() =>
            raise.mutate(
              { weightKey },
              {
                onSuccess: (r) => notifications.show({ color: 'teal', message: `${label}: upsell priority ${formatPriority(r.priority)}` }),
                onError: (e) => notifications.show({ color: 'red', title: 'Not saved', message: e.message }),
              },
            )
          }
        >
          Raise
        </Button>
      )}
    </Group>
  );
}
