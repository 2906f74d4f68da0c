/**
 * Metric widgets shared by the dealer and admin dashboards and the cards that show a few figures:
 * a metric card (value, a note such as the trend, an icon; skeletons while loading), the trend
 * text of DECISIONS 18 ('+12.5% vs previous 7 days', '--' without previous data), and a small
 * labelled figure.
 */
import type { ReactNode } from 'react';
import { Group, Paper, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import type { LucideIcon } from 'lucide-react';
import { formatTrend } from '../../domain/metrics';

/** One metric card; `value` undefined while loading (value and note show skeletons). */
export function MetricCard({ label, value, note, icon: Icon, color, testId }: { label: string; value: string | undefined; note: ReactNode; icon: LucideIcon; color: string; testId: string }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={6}>
          <Text size="sm" c="dimmed" fw={500}>
            {label}
          </Text>
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

/** '+12.5% vs previous 7 days' (green up, red down) or '-- vs previous 7 days' without previous data. */
export function TrendText({ value, days }: { value: number | null; days: number }) {
  const color = value === null || Math.abs(value) < 0.05 ? 'dimmed' : value > 0 ? 'teal' : 'red';
  return (
    <Text size="xs" c="dimmed">
      <Text span inherit c={color} fw={600}>
        {formatTrend(value)}
      </Text>{' '}
      vs previous {days} days
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
