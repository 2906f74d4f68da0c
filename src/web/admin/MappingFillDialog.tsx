/**
 * 'Fill mappings from models' (the manufacturer form's Defaults tab): a pattern with the model's
 * name, display name or key filled in, for the models without a mapping or for all, previewed row
 * by row before anything changes; Apply adds the rows to the form (still to be saved), and never
 * removes or changes a row already there (mapping-fill.ts).
 */
import { useState } from 'react';
import { Button, Group, Modal, Radio, Stack, Table, Text, TextInput } from '@mantine/core';
import type { Row } from '../components/rows';
import { applyFill, changesOf, DEFAULT_FILL_PATTERN, patternProblem, planFill, type FillModel, type FillScope, type FillStep } from './mapping-fill';

const RESULT: Record<FillStep['action'], { text: (s: FillStep) => string; color: string }> = {
  add: { text: () => 'Added', color: 'teal.9' },
  fill: { text: () => 'Fills its empty row', color: 'teal.9' },
  present: { text: () => 'Already there', color: 'dimmed' },
  conflict: { text: (s) => `Kept: maps to ${s.other}`, color: 'red.9' },
  mapped: { text: () => 'Has a mapping', color: 'dimmed' },
  duplicate: { text: () => 'Same name as another model', color: 'red.9' },
  empty: { text: () => 'No name', color: 'red.9' },
};

/** The dialog; `onApply` receives the rows after the fill. Rendered outside the drawer, so its Escape closes only itself. */
export function MappingFillDialog({ opened, onClose, rows, models, onApply }: { opened: boolean; onClose: () => void; rows: Row[]; models: FillModel[]; onApply: (rows: Row[]) => void }) {
  const [pattern, setPattern] = useState(DEFAULT_FILL_PATTERN);
  const [scope, setScope] = useState<FillScope>('unmapped');
  const problem = patternProblem(pattern);
  const plan = problem ? [] : planFill(rows, models, pattern, scope);
  const changes = changesOf(plan);
  return (
    <Modal opened={opened} onClose={onClose} title="Fill mappings from models" centered size="lg" zIndex={300}>
      <Stack gap="md">
        <TextInput
          label="Inventory model name"
          description="{name}: the model's name, {display}: its display name, {key}: its key (lowercase, no spaces, hyphens or dots). E.g. honda {key}"
          value={pattern}
          onChange={(e) => setPattern(e.currentTarget.value)}
          error={problem}
          data-autofocus
        />
        <Radio.Group label="For" value={scope} onChange={(v) => setScope(v as FillScope)}>
          <Stack gap={6} mt={6}>
            <Radio value="unmapped" label="Models without a mapping" />
            <Radio value="all" label="All models (adds a row beside their mappings)" />
          </Stack>
        </Radio.Group>
        <div>
          <Text fw={600} size="sm" mb={4}>
            Preview
          </Text>
          {plan.length === 0 ? (
            <Text c="dimmed" size="sm">
              {problem ? 'Fix the pattern to see the rows.' : 'No named models yet: name them on the Models tab.'}
            </Text>
          ) : (
            // Scrolls down only (the cells wrap, so a phone shows every column); focusable, so the keyboard scrolls it too.
            <div tabIndex={0} role="region" aria-label="Preview of the mappings" style={{ maxHeight: '40vh', overflowY: 'auto' }}>
              <Table striped horizontalSpacing="xs" fz="sm" aria-label="Mappings the fill makes">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Inventory model name</Table.Th>
                    <Table.Th>Standard model</Table.Th>
                    <Table.Th>Result</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {plan.map((s) => (
                    <Table.Tr key={s.model}>
                      <Table.Td style={{ overflowWrap: 'anywhere' }}>{s.key || '—'}</Table.Td>
                      <Table.Td style={{ overflowWrap: 'anywhere' }}>{s.model}</Table.Td>
                      <Table.Td>
                        <Text size="sm" fw={600} c={RESULT[s.action].color}>
                          {RESULT[s.action].text(s)}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
          )}
        </div>
        <Text size="sm" c="dimmed" data-testid="fill-summary">
          {changes === 0 ? 'Nothing to add.' : `${changes} ${changes === 1 ? 'mapping' : 'mappings'} to add.`} Rows already in the form stay as they are; nothing is saved until you save
          the manufacturer.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            disabled={changes === 0}
            onClick={() => {
              onApply(applyFill(rows, plan));
              onClose();
            }}
          >
            {changes === 0 ? 'Apply' : `Apply ${changes} ${changes === 1 ? 'mapping' : 'mappings'}`}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
