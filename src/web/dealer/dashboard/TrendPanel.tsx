/**
 * The dealer dashboard's small trend chart: viewable impressions per day of the last 7 days beside
 * the 7 days before (one metric, one axis), from the Analytics report (same figures as the
 * Analytics screen), with a link to it. Skeleton while loading, a line of text without data.
 */
import { Link } from 'react-router';
import { Anchor, Group, Paper, Skeleton, Text, Title } from '@mantine/core';
import { LineChart } from '../../components/LineChart';
import { PeriodCaption } from '../../components/metrics';
import { DealerErrorNotice } from '../DealerNotice';
import { chartRows, useAnalyticsReport } from '../analytics/report';

const RANGE = { period: '7d' } as const;

export function TrendPanel({ dealerId }: { dealerId: string }) {
  const q = useAnalyticsReport(dealerId, RANGE, 'previous');
  const a = q.data;
  return (
    <Paper withBorder p="lg" radius="md" aria-labelledby="trend-title">
      <Group justify="space-between" mb="xs">
        <div>
          <Title order={3} size="h4" id="trend-title">
            Viewable impressions per day
          </Title>
          <PeriodCaption label={a ? `${a.range.label} ${a.comparison.label}` : 'Last 7 Days'} testId="dashboard-trend-period" />
        </div>
        <Anchor component={Link} to="/dealer/analytics" size="sm">
          Open Analytics
        </Anchor>
      </Group>
      {q.error ? (
        <DealerErrorNotice error={q.error} onRetry={() => void q.refetch()} />
      ) : !a ? (
        <Skeleton h={140} />
      ) : a.current.impressions + a.previous.impressions === 0 ? (
        <Text size="sm" c="dimmed" data-testid="dashboard-trend-empty">
          No viewable impressions in the last 14 days yet.
        </Text>
      ) : (
        <LineChart
          h={140}
          data={chartRows(a, 'impressions')}
          dataKey="label"
          series={[
            { name: 'current', label: 'Last 7 days', color: 'blue.6' },
            { name: 'comparison', label: 'Previous 7 days', color: 'gray.5', strokeDasharray: '5 5' },
          ]}
          curveType="monotone"
          withLegend
          withDots={false}
          gridAxis="y"
        />
      )}
    </Paper>
  );
}
