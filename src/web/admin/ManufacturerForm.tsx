/**
 * The manufacturer add/edit form (spec 01 §2, §4 "Manufacturer form", §5): name (required), logo
 * URL, colors with picker and text field, provider compatibility, asset naming convention; and,
 * beyond the spec, the catalogue: models (name, display name, category, MSRP range, active,
 * priority, upsell targets) with their trims (name, display name, MSRP, popular, priority), and the
 * default model mappings (filled from the models at once with a previewed pattern,
 * MappingFillDialog), upsell rules and trim patterns. Opens empty (add) or prefilled (edit);
 * closes on save or cancel. Save and Cancel sit in the drawer's sticky header; Enter in a field
 * saves; closing with unsaved edits (Escape, the overlay, the close button, Cancel) asks first;
 * trims are cards on narrow screens. A @mantine/form checked on every change against the
 * shared domain schema: a wrong field is marked in the user's words, Save is disabled while a
 * changed form is invalid and the header says why ("Can't save yet: …", with Show to bring the
 * field into view), a server refusal marks the fields it names, numbers are sent as typed
 * (an empty one is refused, never replaced by 0), and leaving the page with unsaved edits asks
 * first. The server validates everything again.
 */
import { useEffect, useId, useState, type ReactNode } from 'react';
import {
  Accordion,
  ActionIcon,
  Alert,
  Badge,
  Button,
  Checkbox,
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
import { useForm } from '@mantine/form';
import { useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { Plus, Trash2, Wand2 } from 'lucide-react';
import type { ManufacturerListItem } from '../../domain/admin';
import { manufacturerSchema, MODEL_CATEGORIES, PROVIDERS, type Trim, type VehicleModel } from '../../domain/schemas';
import { slugify } from '../../domain/slug';
import { providerLabel } from './parts';
import { useSaveManufacturer, type ManufacturerInput } from './api';
import { fieldErrorsOf, serverFormErrors, summarizeFieldErrors } from '../api/field-errors';
import { schemaValidator } from '../api/schema-validator';
import { useUnsavedChangesPrompt } from '../components/unsaved';
import { EditorError } from '../components/feedback';
import { RowsEditor } from '../components/RowsEditor';
import { ColorInput } from '../components/deferred';
import { toRecord, toRows, type Row } from '../components/rows';
import { MappingFillDialog } from './MappingFillDialog';

interface Draft extends Omit<ManufacturerInput, 'defaultModelMappings' | 'defaultUpsellRules' | 'defaultTrimPatterns'> {
  mappings: Row[];
  rules: Row[];
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
    mappings: toRows(m?.defaultModelMappings ?? {}),
    rules: toRows(m?.defaultUpsellRules ?? {}),
    patterns: Object.entries(m?.defaultTrimPatterns ?? {}).map(([key, trims]) => ({ key, trims: [...trims] })),
  };
}

/** A number field as typed: undefined when empty (refused as 'Enter a number': the form fills in nothing). */
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : (undefined as unknown as number));

