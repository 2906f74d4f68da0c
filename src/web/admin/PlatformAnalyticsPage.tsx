/**
 * Platform Analytics (/admin/analytics; spec 01 §2, §9; DECISIONS 18-19): a period selector
 * (24h, 7d, 30d, 90d), a chart of impressions and clicks across dealers, and one card per dealer
 * with impressions, clicks, CTR and the performance score bar (min(100, 20 x CTR)), all from
 * recorded events; the chart and every card say the period their figures cover, as the
 * server answered it.
 */
import { useState } from 'react';
import { Group, Paper, Progress, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Select } from '../components/deferred';
import { LineChart } from '../components/LineChart';
import { ANALYTICS_PERIODS, type AnalyticsPeriod } from '../../domain/enums';
import { PERIOD_LABELS } from '../../domain/constants';
import { formatCount, formatCtr } from '../../domain/metrics';
import { ErrorNotice } from '../components/feedback';
import { usePlatformAnalytics } from './api';
import { StatusBadge } from './parts';
import { Figure, PeriodCaption } from '../components/metrics';
import { bucketLabel, periodLabel } from '../../domain/periods';
import { Truncated } from '../components/Truncated';

export function PlatformAnalyticsPage() {
  const [period, setPeriod] = useState<AnalyticsPeriod>('30d');
  const q = usePlatformAnalytics(period);
  const a = q.data;
  const total = a?.series.reduce((s, p) => s + p.impressions, 0) ?? 0;
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Platform Analytics</Title>
          <Text c="dimmed">Banner performance of every dealer.</Text>
        </div>
        <Select
          label="Period"
          data={ANALYTICS_PERIODS.map((p) => ({ value: p, label: PERIOD_LABELS[p] }))}
          value={period}
          onChange={(v) => setPeriod((v ?? '30d') as AnalyticsPeriod)}
          allowDeselect={false}
          w={200}
        />
      </Group>
      {q.error ? (
        <ErrorNotice message={q.error.message} onRetry={() => void q.refetch()} />
      ) : (
        <>
          <Paper withBorder radius="md" p="lg">
            <Group justify="space-between" mb="md">
              <Title order={3} size="h4">
                Impressions and clicks, all dealers
              </Title>
              {a && <PeriodCaption label={periodLabel(a.period)} testId="analytics-chart-period" />}
            </Group>
            {!a ? (
              <Skeleton h={260} />
            ) : total === 0 ? (
              <Text c="dimmed" py="xl" ta="center">
                No impressions recorded in this period.
              </Text>
            ) : (
              <LineChart
                h={260}
                data={a.series.map((p) => ({ ...p, label: bucketLabel(p.bucket) }))}
                dataKey="label"
                series={[
                  { name: 'impressions', label: 'Impressions', color: 'red.6' },
                  { name: 'clicks', label: 'Clicks', color: 'blue.6' },
                ]}
                curveType="linear"
                withLegend
                withDots={false}
              />
            )}
          </Paper>
          {a && a.dealers.length === 0 ? (
            <Text c="dimmed">No dealers yet.</Text>
          ) : (
            <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
              {(a?.dealers ?? []).map((d) => (
                <Paper key={d.id} withBorder radius="md" p="lg" data-testid={`analytics-card-${d.id}`} style={{ minWidth: 0 }}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    {/* A long name ends in '…' with the full name on hover and focus; the badge keeps its size. */}
                    <div style={{ minWidth: 0, flex: 1 }}>
                      <Truncated to={`/admin/dealers/${d.id}/settings`} fw={700}>
                        {d.name}
                      </Truncated>
                      <Truncated size="xs" c="dimmed">
                        {d.manufacturerName}
                      </Truncated>
                    </div>
                    <div style={{ flexShrink: 0 }}>
                      <StatusBadge status={d.status} />
                    </div>
                  </Group>
                  <Group mt="md" mb={4}>
                    {a && <PeriodCaption label={periodLabel(a.period)} testId={`analytics-card-period-${d.id}`} />}
                  </Group>
                  <SimpleGrid cols={3}>
                    <Figure label="Impressions" value={formatCount(d.impressions)} />
                    <Figure label="Clicks" value={formatCount(d.clicks)} />
                    <Figure label="CTR" value={formatCtr(d.ctr)} />
                  </SimpleGrid>
                  <Group justify="space-between" mt="md" mb={4}>
                    <Text size="sm">Performance score</Text>
                    <Text size="sm" fw={700} data-testid={`score-${d.id}`}>
                      {Math.round(d.score)}
                    </Text>
                  </Group>
                  <Progress value={d.score} color={d.score >= 60 ? 'teal' : d.score >= 30 ? 'yellow' : 'red'} aria-label={`Performance score of ${d.name}`} />
                </Paper>
              ))}
            </SimpleGrid>
          )}
        </>
      )}
    </Stack>
  );
}
