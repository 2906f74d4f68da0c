/**
 * Dealer dashboard /dealer (spec 02 §2 Dashboard, DECISIONS 18): greeting with dealer and
 * manufacturer, the three cards of the spec and Conversions from recorded events with the period they cover ('Last 7 Days')
 * and the change against the previous period ('--' without previous data), a small chart of the
 * daily viewable impressions against the previous 7 days, quick actions
 * and the most recent assets (with their model's display name).
 */
import { Link } from 'react-router';
import { Anchor, Badge, Box, Button, Card, Center, Group, Image, Paper, SimpleGrid, Skeleton, Stack, Text, ThemeIcon, Title, UnstyledButton } from '@mantine/core';
import { FileName } from '../../components/Truncated';
import { BadgeCheck, ChevronRight, Code2, Eye, Images, MousePointerClick, Package, Percent, Settings2, TrendingUp, Upload, type LucideIcon } from 'lucide-react';
import { TEXT } from '../../../domain/constants';
import { formatCtr } from '../../../domain/metrics';
import { useAuth } from '../../components/auth';
import { useDealer, useModelNames } from '../api';
import { DealerErrorNotice, NoDealerIdNotice } from '../DealerNotice';
import { useAssets } from '../assets/api';
import { assetTypeLabel, formatKb } from '../assets/format';
import { useDealerTrend, type StatsWithTrend } from './api';
import { TrendPanel } from './TrendPanel';
import { MetricCard, TrendText } from '../../components/metrics';
import { previousLabel, spanLabel } from '../../../domain/periods';
import { slotColor } from '../../../domain/slots';

/** The cards cover the last 7 days, compared with the 7 days before (DECISIONS 18). */
const PERIOD_DAYS = 7;
/** Assets shown under Recent Assets. */
const RECENT_ASSETS = 4;

const QUICK_ACTIONS: Array<{ label: string; description: string; to: string; icon: LucideIcon }> = [
  { label: 'Manage Assets', description: 'Upload and organize banners', to: '/dealer/assets', icon: Images },
  { label: 'Configuration', description: 'Model mappings and banner sizes', to: '/dealer/config', icon: Settings2 },
  { label: 'Upsell Rules', description: 'Which model to promote next', to: '/dealer/upsells', icon: TrendingUp },
  { label: 'Inventory', description: 'Feeds and manual uploads', to: '/dealer/inventory', icon: Package },
  { label: 'Get Script', description: 'Embed banners on your site', to: '/dealer/script', icon: Code2 },
];

/**
 * The dashboard's cards (spec 02 §2 Dashboard): each a figure of the period with its change against
 * the previous period (`metric`, the key of the trend); `whenNoData` stands for the value while the
 * period has no impressions (a CTR of nothing is no figure), with 'No data yet' for the trend.
 */
const CARDS: Array<{
  label: string;
  hint?: string;
  metric: keyof StatsWithTrend['trend'];
  value: (s: StatsWithTrend) => string;
  whenNoData?: string;
  icon: LucideIcon;
  color: string;
  testId: string;
}> = [
  { label: 'Banner Impressions', hint: 'Viewable impressions only', metric: 'impressions', value: (s) => s.impressions.toLocaleString('en-US'), icon: Eye, color: 'blue', testId: 'stat-impressions' },
  { label: 'Total Clicks', metric: 'clicks', value: (s) => s.clicks.toLocaleString('en-US'), icon: MousePointerClick, color: 'teal', testId: 'stat-clicks' },
  { label: 'Click-through Rate', metric: 'ctr', value: (s) => formatCtr(s.ctr), whenNoData: '--', icon: Percent, color: 'grape', testId: 'stat-ctr' },
  { label: 'Conversions', metric: 'conversions', value: (s) => s.conversions.toLocaleString('en-US'), icon: BadgeCheck, color: 'orange', testId: 'stat-conversions' },
];

