/**
 * Upsell rules (/dealer/upsells; spec 02 §2 Upsell rule management panel, §4 Upsell strategy, §8-§9;
 * DECISIONS 22): strategy cards, inventory data card, the upsell priorities (the spec's inventory
 * weights grid, the one place they are edited; domain/priority-scale.ts) with each model's stock
 * priority, 'Use stock priorities' and 'Reset to Neutral', the dealer's rules under Manufacturer
 * Defaults (spec 02 §3 upsellMap) and the custom rules editor (the one place upsell rules are
 * edited: Configuration shows them read-only), the rules the chosen strategy puts in force
 * (domain/upsell.ts activeUpsellRules), help, 'Unsaved changes' and Save.
 * A @mantine/form checked against the shared domain schemas (Save disabled while invalid, server
 * refusals marked in the user's words, unset weights left to the server; leaving with unsaved
 * changes asks first). Models are shown by their catalogue display names; choosing
 * Inventory Optimized without inventory data explains why and offers the Inventory page; a viewer
 * is told the page is view-only.
 */
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { Alert, Badge, Button, Group, List, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title, UnstyledButton } from '@mantine/core';
import { Modal } from '../../components/deferred';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { ArrowRight, Boxes, Factory, Info, Plus, RotateCcw, SlidersHorizontal } from 'lucide-react';
import { SaveControls, StickyActionBar } from '../../components/SaveControls';
import { useUnsavedChangesPrompt } from '../../components/unsaved';
import { Figure } from '../../components/metrics';
import { deferredValidator, showSaveErrors } from '../../api/field-errors';
import type { UpsellStrategy } from '../../../domain/enums';
import type { UpsellRulesView } from '../../../domain/configs';
import { TEXT } from '../../../domain/constants';
import { DEFAULT_WEIGHT } from '../../../domain/defaults';
import { activeUpsellRules, isHigherTrimRule } from '../../../domain/upsell';
import { modelKey } from '../../../domain/model-keys';
import { priorityFromStock } from '../../../domain/priority-scale';
import { useInventory } from '../inventory/api';
import { useAuth, useCanEdit } from '../../components/auth';
import { EditorError, ErrorNotice } from '../../components/feedback';
import { ViewOnlyNotice } from '../../components/ViewOnlyNotice';
import { useModelNames } from '../api';
import { useConfigs, useSaveConfigs, useUpsellRules, type ConfigsView } from './api';
import { emptyRow, ownValue, standardModels, toRecord, toRows, type Row } from './draft';
import { STRATEGY_TITLES, UpsellRowsEditor, WeightSlider, WeightsRule } from './editors';

const STRATEGIES: Array<{ value: UpsellStrategy; title: string; description: string; icon: typeof Factory }> = [
  { value: 'manufacturer', title: STRATEGY_TITLES.manufacturer, description: "Use the manufacturer's recommended upsell paths.", icon: Factory },
  { value: 'inventory', title: STRATEGY_TITLES.inventory, description: 'Rules generated from your current inventory: push what is in stock.', icon: Boxes },
  { value: 'custom', title: STRATEGY_TITLES.custom, description: 'Define your own upsell path for each model.', icon: SlidersHorizontal },
];

/**
 * The rule set each strategy edits here: Manufacturer Defaults edits the dealer's own paths
 * (upsellMap; the manufacturer's apply without them), Custom Rules the custom rules; Inventory
 * Optimized generates its rules and edits none.
 */
const RULE_SETS: Record<'manufacturer' | 'custom', { field: 'upsells' | 'custom'; title: string; description?: (manufacturer: string) => string; empty: (canEdit: boolean) => string }> = {
  manufacturer: {
    field: 'upsells',
    title: 'Manufacturer Rules',
    description: (manufacturer) => `Your upsell path for each model under Manufacturer Defaults. With no rules here, ${manufacturer}'s recommended paths apply.`,
    empty: (canEdit) => (canEdit ? 'No upsell rules defined. Click "Add Rule" to get started.' : 'No upsell rules defined.'),
  },
  custom: { field: 'custom', title: 'Custom Rules', empty: () => 'No custom rules defined. Click "Add Rule" to get started.' },
};

/**
 * The form's values: the strategy, the dealer's Manufacturer Defaults rules (upsellMap) and the
 * custom rules as rows, and the weights as the API returned them.
 */
interface Values {
  customUpsellLogic: UpsellStrategy;
  upsells: Row[];
  custom: Row[];
  inventoryWeights: Record<string, number>;
}

function valuesOf(c: ConfigsView): Values {
  return { customUpsellLogic: c.customUpsellLogic, upsells: toRows(c.upsellMap), custom: toRows(c.customUpsellRules), inventoryWeights: { ...c.inventoryWeights } };
}

