/**
 * Client Error Log (/admin/errors; spec 01 §2, §8): the render errors the web app's error
 * screen reported, newest first, at most 50, each with timestamp, message, page URL, user, stack
 * and component stack. Read-only; Refresh re-queries.
 */
import { Accordion, Anchor, Badge, Button, Code, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Bug, RefreshCw } from 'lucide-react';
import { Link } from 'react-router';
import { CLIENT_ERROR_LOG_LIMIT } from '../../domain/constants';
import { ErrorNotice } from '../components/feedback';
import { useClientErrors } from './api';
import { EmptyState } from './parts';

export function ClientErrorsPage() {
  const q = useClientErrors();
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Anchor component={Link} to="/admin" size="sm">
            ← Dashboard
          </Anchor>
          <Title order={2}>Client Error Log</Title>
          <Text c="dimmed">Render errors reported by browsers, newest first (the last {CLIENT_ERROR_LOG_LIMIT} are kept).</Text>
        </div>
        <Button variant="default" leftSection={<RefreshCw size={16} />} onClick={() => void q.refetch()} loading={q.isFetching}>
          Refresh
        </Button>
      </Group>
      {q.error ? (
        <ErrorNotice message={q.error.message} onRetry={() => void q.refetch()} />
      ) : q.isPending ? (
        <Skeleton h={180} radius="md" />
      ) : q.data && q.data.length === 0 ? (
        <EmptyState icon={Bug} title="No client errors logged" hint="Errors that show the ‘Something went wrong’ screen appear here." />
      ) : (
        <Paper withBorder radius="md">
          <Accordion variant="default" chevronPosition="right" data-testid="client-errors">
            {(q.data ?? []).map((e) => (
              <Accordion.Item key={e.id} value={String(e.id)}>
                <Accordion.Control>
                  <Stack gap={2}>
                    <Group gap="xs" wrap="nowrap">
                      <Text size="sm" fw={600} lineClamp={1}>
                        {e.message}
                      </Text>
                    </Group>
                    <Group gap="xs">
                      <Text size="xs" c="dimmed">
                        {new Date(e.timestamp).toLocaleString()}
                      </Text>
                      <Badge size="xs" variant="light" tt="none" color={e.user ? 'blue' : 'gray'}>
                        {e.user ?? 'signed out'}
                      </Badge>
                      <Text size="xs" c="dimmed" lineClamp={1} style={{ wordBreak: 'break-all' }}>
                        {e.url}
                      </Text>
                    </Group>
                  </Stack>
                </Accordion.Control>
                <Accordion.Panel>
                  <Stack gap="sm">
                    {e.userAgent && (
                      <Text size="xs" c="dimmed">
                        {e.userAgent}
                      </Text>
                    )}
                    <Trace label="Stack" text={e.stack} />
                    <Trace label="Component stack" text={e.componentStack} />
                  </Stack>
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
        </Paper>
      )}
    </Stack>
  );
}

function Trace({ label, text }: { label: string; text: string | null }) {
  return (
    <div>
      <Text size="xs" fw={600} mb={4}>
        {label}
      </Text>
      {text ? (
        // Scrolls on its own, so it takes keyboard focus (arrow keys scroll it).
        <Code block tabIndex={0} aria-label={label} style={{ maxHeight: 240, overflow: 'auto', whiteSpace: 'pre' }}>
          {text.trim()}
        </Code>
      ) : (
        <Text size="xs" c="dimmed">
          Not reported
        </Text>
      )}
    </div>
  );
}
