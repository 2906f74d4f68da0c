/**
 * Metric widgets shared by the dealer and admin dashboards and the cards that show a few figures:
 * a metric card (value, the period it covers, a note such as the trend, an icon; skeletons while
 * loading), the trend text of DECISIONS 18 ('+12.5% vs previous 7 days', '--' without previous
 * data), the period caption every figure carries ('All Time', 'Last 30 Days'; texts in
 * domain/periods.ts), and a small labelled figure.
 */
import type { ReactNode } from 'react';
import { Group, Paper, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import type { LucideIcon } from 'lucide-react';
import { formatTrend } from '../../domain/metrics';

/** The period a figure covers, as a small caption ('All Time', 'Last 30 Days'; domain/periods.ts labels). */
export function PeriodCaption({ label, testId }: { label: string; testId?: string }) {
  return (
    <Text size="xs" c="dimmed" fw={600} tt="uppercase" lts={0.3} data-testid={testId}>
      {label}
    </Text>
  );
}

/**
 * The heading of a figure on a card: its name, an optional `hint` line saying what is counted, and
 * the caption of the period it covers (`testId` on the caption).
 */
export function MetricHeading({ label, hint, period, testId }: { label: string; hint?: string; period: string; testId?: string }) {
  return (
    <>
      <Text size="sm" c="dimmed" fw={500}>
        {label}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
      <PeriodCaption label={period} testId={testId} />
    </>
  );
}

/**
 * One metric card; `value` undefined while loading (value and note show skeletons); `period` is the
 * label of what the value covers, shown under the card's name.
 */
export function MetricCard({
  label,
  hint,
  period,
  value,
  note,
  icon: Icon,
  color,
  testId,
}: {
  label: string;
  /** A line under the name saying what is counted (e.g. that impressions are viewable impressions). */
  hint?: string;
  period: string;
  value: string | undefined;
  note: ReactNode;
  icon: LucideIcon;
  color: string;
  testId: string;
}) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={6}>
          <div>
            <MetricHeading label={label} hint={hint} period={period} testId={`${testId}-period`} />
          </div>
          {value === undefined ? (
            <Skeleton h={34} w={90} />
          ) : (
            <Text fz={30} fw={700} lh={1.1} data-testid={testId}>
              {value}
            </Text>
          )}
          {value === undefined ? <Skeleton h={12} w={140} /> : note}
        </Stack>
        <ThemeIcon size={44} radius="md" variant="light" color={color}>
          <Icon size={22} />
        </ThemeIcon>
      </Group>
    </Paper>
  );
}

/**
 * '+12.5% vs previous 7 days' (green up, red down) or '-- vs previous 7 days' without previous data;
 * `against` is the comparison's label (domain/periods.ts previousLabel). `lead` goes before it: the
 * figure of the period the trend is about, when the card's value covers another period
 * ('Last 30 Days: 80 · +60.0% vs previous 30 days' under an all-time total).
 */
export function TrendText({ value, against, lead, testId }: { value: number | null; against: string; lead?: ReactNode; testId?: string }) {
  const color = value === null || Math.abs(value) < 0.05 ? 'dimmed' : value > 0 ? 'teal' : 'red';
  return (
    <Text size="xs" c="dimmed" data-testid={testId}>
      {lead}
      {lead && ' · '}
      <Text span inherit c={color} fw={600}>
        {formatTrend(value)}
      </Text>{' '}
      {against}
    </Text>
  );
}

/** A small labelled figure (label above, bold value), used on dealer, analytics and inventory cards. */
export function Figure({ label, value }: { label: string; value: string | number }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700}>{value}</Text>
    </div>
  );
}
