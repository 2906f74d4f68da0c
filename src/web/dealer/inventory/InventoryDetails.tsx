/**
 * The parts of an inventory the screen shows, for both a parsed file's preview and the stored
 * inventory (spec 02 §2 Inventory "totals, per-model breakdown, priority groups, marketing
 * insights"; §9 priority score, aged = 60+ days; DECISIONS 22 group labels). The score is the
 * model's stock priority on the one priority scale (domain/priority-scale.ts), written like the
 * upsell priority beside it; the upsell priority is shown here read-only and edited on Upsell Rules.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Anchor, Badge, Group, Paper, SimpleGrid, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import { ArrowRight, Clock, Layers, TrendingUp, type LucideIcon } from 'lucide-react';
import type { InventoryView } from '../../../domain/inventory';
import { AGED_DAYS } from '../../../domain/constants';
import { isHigherTrimRule } from '../../../domain/upsell';
import { plural } from '../../../domain/metrics';
import { DEFAULT_WEIGHT } from '../../../domain/defaults';
import { modelKey } from '../../../domain/model-keys';
import { priorityColor } from '../../../domain/priority-scale';
import { PriorityBadge } from '../../components/PriorityBadge';


function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={24} fw={700} data-testid={`stat-${label}`}>
        {value}
      </Text>
    </Paper>
  );
}

/**
 * One insight panel: `title` beside its coloured `icon`, then `children`, or the dimmed `emptyText`
 * when there is nothing to list (`isEmpty`).
 */
function InsightPanel({ icon: Icon, color, title, isEmpty, emptyText, children }: { icon: LucideIcon; color: string; title: string; isEmpty: boolean; emptyText: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="lg">
      <Group gap="xs" mb="sm">
        <ThemeIcon variant="light" color={color}>
          <Icon size={16} />
        </ThemeIcon>
        <Title order={5}>{title}</Title>
      </Group>
      {isEmpty ? (
        <Text size="sm" c="dimmed">
          {emptyText}
        </Text>
      ) : (
        children
      )}
    </Paper>
  );
}

/** Top trims of a model, most units first, e.g. "Sport (6), EX (5), LX (3)". */
function topTrims(trims: Record<string, number>, n = 3): string {
  const sorted = Object.entries(trims).sort((a, b) => b[1] - a[1]);
  const shown = sorted.slice(0, n).map(([t, c]) => `${t} (${c})`).join(', ');
  return sorted.length > n ? `${shown} +${sorted.length - n}` : shown;
}

/**
 * Totals, per-model breakdown, priority groups, marketing insights and the generated upsell rules.
 * A model is shown by `modelName` (the catalogue's display name); one the catalogue does
 * not hold as the file first wrote it.
 */
