/**
 * The editors Configuration and Upsell Rules share: the inventory-weight rule text,
 * the weight slider and the key -> value rows editor. A module of their own, so Upsell Rules loads
 * them without the Configuration screen.
 */
import { ActionIcon, Badge, Group, Slider, Stack, Text, TextInput } from '@mantine/core';
import { Trash2 } from 'lucide-react';
import { Select, Tooltip } from '../../components/deferred';
import { TEXT } from '../../../domain/constants';
import { weightLabel } from '../../../domain/defaults';
import type { Row } from './draft';

/**
 * What inventory weights do (DECISIONS 22), said where they are edited: they choose among
 * a model's upsell candidates (rankCandidates), and nothing else.
 */
export function WeightsRule({ mb }: { mb?: string }) {
  return (
    <Text size="sm" c="dimmed" mb={mb} data-testid="weights-rule">
      1-3 Low, 4-7 Normal, 8-10 High Priority. When a model has several upsell candidates, the one with the higher weight is shown; Low Priority models (1-3) are never
      chosen while a Normal or High Priority candidate exists. Equal weights: the upsell rule's target, then inventory priority, then catalogue order. Weights only
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

/**
 * Editable key -> value rows; with `options`, both sides are selects of those models, each shown as
 * `optionLabel` names it (display names) and stored as the option itself ('No models
 * available...' when there are none).
 */
export function RowsEditor({
  rows,
  onChange,
  canEdit,
  keyLabel,
  valueLabel,
  options,
  optionLabel = (m) => m,
  valueHint,
  empty,
}: {
  rows: Row[];
  onChange: (rows: Row[]) => void;
  canEdit: boolean;
  keyLabel: string;
  valueLabel: string;
  options?: string[];
  optionLabel?: (model: string) => string;
  /** Text rows only: a note shown inside a value's field (the standard model's display name), or null. */
  valueHint?: (value: string) => string | null;
  empty: string;
}) {
  // Model selects need models: without any, say so instead of offering empty selects.
  if (options?.length === 0) return <Text c="dimmed">{TEXT.noModelsAvailable}</Text>;
  if (rows.length === 0) return <Text c="dimmed">{empty}</Text>;
  const data = options?.map((m) => ({ value: m, label: optionLabel(m) }));
  const update = (id: number, patch: Partial<Row>) => onChange(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  return (
    <Stack gap="xs">
      {rows.map((r, i) => (
        <Group key={r.id} wrap="nowrap" align="flex-end">
          {options ? (
            <>
              <Select style={{ flex: 1 }} label={i === 0 ? keyLabel : undefined} aria-label={`${keyLabel} ${i + 1}`} data={data} value={r.key || null} onChange={(v) => update(r.id, { key: v ?? '' })} disabled={!canEdit} searchable placeholder="Choose a model" />
              <Select style={{ flex: 1 }} label={i === 0 ? valueLabel : undefined} aria-label={`${valueLabel} ${i + 1}`} data={data} value={r.value || null} onChange={(v) => update(r.id, { value: v ?? '' })} disabled={!canEdit} searchable placeholder="Choose a model" />
            </>
          ) : (
            <>
              <TextInput style={{ flex: 1 }} label={i === 0 ? keyLabel : undefined} aria-label={`${keyLabel} ${i + 1}`} value={r.key} onChange={(e) => update(r.id, { key: e.currentTarget.value })} disabled={!canEdit} />
              <ValueInput
                label={i === 0 ? valueLabel : undefined}
                ariaLabel={`${valueLabel} ${i + 1}`}
                value={r.value}
                hint={valueHint?.(r.value) ?? null}
                onChange={(value) => update(r.id, { value })}
                disabled={!canEdit}
              />
            </>
          )}
          {canEdit && (
            <Tooltip label="Remove">
              <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove ${r.key || 'row'}`} onClick={() => onChange(rows.filter((x) => x.id !== r.id))}>
                <Trash2 size={16} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      ))}
    </Stack>
  );
}

/** A row's value field; `hint` (a standard model's display name) shown at its right end, so 'cr-v' reads as CR-V. */
function ValueInput({ label, ariaLabel, value, hint, onChange, disabled }: { label?: string; ariaLabel: string; value: string; hint: string | null; onChange: (v: string) => void; disabled: boolean }) {
  return (
    <TextInput
      style={{ flex: 1 }}
      label={label}
      aria-label={ariaLabel}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      disabled={disabled}
      rightSection={
        hint ? (
          <Text size="sm" fw={600} c="dark" truncate title={hint} data-testid="model-display-name">
            {hint}
          </Text>
        ) : undefined
      }
      rightSectionWidth={hint ? `calc(${Math.min(hint.length, 24)}ch + 1.5rem)` : undefined}
      rightSectionPointerEvents="none"
    />
  );
}
