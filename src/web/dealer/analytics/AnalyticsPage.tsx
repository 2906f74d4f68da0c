/**
 * Analytics Dashboard (spec 02 §2 Analytics; DECISIONS 15, 18-19, 22): a range picker (the spec's
 * four periods, quick ranges and a custom range of days in the dealer's time zone) with a
 * comparison (the previous period of the same length, or the same dates last year), a device
 * switch (all devices, desktop or mobile: every figure below and the exports follow it), Refresh, the
 * spec's four cards with the real change, a chart of one metric at a time (viewable impressions,
 * clicks, CTR or conversions) beside the comparison's, Top Performing Models and Model Performance,
 * then tabs of tables — per model with the model's inventory and 'Raise upsell priority', per slot,
 * per creative — and Export Data, the CSV of the tab on screen for the same range. 'Last updated';
 * auto-refresh every 300000 ms while there is data. Impressions counted are viewable impressions:
 * the spec's card title 'Total Impressions' stays and says so underneath.
 */
import { useState } from 'react';
import { notifications } from '@mantine/notifications';
import { Anchor, Badge, Button, Center, Group, Paper, Progress, SegmentedControl, SimpleGrid, Skeleton, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { Link } from 'react-router';
import { Select } from '../../components/deferred';
import { LineChart } from '../../components/LineChart';
import { BarChart3, Download, RefreshCw } from 'lucide-react';
import { TEXT } from '../../../domain/constants';
import { formatConversionRate, formatCtr, formatTrend, isAboveAverage, plural } from '../../../domain/metrics';
import { formatPriority } from '../../../domain/priority-scale';
import { zonedDay, type Comparison } from '../../../domain/ranges';
import { DETAIL_HOURLY_DAYS, detailDailyCutoff } from '../../../domain/retention';
import type { AnalyticsPeriod, DeviceFilter } from '../../../domain/enums';
import { useAuth, useCanEdit } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { useDealer, useModelNames } from '../api';
import { MetricHeading, PeriodCaption } from '../../components/metrics';
import { CreativesPanel } from './CreativesPanel';
import { ModelsTable, SlotsTable } from './ReportTables';
import {
  CHART_METRICS,
  DEVICE_OPTIONS,
  chartRows,
  customRangeError,
  rangeOfOption,
  rangeOptions,
  reportCsvUrl,
  useAnalyticsReport,
  useRaiseUpsellPriority,
  type ChartMetric,
  type RangeChoice,
  type ReportTable,
} from './report';

/** Bar width of a model's conversion rate: 10 x rate, capped at 100 % (spec 02 §2). */
const barWidth = (rate: number | null) => Math.min(100, 10 * (rate ?? 0));
/** Under the spec's 'Total Impressions' title: what is counted (DECISIONS 15). */
const VIEWABLE_NOTE = 'Viewable impressions only (50 % in view for 1 s)';

/** One figure of the range with its change against the comparison. */
function Card({ label, caption, period, value, note, trend, against }: { label: string; caption?: string; period: string; value: string; note?: string; trend: number | null; against: string }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <MetricHeading label={label} hint={caption} period={period} />
      <Text fz={28} fw={700}>
        {value}
      </Text>
      <Group gap={6}>
        <Text size="xs" c={trend === null ? 'dimmed' : trend >= 0 ? 'teal.8' : 'red.8'}>
          {formatTrend(trend)} {against}
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
  const canEdit = useCanEdit();
  const dealer = useDealer(dealerId);
  const timeZone = dealer.data?.timeZone ?? 'UTC';
  const today = zonedDay(new Date(), timeZone);
  const [option, setOption] = useState(`period:${initialPeriod ?? '7d'}`);
  const [custom, setCustom] = useState({ from: '', to: '' });
  const [compare, setCompare] = useState<Comparison>('previous');
  const [device, setDevice] = useState<DeviceFilter>('all');
  const [metric, setMetric] = useState<ChartMetric>('impressions');
  const [tab, setTab] = useState<ReportTable>('models');
  const customError = option === 'custom' ? customRangeError(custom.from, custom.to) : null;
  const range: RangeChoice | null = option === 'custom' ? (customError ? null : custom) : rangeOfOption(option, today);
  const is24h = range !== null && 'period' in range && range.period === '24h';
  const q = useAnalyticsReport(dealerId, range, compare, device);
  const raise = useRaiseUpsellPriority(dealerId ?? '');
  const modelName = useModelNames(dealerId);
  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  const a = q.data;
  const refreshing = q.isFetching;
  // A device filter is named beside the range in every caption ('Last 7 Days · Mobile').
  const shownDevice = a && a.device !== 'all' ? DEVICE_OPTIONS.find((o) => o.value === a.device)!.label : null;
  const label = a ? `${a.range.label}${shownDevice ? ` · ${shownDevice}` : ''}` : '';
  const against = a?.comparison.label ?? '';
  const byConversions = a ? [...a.models].filter((m) => m.impressions + m.clicks + m.conversions > 0).sort((x, y) => y.conversions - x.conversions || y.clicks - x.clicks || y.impressions - x.impressions) : [];
  const convRate = a && byConversions.length > 0 ? a.current.conversionRate : null;
  const metricLabel = CHART_METRICS.find((m) => m.value === metric)!.label;

  const onRaise = (row: { model: string; weightKey: string | null }) => {
    if (!row.weightKey) return;
    raise.mutate(
      { weightKey: row.weightKey },
      {
        onSuccess: (r) => notifications.show({ color: 'teal', message: `${modelName(row.model)}: upsell priority ${formatPriority(r.priority)}` }),
        onError: (e) => notifications.show({ color: 'red', title: 'Not saved', message: e.message }),
      },
    );
  };

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>{title ?? 'Analytics Dashboard'}</Title>
          <Text c="dimmed">Real-time banner performance metrics</Text>
        </div>
        <Group align="flex-end" gap="sm">
          {/* The nine ranges show whole: in a scrolling box (Mantine's default above 220 px) the list
              would be a scrollable region no key reaches (axe: scrollable-region-focusable). */}
          <Select aria-label="Period" label="Range" value={option} onChange={(v) => v && setOption(v)} data={rangeOptions(today)} allowDeselect={false} withScrollArea={false} w={170} />
          <Select
            aria-label="Compare with"
            label="Compare with"
            value={is24h ? 'previous' : compare}
            onChange={(v) => v && setCompare(v as Comparison)}
            data={[
              { value: 'previous', label: 'Previous period' },
              { value: 'year', label: 'Same period last year', disabled: is24h },
            ]}
            allowDeselect={false}
            w={200}
          />
          <div>
            <Text id="analytics-device" size="sm" fw={500} mb={2}>
              Device
            </Text>
            <SegmentedControl aria-labelledby="analytics-device" value={device} onChange={(v) => setDevice(v as DeviceFilter)} data={DEVICE_OPTIONS} />
          </div>
          <Button variant="default" leftSection={<RefreshCw size={16} />} onClick={() => q.refetch()} disabled={refreshing || !range}>
            {refreshing ? 'Refreshing...' : 'Refresh'}
          </Button>
          {/* Without a range (Custom range not filled in yet) a disabled link, announced as one (role link, aria-disabled). */}
          <Button
            component="a"
            href={range ? reportCsvUrl(dealerId, range, compare, tab, device) : undefined}
            leftSection={<Download size={16} />}
            variant="light"
            data-disabled={!range || undefined}
            role={range ? undefined : 'link'}
            aria-disabled={!range || undefined}
          >
            Export Data
          </Button>
        </Group>
      </Group>
      {option === 'custom' && (
        <Paper withBorder p="md" radius="md">
          <Group align="flex-start" gap="md">
            <TextInput type="date" label="From" value={custom.from} min={detailDailyCutoff(new Date())} max={custom.to || undefined} onChange={(e) => setCustom({ ...custom, from: e.currentTarget.value })} w={180} />
            <TextInput type="date" label="To" value={custom.to} min={custom.from || undefined} onChange={(e) => setCustom({ ...custom, to: e.currentTarget.value })} w={180} />
            <Text size="sm" c={customError && custom.from && custom.to ? 'red.8' : 'dimmed'} mt={30} role="status">
              {customError ?? `Days in your time zone (${timeZone}), both included.`}
            </Text>
          </Group>
        </Paper>
      )}
      {q.error ? (
        <ErrorNotice message={q.error.message} onRetry={() => void q.refetch()} />
      ) : !a ? (
        option === 'custom' && customError ? null : <Skeleton h={300} />
      ) : a.current.impressions === 0 ? (
        <Paper withBorder p="xl" radius="md">
          <Center>
            <Stack align="center" gap="xs">
              <BarChart3 size={44} strokeWidth={1.5} />
              <Title order={3}>{shownDevice ? `No ${shownDevice} Data` : 'No Analytics Data Yet'}</Title>
              <Text c="dimmed" ta="center" maw={460}>
                {shownDevice
                  ? `No viewable impressions from ${shownDevice.toLowerCase()} devices in ${a.range.label}. Choose All devices to see every visit.`
                  : 'Viewable impressions appear here once your embed script shows banners on your site.'}
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
            <Card label="Total Impressions" caption={VIEWABLE_NOTE} period={label} value={a.current.impressions.toLocaleString('en-US')} trend={a.trends.impressions} against={against} />
            <Card label="Total Clicks" period={label} value={a.current.clicks.toLocaleString('en-US')} trend={a.trends.clicks} against={against} />
            <Card
              label="Click-through Rate"
              period={label}
              value={formatCtr(a.current.ctr)}
              note={isAboveAverage(a.current.ctr) ? 'Above average' : 'Below average'}
              trend={a.trends.ctr}
              against={against}
            />
            <Card label="Conversion Rate" period={label} value={formatConversionRate(convRate)} trend={a.trends.conversionRate} against={against} />
          </SimpleGrid>
          <Paper withBorder p="lg" radius="md">
            <Group justify="space-between" mb="md" gap="sm">
              <div>
                <Title order={4}>{metricLabel}</Title>
                <PeriodCaption label={`${label} ${against}`} testId="analytics-chart-range" />
              </div>
              <Group gap="xs">
              <Button component="a" size="compact-xs" variant="subtle" href={range ? reportCsvUrl(dealerId, range, compare, 'days', device) : undefined} leftSection={<Download size={12} />}>
                Chart CSV
              </Button>
              <SegmentedControl aria-label="Chart metric" value={metric} onChange={(v) => setMetric(v as ChartMetric)} data={CHART_METRICS.map((m) => ({ ...m }))} size="xs" />
              </Group>
            </Group>
            <LineChart
              h={260}
              data={chartRows(a, metric)}
              dataKey="label"
              series={[
                { name: 'current', label: `${metricLabel} (${label})`, color: 'blue.6' },
                { name: 'comparison', label: `${metricLabel} (${against.replace(/^vs /, '')})`, color: 'gray.5', strokeDasharray: '5 5' },
              ]}
              unit={metric === 'ctr' ? ' %' : undefined}
              curveType="monotone"
              withLegend
              withDots={false}
              connectNulls
            />
          </Paper>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Paper withBorder p="lg" radius="md">
              <Title order={4}>Top Performing Models</Title>
              <PeriodCaption label={label} />
              <Stack gap="xs">
                {byConversions.slice(0, 5).map((m, i) => (
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
              <PeriodCaption label={label} />
              <Stack gap="sm">
                {byConversions.map((m) => (
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
          <Paper withBorder p="lg" radius="md">
            <Tabs value={tab} onChange={(v) => v && setTab(v as ReportTable)} keepMounted={false}>
              <Tabs.List mb="md">
                <Tabs.Tab value="models">By model</Tabs.Tab>
                <Tabs.Tab value="slots">By slot</Tabs.Tab>
                <Tabs.Tab value="creatives">By creative</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="models">
                <Text size="sm" c="dimmed" mb="sm">
                  Which model to push: its banner figures for {label} beside its stock today. Both priorities use one 1-10 scale: the stock priority is what your
                  stock suggests, the upsell priority is yours (set on <Anchor component={Link} to="/dealer/upsells" inherit underline="always">Upsell Rules</Anchor>) and decides which
                  model upsell banners show; Raise moves it up one band.
                </Text>
                <ModelsTable rows={a.models} modelName={modelName} canEdit={canEdit} onRaise={onRaise} raising={raise.isPending ? (raise.variables?.weightKey ?? null) : null} />
              </Tabs.Panel>
              <Tabs.Panel value="slots">
                <SlotsTable rows={a.slots} />
              </Tabs.Panel>
              <Tabs.Panel value="creatives">
                <CreativesPanel a={a} dealerId={dealerId} period={label} modelName={modelName} />
              </Tabs.Panel>
            </Tabs>
          </Paper>
        </>
      )}
      {!q.error && (
        <Text size="xs" c="dimmed">
          Last updated: {a?.lastUpdated ? new Date(a.lastUpdated).toLocaleString() : 'Never'}
          {a && a.range.period === null && ` · Days in ${a.range.timeZone}${a.range.utcDays ? ` (older than ${DETAIL_HOURLY_DAYS} days: read by UTC day)` : ''}`}
        </Text>
      )}
    </Stack>
  );
}
