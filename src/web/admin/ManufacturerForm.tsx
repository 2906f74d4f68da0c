/**
 * The manufacturer add/edit form (spec 01 §2, §4 "Manufacturer form", §5): name (required), logo
 * URL, colours with picker and text field, provider compatibility, asset naming convention; and,
 * beyond the spec, the catalogue: models (name, display name, category, MSRP range, active,
 * priority, upsell targets) with their trims (name, display name, MSRP, popular, priority), and the
 * default model mappings, upsell rules and trim patterns. Opens empty (add) or prefilled (edit);
 * closes on save or cancel. The server validates everything again.
 */
import { useState } from 'react';
import {
  Accordion,
  ActionIcon,
  Alert,
  Button,
  Checkbox,
  ColorInput,
  Drawer,
  Group,
  MultiSelect,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Tabs,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Plus, Trash2 } from 'lucide-react';
import type { ManufacturerListItem } from '../../domain/admin';
import { MODEL_CATEGORIES, PROVIDERS, type Trim, type VehicleModel } from '../../domain/schemas';
import { slugify } from '../../domain/slug';
import { providerLabel } from './parts';
import { useSaveManufacturer, type ManufacturerInput } from './api';

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
  const [draft, setDraft] = useState<Draft>(() => draftOf(manufacturer));
  const [nameError, setNameError] = useState<string | null>(null);
  /** Open model panels (by index); a newly added model opens at once. */
  const [openModels, setOpenModels] = useState<string[]>([]);
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const modelNames = draft.models.map((m) => m.name).filter(Boolean);

  const setModel = (i: number, patch: Partial<VehicleModel>) => set({ models: draft.models.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const setTrim = (mi: number, ti: number, patch: Partial<Trim>) => setModel(mi, { trims: draft.models[mi]!.trims.map((t, j) => (j === ti ? { ...t, ...patch } : t)) });

  const submit = () => {
    if (!draft.name.trim()) {
      setNameError('Name is required');
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

  return (
    <Drawer opened onClose={onClose} position="right" size="xl" title={<Text fw={700}>{manufacturer ? `Edit ${manufacturer.name}` : 'Add Manufacturer'}</Text>}>
      <Stack>
        <Tabs defaultValue="details">
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
              <SimpleGrid cols={2}>
                <ColorInput label="Primary colour" format="hex" value={draft.primaryColor} onChange={(primaryColor) => set({ primaryColor })} />
                <ColorInput label="Secondary colour" format="hex" value={draft.secondaryColor} onChange={(secondaryColor) => set({ secondaryColor })} />
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
                      <Group justify="space-between" pr="sm">
                        <Text fw={600}>{m.displayName || m.name || 'New model'}</Text>
                        <Text size="xs" c="dimmed">
                          {m.category} · {m.trims.length} trim{m.trims.length === 1 ? '' : 's'} · ${m.msrp.min.toLocaleString('en-US')}-{m.msrp.max.toLocaleString('en-US')}
                        </Text>
                      </Group>
                    </Accordion.Control>
                    <Accordion.Panel>
                      <Stack gap="sm">
                        <SimpleGrid cols={3}>
                          <TextInput label="Name (key)" value={m.name} onChange={(e) => setModel(i, { name: e.currentTarget.value })} />
                          <TextInput label="Display name" value={m.displayName} onChange={(e) => setModel(i, { displayName: e.currentTarget.value })} />
                          <Select label="Category" data={[...MODEL_CATEGORIES]} value={m.category} allowDeselect={false} onChange={(v) => setModel(i, { category: (v ?? 'sedan') as VehicleModel['category'] })} />
                          <NumberInput label="MSRP from ($)" min={0} thousandSeparator="," value={m.msrp.min} onChange={(v) => setModel(i, { msrp: { ...m.msrp, min: Number(v) || 0 } })} />
                          <NumberInput label="MSRP to ($)" min={0} thousandSeparator="," value={m.msrp.max} onChange={(v) => setModel(i, { msrp: { ...m.msrp, max: Number(v) || 0 } })} />
                          <NumberInput label="Priority" value={m.priority} onChange={(v) => setModel(i, { priority: Math.round(Number(v) || 0) })} />
                        </SimpleGrid>
                        <TagsInput label="Upsell targets (best first)" data={modelNames.filter((n) => n !== m.name)} value={m.upsellTargets} onChange={(upsellTargets) => setModel(i, { upsellTargets })} />
                        <Switch label="Active" checked={m.isActive} onChange={(e) => setModel(i, { isActive: e.currentTarget.checked })} />
                        <Table verticalSpacing={4} withTableBorder>
                          <Table.Thead>
                            <Table.Tr>
                              <Table.Th>Trim</Table.Th>
                              <Table.Th>Display name</Table.Th>
                              <Table.Th>MSRP ($)</Table.Th>
                              <Table.Th>Popular</Table.Th>
                              <Table.Th>Priority</Table.Th>
                              <Table.Th />
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
                                  <NumberInput size="xs" aria-label="Trim MSRP" min={0} thousandSeparator="," value={t.msrp} onChange={(v) => setTrim(i, ti, { msrp: Number(v) || 0 })} />
                                </Table.Td>
                                <Table.Td>
                                  <Checkbox aria-label="Popular trim" checked={t.isPopular} onChange={(e) => setTrim(i, ti, { isPopular: e.currentTarget.checked })} />
                                </Table.Td>
                                <Table.Td>
                                  <NumberInput size="xs" aria-label="Trim priority" w={70} value={t.priority} onChange={(v) => setTrim(i, ti, { priority: Math.round(Number(v) || 0) })} />
                                </Table.Td>
                                <Table.Td>
                                  <ActionIcon variant="subtle" color="red" aria-label="Remove trim" onClick={() => setModel(i, { trims: m.trims.filter((_, j) => j !== ti) })}>
                                    <Trash2 size={14} />
                                  </ActionIcon>
                                </Table.Td>
                              </Table.Tr>
                            ))}
                          </Table.Tbody>
                        </Table>
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
                  <Group key={i} align="flex-end" wrap="nowrap">
                    <TextInput label={i === 0 ? 'Model' : undefined} aria-label="Trim pattern model" w={160} value={p.key} onChange={(e) => set({ patterns: draft.patterns.map((x, j) => (j === i ? { ...x, key: e.currentTarget.value } : x)) })} />
                    <TagsInput label={i === 0 ? 'Trims' : undefined} aria-label="Trim pattern trims" style={{ flex: 1 }} value={p.trims} onChange={(trims) => set({ patterns: draft.patterns.map((x, j) => (j === i ? { ...x, trims } : x)) })} />
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

        {save.error && (
          <Alert color="red" title="Not saved" role="alert">
            {save.error.message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={submit} loading={save.isPending}>
            {manufacturer ? 'Save Manufacturer' : 'Add Manufacturer'}
          </Button>
        </Group>
      </Stack>
    </Drawer>
  );
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
