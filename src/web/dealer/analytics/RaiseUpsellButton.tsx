/**
 * 'Raise upsell priority' for one model outside the Analytics table (the Inventory screen's "Aged
 * inventory to push" insight): reads the dealer's upsell weights, shows the model's weight, and
 * raises it one priority band through the configs API (domain/ranges.ts raisedWeight; DECISIONS 22
 * labels). Nothing for a viewer, at weight 10, or while the weights load.
 */
import { Button, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { ArrowUpCircle } from 'lucide-react';
import { weightLabel, DEFAULT_WEIGHT } from '../../../domain/defaults';
import { modelKey } from '../../../domain/model-keys';
import { raisedWeight } from '../../../domain/ranges';
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
  const weight = entry?.[1] ?? DEFAULT_WEIGHT;
  const next = raisedWeight(weight);
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="xs" c="dimmed">
        Upsell weight {weight}
      </Text>
      {next !== null && (
        <Button
          size="compact-xs"
          variant="light"
          leftSection={<ArrowUpCircle size={14} />}
          loading={raise.isPending}
          aria-label={`Raise upsell priority of ${label} to ${next} (${weightLabel(next)})`}
          onClick={() =>
            raise.mutate(
              { weightKey, weight: next },
              {
                onSuccess: () => notifications.show({ color: 'teal', message: `${label}: upsell weight ${next} (${weightLabel(next)})` }),
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
