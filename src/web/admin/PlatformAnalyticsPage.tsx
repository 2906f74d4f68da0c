/**
 * Platform Analytics (/admin/analytics; spec 01 §2, §9; DECISIONS 18-19): a period selector
 * (24h, 7d, 30d, 90d), a chart of impressions and clicks across dealers, and the portfolio table:
 * one row per dealer with its viewable impressions, CTR, conversions, the trend of viewable
 * impressions against the previous period, the performance score bar (min(100, 20 x CTR)),
 * coverage gaps (catalogue models without an uploaded banner) and tag health: the beacons
 * refused or dropped in the last 24 h (sortable; by reason on hover and focus, domain/tag-health.ts)
 * over the last recorded event.
 *
 * The spec draws one card per dealer; a card grid cannot be compared, sorted or scanned at
 * dozens of dealers (2,958 px tall at 32), so the same per-dealer figures and score are rows of
 * the admin's one dealer table (dealer-table.tsx, the same component as Dealer Management's),
 * sorted, searched, filtered and paged on the server (GET /api/admin/dealers?period=), its state in
 * the URL. A row (or the dealer's name, a link) opens that dealer's analytics; the gear opens its
 * settings. The period selector here sets both the chart and the table.
 */
import { Link } from 'react-router';
import { ActionIcon, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Settings } from 'lucide-react';
import { Tooltip } from '../components/deferred';
import { LineChart } from '../components/LineChart';
import type { PortfolioSort } from '../../domain/admin';
import { ErrorNotice } from '../components/feedback';
import { usePlatformAnalytics } from './api';
import { DealerTable, PeriodSelect, useDealerTable } from './dealer-table';
import { PeriodCaption } from '../components/metrics';
import { bucketLabel, periodLabel } from '../../domain/periods';

const DEFAULT_SORT: PortfolioSort = 'impressions';

export function PlatformAnalyticsPage() {
  const view = useDealerTable(DEFAULT_SORT);
  const { state } = view;
  const chart = usePlatformAnalytics(state.period);
  const data = view.table.data;
  const a = chart.data;
  const total = a?.series.reduce((s, p) => s + p.impressions, 0) ?? 0;
  const label = periodLabel(state.period);

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Platform Analytics</Title>
          <Text c="dimmed">Banner performance of every dealer.</Text>
        </div>
        <PeriodSelect view={view} w={200} />
      </Group>
      {chart.error ? (
        <ErrorNotice message={chart.error.message} onRetry={() => void chart.refetch()} />
      ) : (
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
      )}

      <Paper withBorder radius="md" p="lg">
        <Stack gap="md">
          <Group justify="space-between" align="flex-end">
            <Title order={3} size="h4" id="portfolio-title">
              Dealer portfolio
            </Title>
            <PeriodCaption label={data?.window ? periodLabel(data.window.period) : label} testId="portfolio-period" />
          </Group>
          <DealerTable
            view={view}
            variant="analytics"
            labelledBy="portfolio-title"
            countTestId="portfolio-count"
            actions={(d) => (
              <Tooltip label="Settings">
                <ActionIcon variant="subtle" color="gray" component={Link} to={`/admin/dealers/${encodeURIComponent(d.id)}/settings`} aria-label={`Settings of ${d.name}`}>
                  <Settings size={16} />
                </ActionIcon>
              </Tooltip>
            )}
          />
        </Stack>
      </Paper>
    </Stack>
  );
}

