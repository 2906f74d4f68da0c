/**
 * The editors Configuration and Upsell Rules share: the upsell-priority rule text, the priority
 * slider (Upsell Rules), the read-only priorities and upsell rules (Configuration) and (from
 * components/RowsEditor.tsx) the key -> value rows editor. A module of their own, so Upsell Rules
 * loads them without the Configuration screen.
 */
import { Anchor, Badge, Group, SimpleGrid, Slider, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ArrowRight } from 'lucide-react';
import type { UpsellStrategy } from '../../../domain/enums';
import { isHigherTrimRule } from '../../../domain/upsell';
import { formatPriority, priorityColor, priorityLabel, PRIORITY_MAX, PRIORITY_MIN } from '../../../domain/priority-scale';
import { TEXT } from '../../../domain/constants';
import { RowsEditor, type RowsEditorProps } from '../../components/RowsEditor';

export { RowsEditor };

/** The upsell strategies by the names their cards carry on Upsell Rules (spec 02 §2). */
export const STRATEGY_TITLES: Record<UpsellStrategy, string> = {
  manufacturer: 'Manufacturer Defaults',
  inventory: 'Inventory Optimized',
  custom: 'Custom Rules',
};

/** The link to the one place upsell rules and priorities are edited: 'Edit on Upsell Rules', or 'View on Upsell Rules' for a viewer. */
export function UpsellRulesLink({ canEdit }: { canEdit: boolean }) {
  return (
    <Anchor component={Link} to="/dealer/upsells" size="sm">
      {canEdit ? 'Edit on Upsell Rules' : 'View on Upsell Rules'}
    </Anchor>
  );
}

/**
 * Upsell rules shown, not edited (Configuration's Upsell Rules tab): the strategy in force and the
 * rules it puts in force (source -> target, 'Higher Trim' when both are the same model), by
 * display name (`label`). They are edited on Upsell Rules only.
 */
export function RulesReadOnly({ strategy, rules, label }: { strategy: UpsellStrategy; rules: Record<string, string>; label: (model: string) => string }) {
  const entries = Object.entries(rules).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div data-testid="rules-read-only">
      <Text size="sm" mb="sm">
        Strategy in force: <strong>{STRATEGY_TITLES[strategy]}</strong>
        {entries.length > 0 ? ` (${entries.length} ${entries.length === 1 ? 'rule' : 'rules'})` : ''}
      </Text>
      {entries.length === 0 ? (
        <Text c="dimmed">{strategy === 'inventory' ? 'No upsell rules available. Upload inventory data to generate rules.' : 'No upsell rules in force.'}</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="xs">
          {entries.map(([source, target]) => (
            <Group key={source} gap="xs" wrap="nowrap" aria-label={`${label(source)} to ${isHigherTrimRule(source, target) ? 'Higher Trim' : label(target)}`} role="group">
              <Badge variant="outline" tt="none" style={{ flexShrink: 1, minWidth: 0 }}>
                {label(source)}
              </Badge>
              <ArrowRight size={14} aria-hidden style={{ flexShrink: 0 }} />
              {isHigherTrimRule(source, target) ? (
                <Badge color="grape">Higher Trim</Badge>
              ) : (
                <Badge tt="none" style={{ flexShrink: 1, minWidth: 0 }}>
                  {label(target)}
                </Badge>
              )}
            </Group>
          ))}
        </SimpleGrid>
      )}
    </div>
  );
}

/**
 * Upsell rule rows, primary model -> upsell target, both chosen from `models` and shown by
 * `optionLabel` (their display names): Configuration's upsell rules and Upsell Rules' custom rules.
 */
export function UpsellRowsEditor({ models, ...props }: Pick<RowsEditorProps, 'rows' | 'onChange' | 'canEdit' | 'optionLabel' | 'empty'> & { models: string[] }) {
  return <RowsEditor {...props} keyLabel="Primary model" valueLabel="Upsell target" keyOptions={models} valueOptions={models} noOptions={TEXT.noModelsAvailable} />;
}

/**
 * What upsell priorities (the spec's inventory weights) do, said where they are shown: one 1-10
 * scale with the stock priority (domain/priority-scale.ts); they choose among a model's upsell
 * candidates (rankCandidates), and nothing else.
 */
export function WeightsRule({ mb }: { mb?: string }) {
  return (
    <Text size="sm" c="dimmed" mb={mb} data-testid="weights-rule">
      One priority scale: 1-3 Low, 4-7 Normal, 8-10 High Priority. When a model has several upsell candidates, the one with the higher upsell priority is shown; Low
      Priority models (1-3) are never chosen while a Normal or High Priority candidate exists. Equal priorities: the upsell rule's target, then the higher stock
      priority (computed from your inventory on the same scale), then catalog order. Priorities only choose the upsell banner (Custom Rules are used as written);
      header and inline banners always show the page's model.
    </Text>
  );
}

/**
 * An upsell priority slider 1..10 with its band; the model shown as `label` (its display name),
 * `model` the key it is stored under; `stock` the model's stock priority, shown beside it when known.
 */
export function WeightSlider({
  model,
  label: name = model,
  value,
  disabled,
  onChange,
  stock,
}: {
  model: string;
  label?: string;
  value: number;
  disabled: boolean;
  onChange: (v: number) => void;
  stock?: number;
}) {
  return (
    <div>
      {/* Wraps before it cuts: the band's badge never shrinks, it moves under a long name. */}
      <Group justify="space-between" mb={4} gap="xs" style={{ rowGap: 4 }}>
        <Text fw={500}>{name}</Text>
        <Group gap={6} wrap="nowrap">
          <Badge variant="light" color={priorityColor(value)} tt="none" style={{ flexShrink: 0 }}>
            {priorityLabel(value)}
          </Badge>
          <Text size="sm" fw={600} w={20} ta="right" data-testid={`weight-${model}`}>
            {value}
          </Text>
        </Group>
      </Group>
      <Slider
        min={PRIORITY_MIN}
        max={PRIORITY_MAX}
        step={1}
        value={value}
        onChange={onChange}
        disabled={disabled}
        thumbLabel={`${name} upsell priority`}
        marks={[{ value: 1, label: '1' }, { value: 5, label: '5' }, { value: 10, label: '10' }]}
        mb={stock === undefined ? 'md' : 'lg'}
      />
      {stock !== undefined && (
        <Text size="xs" c="dimmed" mb="sm" data-testid={`stock-${model}`}>
          Stock priority {formatPriority(stock)}
        </Text>
      )}
    </div>
  );
}

/**
 * Upsell priorities shown, not edited (Configuration's Inventory Logic tab): each model's number and
 * band, and where they are edited. `weight-{model}` holds the number.
 */
export function PrioritiesReadOnly({ models, value, label }: { models: string[]; value: (model: string) => number; label: (model: string) => string }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm" data-testid="priorities-read-only">
      {models.map((m) => (
        <Group key={m} justify="space-between" gap="xs" style={{ rowGap: 4 }}>
          <Text fw={500}>{label(m)}</Text>
          <Group gap={6} wrap="nowrap">
            <Badge variant="light" color={priorityColor(value(m))} tt="none" style={{ flexShrink: 0 }}>
              {priorityLabel(value(m))}
            </Badge>
            <Text size="sm" fw={600} w={20} ta="right" data-testid={`weight-${m}`}>
              {value(m)}
            </Text>
          </Group>
        </Group>
      ))}
    </SimpleGrid>
  );
}
