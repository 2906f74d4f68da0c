/**
 * Admin Dashboard (/admin; spec 01 §2, §9; DECISIONS 18-19): Active Dealers (now), Total
 * Impressions, Total Clicks and Average CTR (all time), each with its last-30-days figure and the
 * real change against the previous 30 days ('--' without previous data), every figure labelled with
 * its period; Recent Dealers (first 5) with View all and Add Dealer; export and import;
 * a link to the client error log.
 */
import { Link } from 'react-router';
import { Anchor, Box, Button, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Bug, Building2, Eye, MousePointerClick, Percent, Plus, Settings } from 'lucide-react';
import { formatCount, formatCtr } from '../../domain/metrics';
import { ErrorNotice } from '../components/feedback';
import type { AdminDashboard as AdminDashboardData } from '../../domain/admin';
import { useNarrowScreen } from '../components/responsive';
import { useAdminDashboard } from './api';
import { StatusBadge, providerLabel } from './parts';
import { MetricCard, PeriodCaption, TrendText } from '../components/metrics';
import { NOW_LABEL, PERIOD_SPANS, agoLabel, periodLabel, previousLabel } from '../../domain/periods';
import { Truncated } from '../components/Truncated';
import { ExportImport } from './ExportImport';

export function AdminDashboard() {
  const q = useAdminDashboard();
  const d = q.data;
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Admin Dashboard</Title>
          <Text c="dimmed">Every dealer on the platform at a glance.</Text>
        </div>
        <Button component={Link} to="/admin/dealers/new" leftSection={<Plus size={16} />}>
          Add Dealer
        </Button>
      </Group>
      {q.error ? (
        <ErrorNotice message={q.error.message} onRetry={() => void q.refetch()} />
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            <MetricCard label="Active Dealers" period={NOW_LABEL} testId="metric-Active Dealers" value={d && formatCount(d.activeDealers)} note={d && <TrendText value={d.trends.activeDealers} against={agoLabel(PERIOD_SPANS[d.recent.period])} />} icon={Building2} color="blue" />
            <MetricCard label="Total Impressions" period={d ? periodLabel(d.period) : ''} testId="metric-Total Impressions" value={d && formatCount(d.impressions)} note={d && <RecentTrend d={d} figure={formatCount(d.recent.impressions)} trend={d.trends.impressions} testId="metric-Total Impressions-recent" />} icon={Eye} color="indigo" />
            <MetricCard label="Total Clicks" period={d ? periodLabel(d.period) : ''} testId="metric-Total Clicks" value={d && formatCount(d.clicks)} note={d && <RecentTrend d={d} figure={formatCount(d.recent.clicks)} trend={d.trends.clicks} testId="metric-Total Clicks-recent" />} icon={MousePointerClick} color="teal" />
            <MetricCard label="Average CTR" period={d ? periodLabel(d.period) : ''} testId="metric-Average CTR" value={d && formatCtr(d.ctr)} note={d && <RecentTrend d={d} figure={formatCtr(d.recent.ctr)} trend={d.trends.ctr} testId="metric-Average CTR-recent" />} icon={Percent} color="grape" />
          </SimpleGrid>

          <Paper withBorder radius="md" p="lg">
            <Group justify="space-between" mb="md">
              <div>
                <Title order={4}>Recent Dealers</Title>
                <PeriodCaption label={`CTR: ${periodLabel('all')}`} />
              </div>
              <Group gap="md">
                <Anchor component={Link} to="/admin/dealers" size="sm">
                  View all
                </Anchor>
                <Anchor component={Link} to="/admin/dealers/new" size="sm">
                  Add Dealer
                </Anchor>
              </Group>
            </Group>
            {d && d.recentDealers.length === 0 ? (
              <Text c="dimmed">No dealers yet. Add the first one.</Text>
            ) : (
              <RecentDealers dealers={d?.recentDealers ?? []} />
            )}
          </Paper>
        </>
      )}
      <ExportImport />
      <Paper withBorder radius="md" p="lg">
        <Group justify="space-between">
          <div>
            <Title order={4}>Client Error Log</Title>
            <Text size="sm" c="dimmed">
              Render errors that showed the &lsquo;Something went wrong&rsquo; screen in a browser, with page, user and stacks.
            </Text>
            {d && (
              <Text size="sm" c={d.deadLetteredEvents > 0 ? 'red' : 'dimmed'} data-testid="dead-lettered-events">
                Tracked events the database refused: {formatCount(d.deadLetteredEvents)}
                {d.deadLetteredEvents > 0 && ' (kept in the event_dead_letters table with the error)'}
              </Text>
            )}
          </div>
          <Button component={Link} to="/admin/errors" variant="default" leftSection={<Bug size={16} />}>
            View Error Log
          </Button>
        </Group>
      </Paper>
    </Stack>
  );
}

