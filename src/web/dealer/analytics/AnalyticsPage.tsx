/**
 * Analytics Dashboard (spec 02 §2 Analytics; DECISIONS 18-19): period selector, Refresh, the four
 * cards with real trends, top models, model performance, impressions/clicks chart, CSV export,
 * 'Last updated', auto-refresh every 300000 ms while there is data; creative performance.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Center, Group, Paper, Progress, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Select } from '../../components/deferred';
import { LineChart } from '../../components/LineChart';
import { BarChart3, Download, RefreshCw } from 'lucide-react';
import type { AnalyticsPeriod, DealerAnalytics } from '../../../domain/schemas';
import { ANALYTICS_PERIODS } from '../../../domain/enums';
import { ANALYTICS_REFRESH_MS, PERIOD_LABELS, TEXT } from '../../../domain/constants';
import { conversionRate, formatConversionRate, formatCtr, formatTrend, isAboveAverage, plural } from '../../../domain/metrics';
import { apiFetch } from '../../api/client';
import { useAuth } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { useModelNames } from '../api';
import { PeriodCaption } from '../../components/metrics';
import { bucketLabel, periodLabel } from '../../../domain/periods';
import { CreativesPanel } from './CreativesPanel';

/** Bar width of a model's conversion rate: 10 x rate, capped at 100 % (spec 02 §2). */
const barWidth = (rate: number | null) => Math.min(100, 10 * (rate ?? 0));

/** One figure of the period (its label from the server's answer) with its trend vs the previous period. */
function Card({ label, period, value, note, trend }: { label: string; period: string; value: string; note?: string; trend: number | null }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Text size="sm" c="dimmed" fw={500}>
        {label}
      </Text>
      <PeriodCaption label={period} />
      <Text fz={28} fw={700}>
        {value}
      </Text>
      <Group gap={6}>
        <Text size="xs" c={trend === null ? 'dimmed' : trend >= 0 ? 'teal' : 'red'}>
          {formatTrend(trend)} vs last period
        </Text>
        {note && <Badge size="xs" variant="light" color={note === 'Above average' ? 'teal' : 'gray'}>{note}</Badge>}
      </Group>
    </Paper>
  );
}

/**
 * The signed-in dealer user's analytics; with `dealerId` (an admin's view of that dealer, from
 * the portfolio table) that dealer's, starting in `initialPeriod`, under `title`.
 */