/** What Save sends: the strategy, both rule sets and the weights as edited (an unset weight is left to the server). */
function bodyOf(v: Values) {
  return { customUpsellLogic: v.customUpsellLogic, upsellMap: toRecord(v.upsells), customUpsellRules: toRecord(v.custom), inventoryWeights: v.inventoryWeights };
}

const fieldOf = (path: string) => (path.startsWith('customUpsellRules') ? 'custom' : path.startsWith('upsellMap') ? 'upsells' : path.split('.')[0]!);
const LABELS: Record<string, string> = { customUpsellLogic: 'Strategy', upsells: 'Manufacturer Rules', custom: 'Custom Rules', inventoryWeights: 'Upsell Priorities' };
const labelOf = (field: string) => LABELS[field];

/** The upsell settings as the server checks them (the shared domain schemas), fetched after first paint. */
const { validate, useSchemaCheck, submitChecked } = deferredValidator<Values>(async () => {
  const { schemaValidator, upsellSettingsSchema } = await import('./config-schemas');
  return schemaValidator<Values>(upsellSettingsSchema, bodyOf, { fieldOf });
});

/**
 * One editable rule set of the screen (Manufacturer Rules, Custom Rules): its title and what it
 * is, 'Load Manufacturer Defaults' (replaces the rows with `defaults`, model to model) and 'Add
 * Rule' for a user who may edit, the rows editor over `models` (shown by `optionLabel`), `empty`
 * when there are no rows, and the set's problem `error`. `onChange` gets the set's new rows.
 */
function RulesPanel({
  title,
  description,
  rows,
  onChange,
  defaults,
  models,
  optionLabel,
  canEdit,
  empty,
  error,
}: {
  title: string;
  description?: string;
  rows: Row[];
  onChange: (rows: Row[]) => void;
  defaults: Record<string, string>;
  models: string[];
  optionLabel: (model: string) => string;
  canEdit: boolean;
  empty: string;
  error: ReactNode;
}) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Group justify="space-between" mb="sm">
        <div>
          <Title order={4}>{title}</Title>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </div>
        {canEdit && (
          <Group gap="xs">
            <Button variant="default" onClick={() => onChange(toRows(defaults))}>
              Load Manufacturer Defaults
            </Button>
            <Button variant="light" leftSection={<Plus size={16} />} onClick={() => onChange([...rows, emptyRow()])} disabled={models.length === 0}>
              Add Rule
            </Button>
          </Group>
        )}
      </Group>
      <UpsellRowsEditor rows={rows} onChange={onChange} canEdit={canEdit} models={models} optionLabel={optionLabel} empty={empty} />
      <EditorError error={error} mt="xs" />
    </Paper>
  );
}

/** The Upsell rules screen. */
export function UpsellRules() {
  const { user } = useAuth();
  const canEdit = useCanEdit();
  const dealerId = user?.dealerId ?? null;
  const configs = useConfigs(dealerId);
  const upsells = useUpsellRules(dealerId);
  // The form's check is fetched while the settings load; the form renders again when it is in.
  useSchemaCheck();

  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  if (configs.error || upsells.error) return <ErrorNotice message={(configs.error ?? upsells.error)!.message} />;
  if (!configs.data || !upsells.data) return <Text c="dimmed">Loading...</Text>;
  return <UpsellForm dealerId={dealerId} saved={configs.data} view={upsells.data} canEdit={canEdit} />;
}