/** Under an all-time total: the figure of the trend period and its trend ('Last 30 Days: 80 · +60.0% vs previous 30 days'). */
function RecentTrend({ d, figure, trend, testId }: { d: AdminDashboardData; figure: string; trend: number | null; testId: string }) {
  return (
    <TrendText
      value={trend}
      against={previousLabel(PERIOD_SPANS[d.recent.period])}
      lead={
        <>
          {periodLabel(d.recent.period)}:{' '}
          <Text span inherit fw={600} c="dark" data-testid={testId}>
            {figure}
          </Text>
        </>
      }
    />
  );
}

type RecentDealer = AdminDashboardData['recentDealers'][number];

/** Script and Settings of one dealer. */
function DealerActions({ dealer }: { dealer: RecentDealer }) {
  return (
    <Group gap="xs" justify="flex-end" wrap="nowrap">
      <Anchor component={Link} to={`/scripts/${dealer.id}`} size="sm">
        Script
      </Anchor>
      <Button component={Link} to={`/admin/dealers/${dealer.id}/settings`} size="compact-sm" variant="subtle" leftSection={<Settings size={14} />} aria-label={`Settings of ${dealer.name}`}>
        Settings
      </Button>
    </Group>
  );
}

/** A dealer's name in bold above its id, each cut with '…' where it does not fit. */
function NameAndId({ dealer }: { dealer: { name: string; id: string } }) {
  return (
    <>
      <Truncated fw={600} size="sm">
        {dealer.name}
      </Truncated>
      <Truncated size="xs" c="dimmed">
        {dealer.id}
      </Truncated>
    </>
  );
}

/** The first five dealers: a table, or one card per dealer on a narrow screen. */
function RecentDealers({ dealers }: { dealers: RecentDealer[] }) {
  const narrow = useNarrowScreen();
  if (narrow) {
    return (
      <Stack gap={0} data-testid="recent-dealers">
        {dealers.map((r) => (
          <Box key={r.id} py="sm" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
            <NameAndId dealer={r} />
            <Group gap="xs" mt={6} wrap="nowrap">
              <StatusBadge status={r.status} />
              <Truncated size="sm">{`${r.manufacturerName} · ${providerLabel(r.provider)}`}</Truncated>
            </Group>
            <Group justify="space-between" mt={6} wrap="nowrap">
              <Text size="sm">
                CTR <b>{formatCtr(r.ctr)}</b>
              </Text>
              <DealerActions dealer={r} />
            </Group>
          </Box>
        ))}
      </Stack>
    );
  }
  return (
    <Table verticalSpacing="sm" highlightOnHover data-testid="recent-dealers" layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w="34%">Dealer</Table.Th>
          <Table.Th>Manufacturer</Table.Th>
          <Table.Th>Provider</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th ta="right">CTR</Table.Th>
          <Table.Th ta="right" w={170}>
            Actions
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {dealers.map((r) => (
          <Table.Tr key={r.id}>
            <Table.Td>
              <NameAndId dealer={r} />
            </Table.Td>
            <Table.Td>
              <Truncated size="sm">{r.manufacturerName}</Truncated>
            </Table.Td>
            <Table.Td>{providerLabel(r.provider)}</Table.Td>
            <Table.Td>
              <StatusBadge status={r.status} />
            </Table.Td>
            <Table.Td ta="right">{formatCtr(r.ctr)}</Table.Td>
            <Table.Td ta="right">
              <DealerActions dealer={r} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
