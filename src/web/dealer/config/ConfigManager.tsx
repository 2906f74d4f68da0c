/**
 * Configuration manager (/dealer/config; spec 02 §2, §4 Config editing, §5 Configuration, §9;
 * DECISIONS 2, 22-23): Model Mapping, Upsell Rules, Inventory Logic, Banner Sizes and Website (the
 * embed script's dataLayer events and what a slot without a creative does) tabs edited locally, 'Unsaved changes', 'Reset to {manufacturer} Defaults' and one all-or-nothing Save (the
 * form's submit: Enter in a field saves; the controls stay in view while the form scrolls).
 * A @mantine/form checked on every change against the shared domain schemas the server validates
 * with: Save is disabled while a field is invalid, a refused save marks the fields the server names
 * in the user's words, nothing the server decides is filled in here (an empty size or an unset
 * weight is left to the server), and leaving with unsaved changes asks first. The upsell rules
 * (Upsell Rules tab: the strategy in force and its rules) and the upsell priorities (inventory
 * weights, Inventory Logic tab; domain/priority-scale.ts) are shown read-only here with a link to
 * the one place they are edited, Upsell Rules; Reset still sets the rules to the manufacturer's and
 * the weights to 5 (spec 02 §4), and Save then sends them, and only then.
 */
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Alert, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Info, Plus, RotateCcw } from 'lucide-react';
import { enterWhileInvalid, SaveControls, StickyActionBar } from '../../components/SaveControls';
import { useUnsavedChangesPrompt } from '../../components/unsaved';
import { deferredValidator, showSaveErrors, summarizeFieldErrors, type FieldErrors } from '../../api/field-errors';
import type { BannerSizes, EmptySlotMode } from '../../../domain/schemas';
import { BANNER_SIZE_LABELS, BANNER_SLOTS, type BannerSlot } from '../../../domain/slots';
import { BANNER_SIZE_PRESETS, BANNER_SIZE_RANGES, TEXT } from '../../../domain/constants';
import { DEFAULT_WEIGHT } from '../../../domain/defaults';
import { useAuth, useCanEdit } from '../../components/auth';
import { EditorError, ErrorNotice } from '../../components/feedback';
import { ViewOnlyNotice } from '../../components/ViewOnlyNotice';
import { useModelNames } from '../api';
import { fetchDefaults, useConfigs, useSaveConfigs, useUpsellRules, type ConfigsView } from './api';
import { emptyRow, ownValue, standardModels, toRecord, toRows, type Row } from './draft';
import { PrioritiesReadOnly, RowsEditor, RulesReadOnly, UpsellRulesLink, WeightsRule } from './editors';

const WebsiteSettings = lazy(() => import('./WebsiteSettings'));

const SLOT_LABELS = BANNER_SIZE_LABELS;
const SLOTS = BANNER_SLOTS;

type Num = number | string;
type SizeValues = Record<BannerSlot, { width: Num; height: Num }>;

/** The form's values: rows for the maps, trims as typed (model -> comma-separated), weights as the API returned them, sizes as typed. */
interface Values {
  mappings: Row[];
  upsells: Row[];
  trims: Record<string, string>;
  inventoryWeights: Record<string, number>;
  bannerSizes: SizeValues;
  /** The embed script's pushes to the page's dataLayer (Google Tag Manager). */
  dataLayerEvents: boolean;
  /** A slot whose model has no creative: the placeholder or nothing. */
  emptySlots: EmptySlotMode;
}

function sizeValues(s: BannerSizes): SizeValues {
  return Object.fromEntries(SLOTS.map((k) => [k, { width: s[k].width, height: s[k].height }])) as SizeValues;
}