/** The dealer area's home screen. */
export function DealerDashboard() {
  const { user } = useAuth();
  const dealerId = user?.dealerId;
  const dealer = useDealer(dealerId);
  const stats = useDealerTrend(dealerId, PERIOD_DAYS);
  const assets = useAssets(dealerId);
  const modelName = useModelNames(dealerId);

  if (!dealerId) return <NoDealerIdNotice />;
  if (dealer.error) return <DealerErrorNotice error={dealer.error} onRetry={() => void dealer.refetch()} />;

  const s = stats.data;
  const noData = s !== undefined && s.impressions === 0;
  // The period as the server answered it (its `days`), the asked one while loading.
  const span = { unit: 'day' as const, count: s?.days ?? PERIOD_DAYS };
  const period = spanLabel(span);
  const trendNote = (p: number | null | undefined) => <TrendText value={p ?? null} against={previousLabel(span)} />;
  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>Welcome back, {user?.name}!</Title>
        {dealer.data ? (
          <Group gap="xs" mt={4}>
            <Text c="dimmed">{dealer.data.name}</Text>
            <Badge variant="light" color="gray" radius="sm" tt="none">
              {dealer.data.manufacturerName}
            </Badge>
          </Group>
        ) : (
          <Skeleton h={20} w={260} mt={6} />
        )}
      </div>

      {stats.error ? (
        <DealerErrorNotice error={stats.error} onRetry={() => void stats.refetch()} />
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          {CARDS.map((c) => (
            <MetricCard
              key={c.testId}
              label={c.label}
              hint={c.hint}
              period={period}
              value={s && (noData && c.whenNoData ? c.whenNoData : c.value(s))}
              note={noData && c.whenNoData ? <Text size="xs" c="dimmed">No data yet</Text> : trendNote(s?.trend[c.metric])}
              icon={c.icon}
              color={c.color}
              testId={c.testId}
            />
          ))}
        </SimpleGrid>
      )}

      <TrendPanel dealerId={dealerId} />

      <Paper withBorder p="lg" radius="md">
        <Title order={3} size="h4" mb="md">
          Quick Actions
        </Title>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3, xl: 5 }} spacing="sm">
          {QUICK_ACTIONS.map((a) => (
            <UnstyledButton
              key={a.to}
              component={Link}
              to={a.to}
              p="sm"
              style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 'var(--mantine-radius-md)' }}
            >
              <Group wrap="nowrap" gap="sm">
                <ThemeIcon variant="light" size="lg" radius="md">
                  <a.icon size={18} />
                </ThemeIcon>
                <div style={{ minWidth: 0, flex: 1 }}>
                  <Text size="sm" fw={600}>
                    {a.label}
                  </Text>
                  <Text size="xs" c="dimmed" lh={1.3}>
                    {a.description}
                  </Text>
                </div>
                <ChevronRight size={16} color="var(--mantine-color-gray-5)" aria-hidden />
              </Group>
            </UnstyledButton>
          ))}
        </SimpleGrid>
      </Paper>

      <Paper withBorder p="lg" radius="md">
        <Group justify="space-between" mb="md">
          <Title order={3} size="h4">
            Recent Assets
          </Title>
          <Anchor component={Link} to="/dealer/assets" size="sm">
            View all
          </Anchor>
        </Group>
        {assets.error ? (
          <DealerErrorNotice error={assets.error} onRetry={() => void assets.refetch()} />
        ) : assets.isPending ? (
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            {Array.from({ length: RECENT_ASSETS }, (_, i) => (
              <Skeleton key={i} h={150} radius="md" />
            ))}
          </SimpleGrid>
        ) : assets.data.assets.length > 0 ? (
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            {assets.data.assets.slice(0, RECENT_ASSETS).map((a) => (
              <Card key={a.id} withBorder padding="sm" radius="md">
                <Card.Section bg="var(--mantine-color-gray-1)">
                  <Center h={96} p={6}>
                    <Image src={a.url} alt={a.name} mah={84} maw="100%" w="auto" fit="contain" />
                  </Center>
                </Card.Section>
                <Box mt="xs">
                  <FileName size="sm" fw={600}>
                    {a.name}
                  </FileName>
                </Box>
                {a.model && (
                  <Text size="xs" c="dimmed" data-testid="recent-asset-model">
                    {modelName(a.model)}
                  </Text>
                )}
                <Group gap="xs" mt={4} justify="space-between">
                  <Badge size="sm" variant="light" color={slotColor(a.type)}>
                    {assetTypeLabel(a.type)}
                  </Badge>
                  <Text size="xs" c="dimmed">
                    {formatKb(a.sizeBytes)}
                  </Text>
                </Group>
              </Card>
            ))}
          </SimpleGrid>
        ) : (
          <Stack align="center" py="lg" gap="xs">
            <ThemeIcon size={48} radius="xl" variant="light" color="gray">
              <Images size={24} />
            </ThemeIcon>
            <Text fw={600}>{TEXT.noAssetsUploaded}</Text>
            <Text size="sm" c="dimmed">
              Upload banners to use them on your search pages.
            </Text>
            <Button component={Link} to="/dealer/assets" size="sm" variant="light" leftSection={<Upload size={16} />}>
              Upload assets
            </Button>
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}
