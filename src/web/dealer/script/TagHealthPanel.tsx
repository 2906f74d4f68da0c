/**
 * "Is my tag working?" (dealer and admin Script pages; domain/tag-health.ts): when each site origin
 * last sent a beacon per slot and whether it was counted, the beacons of the last 24 h refused or
 * dropped by reason (each with what it means and what to do), and "Test my page", where the
 * server tells what a page address would meet from the dealer's settings without loading it.
 * Everything shown is what the API returns.
 */
import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Code, Group, List, Paper, Skeleton, Stack, Table, Text, TextInput, ThemeIcon, Title, VisuallyHidden } from '@mantine/core';
import { Activity, AlertTriangle, CheckCircle2, Info, RefreshCw, XCircle } from 'lucide-react';
import { reasonAction, TAG_NO_ORIGIN, TAG_OTHER_ORIGIN, TAG_REASON_TEXTS, type TagHealthReason } from '../../../domain/tag-health';
import { useAuth } from '../../components/auth';
import { SLOT_TEXTS, SLOT_TYPES, type SlotType } from '../../../domain/slots';
import type { PageCheck, TagHealth } from '../../../domain/contracts/tag-health';
import { ApiError } from '../../api/client';
import { usePageCheck, useTagHealth } from './api';

/** How long ago `iso` was, from `now` (ms), in words ("just now", "5 minutes ago", "3 days ago"). */
export function timeAgo(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  const rtf = new Intl.RelativeTimeFormat('en-US', { numeric: 'always' });
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return rtf.format(-minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 48) return rtf.format(-hours, 'hour');
  return rtf.format(-Math.round(hours / 24), 'day');
}

/** An origin as the panel names it: 'other' and 'none' in words. */
const originLabel = (origin: string) =>
  origin === TAG_OTHER_ORIGIN ? 'Other sites (beyond the sites listed)' : origin === TAG_NO_ORIGIN ? 'Pages that sent no address' : origin;
/** A slot type in words ('' = a beacon naming no slot, e.g. a conversion). */
const slotLabel = (slot: string) => (SLOT_TYPES.includes(slot as SlotType) ? SLOT_TEXTS[slot as SlotType].label : 'No slot (conversion)');

/** The tag health of one dealer, with "Test my page". */
export function TagHealthPanel({ dealerId }: { dealerId: string }) {
  const health = useTagHealth(dealerId);
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label="Is my tag working?">
      <Group justify="space-between" align="flex-start" mb="sm" gap="sm">
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <ThemeIcon variant="light" size="lg" radius="md">
            <Activity size={18} />
          </ThemeIcon>
          <div>
            <Title order={3} size="h4">
              Is my tag working?
            </Title>
            <Text size="sm" c="dimmed">
              What became of the beacons your pages sent (counts only: no visitor data is kept).
            </Text>
          </div>
        </Group>
        <Button variant="default" size="xs" leftSection={<RefreshCw size={14} />} loading={health.isFetching} onClick={() => void health.refetch()}>
          Refresh
        </Button>
      </Group>
      {health.error ? (
        <Alert color="red" variant="light" title="Tag health could not be loaded">
          <Group justify="space-between">
            <Text size="sm">{health.error.message}</Text>
            <Button size="xs" variant="light" color="red" onClick={() => void health.refetch()}>
              Try again
            </Button>
          </Group>
        </Alert>
      ) : !health.data ? (
        <Stack gap="xs" aria-busy="true" aria-label="Loading tag health">
          <Skeleton h={24} />
          <Skeleton h={80} />
        </Stack>
      ) : (
        <HealthReport health={health.data} />
      )}
      <PageTest dealerId={dealerId} />
    </Paper>
  );
}