function inputOf(d: Draft): ManufacturerInput {
  const { mappings, rules, patterns, ...rest } = d;
  return {
    ...rest,
    // Ids follow the names (slug), so a renamed model or trim keeps a sensible id; an empty
    // display name is the name.
    models: rest.models.map((m) => ({
      ...m,
      id: slugify(m.name) || m.id,
      displayName: m.displayName.trim() || m.name,
      msrp: { min: num(m.msrp.min), max: num(m.msrp.max) },
      priority: num(m.priority),
      trims: m.trims.map((t) => ({ ...t, id: slugify(t.name) || t.id, displayName: t.displayName.trim() || t.name, msrp: num(t.msrp), priority: num(t.priority) })),
    })),
    name: rest.name.trim(),
    logoUrl: rest.logoUrl.trim(),
    defaultModelMappings: toRecord(mappings),
    defaultUpsellRules: toRecord(rules),
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

/** The form field (or editor) a body path is about: the catalogue's own paths, the default maps' editors. */
function fieldOf(path: string): string {
  const [root] = path.split('.');
  if (root === 'defaultModelMappings') return 'mappings';
  if (root === 'defaultUpsellRules') return 'rules';
  if (root === 'defaultTrimPatterns') return 'patterns';
  return path;
}

/** The tab showing a field. */
const tabOf = (field: string) => (field.startsWith('models') ? 'models' : ['mappings', 'rules', 'patterns'].includes(field) ? 'defaults' : 'details');

/** The form's own words for an empty name (any other problem keeps the shared words). */
const nameRequired = (field: string, code: string) => (field === 'name' && code === 'too_small' ? 'Name is required' : undefined);

/** The manufacturer's editable fields as the shared domain schema has them (the server checks them again, with its own extra rules). */
const validate = schemaValidator<Draft>(
  manufacturerSchema.pick({
    name: true,
    logoUrl: true,
    primaryColor: true,
    secondaryColor: true,
    providerCompatibility: true,
    assetNamingConvention: true,
    models: true,
    defaultModelMappings: true,
    defaultUpsellRules: true,
    defaultTrimPatterns: true,
  }),
  inputOf,
  { fieldOf, words: (field, issue) => nameRequired(field, issue.code) },
);

export function ManufacturerForm({ manufacturer, onClose }: { manufacturer: ManufacturerListItem | null; onClose: () => void }) {
  const save = useSaveManufacturer();
  const formId = useId();
  const form = useForm<Draft>({ initialValues: draftOf(manufacturer), validate, validateInputOnChange: true, validateInputOnBlur: true });
  const draft = form.values;
  const [tab, setTab] = useState<string | null>('details');
  /** Open model panels (by index); a newly added model opens at once. */
  const [openModels, setOpenModels] = useState<string[]>([]);
  /** 'Discard changes?' is open (a close was asked for with unsaved edits). */
  const [confirmingClose, setConfirmingClose] = useState(false);
  /** 'Fill mappings from models' is open. */
  const [filling, setFilling] = useState(false);
  const narrow = useMediaQuery('(max-width: 40em)');
  const set = (patch: Partial<Draft>) => form.setValues(patch);
  const modelNames = draft.models.map((m) => m.name).filter(Boolean);
  const dirty = form.isDirty();
  // Save is disabled while a changed form is invalid (a new, untouched one says what is missing on Save).
  const errorsNow = dirty ? validate(draft) : {};
  const invalid = Object.keys(errorsNow).length > 0;
  /** Why Save is disabled: the first invalid field, named as the user sees it. */
  const blocking = Object.keys(errorsNow)[0];
  /** The field Show asked for, until it has the focus. */
  const [revealing, setRevealing] = useState<string | null>(null);
  /** Brings a field into view: its tab, its model's panel when it is in a model, then the field itself (focused). */
  const showField = (field: string) => {
    setTab(tabOf(field));
    const model = /^models\.(\d+)/.exec(field)?.[1];
    if (model !== undefined && !openModels.includes(model)) setOpenModels([...openModels, model]);
    setRevealing(field);
  };
  // Focusing the field scrolls the drawer to it: a model's panel below the fold (Honda has 15)
  // was opened out of sight. The panel is display: none until its opening starts, so the focus
  // is tried on each frame until it takes (a field with no input of its own, such as a
  // default-map editor, gives up after about a second).
  const { getInputNode } = form;
  useEffect(() => {
    if (revealing === null) return;
    let frame = 0;
    let tries = 0;
    const tryFocus = () => {
      const node = getInputNode(revealing);
      node?.focus();
      if ((node && document.activeElement === node) || ++tries > 60) setRevealing(null);
      else frame = requestAnimationFrame(tryFocus);
    };
    tryFocus();
    return () => cancelAnimationFrame(frame);
  }, [revealing, getInputNode]);
  const prompt = useUnsavedChangesPrompt(dirty && !save.isPending);
  const errorOf = (field: string): ReactNode => form.errors[field] ?? errorsNow[field];
  /** Escape, the overlay, the close button and Cancel: ask first when there are unsaved edits. */
  const requestClose = () => (dirty && !save.isPending ? setConfirmingClose(true) : onClose());

  const setModel = (i: number, patch: Partial<VehicleModel>) => set({ models: draft.models.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const removeTrim = (mi: number, ti: number) => setModel(mi, { trims: draft.models[mi]!.trims.filter((_, j) => j !== ti) });

  const submit = (values: Draft) => {
    const input = inputOf(values);
    save.mutate(
      { id: manufacturer?.id ?? null, input },
      {
        onSuccess: ({ manufacturer: saved }) => {
          notifications.show({ color: 'teal', message: `${saved.name} saved` });
          onClose();
        },
        onError: (e) => {
          const fields = serverFormErrors(e, fieldOf, (issue) => nameRequired(fieldOf(issue.path), issue.code));
          form.setErrors(fields);
          const first = Object.keys(fields)[0];
          if (first) setTab(tabOf(first));
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
          {/* The header sticks while the drawer scrolls: Save and Cancel stay in view, where notifications never go. */}
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
              <Button type="submit" form={formId} loading={save.isPending} disabled={invalid}>
                {manufacturer ? 'Save Manufacturer' : 'Add Manufacturer'}
              </Button>
              <Drawer.CloseButton aria-label="Close" />
            </Group>
            {blocking && (
              <Group gap="xs" wrap="nowrap" role="status" style={{ flexBasis: '100%' }}>
                <Text size="sm" c="red.8" style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
                  Can&apos;t save yet: {manufacturerLabel(blocking)}: {errorsNow[blocking]}.
                </Text>
                <Button size="compact-sm" variant="subtle" onClick={() => showField(blocking)}>
                  Show
                </Button>
              </Group>
            )}
          </Drawer.Header>
          <Drawer.Body pt="md">
            {/* Enter in a field saves; the form's own messages, no browser bubbles. */}
            <form
              id={formId}
              noValidate
              onSubmit={form.onSubmit(
                (values) => {
                  if (!save.isPending) submit(values);
                },
                (errors) => showField(Object.keys(errors)[0] ?? 'name'),
              )}
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
                      <TextInput label="Name" required {...form.getInputProps('name')} />
                      <TextInput label="Logo URL" type="url" {...form.getInputProps('logoUrl')} />
                      <SimpleGrid cols={{ base: 1, xs: 2 }}>
                        <ColorInput label="Primary color" format="hex" eyeDropperButtonProps={{ 'aria-label': 'Pick primary from the screen' }} {...form.getInputProps('primaryColor')} />
                        <ColorInput label="Secondary color" format="hex" eyeDropperButtonProps={{ 'aria-label': 'Pick secondary from the screen' }} {...form.getInputProps('secondaryColor')} />
                      </SimpleGrid>
                      <MultiSelect
                        label="Provider compatibility"
                        data={PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))}
                        {...form.getInputProps('providerCompatibility')}
                      />
                      <TextInput label="Asset naming convention" placeholder="new_{year}_{manufacturer}_{model}_{trim}_{size}.{ext}" {...form.getInputProps('assetNamingConvention')} />
                    </Stack>
                  </Tabs.Panel>

                  <Tabs.Panel value="models">
                    <Stack>
                      {draft.models.length === 0 && <Text c="dimmed">No models yet. Add the first one.</Text>}
                      <EditorError error={errorOf('models')} />
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
                                  <TextInput label="Name (key)" {...form.getInputProps(`models.${i}.name`)} />
                                  <TextInput label="Display name" {...form.getInputProps(`models.${i}.displayName`)} />
                                  <Select label="Category" data={[...MODEL_CATEGORIES]} allowDeselect={false} {...form.getInputProps(`models.${i}.category`)} />
                                  <NumberInput label="MSRP from ($)" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," {...form.getInputProps(`models.${i}.msrp.min`)} />
                                  <NumberInput label="MSRP to ($)" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," {...form.getInputProps(`models.${i}.msrp.max`)} />
                                  <NumberInput label="Priority" allowDecimal={false} {...form.getInputProps(`models.${i}.priority`)} />
                                </SimpleGrid>
                                <TagsInput label="Upsell targets (best first)" data={modelNames.filter((n) => n !== m.name)} {...form.getInputProps(`models.${i}.upsellTargets`)} />
                                <Switch label="Active" {...form.getInputProps(`models.${i}.isActive`, { type: 'checkbox' })} />
                                {narrow ? (
                                  // Narrow screens: one card per trim instead of a six-column table.
                                  <Stack gap="xs">
                                    {m.trims.map((t, ti) => (
                                      <Paper key={`${t.id}-${ti}`} withBorder p="xs" radius="sm" data-testid="trim-card">
                                        <SimpleGrid cols={2} spacing="xs" verticalSpacing="xs">
                                          <TextInput size="xs" label="Trim name" aria-label="Trim name" {...form.getInputProps(`models.${i}.trims.${ti}.name`)} />
                                          <TextInput size="xs" label="Display name" aria-label="Trim display name" {...form.getInputProps(`models.${i}.trims.${ti}.displayName`)} />
                                          <NumberInput size="xs" label="MSRP ($)" aria-label="Trim MSRP" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," {...form.getInputProps(`models.${i}.trims.${ti}.msrp`)} />
                                          <NumberInput size="xs" label="Priority" aria-label="Trim priority" allowDecimal={false} {...form.getInputProps(`models.${i}.trims.${ti}.priority`)} />
                                        </SimpleGrid>
                                        <Group justify="space-between" mt="xs">
                                          <Checkbox size="xs" label="Popular" aria-label="Popular trim" {...form.getInputProps(`models.${i}.trims.${ti}.isPopular`, { type: 'checkbox' })} />
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
                                            <TextInput size="xs" aria-label="Trim name" {...form.getInputProps(`models.${i}.trims.${ti}.name`)} />
                                          </Table.Td>
                                          <Table.Td>
                                            <TextInput size="xs" aria-label="Trim display name" {...form.getInputProps(`models.${i}.trims.${ti}.displayName`)} />
                                          </Table.Td>
                                          <Table.Td>
                                            <NumberInput size="xs" aria-label="Trim MSRP" min={0} allowDecimal={false} allowNegative={false} thousandSeparator="," {...form.getInputProps(`models.${i}.trims.${ti}.msrp`)} />
                                          </Table.Td>
                                          <Table.Td>
                                            <Checkbox aria-label="Popular trim" {...form.getInputProps(`models.${i}.trims.${ti}.isPopular`, { type: 'checkbox' })} />
                                          </Table.Td>
                                          <Table.Td>
                                            <NumberInput size="xs" aria-label="Trim priority" w={70} allowDecimal={false} {...form.getInputProps(`models.${i}.trims.${ti}.priority`)} />
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
                      <Group justify="space-between" gap="xs" align="flex-end">
                        <Text size="sm" c="dimmed" style={{ flex: '1 1 220px' }}>
                          {modelNames.length === 0 ? 'Name models on the Models tab to fill their mappings at once.' : 'Map every model at once from a pattern, previewed before it is applied.'}
                        </Text>
                        <Button size="xs" variant="light" leftSection={<Wand2 size={14} />} disabled={modelNames.length === 0} onClick={() => setFilling(true)}>
                          Fill from models
                        </Button>
                      </Group>
                      <RowsEditor title="Default model mappings" keyLabel="Inventory model name" valueLabel="Standard model" rows={draft.mappings} valueOptions={modelNames} empty="None yet." addLabel="Add Row" onChange={(mappings) => set({ mappings })} />
                      <EditorError error={errorOf('mappings')} />
                      <RowsEditor title="Default upsell rules" keyLabel="Model" valueLabel="Upsell target" rows={draft.rules} valueOptions={modelNames} empty="None yet." addLabel="Add Row" onChange={(rules) => set({ rules })} />
                      <EditorError error={errorOf('rules')} />
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
                        <EditorError error={errorOf('patterns')} />
                      </Stack>
                    </Stack>
                  </Tabs.Panel>
                </Tabs>
              </Stack>
            </form>
          </Drawer.Body>
        </Drawer.Content>
      </Drawer.Root>
      {prompt}
      {filling && <MappingFillDialog opened onClose={() => setFilling(false)} rows={draft.mappings} models={draft.models} onApply={(mappings) => set({ mappings })} />}
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

/** The form's own labels of the top-level fields a server error may name. */
const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  logoUrl: 'Logo URL',
  primaryColor: 'Primary color',
  secondaryColor: 'Secondary color',
  providerCompatibility: 'Provider compatibility',
  assetNamingConvention: 'Asset naming convention',
  defaultModelMappings: 'Default model mappings',
  defaultUpsellRules: 'Default upsell rules',
  defaultTrimPatterns: 'Trim patterns',
};

/** The label of a manufacturer field a server error names ('logoUrl' -> 'Logo URL', 'models.0.trims.1.name' -> 'Model 1, trim 2, name'). */
function manufacturerLabel(path: string): string {
  const own = FIELD_LABELS[path.split('.')[0]!];
  if (own) return own;
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

