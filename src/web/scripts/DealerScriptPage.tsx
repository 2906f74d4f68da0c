/** Dealer script page /scripts/:dealerId (spec 02 §2; DECISIONS 6: other dealers look unknown). */
import { useParams } from 'react-router';
import { Badge, Button, Center, Code, CopyButton, Group, Paper, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { Check, Copy, Download, SearchX } from 'lucide-react';
import { COPY_CONFIRMATION_MS } from '../../domain/constants';
import { formatCtr } from '../../domain/metrics';
import { useScriptInfo } from '../dealer/api';
import { downloadText } from '../dealer/script/ScriptPage';
import { ApiError } from '../api/client';
import { ErrorNotice } from '../components/feedback';

function Summary({ title, rows, total }: { title: string; rows: Array<[string, string]>; total: number }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text fw={600} mb="xs">
        {title}
      </Text>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          None
        </Text>
      ) : (
        <Table fz="sm" verticalSpacing={2}>
          <Table.Tbody>
            {rows.map(([k, v]) => (
              <Table.Tr key={k}>
                <Table.Td>{k}</Table.Td>
                <Table.Td>→ {v}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {total > rows.length && (
        <Text size="xs" c="dimmed" mt={4}>
          +{total - rows.length} more...
        </Text>
      )}
    </Paper>
  );
}

export function DealerScriptPage() {
  const { dealerId = '' } = useParams();
  const info = useScriptInfo(dealerId);
  if (info.error) {
    if (info.error instanceof ApiError && (info.error.status === 404 || info.error.status === 403)) {
      return (
        <Center mih="50vh">
          <Stack align="center" gap="xs">
            <SearchX size={44} strokeWidth={1.5} />
            <Title order={2}>Dealer Not Found</Title>
            <Text c="dimmed">The requested dealer script could not be found.</Text>
          </Stack>
        </Center>
      );
    }
    return <ErrorNotice message={info.error.message} />;
  }
  const d = info.data;
  if (!d) return <Skeleton h={400} />;
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start">
        <div>
          <Group gap="sm">
            <Title order={2}>{d.dealer.name}</Title>
            <Badge color={d.dealer.status === 'active' ? 'green' : 'gray'} variant="light">
              {d.dealer.status}
            </Badge>
          </Group>
          <Text c="dimmed">
            {d.dealer.id} · {d.dealer.manufacturer} · {d.dealer.provider}
          </Text>
        </div>
        <Group>
          <CopyButton value={d.content} timeout={COPY_CONFIRMATION_MS}>
            {({ copied, copy }) => (
              <Button variant="light" onClick={copy} leftSection={copied ? <Check size={16} /> : <Copy size={16} />}>
                {copied ? 'Copied!' : 'Copy Script'}
              </Button>
            )}
          </CopyButton>
          <Button leftSection={<Download size={16} />} onClick={() => downloadText(`dc-banners-${d.dealer.id}.js`, d.content)}>
            Download
          </Button>
        </Group>
      </Group>
      <Paper withBorder p="md" radius="md">
        <Text fw={600} mb={4}>
          Production script address
        </Text>
        <Code>{d.scriptUrl}</Code>
      </Paper>
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <Summary title="Model mappings" rows={d.summary.mappings} total={d.summary.mappingsTotal} />
        <Summary title="Upsell rules" rows={d.summary.upsellRules} total={d.summary.upsellRulesTotal} />
        <Paper withBorder p="md" radius="md">
          <Text fw={600} mb="xs">
            Performance
          </Text>
          <Text size="sm">Impressions: {d.summary.impressions.toLocaleString('en-US')}</Text>
          <Text size="sm">Clicks: {d.summary.clicks.toLocaleString('en-US')}</Text>
          <Text size="sm">CTR: {formatCtr(d.summary.ctr, 1)}</Text>
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="md" radius="md">
        <Text fw={600} mb="xs">
          Script content
        </Text>
        <Code block style={{ maxHeight: 320, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
          {d.content}
        </Code>
      </Paper>
    </Stack>
  );
}
