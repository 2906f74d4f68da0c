/**
 * The one key -> value rows editor of the web app: a dealer's model mapping and upsell rules
 * (Configuration, Upsell Rules) and a manufacturer's default mappings and upsell rules (the
 * manufacturer form). Each side is a text field, or a select of `keyOptions` / `valueOptions`
 * shown as `optionLabel` names them and stored as the option itself; a select also offers its
 * current value, so a stored value outside the options is shown rather than blanked. Rows are
 * removed by their own button and added by `addLabel`'s button; without `canEdit` every field is
 * disabled and neither button shows. On a phone (below 768 px) a row is a small card whose two
 * fields stand one above the other, each with its label: side by side, at 390 px, each field was
 * about 120 px wide and a value's display-name note covered what was typed.
 */
import type { ReactNode } from 'react';
import { ActionIcon, Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { Plus, Trash2 } from 'lucide-react';
import { Select, Tooltip } from './deferred';
import { emptyRow, type Row } from './rows';
import { useNarrowScreen } from './responsive';

export interface RowsEditorProps {
  rows: Row[];
  onChange: (rows: Row[]) => void;
  /** False for a read-only user: fields disabled, no Remove or Add buttons. */
  canEdit?: boolean;
  keyLabel: string;
  valueLabel: string;
  /** Keys are chosen among these (a select) instead of typed. */
  keyOptions?: string[];
  /** Values are chosen among these (a select) instead of typed. */
  valueOptions?: string[];
  /** How an option is shown (its display name); stored as the option itself. */
  optionLabel?: (option: string) => string;
  /** Typed values only: a note shown inside a value's field (the standard model's display name), or null. */
  valueHint?: (value: string) => string | null;
  /** Shown instead of the rows when there are none. */
  empty: ReactNode;
  /** Shown instead of everything when a select has no options at all (e.g. 'No models available...'). */
  noOptions?: ReactNode;
  /** A heading above the rows. */
  title?: ReactNode;
  /** The label of a button under the rows that adds an empty row; no button without it. */
  addLabel?: string;
}

/** Editable key -> value rows (see the module doc). */
export function RowsEditor({ rows, onChange, canEdit = true, keyLabel, valueLabel, keyOptions, valueOptions, optionLabel = (o) => o, valueHint, empty, noOptions, title, addLabel }: RowsEditorProps) {
  const narrow = useNarrowScreen();
  const update = (id: number, patch: Partial<Row>) => onChange(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  const noChoice = noOptions !== undefined && (keyOptions?.length === 0 || valueOptions?.length === 0);
  const field = (side: 'key' | 'value', r: Row, i: number) => {
    const label = side === 'key' ? keyLabel : valueLabel;
    const options = side === 'key' ? keyOptions : valueOptions;
    const common = { style: narrow ? undefined : { flex: 1 }, label: i === 0 || narrow ? label : undefined, 'aria-label': `${label} ${i + 1}`, disabled: !canEdit };
    if (options) {
      const data = [...new Set([...options, r[side]].filter(Boolean))].map((o) => ({ value: o, label: optionLabel(o) }));
      return <Select {...common} data={data} value={r[side] || null} onChange={(v) => update(r.id, { [side]: v ?? '' })} searchable placeholder="Choose a model" />;
    }
    const hint = side === 'value' ? (valueHint?.(r.value) ?? null) : null;
    return (
      <TextInput
        {...common}
        value={r[side]}
        onChange={(e) => update(r.id, { [side]: e.currentTarget.value })}
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
  };
  return (
    <Stack gap="xs">
      {title !== undefined && <Text fw={600}>{title}</Text>}
      {noChoice ? (
        <Text c="dimmed">{noOptions}</Text>
      ) : rows.length === 0 ? (
        <Text c="dimmed">{empty}</Text>
      ) : (
        rows.map((r, i) => {
          const remove = () => onChange(rows.filter((x) => x.id !== r.id));
          return narrow ? (
            <Paper key={r.id} withBorder radius="md" p="xs" data-testid="rows-editor-row">
              <Stack gap={6}>
                {field('key', r, i)}
                {field('value', r, i)}
                {canEdit && (
                  <Button size="compact-sm" variant="subtle" color="red" leftSection={<Trash2 size={14} />} aria-label={`Remove ${r.key || 'row'}`} onClick={remove} style={{ alignSelf: 'flex-end' }}>
                    Remove
                  </Button>
                )}
              </Stack>
            </Paper>
          ) : (
            <Group key={r.id} wrap="nowrap" align="flex-end" data-testid="rows-editor-row">
              {field('key', r, i)}
              {field('value', r, i)}
              {canEdit && (
                <Tooltip label="Remove">
                  <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove ${r.key || 'row'}`} onClick={remove}>
                    <Trash2 size={16} />
                  </ActionIcon>
                </Tooltip>
              )}
            </Group>
          );
        })
      )}
      {canEdit && addLabel && !noChoice && (
        <Button size="xs" variant="light" w="fit-content" leftSection={<Plus size={14} />} onClick={() => onChange([...rows, emptyRow()])}>
          {addLabel}
        </Button>
      )}
    </Stack>
  );
}