/** The last beacons per origin and slot, and the refusals of the window by reason. */
function HealthReport({ health }: { health: TagHealth }) {
  const now = Date.now();
  const counted = health.counts.filter((c) => c.reason === 'counted').reduce((n, c) => n + c.beacons, 0);
  const byReason = new Map<TagHealthReason, Array<{ origin: string; beacons: number }>>();
  for (const c of health.counts) {
    if (c.reason === 'counted') continue;
    byReason.set(c.reason, [...(byReason.get(c.reason) ?? []), { origin: c.origin, beacons: c.beacons }]);
  }
  const lastCounted = health.seen.map((s) => s.lastCountedAt).filter((t): t is string => t !== null).sort().at(-1);
  return (
    <Stack gap="md" data-testid="tag-health">
      {health.seen.length === 0 ? (
        <Alert color="gray" variant="light" icon={<Info size={18} />} title="No beacon yet">
          No page has sent a beacon yet. Add the tag and a shortcode to a search page, then open that page in a normal browser window and scroll a banner into
          view.
        </Alert>
      ) : lastCounted ? (
        <Text size="sm" data-testid="tag-health-summary">
          Last counted beacon: <strong>{timeAgo(lastCounted, now)}</strong>. {counted.toLocaleString('en-US')} counted in the last {health.windowHours} hours.
        </Text>
      ) : (
        <Alert color="yellow" variant="light" icon={<AlertTriangle size={18} />} title="Beacons arrive, but none was counted" data-testid="tag-health-summary">
          Your pages send beacons, but every one was refused or dropped. The reasons below say why.
        </Alert>
      )}

      {health.seen.length > 0 && (
        <Table fz="sm" verticalSpacing={4} aria-label="Last beacon per site and slot">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Site and slot</Table.Th>
                <Table.Th>Last beacon</Table.Th>
                <Table.Th>Last counted</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {health.seen.map((s) => (
                <Table.Tr key={`${s.origin}|${s.slotType}`}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    {originLabel(s.origin)}
                    <Text size="xs" c="dimmed">
                      {slotLabel(s.slotType)}
                    </Text>
                  </Table.Td>
                  <Table.Td title={new Date(s.lastSeenAt).toLocaleString('en-US')}>{timeAgo(s.lastSeenAt, now)}</Table.Td>
                  <Table.Td title={s.lastCountedAt ? new Date(s.lastCountedAt).toLocaleString('en-US') : undefined}>
                    {s.lastCountedAt ? timeAgo(s.lastCountedAt, now) : <Text span size="sm" fw={600}>
                        Never
                      </Text>}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
      )}

      <div>
        <Text fw={600} size="sm" mb={6}>
          Refused or dropped in the last {health.windowHours} hours
        </Text>
        {byReason.size === 0 ? (
          <Text size="sm" c="dimmed" data-testid="no-refusals">
            None: no beacon was refused or dropped.
          </Text>
        ) : (
          <Stack gap="xs">
            {[...byReason].map(([reason, origins]) => (
              <ReasonRow key={reason} reason={reason} origins={origins} />
            ))}
          </Stack>
        )}
      </div>
    </Stack>
  );
}

/** One refusal reason: its count, what it means, what to do, and the sites it came from. */
function ReasonRow({ reason, origins }: { reason: TagHealthReason; origins: Array<{ origin: string; beacons: number }> }) {
  const text = TAG_REASON_TEXTS[reason];
  const admin = useAuth().user?.role === 'admin';
  const total = origins.reduce((n, o) => n + o.beacons, 0);
  return (
    <Paper withBorder p="sm" radius="sm" data-testid={`reason-${reason}`}>
      <Group gap="xs" mb={4}>
        <Badge variant="light" color={reason === 'opted-out' || reason === 'bot' ? 'gray' : 'orange'}>
          {text.label}
        </Badge>
        <Text size="sm" fw={600}>
          {total.toLocaleString('en-US')} {total === 1 ? 'beacon' : 'beacons'}
        </Text>
      </Group>
      <Text size="sm">{text.explanation}</Text>
      <Text size="sm" c="dimmed">
        What to do: {reasonAction(reason, admin)}
      </Text>
      <Text size="xs" c="dimmed" mt={4} style={{ wordBreak: 'break-all' }}>
        From: {origins.map((o) => `${originLabel(o.origin)} (${o.beacons.toLocaleString('en-US')})`).join(', ')}
      </Text>
    </Paper>
  );
}

const FINDING_STYLE = {
  problem: { color: 'red', icon: <XCircle size={16} />, label: 'Problem' },
  warning: { color: 'yellow', icon: <AlertTriangle size={16} />, label: 'Warning' },
  ok: { color: 'teal', icon: <CheckCircle2 size={16} />, label: 'OK' },
  info: { color: 'gray', icon: <Info size={16} />, label: 'Note' },
} as const;

/** "Test my page": an address form and the server's findings for it. */
function PageTest({ dealerId }: { dealerId: string }) {
  const [value, setValue] = useState('');
  const [submitted, setSubmitted] = useState<string | null>(null);
  const check = usePageCheck(dealerId, submitted);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) setSubmitted(value.trim());
  };
  const fieldError = check.error instanceof ApiError ? (check.error.fields.find((f) => f.path === 'url')?.message ?? check.error.message) : check.error?.message;
  return (
    <Stack gap="xs" mt="lg" component="form" onSubmit={submit} aria-label="Test my page">
      <Text fw={600} size="sm">
        Test my page
      </Text>
      <Text size="sm" c="dimmed">
        Enter the address of one of your search pages: we check it against your settings (the page itself is not loaded).
      </Text>
      <Group align="flex-start" gap="xs" wrap="wrap">
        <TextInput
          style={{ flex: '1 1 260px' }}
          aria-label="Page address"
          placeholder="https://www.example.com/new-inventory"
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          error={fieldError}
        />
        <Button type="submit" loading={check.isFetching} disabled={!value.trim()}>
          Test page
        </Button>
      </Group>
      {check.data && <PageCheckResult result={check.data} />}
    </Stack>
  );
}

function PageCheckResult({ result }: { result: PageCheck }) {
  const now = Date.now();
  const problems = result.findings.filter((f) => f.status === 'problem').length;
  const lastCounted = result.seen.map((s) => s.lastCountedAt).filter((t): t is string => t !== null).sort().at(-1);
  return (
    <Stack gap="xs" data-testid="page-check" aria-live="polite">
      <Text size="sm">
        <Code>{result.url}</Code>:{' '}
        <strong>{problems === 0 ? 'no problem found' : `${problems} ${problems === 1 ? 'problem' : 'problems'} found`}</strong>
      </Text>
      <List spacing={4} size="sm" listStyleType="none">
        {result.findings.map((f, i) => {
          const style = FINDING_STYLE[f.status];
          return (
            <List.Item
              key={i}
              icon={
                <ThemeIcon color={style.color} variant="light" size={22} radius="xl" aria-hidden>
                  {style.icon}
                </ThemeIcon>
              }
            >
              <VisuallyHidden>{style.label}: </VisuallyHidden>
              {f.message}
            </List.Item>
          );
        })}
      </List>
      {result.origin && (
        <Text size="sm" c="dimmed" data-testid="page-check-seen">
          {result.seen.length === 0
            ? `No beacon has been seen from ${result.origin} yet.`
            : `Beacons from ${result.origin}: last seen ${timeAgo(result.seen.map((s) => s.lastSeenAt).sort().at(-1)!, now)}, ${lastCounted ? `last counted ${timeAgo(lastCounted, now)}` : 'never counted'}.`}
          {result.counts.length > 0 &&
            ` Last 24 hours: ${result.counts.map((c) => `${TAG_REASON_TEXTS[c.reason].label.toLowerCase()} ${c.beacons.toLocaleString('en-US')}`).join(', ')}.`}
        </Text>
      )}
    </Stack>
  );
}