function UpsellForm({ dealerId, saved, view, canEdit }: { dealerId: string; saved: ConfigsView; view: UpsellRulesView; canEdit: boolean }) {
  const navigate = useNavigate();
  const save = useSaveConfigs(dealerId);
  const modelName = useModelNames(dealerId);
  const stored = useInventory(dealerId);
  // Inventory Optimized chosen before any inventory exists: say why it cannot be used yet.
  const [needsInventory, setNeedsInventory] = useState(false);
  const form = useForm<Values>({ initialValues: valuesOf(saved), validate });
  // A new version from the server (this save, a refetch) starts the form again from what it stores.
  const [version, setVersion] = useState(saved.version);
  if (saved.version !== version) {
    setVersion(saved.version);
    const next = valuesOf(saved);
    form.setInitialValues(next);
    form.setValues(next);
    form.resetDirty(next);
  }
  const dirty = form.isDirty();
  const errorsNow = dirty ? validate(form.values) : {};
  const invalid = Object.keys(errorsNow).length > 0;
  const prompt = useUnsavedChangesPrompt(dirty && canEdit);

  const models = standardModels(saved.modelMap);
  const draft = form.values;
  const payload = bodyOf(draft);
  const set = (patch: Partial<Values>) => form.setValues(patch);
  const inventory = view.inventory;
  // Each model's stock priority (the inventory score, same scale), shown beside its slider.
  const stock = Object.fromEntries((stored.data?.models ?? []).map((m) => [m.key, m.priorityScore]));
  const stockOf = (m: string) => Object.entries(stock).find(([k]) => modelKey(k) === modelKey(m))?.[1];

  const choose = (s: UpsellStrategy) => {
    if (s === 'inventory' && !inventory) {
      setNeedsInventory(true);
      return;
    }
    set({ customUpsellLogic: s });
  };

  const onSave = () =>
    save.mutate(payload, {
      onSuccess: () => notifications.show({ color: 'teal', message: 'Upsell rules saved' }),
      onError: (e) => showSaveErrors(form, e, fieldOf, labelOf),
    });
  const ruleSet = draft.customUpsellLogic === 'inventory' ? null : RULE_SETS[draft.customUpsellLogic];
  const weightsError = form.errors.inventoryWeights ?? errorsNow.inventoryWeights;

  // The rules the chosen strategy puts in force, by the rule delivery uses, from the rules being edited.
  const activeRules = activeUpsellRules(draft.customUpsellLogic, {
    manufacturerRules: view.manufacturerDefaults,
    dealerUpsellMap: payload.upsellMap,
    customRules: payload.customUpsellRules,
    inventoryRules: view.rules.inventory,
  });
  const activeEntries = Object.entries(activeRules);

  return (
    // One form: Enter in any field saves; the save controls stay in view while it scrolls.
    <form
      noValidate
      aria-label="Upsell rules"
      onSubmit={submitChecked((e) => {
        e?.preventDefault();
        // Checked again here: a save asked for before the check arrived waited for it.
        if (canEdit && dirty && Object.keys(validate(form.values)).length === 0 && !save.isPending) onSave();
      })}
    >
      {prompt}
      <Modal opened={needsInventory} onClose={() => setNeedsInventory(false)} title="Inventory data needed" centered>
        <Stack gap="md">
          <Text size="sm">
            Inventory Optimized builds its upsell rules from your current inventory, and no inventory data has been uploaded yet. Upload an inventory file or set up an
            automatic feed on the Inventory page, then choose Inventory Optimized again.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setNeedsInventory(false)}>
              Cancel
            </Button>
            {/* Leaving with unsaved changes still asks first (the unsaved-changes prompt). */}
            <Button leftSection={<Boxes size={16} />} onClick={() => navigate('/dealer/inventory')}>
              Go to Inventory
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Stack gap="lg">
        <div>
          <Title order={2}>Upsell Rules</Title>
          <Text c="dimmed">Choose which model the upsell banner promotes next to each model.</Text>
        </div>
        {!canEdit && <ViewOnlyNotice action="change the upsell strategy, rules or priorities" />}
        <StickyActionBar>
          <SaveControls dirty={dirty} saving={save.isPending} canEdit={canEdit} invalid={invalid} />
        </StickyActionBar>

        <SimpleGrid cols={{ base: 1, md: 3 }}>
          {STRATEGIES.map((s) => {
            const selected = draft.customUpsellLogic === s.value;
            return (
              <UnstyledButton key={s.value} onClick={() => choose(s.value)} disabled={!canEdit} aria-pressed={selected} data-testid={`strategy-${s.value}`}>
                <Paper withBorder p="lg" radius="md" h="100%" style={{ borderColor: selected ? 'var(--mantine-color-blue-6)' : undefined, borderWidth: selected ? 2 : 1 }} bg={selected ? 'blue.0' : undefined}>
                  <Group gap="sm" mb="xs">
                    <ThemeIcon variant={selected ? 'filled' : 'light'} size="lg">
                      <s.icon size={18} />
                    </ThemeIcon>
                    <Text fw={600}>{s.title}</Text>
                    {selected && <Badge size="sm">Selected</Badge>}
                  </Group>
                  <Text size="sm" c="dimmed">
                    {s.description}
                  </Text>
                </Paper>
              </UnstyledButton>
            );
          })}
        </SimpleGrid>

        {draft.customUpsellLogic === 'inventory' && (
          <Paper withBorder p="lg" radius="md">
            <Title order={4} mb="sm">
              Inventory Data
            </Title>
            {inventory ? (
              <SimpleGrid cols={{ base: 2, md: 5 }}>
                <Figure label="Total units" value={inventory.totalUnits} />
                <Figure label="Models" value={inventory.modelCount} />
                <Figure label="Aged units" value={inventory.agedUnits} />
                <Figure label="Avg days on lot" value={Math.round(inventory.avgDaysOnLot)} />
                <Figure label="Last updated" value={inventory.lastUpdated ? new Date(inventory.lastUpdated).toLocaleString() : '--'} />
              </SimpleGrid>
            ) : (
              <Text c="dimmed">No inventory data uploaded</Text>
            )}
          </Paper>
        )}

        {draft.customUpsellLogic !== 'custom' && (
          <Paper withBorder p="lg" radius="md">
            <Group justify="space-between" mb="md">
              <div>
                <Title order={4}>Upsell Priorities (inventory weights)</Title>
                <WeightsRule />
              </div>
              {canEdit && (
                <Group gap="xs">
                  {Object.keys(stock).length > 0 && (
                    <Button
                      variant="default"
                      leftSection={<Boxes size={16} />}
                      onClick={() => set({ inventoryWeights: priorityFromStock(models, stock, draft.inventoryWeights, (a, b) => modelKey(a) === modelKey(b), DEFAULT_WEIGHT) })}
                    >
                      Use stock priorities
                    </Button>
                  )}
                  <Button variant="default" leftSection={<RotateCcw size={16} />} onClick={() => set({ inventoryWeights: Object.fromEntries(models.map((m) => [m, DEFAULT_WEIGHT])) })}>
                    Reset to Neutral
                  </Button>
                </Group>
              )}
            </Group>
            {models.length === 0 ? (
              <Text c="dimmed">{TEXT.noModelsAvailable}</Text>
            ) : (
              <SimpleGrid cols={{ base: 1, md: 3 }} spacing="lg">
                {models.map((m) => (
                  <WeightSlider
                    key={m}
                    model={m}
                    label={modelName(m)}
                    value={ownValue(draft.inventoryWeights, m) ?? DEFAULT_WEIGHT}
                    stock={stockOf(m)}
                    disabled={!canEdit}
                    onChange={(v) => set({ inventoryWeights: { ...draft.inventoryWeights, [m]: v } })}
                  />
                ))}
              </SimpleGrid>
            )}
            <EditorError error={weightsError} mt="xs" />
          </Paper>
        )}

        {ruleSet && (
          <RulesPanel
            key={ruleSet.field}
            title={ruleSet.title}
            description={ruleSet.description?.(saved.manufacturer.name)}
            rows={draft[ruleSet.field]}
            onChange={(rows) => set(ruleSet.field === 'upsells' ? { upsells: rows } : { custom: rows })}
            defaults={view.manufacturerDefaults}
            models={models}
            optionLabel={modelName}
            canEdit={canEdit}
            empty={ruleSet.empty(canEdit)}
            error={form.errors[ruleSet.field] ?? errorsNow[ruleSet.field]}
          />
        )}

        <Paper withBorder p="lg" radius="md">
          <Title order={4} mb="sm">
            Active Rules
          </Title>
          {activeEntries.length === 0 ? (
            <Text c="dimmed">{draft.customUpsellLogic === 'inventory' ? 'No upsell rules available. Upload inventory data to generate rules.' : 'Configure rules above.'}</Text>
          ) : (
            <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="xs" data-testid="active-rules">
              {activeEntries.map(([source, target]) => (
                <Group key={source} gap="xs" wrap="nowrap">
                  <Badge variant="outline" tt="none">
                    {modelName(source)}
                  </Badge>
                  <ArrowRight size={14} />
                  {isHigherTrimRule(source, target) ? (
                    <Badge color="grape">Higher Trim</Badge>
                  ) : (
                    <Badge tt="none">{modelName(target)}</Badge>
                  )}
                </Group>
              ))}
            </SimpleGrid>
          )}
        </Paper>

        <Alert icon={<Info size={18} />} color="blue" title="How Upsell Rules Work">
          <List size="sm" spacing={4}>
            <List.Item>When a shopper views a model, the upsell banner shows one of its upsell candidates: the target its rule points to and, with Manufacturer Defaults, the manufacturer's other suggested targets for it.</List.Item>
            <List.Item>Among several candidates the higher upsell priority wins, so a Low Priority model (1-3) never shows while a Normal (4-7) or High Priority (8-10) one is a candidate. On equal priorities the rule's target wins, then the higher stock priority, then catalog order.</List.Item>
            <List.Item>Stock priority is the same 1-10 scale computed from your inventory (units, aged share, days on lot). Use stock priorities copies it into the upsell priorities; Analytics and Inventory can raise one model a band.</List.Item>
            <List.Item>Manufacturer Defaults use the manufacturer's recommended paths; Custom Rules use yours exactly as written (priorities do not apply).</List.Item>
            <List.Item>Inventory Optimized picks targets you have in depth: a higher trim when you stock it well, else the highest-priority model with at least 5 units, 2 trims and under 60% aged units.</List.Item>
            <List.Item>A rule whose target is the same model is labeled Higher Trim. Banner Preview shows the candidates weighed for any model.</List.Item>
          </List>
        </Alert>
      </Stack>
    </form>
  );
}
