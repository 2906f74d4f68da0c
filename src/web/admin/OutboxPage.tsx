/**
 * Outbox (/admin/outbox): every notification e-mail the
 * server wrote for dealers (performance and error alerts, weekly reports), newest first, with its
 * recipients, status and plain-text body. When SMTP_URL is unset nothing is sent and this screen
 * says so: the messages are only kept here. Read-only; Refresh re-queries.
 */
import { Accordion, Alert, Badge, Button, Code, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Info, Mail, RefreshCw } from 'lucide-react';
import type { OutboxKind } from '../../domain/notifications';
import { ErrorNotice } from '../components/feedback';
import { useOutbox } from './outbox-api';
import { EmptyState } from './parts';

const KIND_LABELS: Record<OutboxKind, string> = {
  'performance-alert': 'Performance alert',
  'feed-alert': 'Feed alert',
  'dead-letter-alert': 'Tracking alert',
  'weekly-report': 'Weekly report',
  invitation: 'Invitation',
};

const STATUS: Record<string, { label: string; color: string }> = {
  sent: { label: 'Sent', color: 'green' },
  sending: { label: 'Sending', color: 'blue' },
  failed: { label: 'Failed', color: 'red' },
  'not-configured': { label: 'Not sent: e-mail not configured', color: 'gray' },
  'no-recipients': { label: 'Not sent: no dealer manager', color: 'yellow' },
};

export function OutboxPage() {
  const q = useOutbox();
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Outbox</Title>
          <Text c="dimmed">Notification e-mails to dealer managers, newest first (the last 100).</Text>
        </div>
        <Button variant="default" leftSection={<RefreshCw size={16} />} onClick={() => void q.refetch()} loading={q.isFetching}>
          Refresh
        </Button>
      </Group>
      {q.data && !q.data.mailConfigured && (
        <Alert color="blue" icon={<Info size={18} />} title="E-mail is not configured">
          No SMTP server is set (SMTP_URL), so notifications are kept here and not sent. See the README&rsquo;s Configuration section.
        </Alert>
      )}
      {q.error ? (
        <ErrorNotice message={q.error.message} onRetry={() => void q.refetch()} />
      ) : q.isPending ? (
        <Skeleton h={180} radius="md" />
      ) : q.data.messages.length === 0 ? (
        <EmptyState icon={Mail} title="No notifications yet" hint="Alerts and weekly reports appear here as dealers’ notification settings send them." />
      ) : (
        <Paper withBorder radius="md">
          <Accordion chevronPosition="right" data-testid="outbox">
            {q.data.messages.map((m) => {
              const status = STATUS[m.status] ?? { label: m.status, color: 'gray' };
              return (
                <Accordion.Item key={m.id} value={String(m.id)}>
                  <Accordion.Control>
                    <Stack gap={2}>
                      <Text size="sm" fw={600} lineClamp={1}>
                        {m.subject}
                      </Text>
                      <Group gap="xs">
                        <Text size="xs" c="dimmed">
                          {new Date(m.createdAt).toLocaleString()}
                        </Text>
                        <Badge size="xs" variant="light" tt="none" color="blue">
                          {KIND_LABELS[m.kind] ?? m.kind}
                        </Badge>
                        <Badge size="xs" variant="light" tt="none" color={status.color}>
                          {status.label}
                        </Badge>
                      </Group>
                    </Stack>
                  </Accordion.Control>
                  <Accordion.Panel>
                    <Stack gap="xs">
                      <Text size="xs">
                        <b>To:</b> {m.recipients.length ? m.recipients.join(', ') : 'nobody (the dealer has no active dealer manager)'}
                      </Text>
                      <Text size="xs">
                        <b>Dealer:</b> {m.dealerId ?? '—'}
                      </Text>
                      {m.error && (
                        <Text size="xs" c="red.8">
                          <b>Error:</b> {m.error}
                        </Text>
                      )}
                      <Code block tabIndex={0} aria-label="Message text" style={{ whiteSpace: 'pre-wrap', maxHeight: 320, overflow: 'auto' }}>
                        {m.text}
                      </Code>
                    </Stack>
                  </Accordion.Panel>
                </Accordion.Item>
              );
            })}
          </Accordion>
        </Paper>
      )}
    </Stack>
  );
}
