/**
 * Admin Dashboard (/admin; spec 01 §2, §9; DECISIONS 18-19): Active Dealers, Total Impressions,
 * Total Clicks and Average CTR with the real change against the previous 30 days ('--' without
 * previous data); Recent Dealers (first 5) with View all and Add Dealer; export and import; a link
 * to the client error log.
 */
import { Link } from 'react-router';
import { Anchor, Button, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Bug, Building2, Eye, MousePointerClick, Percent, Plus, Settings } from 'lucide-react';
import { formatCtr } from '../../domain/metrics';
import { ErrorNotice } from '../components/feedback';
import { useAdminDashboard } from './api';
import { StatusBadge, providerLabel } from './parts';
import { MetricCard, TrendText } from '../components/metrics';

/** The dashboard cards compare the last 30 days with the 30 before (server: admin/platform.ts). */
const TREND_DAYS = 30;
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
      {q.error && <ErrorNotice message={q.error.message} />}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        <MetricCard label="Active Dealers" testId="metric-Active Dealers" value={d?.activeDealers.toLocaleString('en-US')} note={<TrendText value={d?.trends.activeDealers ?? null} days={TREND_DAYS} />} icon={Building2} color="blue" />
        <MetricCard label="Total Impressions" testId="metric-Total Impressions" value={d?.impressions.toLocaleString('en-US')} note={<TrendText value={d?.trends.impressions ?? null} days={TREND_DAYS} />} icon={Eye} color="indigo" />
        <MetricCard label="Total Clicks" testId="metric-Total Clicks" value={d?.clicks.toLocaleString('en-US')} note={<TrendText value={d?.trends.clicks ?? null} days={TREND_DAYS} />} icon={MousePointerClick} color="teal" />
        <MetricCard label="Average CTR" testId="metric-Average CTR" value={d && formatCtr(d.ctr, 2)} note={<TrendText value={d?.trends.ctr ?? null} days={TREND_DAYS} />} icon={Percent} color="grape" />
      </SimpleGrid>

      <Paper withBorder radius="md" p="lg">
        <Group justify="space-between" mb="md">
          <Title order={4}>Recent Dealers</Title>
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
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="sm" highlightOnHover data-testid="recent-dealers">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Dealer</Table.Th>
                  <Table.Th>Manufacturer</Table.Th>
                  <Table.Th>Provider</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th ta="right">CTR</Table.Th>
                  <Table.Th ta="right">Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {(d?.recentDealers ?? []).map((r) => (
                  <Table.Tr key={r.id}>
                    <Table.Td>
                      <Text fw={600} size="sm">
                        {r.name}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {r.id}
                      </Text>
                    </Table.Td>
                    <Table.Td>{r.manufacturerName}</Table.Td>
                    <Table.Td>{providerLabel(r.provider)}</Table.Td>
                    <Table.Td>
                      <StatusBadge status={r.status} />
                    </Table.Td>
                    <Table.Td ta="right">{formatCtr(r.ctr, 1)}</Table.Td>
                    <Table.Td ta="right">
                      <Group gap="xs" justify="flex-end" wrap="nowrap">
                        <Anchor component={Link} to={`/scripts/${r.id}`} size="sm">
                          Script
                        </Anchor>
                        <Button component={Link} to={`/admin/dealers/${r.id}/settings`} size="compact-sm" variant="subtle" leftSection={<Settings size={14} />} aria-label={`Settings of ${r.name}`}>
                          Settings
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
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
                Tracked events the database refused: {d.deadLetteredEvents.toLocaleString('en-US')}
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