export function AnalyticsPage({ dealerId: forDealer, initialPeriod, title }: { dealerId?: string; initialPeriod?: AnalyticsPeriod; title?: string } = {}) {
  const { user } = useAuth();
  const dealerId = forDealer ?? user?.dealerId;
  const [period, setPeriod] = useState<AnalyticsPeriod>(initialPeriod ?? '7d');
  const modelName = useModelNames(dealerId);
  const q = useQuery({
    queryKey: ['dealer', dealerId, 'analytics', period],
    queryFn: () => apiFetch<DealerAnalytics>(`/api/dealers/${encodeURIComponent(dealerId!)}/analytics?period=${period}`),
    enabled: Boolean(dealerId),
    refetchInterval: (query) => ((query.state.data?.current.impressions ?? 0) > 0 ? ANALYTICS_REFRESH_MS : false),
  });
  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  const a = q.data;
  const refreshing = q.isFetching;
  const conversions = a ? a.models.reduce((s, m) => s + m.conversions, 0) : 0;
  const convRate = a && a.models.length > 0 ? conversionRate(conversions, a.current.clicks) : null;

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>{title ?? 'Analytics Dashboard'}</Title>
          <Text c="dimmed">Real-time banner performance metrics</Text>
        </div>
        <Group>
          <Select
            aria-label="Period"
            value={period}
            onChange={(v) => v && setPeriod(v as AnalyticsPeriod)}
            data={ANALYTICS_PERIODS.map((p) => ({ value: p, label: PERIOD_LABELS[p] }))}
            allowDeselect={false}
            w={170}
          />
          <Button variant="default" leftSection={<RefreshCw size={16} />} onClick={() => q.refetch()} disabled={refreshing}>
            {refreshing ? 'Refreshing...' : 'Refresh'}
          </Button>
          <Button
            component="a"
            href={`/api/dealers/${encodeURIComponent(dealerId)}/analytics/export.csv?period=${period}`}
            leftSection={<Download size={16} />}
            variant="light"
          >
            Export Data
          </Button>
        </Group>
      </Group>
      {q.error ? (
        <ErrorNotice message={q.error.message} onRetry={() => void q.refetch()} />
      ) : !a ? (
        <Skeleton h={300} />
      ) : a.current.impressions === 0 ? (
        <Paper withBorder p="xl" radius="md">
          <Center>
            <Stack align="center" gap="xs">
              <BarChart3 size={44} strokeWidth={1.5} />
              <Title order={3}>No Analytics Data Yet</Title>
              <Text c="dimmed" ta="center" maw={460}>
                Impressions appear here once your embed script shows banners on your site.
              </Text>
              <Button onClick={() => q.refetch()} loading={refreshing}>
                Check for Data
              </Button>
            </Stack>
          </Center>
        </Paper>
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            <Card label="Total Impressions" period={periodLabel(a.period)} value={a.current.impressions.toLocaleString('en-US')} trend={a.trends.impressions} />
            <Card label="Total Clicks" period={periodLabel(a.period)} value={a.current.clicks.toLocaleString('en-US')} trend={a.trends.clicks} />
            <Card
              label="Click-through Rate"
              period={periodLabel(a.period)}
              value={formatCtr(a.current.ctr)}
              note={isAboveAverage(a.current.ctr) ? 'Above average' : 'Below average'}
              trend={a.trends.ctr}
            />
            <Card label="Conversion Rate" period={periodLabel(a.period)} value={formatConversionRate(convRate)} trend={a.trends.conversionRate} />
          </SimpleGrid>
          <Paper withBorder p="lg" radius="md">
            <Group justify="space-between" mb="md">
              <Title order={4}>Impressions and clicks</Title>
              <PeriodCaption label={periodLabel(a.period)} />
            </Group>
            <LineChart
              h={260}
              data={a.series.map((p) => ({ ...p, label: bucketLabel(p.bucket) }))}
              dataKey="label"
              series={[
                { name: 'impressions', label: 'Impressions', color: 'red.6' },
                { name: 'clicks', label: 'Clicks', color: 'blue.6' },
              ]}
              curveType="monotone"
              withLegend
              withDots={false}
            />
          </Paper>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Paper withBorder p="lg" radius="md">
              <Title order={4}>Top Performing Models</Title>
              <PeriodCaption label={periodLabel(a.period)} />
              <Stack gap="xs">
                {a.models.slice(0, 5).map((m, i) => (
                  <Group key={m.model} justify="space-between">
                    <Text>
                      <b>{i + 1}.</b> {modelName(m.model)}
                    </Text>
                    <Text size="sm" c="dimmed">
                      {plural(m.conversions, 'conversion')}
                    </Text>
                  </Group>
                ))}
              </Stack>
            </Paper>
            <Paper withBorder p="lg" radius="md">
              <Title order={4}>Model Performance</Title>
              <PeriodCaption label={periodLabel(a.period)} />
              <Stack gap="sm">
                {a.models.map((m) => (
                  <div key={m.model}>
                    <Group justify="space-between" mb={2}>
                      <Text size="sm" fw={500}>
                        {modelName(m.model)}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {plural(m.conversions, 'conversion')} · {formatConversionRate(m.conversionRate)} of {plural(m.clicks, 'click')}
                      </Text>
                    </Group>
                    <Progress value={barWidth(m.conversionRate)} size="sm" aria-label={`${modelName(m.model)} conversion rate`} />
                  </div>
                ))}
              </Stack>
            </Paper>
          </SimpleGrid>
          <CreativesPanel a={a} dealerId={dealerId} period={periodLabel(a.period)} modelName={modelName} />
        </>
      )}
      {!q.error && (
        <Text size="xs" c="dimmed">
          Last updated: {a?.lastUpdated ? new Date(a.lastUpdated).toLocaleString() : 'Never'}
        </Text>
      )}
    </Stack>
  );
}
