/**
 * The editors Configuration and Upsell Rules share: the inventory-weight rule text,
 * the weight slider and (from components/RowsEditor.tsx) the key -> value rows editor. A module of their own, so Upsell Rules loads
 * them without the Configuration screen.
 */
import { Badge, Group, Slider, Text } from '@mantine/core';
import { weightLabel } from '../../../domain/defaults';

export { RowsEditor } from '../../components/RowsEditor';

/**
 * What inventory weights do (DECISIONS 22), said where they are edited: they choose among
 * a model's upsell candidates (rankCandidates), and nothing else.
 */
export function WeightsRule({ mb }: { mb?: string }) {
  return (
    <Text size="sm" c="dimmed" mb={mb} data-testid="weights-rule">
      1-3 Low, 4-7 Normal, 8-10 High Priority. When a model has several upsell candidates, the one with the higher weight is shown; Low Priority models (1-3) are never
      chosen while a Normal or High Priority candidate exists. Equal weights: the upsell rule's target, then inventory priority, then catalog order. Weights only
      choose the upsell banner (Custom Rules are used as written); header and inline banners always show the page's model.
    </Text>
  );
}

/** A weight slider 1..10 with its DECISIONS 22 label; the model shown as `label` (its display name), `model` the key it is stored under. */
export function WeightSlider({ model, label: name = model, value, disabled, onChange }: { model: string; label?: string; value: number; disabled: boolean; onChange: (v: number) => void }) {
  const label = weightLabel(value);
  return (
    <div>
      <Group justify="space-between" mb={4}>
        <Text fw={500}>{name}</Text>
        <Group gap={6}>
          <Badge variant="light" color={label === 'High Priority' ? 'red' : label === 'Normal Priority' ? 'blue' : 'gray'}>
            {label}
          </Badge>
          <Text size="sm" fw={600} w={20} ta="right" data-testid={`weight-${model}`}>
            {value}
          </Text>
        </Group>
      </Group>
      <Slider
        min={1}
        max={10}
        step={1}
        value={value}
        onChange={onChange}
        disabled={disabled}
        thumbLabel={`${name} weight`}
        marks={[{ value: 1, label: '1' }, { value: 5, label: '5' }, { value: 10, label: '10' }]}
        mb="md"
      />
    </div>
  );
}