export function InventoryDetails({
  view,
  modelName = (m) => m,
  pushAction,
  upsellPriorities,
}: {
  view: InventoryView;
  modelName?: (model: string) => string;
  /** The action beside each aged model of the stored inventory ('Raise upsell priority'); none for a preview. */
  pushAction?: (model: { key: string; name: string }) => ReactNode;
  /** The dealer's upsell priorities (standard model -> 1..10), shown read-only beside the stock priority; none for a preview. */
  upsellPriorities?: Record<string, number>;
}) {
  const upsellOf = (key: string) => (upsellPriorities ? (Object.entries(upsellPriorities).find(([m]) => modelKey(m) === modelKey(key))?.[1] ?? DEFAULT_WEIGHT) : null);
  const { summary, models, priorityGroups, insights, upsellRules } = view;
  const name = (key: string) => {
    const shown = modelName(key);
    return shown !== key ? shown : (models.find((m) => m.key === key)?.model ?? key);
  };
  const rules = Object.entries(upsellRules);
  return (
    <Stack gap="lg">
      <SimpleGrid cols={{ base: 2, md: 4 }}>
        <Stat label="Total units" value={summary.totalUnits} />
        <Stat label="Models" value={summary.modelCount} />
        <Stat label={`Aged units (${AGED_DAYS}+ days)`} value={summary.agedUnits} />
        <Stat label="Avg days on lot" value={summary.avgDaysOnLot} />
      </SimpleGrid>

      <Paper withBorder radius="md" p="lg">
        <Group justify="space-between" mb="sm" gap="xs">
          <Title order={4}>Model Breakdown</Title>
          {upsellPriorities && (
            <Text size="xs" c="dimmed">
              Stock priority: what the stock suggests. Upsell priority: yours, on the same 1-10 scale,{' '}
              <Anchor component={Link} to="/dealer/upsells" size="xs" underline="always">
                set on Upsell Rules
              </Anchor>
            </Text>
          )}
        </Group>
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover verticalSpacing="xs" data-testid="model-breakdown">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Model</Table.Th>
                <Table.Th ta="right">Units</Table.Th>
                <Table.Th ta="right">Aged</Table.Th>
                <Table.Th ta="right">Avg days</Table.Th>
                <Table.Th>Trims</Table.Th>
                <Table.Th ta="right">Stock priority</Table.Th>
                {upsellPriorities && <Table.Th ta="right">Upsell priority</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {models.map((m) => (
                <Table.Tr key={m.key} data-model={m.key}>
                  <Table.Td fw={600}>{name(m.key)}</Table.Td>
                  <Table.Td ta="right">{m.totalUnits}</Table.Td>
                  <Table.Td ta="right">{m.agedUnits}</Table.Td>
                  <Table.Td ta="right">{m.avgDaysOnLot}</Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed">
                      {topTrims(m.trims)}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right">
                    <PriorityBadge value={m.priorityScore} testId={`score-${m.key}`} />
                  </Table.Td>
                  {upsellPriorities && (
                    <Table.Td ta="right">
                      <PriorityBadge value={upsellOf(m.key)!} testId={`upsell-${m.key}`} />
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>

      <SimpleGrid cols={{ base: 1, md: 3 }}>
        {priorityGroups.map((g) => (
          <Paper key={g.label} withBorder radius="md" p="md" data-testid={`group-${g.label}`}>
            <Group justify="space-between" mb="xs">
              <Text fw={600}>{g.label}</Text>
              <Text size="xs" c="dimmed">
                stock priority {g.min}-{g.max}
              </Text>
            </Group>
            {g.models.length === 0 ? (
              <Text size="sm" c="dimmed">
                No models
              </Text>
            ) : (
              <Group gap={6}>
                {g.models.map((k) => (
                  <Badge key={k} color={priorityColor(g.min)} variant="light" tt="none">
                    {name(k)}
                  </Badge>
                ))}
              </Group>
            )}
          </Paper>
        ))}
      </SimpleGrid>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <InsightPanel icon={Clock} color="orange" title="Aged inventory to push" isEmpty={insights.agedModels.length === 0} emptyText={<>No aged units: nothing has been on the lot {AGED_DAYS} days or more.</>}>
          <Stack gap={4} data-testid="aged-models">
            {insights.agedModels.map((m) => (
              <Group key={m.key} justify="space-between" gap="xs" wrap="nowrap">
                <Text size="sm">
                  <b>{name(m.key)}</b>: {m.agedUnits} of {plural(m.totalUnits, 'unit')} aged ({Math.round(m.agedShare * 100)}%)
                </Text>
                {pushAction?.({ key: m.key, name: name(m.key) })}
              </Group>
            ))}
            {pushAction && (
              <Anchor component={Link} to="/dealer/analytics" size="xs" mt={4}>
                Compare their banner figures in Analytics
              </Anchor>
            )}
          </Stack>
        </InsightPanel>
        <InsightPanel icon={Layers} color="grape" title="Deep trim stock for trim upsells" isEmpty={insights.deepTrimModels.length === 0} emptyText="No model has two or more trims with 5+ units.">
          <Stack gap={4} data-testid="deep-trim-models">
            {insights.deepTrimModels.map((m) => (
              <Text key={m.key} size="sm">
                <b>{name(m.key)}</b>: {m.trims.map((t) => `${t.trim} (${t.units})`).join(', ')}
              </Text>
            ))}
          </Stack>
        </InsightPanel>
      </SimpleGrid>

      <InsightPanel icon={TrendingUp} color="teal" title="Inventory-optimized upsell rules" isEmpty={rules.length === 0} emptyText="No rule qualifies for this inventory.">
        <Stack gap={6} data-testid="generated-rules">
          {rules.map(([source, target]) => (
            <Group key={source} gap="xs">
              <Badge variant="default" tt="none">
                {name(source)}
              </Badge>
              <ArrowRight size={14} />
              {isHigherTrimRule(source, target) ? <Badge color="grape">Higher Trim</Badge> : <Badge variant="light" tt="none">{name(target)}</Badge>}
            </Group>
          ))}
        </Stack>
      </InsightPanel>
    </Stack>
  );
}
