/** Dealer dashboard (spec 02 §2 Dashboard, DECISIONS 18): greeting, the three cards from real events with trends vs the previous 7 days, quick actions, recent assets. */
import { Link } from 'react-router';
import { Anchor, Badge, Button, Card, Group, Image, Paper, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Code2, Image as ImageIcon, MousePointerClick, Package, Percent, Settings2, TrendingUp, Eye } from 'lucide-react';
import type { ReactNode } from 'react';
import { useAuth } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { useAssets, useDealer, useDealerTrend } from '../api';
import { formatCtr, formatTrend } from '../../../domain/metrics';
import { TEXT } from '../../../domain/constants';
import { ApiError } from '../../api/client';

function StatCard({ label, value, note, icon, testId }: { label: string; value: string; note: string; icon: ReactNode; testId: string }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Text size="sm" c="dimmed" fw={500}>
            {label}
          </Text>
          <Text fz={28} fw={700} data-testid={testId}>
            {value}
          </Text>
          <Text size="xs" c="dimmed">
            {note}
          </Text>
        </Stack>
        {icon}
      </Group>
    </Paper>
  );
}

/** The cards cover the last 7 days, with the change vs the 7 days before (DECISIONS 18). */
const TREND_DAYS = 7;
const trendNote = (p: number | null | undefined) =>
  p === null || p === undefined ? `Last ${TREND_DAYS} days · --` : `Last ${TREND_DAYS} days · ${formatTrend(p)} vs previous ${TREND_DAYS} days`;

const QUICK_ACTIONS = [
  { label: 'Upload assets', to: '/dealer/assets', icon: ImageIcon },
  { label: 'Model mapping', to: '/dealer/config', icon: Settings2 },
  { label: 'Upsell rules', to: '/dealer/upsells', icon: TrendingUp },
  { label: 'Inventory', to: '/dealer/inventory', icon: Package },
  { label: 'Get the script', to: '/dealer/script', icon: Code2 },
];

/** The dealer area's home screen. */
export function DealerDashboard() {
  const { user } = useAuth();
  const dealerId = user?.dealerId;
  const dealer = useDealer(dealerId);
  const stats = useDealerTrend(dealerId, TREND_DAYS);
  const assets = useAssets(dealerId);

  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  if (dealer.error) return <ErrorNotice message={dealer.error instanceof ApiError && dealer.error.status === 404 ? TEXT.dealerNotFound : dealer.error.message} />;

  const s = stats.data;
  const noData = !s || s.impressions === 0;
  const number = (n: number | undefined) => (n === undefined ? '…' : n.toLocaleString('en-US'));
  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>Welcome back, {user?.name}!</Title>
        <Text c="dimmed">{dealer.data ? `${dealer.data.name} · ${dealer.data.manufacturerName}` : <Skeleton h={16} w={200} component="span" />}</Text>
      </div>
      {stats.error && <ErrorNotice message={stats.error.message} />}
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <StatCard label="Banner Impressions" value={number(s?.impressions)} note={trendNote(s?.trend.impressions)} icon={<Eye size={22} />} testId="stat-impressions" />
        <StatCard label="Total Clicks" value={number(s?.clicks)} note={trendNote(s?.trend.clicks)} icon={<MousePointerClick size={22} />} testId="stat-clicks" />
        <StatCard
          label="Click-through Rate"
          value={noData ? '--' : formatCtr(s!.ctr, 2)}
          note={noData ? 'No data yet' : trendNote(s!.trend.ctr)}
          icon={<Percent size={22} />}
          testId="stat-ctr"
        />
      </SimpleGrid>
      <Paper withBorder p="lg" radius="md">
        <Title order={4} mb="sm">
          Quick Actions
        </Title>
        <Group>
          {QUICK_ACTIONS.map((a) => (
            <Button key={a.to} component={Link} to={a.to} variant="light" leftSection={<a.icon size={16} />}>
              {a.label}
            </Button>
          ))}
        </Group>
      </Paper>
      <Paper withBorder p="lg" radius="md">
        <Group justify="space-between" mb="sm">
          <Title order={4}>Recent Assets</Title>
          <Anchor component={Link} to="/dealer/assets" size="sm">
            View all
          </Anchor>
        </Group>
        {assets.isPending ? (
          <Skeleton h={120} />
        ) : assets.data && assets.data.assets.length > 0 ? (
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            {assets.data.assets.slice(0, 4).map((a) => (
              <Card key={a.id} withBorder padding="sm">
                <Card.Section>
                  <Image src={a.url} alt={a.name} h={90} fit="contain" bg="gray.1" />
                </Card.Section>
                <Text size="sm" fw={500} mt="xs" truncate title={a.name}>
                  {a.name}
                </Text>
                <Group gap="xs">
                  <Badge size="xs" variant="light">
                    {a.type}
                  </Badge>
                  <Text size="xs" c="dimmed">
                    {Math.round(a.sizeBytes / 1024)} KB
                  </Text>
                </Group>
              </Card>
            ))}
          </SimpleGrid>
        ) : (
          <Stack align="center" py="md" gap="xs">
            <Text c="dimmed">{TEXT.noAssetsUploaded}</Text>
            <Button component={Link} to="/dealer/assets" size="xs" variant="light">
              Upload your first banner
            </Button>
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}
