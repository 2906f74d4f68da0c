/**
 * 'Automatic Feed' tab (spec 02 §2 Inventory, §4 Feed test status and Feed, §5 Feed, §8;
 * DECISIONS 20): the current feed with Pause Feed / Resume Feed and its last runs; the
 * configuration form (feed URL, update frequency, field mapping) with Test Feed (idle, testing,
 * success or error; only success reveals Save) and Save; the expected-format example; the failure
 * box with its four tips.
 */
import { useState } from 'react';
import { Alert, Badge, Button, Code, Grid, Group, List, Paper, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Select } from '../../components/deferred';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { CircleAlert, CircleCheck, Pause, Play, Rss, Save, TestTube } from 'lucide-react';
import type { FeedTestResult } from '../../../domain/inventory';
import type { FieldMapping, UpdateFrequency } from '../../../domain/schemas';
import { UPDATE_FREQUENCIES } from '../../../domain/enums';
import { INVENTORY_TEXT } from '../../../domain/constants';
import { plural } from '../../../domain/metrics';
import { FEED_FIRST_RUN_WAIT_MS, useFeed, useSaveFeed, useSetFeedActive, useTestFeed, type AwaitedRun, type FeedForm } from './api';

const FREQUENCY_LABELS: Record<UpdateFrequency, string> = { hourly: 'Hourly', 'every-4-hours': 'Every 4 hours', daily: 'Daily' };
const MAPPING_FIELDS: Array<{ key: keyof FieldMapping; label: string }> = [
  { key: 'model', label: 'Model field' },
  { key: 'trim', label: 'Trim field' },
  { key: 'year', label: 'Year field' },
  { key: 'daysOnLot', label: 'Days on lot field' },
  { key: 'vin', label: 'VIN field' },
  { key: 'stock', label: 'Stock number field' },
];
const DEFAULT_MAPPING: FieldMapping = { model: 'Model', trim: 'Trim', year: 'Year', daysOnLot: 'DaysInStock', vin: 'VIN', stock: 'StockNumber' };

const EXAMPLE = `{
  "Inventory": {
    "ListOfVehicles": [
      {
        "VIN": "1HGCY1F30RA000001",
        "StockNumber": "H0001",
        "Model": "Civic",
        "Trim": "Sport",
        "Year": 2025,
        "DaysInStock": 42,
        "ExteriorColor": "Crystal Black Pearl",
        "IsNew": true
      }
    ]
  }
}`;

type TestStatus = { state: 'idle' } | { state: 'testing' } | { state: 'success'; result: FeedTestResult } | { state: 'error'; message: string };

function isUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

