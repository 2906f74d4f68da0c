/**
 * An admin's view of one dealer's analytics (/admin/dealers/:dealerId/analytics), opened from a
 * row of the dealer table (Platform Analytics, or Dealer Management with `?from=dealers`): the
 * dealer's own Analytics Dashboard (spec 02 §2; the same screen and API its users see, admins may
 * read any dealer) in the period the table showed (`?period=`), with a way back to the table it
 * came from and to the dealer's settings.
 */
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Anchor, Button, Group, Stack } from '@mantine/core';
import { ArrowLeft, Settings } from 'lucide-react';
import { ANALYTICS_PERIODS, type AnalyticsPeriod } from '../../domain/enums';
import { AnalyticsPage } from '../dealer/analytics/AnalyticsPage';
import { useAdminDealer } from './api';

export function DealerAnalyticsPage() {
  const { dealerId = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const p = params.get('period');
  const period = (ANALYTICS_PERIODS as readonly string[]).includes(p ?? '') ? (p as AnalyticsPeriod) : undefined;
  const dealer = useAdminDealer(dealerId);
  const name = dealer.data?.name ?? dealerId;
  const back = params.get('from') === 'dealers' ? { to: '/admin/dealers', label: 'Dealer Management' } : { to: '/admin/analytics', label: 'Platform Analytics' };
  return (
    <Stack gap="md">
      <Group justify="space-between">
        {/* Back to the table as it was (its state is in the URL of the previous entry); a fresh tab gets the table's default. */}
        <Anchor component={Link} to={back.to} onClick={(e) => (((window.history.state as { idx?: number } | null)?.idx ?? 0) > 0 ? (e.preventDefault(), navigate(-1)) : undefined)} size="sm">
          <Group gap={4} component="span">
            <ArrowLeft size={14} aria-hidden /> {back.label}
          </Group>
        </Anchor>
        <Button component={Link} to={`/admin/dealers/${encodeURIComponent(dealerId)}/settings`} variant="default" leftSection={<Settings size={16} />} size="xs">
          Settings
        </Button>
      </Group>
      <AnalyticsPage key={dealerId} dealerId={dealerId} initialPeriod={period} title={`${name}: Analytics`} />
    </Stack>
  );
}
