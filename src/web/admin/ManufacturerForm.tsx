/**
 * The manufacturer add/edit form (spec 01 §2, §4 "Manufacturer form", §5): name (required), logo
 * URL, colours with picker and text field, provider compatibility, asset naming convention; and,
 * beyond the spec, the catalogue: models (name, display name, category, MSRP range, active,
 * priority, upsell targets) with their trims (name, display name, MSRP, popular, priority), and the
 * default model mappings, upsell rules and trim patterns. Opens empty (add) or prefilled (edit);
 * closes on save or cancel. Save and Cancel sit in the drawer's sticky header; Enter in a field
 * saves; closing with unsaved edits (Escape, the overlay, the close button, Cancel) asks first;
 * trims are cards on narrow screens (issue 16). The server validates everything again.
 */
import { useId, useState } from 'react';
import {
  Accordion,
  ActionIcon,
  Alert,
  Badge,
  Button,
  Checkbox,
  ColorInput,
  Drawer,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Tabs,
  TagsInput,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { Plus, Trash2 } from 'lucide-react';
import type { ManufacturerListItem } from '../../domain/admin';
import { MODEL_CATEGORIES, PROVIDERS, type Trim, type VehicleModel } from '../../domain/schemas';
import { slugify } from '../../domain/slug';
import { providerLabel } from './parts';
import { useSaveManufacturer, type ManufacturerInput } from './api';
import { fieldErrorsOf, summarizeFieldErrors } from '../api/field-errors';

type Pair = { key: string; value: string };
const toPairs = (r: Record<string, string>): Pair[] => Object.entries(r).map(([key, value]) => ({ key, value }));
const fromPairs = (p: Pair[]) => Object.fromEntries(p.filter((x) => x.key.trim() && x.value.trim()).map((x) => [x.key.trim(), x.value.trim()]));

interface Draft extends Omit<ManufacturerInput, 'defaultModelMappings' | 'defaultUpsellRules' | 'defaultTrimPatterns'> {
  mappings: Pair[];
  rules: Pair[];
  patterns: Array<{ key: string; trims: string[] }>;
}

function draftOf(m: ManufacturerListItem | null): Draft {
  return {
    name: m?.name ?? '',
    logoUrl: m?.logoUrl ?? '',
    primaryColor: m?.primaryColor ?? '#000000',
    secondaryColor: m?.secondaryColor ?? '#666666',
    providerCompatibility: [...(m?.providerCompatibility ?? [])],
    assetNamingConvention: m?.assetNamingConvention ?? '',
    models: structuredClone(m?.models ?? []),
    mappings: toPairs(m?.defaultModelMappings ?? {}),
    rules: toPairs(m?.defaultUpsellRules ?? {}),
    patterns: Object.entries(m?.defaultTrimPatterns ?? {}).map(([key, trims]) => ({ key, trims: [...trims] })),
  };
}

function inputOf(d: Draft): ManufacturerInput {
  const { mappings, rules, patterns, ...rest } = d;
  return {
    ...rest,
    name: rest.name.trim(),
    logoUrl: rest.logoUrl.trim(),
    defaultModelMappings: fromPairs(mappings),
    defaultUpsellRules: fromPairs(rules),
    defaultTrimPatterns: Object.fromEntries(patterns.filter((p) => p.key.trim() && p.trims.length).map((p) => [p.key.trim(), p.trims])),
  };
}

const newModel = (n: number): VehicleModel => ({
  id: `model-${n}`,
  name: '',
  displayName: '',
  category: 'sedan',
  msrp: { min: 0, max: 0 },
  trims: [],
  isActive: true,
  priority: n,
  upsellTargets: [],
});
const newTrim = (n: number): Trim => ({ id: `trim-${n}`, name: '', displayName: '', msrp: 0, isPopular: false, priority: n });

export function ManufacturerForm({ manufacturer, onClose }: { manufacturer: ManufacturerListItem | null; onClose: () => void }) {
  const save = useSaveManufacturer();
  const formId = useId();
  const [initial] = useState<Draft>(() => draftOf(manufacturer));
  const [draft, setDraft] = useState<Draft>(initial);
  const [nameError, setNameError] = useState<string | null>(null);
  const [tab, setTab] = useState<string | null>('details');
  /** Open model panels (by index); a newly added model opens at once. */
  const [openModels, setOpenModels] = useState<string[]>([]);
  /** 'Discard changes?' is open (a close was asked for with unsaved edits). */
  const [confirmingClose, setConfirmingClose] = useState(false);
  const narrow = useMediaQuery('(max-width: 40em)');
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const modelNames = draft.models.map((m) => m.name).filter(Boolean);
  const dirty = JSON.stringify(draft) !== JSON.stringify(initial);
  /** Escape, the overlay, the close button and Cancel: ask first when there are unsaved edits (issue 16). */
  const requestClose = () => (dirty && !save.isPending ? setConfirmingClose(true) : onClose());

  const setModel = (i: number, patch: Partial<VehicleModel>) => set({ models: draft.models.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const setTrim = (mi: number, ti: number, patch: Partial<Trim>) => setModel(mi, { trims: draft.models[mi]!.trims.map((t, j) => (j === ti ? { ...t, ...patch } : t)) });
  const removeTrim = (mi: number, ti: number) => setModel(mi, { trims: draft.models[mi]!.trims.filter((_, j) => j !== ti) });

  const submit = () => {
    if (!draft.name.trim()) {
      setNameError('Name is required');
      setTab('details');
      return;
    }
    const input = inputOf(draft);
    // Ids follow the names (slug), so a renamed model or trim keeps a sensible id; an empty
    // display name falls back to the name.
    input.models = input.models.map((m) => ({
      ...m,
      id: slugify(m.name) || m.id,
      displayName: m.displayName.trim() || m.name,
      trims: m.trims.map((t) => ({ ...t, id: slugify(t.name) || t.id, displayName: t.displayName.trim() || t.name })),
    }));
    save.mutate(
      { id: manufacturer?.id ?? null, input },
      {
        onSuccess: ({ manufacturer: saved }) => {
          notifications.show({ color: 'teal', message: `${saved.name} saved` });
          onClose();
        },
      },
    );
  };
  const serverErrors = fieldErrorsOf(save.error);
  const saveError = save.error && (Object.keys(serverErrors).length > 0 ? summarizeFieldErrors(serverErrors, manufacturerLabel) : save.error.message);

  return (
    <>
      <Drawer.Root opened onClose={requestClose} position="right" size="xl">
        <Drawer.Overlay />
        <Drawer.Content>
          {/* The header sticks while the drawer scrolls: Save and Cancel stay in view, where notifications never go (issue 16). */}
          <Drawer.Header style={{ flexWrap: 'wrap', rowGap: 8, borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
            <Drawer.Title style={{ minWidth: 0, flex: '1 1 160px' }}>
              <Text fw={700} component="span" style={{ overflowWrap: 'anywhere' }}>
                {manufacturer ? `Edit ${manufacturer.name}` : 'Add Manufacturer'}
              </Text>
            </Drawer.Title>
            <Group gap="xs" wrap="nowrap">
              {dirty && (
                <Badge color="orange" variant="light" visibleFrom="sm">
                  Unsaved changes
                </Badge>
              )}
              <Button variant="default" onClick={requestClose}>
                Cancel
              </Button>
              <Button type="submit" form={formId} loading={save.isPending}>
                {manufacturer ? 'Save Manufacturer' : 'Add Manufacturer'}
              </Button>
              <Drawer.CloseButton aria-label="Close" />
            </Group>
          </Drawer.Header>
          <Drawer.Body pt="md">
            {/* Enter in a field saves; the form's own messages, no browser bubbles (issue 16). */}
            <form
              id={formId}
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                if (!save.isPending) submit();
              }}
            >
              <Stack>
                {saveError && (
                  <Alert color="red" title="Not saved" role="alert">
                    {saveError}
                  </Alert>
                )}
                <Tabs value={tab} onChange={setTab}>
                  <Tabs.List mb="md">
                    <Tabs.Tab value="details">Details</Tabs.Tab>
                    <Tabs.Tab value="models">Models ({draft.models.length})</Tabs.Tab>
                    <Tabs.Tab value="defaults">Defaults</Tabs.Tab>
                  </Tabs.List>

                  <Tabs.Panel value="details">
                    <Stack>
                      <TextInput
                        label="Name"
                        required
                        value={draft.name}
                        error={nameError}
                        onChange={(e) => {
                          setNameError(null);
                          set({ name: e.currentTarget.value });
                        }}
                      />
                      <TextInput label="Logo URL" type="url" value={draft.logoUrl} onChange={(e) => set({ logoUrl: e.currentTarget.value })} />
                      <SimpleGrid cols={{ base: 1, xs: 2 }}>
                        <ColorInput label="Primary colour" format="hex" value={draft.primaryColor} eyeDropperButtonProps={{ 'aria-label': 'Pick primary from the screen' }} onChange={(primaryColor) => set({ primaryColor })} />
                        <ColorInput label="Secondary colour" format="hex" value={draft.secondaryColor} eyeDropperButtonProps={{ 'aria-label': 'Pick secondary from the screen' }} onChange={(secondaryColor) => set({ secondaryColor })} />
                      </SimpleGrid>
                      <MultiSelect
                        label="Provider compatibility"
                        data={PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))}
                        value={draft.providerCompatibility}
                        onChange={(v) => set({ providerCompatibility: v as Draft['providerCompatibility'] })}
                      />
                      <TextInput label="Asset naming convention" placeholder="new_{year}_{manufacturer}_{model}_{trim}_{size}.{ext}" value={draft.assetNamingConvention} onChange={(e) => set({ assetNamingConvention: e.currentTarget.value })} />
                    </Stack>
                  </Tabs.Panel>

                  <Tabs.Panel value="models">
                    <Stack>
                      {draft.models.length === 0 && <Text c="dimmed">No models yet. Add the first one.</Text>}
                      <Accordion variant="separated" multiple value={openModels} onChange={setOpenModels}>
                        {draft.models.map((m, i) => (
                          <Accordion.Item key={`${m.id}-${i}`} value={`${i}`}>
                            <Accordion.Control>
                              <Group justify="space-between" pr="sm" gap={4}>
                                <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                                  {m.displayName || m.name || 'New model'}
                                </Text>
                                <Text size="xs" c="dimmed">
                                  {m.category} · {m.trims.length} trim{m.trims.length === 1 ? '' : 's'} · ${m.msrp.min.toLocaleString('en-US')}-{m.msrp.max.toLocaleString('en-US')}
                                </Text>
                              </Group>
                            </Accordion.Control>
                            <Accordion.Panel>
                              <Stack gap="sm">
                                <SimpleGrid cols={{ base: 1, xs: 3 }}>
                                  <TextInput label="Name (key)" value={m.name} onChange={(e) => setModel(i, { name: e.currentTarget.value })} />
                                  <TextInput label="Display name" value={m.displayName} onChange={(e) => setModel(i, { displayName: e.currentTarget.value })} />
                                  <Select label="Category" data={[...MODEL_CATEGORIES]} value={m.category} allowDeselect={false} onChange={(v) => setModel(i, { category: (v ?? 'sedan') as VehicleModel['category'] })} />
                                  <NumberInput label="MSRP from ($)" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," value={m.msrp.min} onChange={(v) => setModel(i, { msrp: { ...m.msrp, min: Number(v) || 0 } })} />
                                  <NumberInput label="MSRP to ($)" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," value={m.msrp.max} onChange={(v) => setModel(i, { msrp: { ...m.msrp, max: Number(v) || 0 } })} />
                                  <NumberInput label="Priority" allowDecimal={false} value={m.priority} onChange={(v) => setModel(i, { priority: Math.round(Number(v) || 0) })} />
                                </SimpleGrid>
                                <TagsInput label="Upsell targets (best first)" data={modelNames.filter((n) => n !== m.name)} value={m.upsellTargets} onChange={(upsellTargets) => setModel(i, { upsellTargets })} />
                                <Switch label="Active" checked={m.isActive} onChange={(e) => setModel(i, { isActive: e.currentTarget.checked })} />
                                {narrow ? (
                                  // Narrow screens: one card per trim instead of a six-column table (issue 16).
                                  <Stack gap="xs">
                                    {m.trims.map((t, ti) => (
                                      <Paper key={`${t.id}-${ti}`} withBorder p="xs" radius="sm" data-testid="trim-card">
                                        <SimpleGrid cols={2} spacing="xs" verticalSpacing="xs">
                                          <TextInput size="xs" label="Trim name" aria-label="Trim name" value={t.name} onChange={(e) => setTrim(i, ti, { name: e.currentTarget.value })} />
                                          <TextInput size="xs" label="Display name" aria-label="Trim display name" value={t.displayName} onChange={(e) => setTrim(i, ti, { displayName: e.currentTarget.value })} />
                                          <NumberInput size="xs" label="MSRP ($)" aria-label="Trim MSRP" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," value={t.msrp} onChange={(v) => setTrim(i, ti, { msrp: Number(v) || 0 })} />
                                          <NumberInput size="xs" label="Priority" aria-label="Trim priority" allowDecimal={false} value={t.priority} onChange={(v) => setTrim(i, ti, { priority: Math.round(Number(v) || 0) })} />
                                        </SimpleGrid>
                                        <Group justify="space-between" mt="xs">
                                          <Checkbox size="xs" label="Popular" aria-label="Popular trim" checked={t.isPopular} onChange={(e) => setTrim(i, ti, { isPopular: e.currentTarget.checked })} />
                                          <Button size="compact-xs" variant="subtle" color="red" leftSection={<Trash2 size={12} />} aria-label="Remove trim" onClick={() => removeTrim(i, ti)}>
                                            Remove
                                          </Button>
                                        </Group>
                                      </Paper>
                                    ))}
                                  </Stack>
                                ) : (
                                  <Table verticalSpacing={4} withTableBorder>
                                    <Table.Thead>
                                      <Table.Tr>
                                        <Table.Th>Trim</Table.Th>
                                        <Table.Th>Display name</Table.Th>
                                        <Table.Th>MSRP ($)</Table.Th>
                                        <Table.Th>Popular</Table.Th>
                                        <Table.Th>Priority</Table.Th>
                                        <Table.Th>
                                          <VisuallyHidden>Remove</VisuallyHidden>
                                        </Table.Th>
                                      </Table.Tr>
                                    </Table.Thead>
                                    <Table.Tbody>
                                      {m.trims.map((t, ti) => (
                                        <Table.Tr key={`${t.id}-${ti}`}>
                                          <Table.Td>
                                            <TextInput size="xs" aria-label="Trim name" value={t.name} onChange={(e) => setTrim(i, ti, { name: e.currentTarget.value })} />
                                          </Table.Td>
                                          <Table.Td>
                                            <TextInput size="xs" aria-label="Trim display name" value={t.displayName} onChange={(e) => setTrim(i, ti, { displayName: e.currentTarget.value })} />
                                          </Table.Td>
                                          <Table.Td>
                                            <NumberInput size="xs" aria-label="Trim MSRP" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," value={t.msrp} onChange={(v) => setTrim(i, ti, { msrp: Number(v) || 0 })} />
                                          </Table.Td>
                                          <Table.Td>
                                            <Checkbox aria-label="Popular trim" checked={t.isPopular} onChange={(e) => setTrim(i, ti, { isPopular: e.currentTarget.checked })} />
                                          </Table.Td>
                                          <Table.Td>
                                            <NumberInput size="xs" aria-label="Trim priority" w={70} allowDecimal={false} value={t.priority} onChange={(v) => setTrim(i, ti, { priority: Math.round(Number(v) || 0) })} />
                                          </Table.Td>
                                          <Table.Td>
                                            <ActionIcon variant="subtle" color="red" aria-label="Remove trim" onClick={() => removeTrim(i, ti)}>
                                              <Trash2 size={14} />
                                            </ActionIcon>
                                          </Table.Td>
                                        </Table.Tr>
                                      ))}
                                    </Table.Tbody>
                                  </Table>
                                )}
                                <Group justify="space-between">
                                  <Button size="xs" variant="light" leftSection={<Plus size={14} />} onClick={() => setModel(i, { trims: [...m.trims, newTrim(m.trims.length + 1)] })}>
                                    Add Trim
                                  </Button>
                                  <Button
                                    size="xs"
                                    variant="subtle"
                                    color="red"
                                    leftSection={<Trash2 size={14} />}
                                    onClick={() => {
                                      setOpenModels([]);
                                      set({ models: draft.models.filter((_, j) => j !== i) });
                                    }}
                                  >
                                    Remove model
                                  </Button>
                                </Group>
                              </Stack>
                            </Accordion.Panel>
                          </Accordion.Item>
                        ))}
                      </Accordion>
                      <Button
                        variant="light"
                        leftSection={<Plus size={16} />}
                        onClick={() => {
                          setOpenModels([...openModels, String(draft.models.length)]);
                          set({ models: [...draft.models, newModel(draft.models.length + 1)] });
                        }}
                      >
                        Add Model
                      </Button>
                    </Stack>
                  </Tabs.Panel>

                  <Tabs.Panel value="defaults">
                    <Stack gap="lg">
                      <PairsEditor title="Default model mappings" keyLabel="Inventory model name" valueLabel="Standard model" pairs={draft.mappings} options={modelNames} onChange={(mappings) => set({ mappings })} />
                      <PairsEditor title="Default upsell rules" keyLabel="Model" valueLabel="Upsell target" pairs={draft.rules} options={modelNames} onChange={(rules) => set({ rules })} />
                      <Stack gap="xs">
                        <Text fw={600}>Trim patterns (entry trim first)</Text>
                        {draft.patterns.map((p, i) => (
                          <Group key={i} align="flex-end" wrap="nowrap" gap="xs">
                            <TextInput label={i === 0 ? 'Model' : undefined} aria-label="Trim pattern model" w={{ base: 110, sm: 160 }} value={p.key} onChange={(e) => set({ patterns: draft.patterns.map((x, j) => (j === i ? { ...x, key: e.currentTarget.value } : x)) })} />
                            <TagsInput label={i === 0 ? 'Trims' : undefined} aria-label="Trim pattern trims" style={{ flex: 1, minWidth: 0 }} value={p.trims} onChange={(trims) => set({ patterns: draft.patterns.map((x, j) => (j === i ? { ...x, trims } : x)) })} />
                            <ActionIcon variant="subtle" color="red" mb={4} aria-label="Remove trim pattern" onClick={() => set({ patterns: draft.patterns.filter((_, j) => j !== i) })}>
                              <Trash2 size={16} />
                            </ActionIcon>
                          </Group>
                        ))}
                        <Button size="xs" variant="light" w="fit-content" leftSection={<Plus size={14} />} onClick={() => set({ patterns: [...draft.patterns, { key: '', trims: [] }] })}>
                          Add Trim Pattern
                        </Button>
                      </Stack>
                    </Stack>
                  </Tabs.Panel>
                </Tabs>
              </Stack>
            </form>
          </Drawer.Body>
        </Drawer.Content>
      </Drawer.Root>
      {/* Outside the drawer in the React tree, so its Escape does not reach the drawer as well. */}
      <Modal opened={confirmingClose} onClose={() => setConfirmingClose(false)} title="Discard changes?" centered zIndex={300}>
        <Stack>
          <Text size="sm">Your changes to {manufacturer ? manufacturer.name : 'the new manufacturer'} are not saved. Discard them and close the form?</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmingClose(false)} data-autofocus>
              Keep editing
            </Button>
            <Button color="red" onClick={onClose}>
              Discard changes
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** The label of a manufacturer field a server error names ('models.0.trims.1.name' -> 'Model 1, trim 2: name'). */
function manufacturerLabel(path: string): string {
  const parts = path.split('.');
  const words: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const next = parts[i + 1];
    if ((p === 'models' || p === 'trims') && next !== undefined && /^\d+$/.test(next)) {
      words.push(`${p === 'models' ? 'Model' : 'trim'} ${Number(next) + 1}`);
      i++;
    } else words.push(p.replace(/([A-Z])/g, ' $1').toLowerCase());
  }
  const text = words.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function PairsEditor({ title, keyLabel, valueLabel, pairs, options, onChange }: { title: string; keyLabel: string; valueLabel: string; pairs: Pair[]; options: string[]; onChange: (p: Pair[]) => void }) {
  const edit = (i: number, patch: Partial<Pair>) => onChange(pairs.map((p, j) => (j === i ? { ...p, ...patch } : p)));
  return (
    <Stack gap="xs">
      <Text fw={600}>{title}</Text>
      {pairs.length === 0 && (
        <Text size="sm" c="dimmed">
          None yet.
        </Text>
      )}
      {pairs.map((p, i) => (
        <Group key={i} wrap="nowrap" align="flex-end">
          <TextInput label={i === 0 ? keyLabel : undefined} aria-label={keyLabel} style={{ flex: 1 }} value={p.key} onChange={(e) => edit(i, { key: e.currentTarget.value })} />
          <Select label={i === 0 ? valueLabel : undefined} aria-label={valueLabel} style={{ flex: 1 }} data={[...new Set([...options, p.value].filter(Boolean))]} value={p.value || null} searchable onChange={(v) => edit(i, { value: v ?? '' })} />
          <ActionIcon variant="subtle" color="red" mb={4} aria-label={`Remove ${title.toLowerCase()} row`} onClick={() => onChange(pairs.filter((_, j) => j !== i))}>
            <Trash2 size={16} />
          </ActionIcon>
        </Group>
      ))}
      <Button size="xs" variant="light" w="fit-content" leftSection={<Plus size={14} />} onClick={() => onChange([...pairs, { key: '', value: '' }])}>
        Add Row
      </Button>
    </Stack>
  );
}