export function FeedTab({ dealerId, canEdit }: { dealerId: string; canEdit: boolean }) {
  // After Save the card follows the feed's first run until it has finished.
  const [awaitedRun, setAwaitedRun] = useState<AwaitedRun | null>(null);
  const state = useFeed(dealerId, awaitedRun);
  const test = useTestFeed(dealerId);
  const save = useSaveFeed(dealerId);
  const setActive = useSetFeedActive(dealerId);
  const [status, setStatus] = useState<TestStatus>({ state: 'idle' });
  const feed = state.data?.feed ?? null;
  const runs = state.data?.runs ?? [];

  const form = useForm<FeedForm>({
    mode: 'controlled',
    initialValues: { feedUrl: '', updateFrequency: 'daily', fieldMapping: DEFAULT_MAPPING },
    validate: {
      feedUrl: (v) => (!v.trim() ? INVENTORY_TEXT.enterFeedUrl : isUrl(v.trim()) ? null : 'Please enter a valid URL (http:// or https://)'),
    },
    // Editing after a test makes the result stale: back to idle, Save hidden again.
    onValuesChange: () => setStatus((s) => (s.state === 'idle' ? s : { state: 'idle' })),
  });
  const [loadedFrom, setLoadedFrom] = useState<string | null>(null);
  if (feed && loadedFrom !== feed.feedUrl + feed.updateFrequency) {
    setLoadedFrom(feed.feedUrl + feed.updateFrequency);
    form.setValues({ feedUrl: feed.feedUrl, updateFrequency: feed.updateFrequency, fieldMapping: { ...DEFAULT_MAPPING, ...feed.fieldMapping } });
    form.resetDirty();
  }

  const onTest = () => {
    if (form.validate().hasErrors) return;
    setStatus({ state: 'testing' });
    test.mutate(
      { feedUrl: form.values.feedUrl.trim(), fieldMapping: form.values.fieldMapping },
      {
        onSuccess: (result) => setStatus({ state: 'success', result }),
        onError: (e) => setStatus({ state: 'error', message: e.message || INVENTORY_TEXT.fetchFailed }),
      },
    );
  };

  const onSave = () =>
    save.mutate(
      { ...form.values, feedUrl: form.values.feedUrl.trim() },
      {
        onSuccess: ({ feed: saved }) => {
          notifications.show({ color: 'teal', title: 'Feed saved', message: 'The feed is active; its first run starts now.' });
          setStatus({ state: 'idle' });
          setAwaitedRun({ after: saved.nextRunAt ? Date.parse(saved.nextRunAt) : Date.now(), until: Date.now() + FEED_FIRST_RUN_WAIT_MS });
        },
        onError: (e) => notifications.show({ color: 'red', title: 'Save failed', message: e.message }),
      },
    );

  const toggle = () =>
    feed &&
    setActive.mutate(!feed.isActive, {
      onError: (e) => notifications.show({ color: 'red', title: 'Could not change the feed', message: e.message }),
    });

  return (
    <Stack gap="lg">
      {feed && (
        <Paper withBorder radius="md" p="lg" data-testid="current-feed">
          <Group justify="space-between" align="flex-start" mb="sm">
            <div style={{ minWidth: 0 }}>
              <Group gap="xs">
                <Rss size={18} />
                <Title order={4}>Current Feed</Title>
                <Badge color={feed.isActive ? 'teal' : 'gray'} data-testid="feed-status">
                  {feed.isActive ? 'Active' : 'Paused'}
                </Badge>
              </Group>
              <Text size="sm" mt={4} style={{ wordBreak: 'break-all' }}>
                {feed.feedUrl}
              </Text>
              <Text size="sm" c="dimmed">
                {FREQUENCY_LABELS[feed.updateFrequency]} · Last updated {feed.lastUpdated ? new Date(feed.lastUpdated).toLocaleString() : 'Never'}
                {feed.isActive && feed.nextRunAt ? ` · Next run ${new Date(feed.nextRunAt).toLocaleString()}` : ''}
              </Text>
            </div>
            {canEdit && (
              <Button
                variant="default"
                leftSection={feed.isActive ? <Pause size={16} /> : <Play size={16} />}
                onClick={toggle}
                loading={setActive.isPending}
              >
                {feed.isActive ? 'Pause Feed' : 'Resume Feed'}
              </Button>
            )}
          </Group>
          <Title order={6} mb={4}>
            Recent runs
          </Title>
          {runs.length === 0 ? (
            <Text size="sm" c="dimmed">
              No runs yet.
            </Text>
          ) : (
            <Table verticalSpacing={4} fz="sm" data-testid="feed-runs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Started</Table.Th>
                  <Table.Th>Result</Table.Th>
                  <Table.Th ta="right">Vehicles</Table.Th>
                  <Table.Th>Error</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {runs.map((r) => (
                  <Table.Tr key={r.id}>
                    <Table.Td>{new Date(r.startedAt).toLocaleString()}</Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" color={r.status === 'success' ? 'teal' : r.status === 'error' ? 'red' : 'blue'}>
                        {r.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td ta="right">{r.vehicleCount ?? '--'}</Table.Td>
                    <Table.Td>
                      <Text size="xs" c="red" lineClamp={2}>
                        {r.error ?? ''}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Paper>
      )}

      <Paper withBorder radius="md" p="lg" component="form" onSubmit={form.onSubmit(onTest)} noValidate>
        <Title order={4} mb="md">
          {feed ? 'Change Feed' : 'Configure Feed'}
        </Title>
        <Stack gap="md">
          {/* Two thirds and one third from md up; one column below (a span of 2 in one column widened the page). */}
          <Grid>
            <Grid.Col span={{ base: 12, md: 8 }}>
              <TextInput
                label="Feed URL"
                type="url"
                placeholder="https://feeds.example.com/inventory.json"
                required
                disabled={!canEdit}
                {...form.getInputProps('feedUrl')}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 4 }}>
              <Select
                label="Update frequency"
                data={UPDATE_FREQUENCIES.map((f) => ({ value: f, label: FREQUENCY_LABELS[f] }))}
                allowDeselect={false}
                disabled={!canEdit}
                {...form.getInputProps('updateFrequency')}
              />
            </Grid.Col>
          </Grid>
          <div>
            <Text fw={600} size="sm" mb={4}>
              Field mapping
            </Text>
            <Text size="xs" c="dimmed" mb="xs">
              The name of each field in your feed. Common spellings (DaysInStock, daysOnLot, days_on_lot...) are recognized anyway.
            </Text>
            <SimpleGrid cols={{ base: 2, md: 3 }}>
              {MAPPING_FIELDS.map((f) => (
                <TextInput key={f.key} label={f.label} disabled={!canEdit} {...form.getInputProps(`fieldMapping.${f.key}`)} />
              ))}
            </SimpleGrid>
          </div>
          {canEdit && (
            <Group>
              <Button type="submit" variant="light" leftSection={<TestTube size={16} />} loading={status.state === 'testing'} disabled={status.state === 'testing' || !form.values.feedUrl.trim()}>
                Test Feed
              </Button>
              {status.state === 'success' && (
                <Button leftSection={<Save size={16} />} onClick={onSave} loading={save.isPending}>
                  Save Feed
                </Button>
              )}
            </Group>
          )}
          {status.state === 'success' && (
            <Alert color="teal" icon={<CircleCheck size={18} />} title="Feed test succeeded" data-testid="feed-test-success">
              {plural(status.result.vehicleCount, 'new vehicle')} across {plural(status.result.modelCount, 'model')} ({status.result.agedUnits.toLocaleString('en-US')} aged)
              {status.result.skippedCount > 0 ? `; ${plural(status.result.skippedCount, 'record')} skipped` : ''}. Save to activate the feed.
            </Alert>
          )}
          {status.state === 'error' && (
            <Alert color="red" icon={<CircleAlert size={18} />} title="Feed test failed" data-testid="feed-test-error" role="alert">
              <Text size="sm" mb="xs">
                {status.message}
              </Text>
              <Text size="sm" fw={600}>
                Please check that:
              </Text>
              <List size="sm">
                {INVENTORY_TEXT.failureTips.map((tip) => (
                  <List.Item key={tip}>{tip}</List.Item>
                ))}
              </List>
            </Alert>
          )}
        </Stack>
      </Paper>

      <Paper withBorder radius="md" p="lg">
        <Title order={5} mb="xs">
          Expected format
        </Title>
        <Text size="sm" c="dimmed" mb="xs">
          JSON with the vehicles in <Code>Inventory.ListOfVehicles</Code> (or a direct array, <Code>listOfVehicles</Code>, <Code>vehicles</Code> or <Code>inventory</Code>). Only vehicles with <Code>"IsNew": true</Code> (or no IsNew field) are counted.
        </Text>
        <Code block tabIndex={0} aria-label="Expected format example">
          {EXAMPLE}
        </Code>
      </Paper>
    </Stack>
  );
}
