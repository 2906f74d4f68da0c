/**
 * Creative analytics on the Analytics screen: every creative the dealer's slots showed in
 * the period, with impressions, clicks, CTR and conversions; which creative of an A/B rotation
 * performs better (95 % confidence, or still leading, and nothing before each creative has its
 * minimum sample: 'Not enough data yet (N of M impressions)'); and the share of impressions that showed a
 * placeholder, with the models that need a banner and a link to upload one.
 */
import { Alert, Anchor, Badge, Group, Image, Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { CreativePerformance, DealerAnalytics } from '../../../domain/schemas';
import { CREATIVE_LABELS, DELETED_ASSET_LABEL, OTHER_CREATIVES_LABEL } from '../../../domain/constants';
import { OTHER_MODELS } from '../../../domain/model-keys';
import { AB_MIN_IMPRESSIONS, formatCtr, notEnoughDataText, plural } from '../../../domain/metrics';
import { PeriodCaption } from '../../components/metrics';
import { ASSET_STATUS_DISPLAY } from '../assets/format';

const VERDICTS = {
  best: { label: 'Best CTR', color: 'teal', title: 'Higher CTR than every other creative of its rotation, at 95 % confidence' },
  leading: { label: 'Leading', color: 'blue', title: 'Highest CTR of its rotation so far, not yet at 95 % confidence: keep it running' },
  trailing: { label: 'Trailing', color: 'gray', title: 'Lower CTR than the leader of its rotation' },
  even: { label: 'Even so far', color: 'gray', title: 'Same CTR as the other creatives of its rotation so far' },
  collecting: { label: 'Not enough data yet', color: 'gray', title: `No verdict yet: every creative of its rotation needs ${AB_MIN_IMPRESSIONS} viewable impressions first` },
} as const;

/** The A/B cell's text: the verdict's label, or while collecting 'Not enough data yet (N of M impressions)' with the server's count. */
const verdictText = (c: CreativePerformance) => (c.verdict === 'collecting' && c.sample ? notEnoughDataText(c.sample) : c.verdict ? VERDICTS[c.verdict].label : '');

/** The creative's name: the asset's file name, or what showed instead; the row summing the creatives beyond the answer's cap says so. */
const labelOf = (c: CreativePerformance) =>
  c.name ?? (c.kind === 'unknown' && c.model === OTHER_MODELS && !c.creative ? OTHER_CREATIVES_LABEL : (CREATIVE_LABELS[c.kind] ?? DELETED_ASSET_LABEL));

export function CreativesPanel({ a, dealerId, period, modelName }: { a: Pick<DealerAnalytics, 'creatives' | 'placeholderShare' | 'needBanner'>; dealerId: string; period: string; modelName: (m: string) => string }) {
  const share = a.placeholderShare;
  return (
    <Paper withBorder p="lg" radius="md" aria-labelledby="creatives-title">
      <Group justify="space-between" mb="xs">
        <Title order={4} id="creatives-title">
          Creative Performance
        </Title>
        <PeriodCaption label={period} />
      </Group>
      {share !== null && share > 0 && (
        <Alert color="orange" variant="light" mb="md" title={`${share.toFixed(1)} % of impressions showed a placeholder`}>
          <Text size="sm">
            These models have no banner of their own for a slot:{' '}
            {a.needBanner.map((n, i) => (
              <span key={`${n.model}|${n.slot}`}>
                {i > 0 && ', '}
                <b>{modelName(n.model)}</b> ({n.slot}, {plural(n.impressions, 'impression')})
              </span>
            ))}
            .{' '}
            <Anchor component={Link} to="/dealer/assets" size="sm">
              Upload banners
            </Anchor>
          </Text>
        </Alert>
      )}
      {share === 0 && (
        <Text size="sm" c="dimmed" mb="md">
          No impression showed a placeholder: every slot had a banner.
        </Text>
      )}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, 'aria-label': 'Creative performance, scrollable' }}>
        <Table striped highlightOnHover miw={760} aria-label="Creative performance">
          <Table.Thead>
            <Table.Tr>
              {/* Wide enough that a label breaks between words, not inside one (it may break anywhere: file names have no spaces). */}
              <Table.Th miw={200}>Creative</Table.Th>
              <Table.Th>Model</Table.Th>
              <Table.Th>Slot</Table.Th>
              <Table.Th ta="right" title="Viewable impressions: at least 50 % of the banner in view for at least one second">Viewable impressions</Table.Th>
              <Table.Th ta="right">Clicks</Table.Th>
              <Table.Th ta="right">CTR</Table.Th>
              <Table.Th ta="right">Conversions</Table.Th>
              <Table.Th miw={150}>A/B</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {a.creatives.map((c) => {
              const status = c.status && c.status !== 'deleted' ? ASSET_STATUS_DISPLAY.find((s) => s.status === c.status) : undefined;
              const verdict = c.verdict ? VERDICTS[c.verdict] : undefined;
              return (
                <Table.Tr key={`${c.creative}|${c.model}|${c.slot}`} data-testid="creative-row" data-creative={c.creative}>
                  <Table.Td>
                    <Group gap="sm" wrap="nowrap">
                      {c.kind === 'asset' && c.status !== 'deleted' ? (
                        <Image src={`/api/dealers/${encodeURIComponent(dealerId)}/assets/${c.creative}/image?size=thumb`} alt="" w={72} h={36} fit="contain" bg="gray.1" radius="sm" />
                      ) : (
                        <div style={{ width: 72 }} />
                      )}
                      <div style={{ minWidth: 0 }}>
                        <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                          {labelOf(c)}
                        </Text>
                        <Group gap={6}>
                          {c.width !== null && (
                            <Text size="xs" c="dimmed">
                              {c.width}x{c.height}
                            </Text>
                          )}
                          {status && (
                            <Badge size="xs" variant="light" color={status.color}>
                              {status.label}
                            </Badge>
                          )}
                          {c.status === 'deleted' && (
                            <Badge size="xs" variant="light" color="gray">
                              Deleted
                            </Badge>
                          )}
                        </Group>
                      </div>
                    </Group>
                  </Table.Td>
                  <Table.Td>{modelName(c.model)}</Table.Td>
                  <Table.Td tt="capitalize">{c.slot || '--'}</Table.Td>
                  <Table.Td ta="right">{c.impressions.toLocaleString('en-US')}</Table.Td>
                  <Table.Td ta="right">{c.clicks.toLocaleString('en-US')}</Table.Td>
                  <Table.Td ta="right">{formatCtr(c.ctr)}</Table.Td>
                  <Table.Td ta="right">{c.conversions.toLocaleString('en-US')}</Table.Td>
                  <Table.Td>
                    {verdict && c.verdict === 'collecting' ? (
                      <Text size="xs" c="dimmed" title={verdict.title} data-testid="ab-verdict">
                        {verdictText(c)}
                      </Text>
                    ) : (
                      verdict && (
                        <Badge size="sm" variant="light" color={verdict.color} title={verdict.title} tt="none" style={{ overflow: 'visible' }} data-testid="ab-verdict">
                          {verdictText(c)}
                        </Badge>
                      )
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Text size="xs" c="dimmed" mt="xs">
        Creatives of the same model, slot and size rotate evenly. No verdict is given before each creative of a rotation has {AB_MIN_IMPRESSIONS} viewable impressions;
        then a winner is named once its CTR is higher at 95 % confidence, and &apos;Leading&apos; means highest so far without that confidence.
      </Text>
    </Paper>
  );
}
