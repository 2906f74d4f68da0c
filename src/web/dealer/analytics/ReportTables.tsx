/**
 * The Analytics screen's tables: per model (viewable impressions, clicks, CTR, conversions beside
 * the model's inventory — units, aged share, median days on lot, stock priority — and its upsell
 * priority, with 'Raise upsell priority'), and per slot. Both priorities are values of the one
 * priority scale (domain/priority-scale.ts), shown alike: the stock priority is what the stock
 * suggests (spec 02 §9), the upsell priority is the dealer's number that decides (set on Upsell Rules).
 */
import { Button, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { Tooltip } from '../../components/deferred';
import { ArrowUpCircle } from 'lucide-react';
import { priorityLabel, raisedPriority } from '../../../domain/priority-scale';
import { PriorityBadge } from '../../components/PriorityBadge';
import { formatConversionRate, formatCtr } from '../../../domain/metrics';
import { SLOT_TEXTS } from '../../../domain/slots';
import type { AnalyticsReport, ReportModelRow } from './report';

const n = (v: number) => v.toLocaleString('en-US');
/** The two columns of the one priority scale, explained alike (domain/priority-scale.ts). */
export const STOCK_TIP =
  'Priority 1-10 (1-3 Low, 4-7 Normal, 8-10 High) computed from your stock: units, aged share, days on lot, trims, colors. What the stock suggests; it breaks ties between equal upsell priorities.';
export const UPSELL_TIP =
  'Your priority 1-10 on the same scale, set on Upsell Rules: among a model\'s upsell candidates the higher one is shown. Raise moves it up one band.';
const VIEWABLE_TIP = 'Viewable impressions: at least 50 % of the banner in view for at least one second (IAB/MRC). Only these are counted.';

/** A column header with an explanation on hover and focus. */
function Explained({ label, tip }: { label: string; tip: string }) {
  return (
    <Tooltip label={tip} multiline w={260} withArrow>
      <Text span inherit style={{ textDecoration: 'underline dotted', cursor: 'help' }} tabIndex={0}>
        {label}
      </Text>
    </Tooltip>
  );
}

/** The four banner-figure headers both tables start with, after their first column. */
function FigureHeads() {
  return (
    <>
      <Table.Th ta="right">
        <Explained label="Viewable impressions" tip={VIEWABLE_TIP} />
      </Table.Th>
      <Table.Th ta="right">Clicks</Table.Th>
      <Table.Th ta="right">CTR</Table.Th>
      <Table.Th ta="right">Conversions</Table.Th>
    </>
  );
}

/** A row's viewable impressions, clicks, CTR and conversions, under FigureHeads. */
function FigureCells({ row }: { row: { impressions: number; clicks: number; ctr: number | null; conversions: number } }) {
  return (
    <>
      <Table.Td ta="right">{n(row.impressions)}</Table.Td>
      <Table.Td ta="right">{n(row.clicks)}</Table.Td>
      <Table.Td ta="right">{formatCtr(row.ctr)}</Table.Td>
      <Table.Td ta="right">{n(row.conversions)}</Table.Td>
    </>
  );
}

/** Per-model performance with the model's inventory and the Raise upsell priority action (hidden for viewers). */
export function ModelsTable({
  rows,
  modelName,
  canEdit,
  onRaise,
  raising,
}: {
  rows: ReportModelRow[];
  modelName: (m: string) => string;
  canEdit: boolean;
  onRaise: (row: ReportModelRow) => void;
  /** The weightKey being saved, if any. */
  raising: string | null;
}) {
  if (rows.length === 0) return <Text c="dimmed">No models yet: neither events nor inventory in this range.</Text>;
  return (
    <ScrollArea type="auto">
      <Table striped highlightOnHover miw={880} aria-label="Model performance and inventory" verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Model</Table.Th>
            <FigureHeads />
            <Table.Th ta="right">Units</Table.Th>
            <Table.Th ta="right">
              <Explained label="Aged share" tip="Share of the model's units on the lot 60 days or more (aged inventory)." />
            </Table.Th>
            <Table.Th ta="right">Median days on lot</Table.Th>
            <Table.Th ta="right">
              <Explained label="Stock priority" tip={STOCK_TIP} />
            </Table.Th>
            <Table.Th>
              <Explained label="Upsell priority" tip={UPSELL_TIP} />
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((m) => {
            const next = m.upsellWeight === null ? null : raisedPriority(m.upsellWeight);
            const name = m.weightKey ? modelName(m.model) : m.model;
            return (
              <Table.Tr key={m.model} data-model={m.model}>
                <Table.Td fw={500}>{name}</Table.Td>
                <FigureCells row={m} />
                <Table.Td ta="right">{m.inventory ? n(m.inventory.units) : '—'}</Table.Td>
                <Table.Td ta="right">
                  {m.inventory?.agedShare == null ? '—' : (
                    <Text span inherit c={m.inventory.agedShare >= 50 ? 'red.8' : undefined} fw={m.inventory.agedShare >= 50 ? 600 : undefined}>
                      {m.inventory.agedShare.toFixed(0)} %
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">{m.inventory?.medianDaysOnLot == null ? '—' : n(Math.round(m.inventory.medianDaysOnLot))}</Table.Td>
                <Table.Td ta="right">{m.inventory ? <PriorityBadge value={m.inventory.priorityScore} testId="stock-priority" /> : '—'}</Table.Td>
                <Table.Td>
                  {m.upsellWeight === null || !m.weightKey ? (
                    '—'
                  ) : (
                    <Stack gap={4} align="flex-start">
                      <PriorityBadge value={m.upsellWeight} testId="upsell-priority" />
                      {canEdit && next !== null && (
                        <Tooltip label={`Raise upsell priority to ${next} (${priorityLabel(next)})`} withArrow>
                          <Button
                            size="compact-xs"
                            variant="light"
                            style={{ flexShrink: 0 }}
                            leftSection={<ArrowUpCircle size={14} />}
                            loading={raising === m.weightKey}
                            disabled={raising !== null && raising !== m.weightKey}
                            onClick={() => onRaise(m)}
                            aria-label={`Raise upsell priority of ${name} to ${next} (${priorityLabel(next)})`}
                          >
                            Raise
                          </Button>
                        </Tooltip>
                      )}
                    </Stack>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}

/** Per-slot performance (SRP header, inline, upsell). */
export function SlotsTable({ rows }: { rows: AnalyticsReport['slots'] }) {
  if (rows.length === 0) return <Text c="dimmed">No slot showed a banner in this range.</Text>;
  return (
    <ScrollArea type="auto">
      <Table striped aria-label="Slot performance" miw={520} verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Slot</Table.Th>
            <FigureHeads />
            <Table.Th ta="right">Conversion rate</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((s) => (
            <Table.Tr key={s.slot} data-slot={s.slot}>
              <Table.Td fw={500}>{(SLOT_TEXTS as Record<string, { label: string } | undefined>)[s.slot]?.label ?? s.slot}</Table.Td>
              <FigureCells row={s} />
              <Table.Td ta="right">{formatConversionRate(s.conversionRate)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