function valuesOf(c: Pick<ConfigsView, 'modelMap' | 'upsellMap' | 'trimPatterns' | 'inventoryWeights' | 'bannerSizes' | 'dataLayerEvents' | 'emptySlots'>): Values {
  return {
    mappings: toRows(c.modelMap),
    upsells: toRows(c.upsellMap),
    trims: Object.fromEntries(Object.entries(c.trimPatterns).map(([m, t]) => [m, t.join(', ')])),
    inventoryWeights: { ...c.inventoryWeights },
    bannerSizes: sizeValues(c.bannerSizes),
    dataLayerEvents: c.dataLayerEvents,
    emptySlots: c.emptySlots,
  };
}

/** A number as typed: undefined when empty (the server's default size applies). */
const typed = (v: Num): number | undefined => (typeof v === 'number' ? v : v.trim() === '' ? undefined : Number(v));

/** What Save sends for the form's values: the maps, trims and weights as edited, sizes as typed (no defaults filled in). */
function bodyOf(v: Values) {
  const trimPatterns = Object.fromEntries(
    Object.entries(v.trims)
      .map(([m, text]) => [m.trim(), text.split(',').map((t) => t.trim()).filter(Boolean)] as const)
      .filter(([m, list]) => m && list.length > 0),
  );
  return {
    modelMap: toRecord(v.mappings),
    upsellMap: toRecord(v.upsells),
    trimPatterns,
    inventoryWeights: v.inventoryWeights,
    bannerSizes: Object.fromEntries(SLOTS.map((slot) => [slot, { width: typed(v.bannerSizes[slot].width), height: typed(v.bannerSizes[slot].height) }])),
    dataLayerEvents: v.dataLayerEvents,
    emptySlots: v.emptySlots,
  };
}

/** The form field a body path is about: a map entry marks its editor, a size its own field. */
function fieldOf(path: string): string {
  const [root] = path.split('.');
  if (root === 'modelMap') return 'mappings';
  if (root === 'upsellMap') return 'upsells';
  if (root === 'trimPatterns') return 'trims';
  if (root === 'inventoryWeights') return 'inventoryWeights';
  return path;
}

const LABELS: Record<string, string> = {
  mappings: 'Model Mapping',
  upsells: 'Upsell Rules',
  trims: 'Trim Patterns',
  inventoryWeights: 'Upsell Priorities',
  ...Object.fromEntries(SLOTS.flatMap((slot) => (['width', 'height'] as const).map((dim) => [`bannerSizes.${slot}.${dim}`, `${SLOT_LABELS[slot]} ${dim}`]))),
};

/** A banner size out of its range, as its field's hint says it ('Must be 100-3000'); undefined for any other problem. */
function sizeRangeWords(field: string, issue: { code: string }): string | undefined {
  const [root, slot, dim] = field.split('.');
  if (root !== 'bannerSizes' || (issue.code !== 'too_big' && issue.code !== 'too_small')) return undefined;
  const range = BANNER_SIZE_RANGES[slot as BannerSlot]?.[dim as 'width' | 'height'];
  return range && `Must be ${range.min}-${range.max}`;
}

/** The editable configs as the server checks them (configs service: the same domain schemas), fetched after first paint. */
const { validate, useSchemaCheck, submitChecked } = deferredValidator<Values>(async () => {
  const { schemaValidator, configsSchema } = await import('./config-schemas');
  return schemaValidator<Values>(configsSchema, bodyOf, { fieldOf, words: sizeRangeWords });
});

/** The Configuration manager screen. */
export function ConfigManager() {
  const { user } = useAuth();
  const canEdit = useCanEdit();
  const dealerId = user?.dealerId ?? null;
  const configs = useConfigs(dealerId);
  const [tab, setTab] = useState<string | null>('mapping');
  // The form's check is fetched while the configs load; the form renders again when it is in.
  useSchemaCheck();

  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  if (configs.error) return <ErrorNotice message={configs.error.message} onRetry={() => void configs.refetch()} />;
  if (!configs.data) return <Text c="dimmed">Loading...</Text>;
  return <ConfigForm dealerId={dealerId} saved={configs.data} canEdit={canEdit} tab={tab} onTab={setTab} />;
}

/**
 * A tab's list of rows: `title` and `description` above `children` (the rows' editor), with an
 * "Add …" button (`addLabel`, calling `onAdd`, off while `addDisabled`) for those who can edit.
 */
function ListPanel(p: { title: string; description: string; canEdit: boolean; addLabel: string; onAdd: () => void; addDisabled?: boolean; children: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Group justify="space-between" mb="sm">
        <div>
          <Title order={4}>{p.title}</Title>
          <Text size="sm" c="dimmed">
            {p.description}
          </Text>
        </div>
        {p.canEdit && (
          <Button variant="light" leftSection={<Plus size={16} />} onClick={p.onAdd} disabled={p.addDisabled}>
            {p.addLabel}
          </Button>
        )}
      </Group>
      {p.children}
    </Paper>
  );
}

function ConfigForm({ dealerId, saved, canEdit, tab, onTab }: { dealerId: string; saved: ConfigsView; canEdit: boolean; tab: string | null; onTab: (t: string | null) => void }) {
  const save = useSaveConfigs(dealerId);
  const modelName = useModelNames(dealerId);
  const upsellRules = useUpsellRules(dealerId);
  const [resetting, setResetting] = useState(false);
  const form = useForm<Values>({ initialValues: valuesOf(saved), validate, validateInputOnChange: true, validateInputOnBlur: true });
  // What was typed before the check arrived is checked when it does.
  useSchemaCheck(form);
  // A new version from the server (this save, a refetch) starts the form again from what it stores.
  const [version, setVersion] = useState(saved.version);
  const startFrom = (c: ConfigsView) => {
    const next = valuesOf(c);
    form.setInitialValues(next);
    form.setValues(next);
    form.resetDirty(next);
  };
  if (saved.version !== version) {
    setVersion(saved.version);
    startFrom(saved);
  }
  const dirty = form.isDirty();
  // Checked on every render: row edits set whole lists, which the per-field check does not see.
  const errorsNow = dirty ? validate(form.values) : {};
  const invalid = Object.keys(errorsNow).length > 0;
  const prompt = useUnsavedChangesPrompt(dirty && canEdit);
  const draft = form.values;
  const models = standardModels(toRecord(draft.mappings));
  const set = (patch: Partial<Values>) => form.setValues(patch);
  const labelOf = (field: string) => LABELS[field];
  const refuse = (errors: FieldErrors) => notifications.show({ color: 'red', title: 'Not saved', message: summarizeFieldErrors(errors, labelOf) });

  // Upsell rules and priorities are edited on Upsell Rules (priorities also raised from Analytics):
  // this form sends them only when its Reset changed them, so a save here never writes back rules
  // or priorities it merely showed.
  const onSave = (v: Values) => {
    const { inventoryWeights, upsellMap, ...rest } = bodyOf(v);
    const body = { ...rest, ...(form.isDirty('upsells') ? { upsellMap } : {}), ...(form.isDirty('inventoryWeights') ? { inventoryWeights } : {}) };
    return save.mutate(body as Parameters<typeof save.mutate>[0], {
      // A save that changes nothing keeps dealers.version (the database bumps it on real changes
      // only), so the form starts again from the answer itself, e.g. an emptied size's default.
      onSuccess: (data) => {
        startFrom(data);
        notifications.show({ color: 'teal', message: 'Configuration saved' });
      },
      onError: (e) => showSaveErrors(form, e, fieldOf, labelOf),
    });
  };

  const onReset = async () => {
    setResetting(true);
    try {
      // The manufacturer has no defaults for the website settings: they stay as they are.
      form.setValues(valuesOf({ ...(await fetchDefaults(dealerId)), dataLayerEvents: form.values.dataLayerEvents, emptySlots: form.values.emptySlots }));
    } catch (e) {
      notifications.show({ color: 'red', title: 'Reset failed', message: e instanceof Error ? e.message : 'Unknown error' });
    } finally {
      setResetting(false);
    }
  };

  const editorError = (field: 'mappings' | 'upsells' | 'trims' | 'inventoryWeights') => <EditorError error={form.errors[field] ?? errorsNow[field]} mt="xs" />;

  return (
    // One form: Enter in any field saves; the save controls stay in view while it scrolls.
    <form
      noValidate
      aria-label="Configuration"
      onKeyDown={enterWhileInvalid(canEdit && dirty && invalid, () => refuse(form.validate().errors as FieldErrors))}
      onSubmit={submitChecked(form.onSubmit(
        (v) => {
          if (canEdit && dirty && !save.isPending) onSave(v);
        },
        (errors) => refuse(errors as FieldErrors),
      ))}
    >
      {prompt}
      <Stack gap="lg">
        <div>
          <Title order={2}>Configuration</Title>
          <Text c="dimmed">Model mappings, upsell rules, inventory weights, banner sizes and website settings for {saved.manufacturer.name}.</Text>
        </div>
        {!canEdit && <ViewOnlyNotice action="change the configuration" />}
        <StickyActionBar>
          <SaveControls dirty={dirty} saving={save.isPending} canEdit={canEdit} invalid={invalid}>
            {canEdit && (
              <Button variant="default" leftSection={<RotateCcw size={16} />} onClick={onReset} loading={resetting}>
                Reset to {saved.manufacturer.name} Defaults
              </Button>
            )}
          </SaveControls>
        </StickyActionBar>

        <Tabs value={tab} onChange={onTab} keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="mapping">Model Mapping</Tabs.Tab>
            <Tabs.Tab value="upsell">Upsell Rules</Tabs.Tab>
            <Tabs.Tab value="inventory">Inventory Logic</Tabs.Tab>
            <Tabs.Tab value="sizes">Banner Sizes</Tabs.Tab>
            <Tabs.Tab value="website">Website</Tabs.Tab>
          </Tabs.List>

          <Tabs.Panel value="mapping" pt="md">
            <ListPanel title="Model Mapping" description="Inventory model name (as your feed or website writes it) to the standard model name." canEdit={canEdit} addLabel="Add Mapping" onAdd={() => set({ mappings: [...draft.mappings, emptyRow()] })}>
              <RowsEditor
                rows={draft.mappings}
                onChange={(mappings) => set({ mappings })}
                canEdit={canEdit}
                keyLabel="Inventory model"
                valueLabel="Standard model"
                valueHint={(v) => (v.trim() && modelName(v.trim()) !== v.trim() ? modelName(v.trim()) : null)}
                empty='No model mappings defined. Click "Add Mapping" to get started.'
              />
              {editorError('mappings')}
            </ListPanel>
          </Tabs.Panel>

          <Tabs.Panel value="upsell" pt="md">
            <Paper withBorder p="lg" radius="md">
              <Group justify="space-between" mb="xs" gap="xs">
                <Title order={4}>Upsell Rules</Title>
                <UpsellRulesLink canEdit={canEdit} />
              </Group>
              <Text size="sm" c="dimmed" mb="md">
                Which model the upsell banner promotes next to each model. The strategy, its rules and the upsell priorities are set in one place, Upsell Rules.
              </Text>
              {form.isDirty('upsells') && (
                <Alert color="blue" icon={<Info size={18} />} mb="md" data-testid="rules-reset-pending">
                  Reset puts {saved.manufacturer.name}'s recommended upsell rules back under Manufacturer Defaults when you save.
                </Alert>
              )}
              {upsellRules.error ? (
                <ErrorNotice message={upsellRules.error.message} onRetry={() => void upsellRules.refetch()} />
              ) : !upsellRules.data ? (
                <Text c="dimmed">Loading...</Text>
              ) : (
                <RulesReadOnly strategy={upsellRules.data.strategy} rules={upsellRules.data.active} label={modelName} />
              )}
              {editorError('upsells')}
            </Paper>
          </Tabs.Panel>

          <Tabs.Panel value="inventory" pt="md">
            <Stack>
              <Paper withBorder p="lg" radius="md">
                <Group justify="space-between" mb="xs" gap="xs">
                  <Title order={4}>Upsell Priorities (inventory weights)</Title>
                  <UpsellRulesLink canEdit={canEdit} />
                </Group>
                <WeightsRule mb="md" />
                {models.length === 0 ? (
                  <Text c="dimmed">{TEXT.noModelsAvailable}</Text>
                ) : (
                  <PrioritiesReadOnly models={models} label={modelName} value={(m) => ownValue(draft.inventoryWeights, m) ?? DEFAULT_WEIGHT} />
                )}
                {editorError('inventoryWeights')}
              </Paper>
              <Paper withBorder p="lg" radius="md">
                <Title order={4}>Trim Patterns</Title>
                <Text size="sm" c="dimmed" mb="md">
                  Each model's trim ladder, entry trim first, separated by commas.
                </Text>
                {models.length === 0 ? (
                  <Text c="dimmed">{TEXT.noModelsAvailable}</Text>
                ) : (
                  <SimpleGrid cols={{ base: 1, md: 2 }}>
                    {models.map((m) => (
                      <TextInput
                        key={m}
                        label={modelName(m)}
                        value={ownValue(draft.trims, m) ?? ''}
                        disabled={!canEdit}
                        onChange={(e) => set({ trims: { ...draft.trims, [m]: e.currentTarget.value } })}
                      />
                    ))}
                  </SimpleGrid>
                )}
                {editorError('trims')}
              </Paper>
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="sizes" pt="md">
            <Paper withBorder p="lg" radius="md">
              <Group justify="space-between" mb="sm" align="flex-start">
                <div>
                  <Title order={4}>Banner Sizes</Title>
                  <Text size="sm" c="dimmed">
                    Pixel sizes of the four banner slots. An empty or non-numeric entry falls back to the default.
                  </Text>
                </div>
                {canEdit && (
                  <Group gap="xs">
                    {(Object.keys(BANNER_SIZE_PRESETS) as Array<keyof typeof BANNER_SIZE_PRESETS>).map((p) => (
                      <Button key={p} size="xs" variant="light" onClick={() => set({ bannerSizes: sizeValues(BANNER_SIZE_PRESETS[p]) })}>
                        {p}
                      </Button>
                    ))}
                  </Group>
                )}
              </Group>
              <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
                {SLOTS.map((slot) => (
                  <Paper key={slot} withBorder p="md" radius="md" bg="gray.0">
                    <Text fw={600} mb="xs">
                      {SLOT_LABELS[slot]}
                    </Text>
                    <Group grow>
                      {(['width', 'height'] as const).map((dim) => {
                        const r = BANNER_SIZE_RANGES[slot][dim];
                        return (
                          <NumberInput
                            key={dim}
                            label={`${dim === 'width' ? 'Width' : 'Height'} (${r.min}-${r.max})`}
                            aria-label={`${SLOT_LABELS[slot]} ${dim}`}
                            allowDecimal={false}
                            allowNegative={false}
                            suffix=" px"
                            disabled={!canEdit}
                            {...form.getInputProps(`bannerSizes.${slot}.${dim}`)}
                          />
                        );
                      })}
                    </Group>
                  </Paper>
                ))}
              </SimpleGrid>
            </Paper>
          </Tabs.Panel>

          <Tabs.Panel value="website" pt="md">
            {/* Its own chunk, fetched when the tab opens: the screen's first load stays within its budget. */}
            <Suspense fallback={<Text c="dimmed">Loading...</Text>}>
              <WebsiteSettings canEdit={canEdit} dataLayerEvents={form.getInputProps('dataLayerEvents', { type: 'checkbox' })} emptySlots={form.getInputProps('emptySlots')} />
            </Suspense>
          </Tabs.Panel>
        </Tabs>
      </Stack>
    </form>
  );
}
