/**
 * Dealer script page /scripts/:dealerId (spec 02 §2 Dealer script page; DECISIONS 6: a dealer the
 * user may not see looks exactly like an unknown one): dealer details and status, Copy Script and
 * Download, the production address, the tag and shortcodes the dealer's own Script page hands out
 * (Copy Script copies that tag, never the script body: a site that pasted the body would run a
 * copy that never updates), the install through a tag manager (TagManagerInstall) and from the dealer's own domain (FirstPartyInstall), whether the tag is working (TagHealthPanel), the script and a
 * configuration summary.
 */
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { Badge, Button, Center, Code, CopyButton, Group, Paper, ScrollArea, SimpleGrid, Skeleton, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import { ArrowRight, BarChart3, Check, Code2, Copy, Download, FileSearch, GitBranch, Link2, TrendingUp } from 'lucide-react';
import { COPY_CONFIRMATION_MS } from '../../domain/constants';
import { formatCtr } from '../../domain/metrics';
import { isApiStatus, useModelNames } from '../dealer/api';
import { DealerErrorNotice } from '../dealer/DealerNotice';
import { useScriptInfo } from '../dealer/script/api';
import { CopyField } from '../dealer/script/CopyField';
import { BlocklistNotice } from '../dealer/script/BlocklistNotice';
import { downloadScript, scriptFileName } from '../dealer/script/download';
import { TagHealthPanel } from '../dealer/script/TagHealthPanel';
import { TagManagerInstall } from '../dealer/script/TagManagerInstall';
import { FirstPartyInstall } from '../dealer/script/FirstPartyInstall';
import { Counting } from '../dealer/script/Counting';

/** One dealer's embed script with its configuration summary. */
export function DealerScriptPage() {
  const { dealerId = '' } = useParams();
  const info = useScriptInfo(dealerId);
  const modelName = useModelNames(dealerId);

  if (info.error) {
    if (isApiStatus(info.error, 404, 403)) return <ScriptNotFound />;
    return <DealerErrorNotice error={info.error} onRetry={() => void info.refetch()} />;
  }
  const d = info.data;
  if (!d) return <LoadingSkeleton />;
  const active = d.dealer.status === 'active';
  return (
    <Stack gap="lg">
      <Paper withBorder p="lg" radius="md">
        <Group justify="space-between" align="flex-start" gap="md">
          <Stack gap={6}>
            <Group gap="sm">
              <Title order={2}>{d.dealer.name}</Title>
              <Badge color={active ? 'green' : 'gray'} variant={active ? 'filled' : 'light'} data-testid="dealer-status">
                {d.dealer.status}
              </Badge>
            </Group>
            <Group gap="lg">
              <Detail label="Dealer ID" value={d.dealer.id} mono />
              <Detail label="Manufacturer" value={d.dealer.manufacturer} />
              <Detail label="Provider" value={d.dealer.provider} />
            </Group>
          </Stack>
          <Group gap="sm">
            <CopyButton value={d.scriptTag} timeout={COPY_CONFIRMATION_MS}>
              {({ copied, copy }) => (
                <Button
                  variant={copied ? 'filled' : 'light'}
                  color={copied ? 'teal' : undefined}
                  onClick={copy}
                  leftSection={copied ? <Check size={16} /> : <Copy size={16} />}
                  title="Copies the script tag to paste in the site's <head>"
                  miw={140}
                >
                  {copied ? 'Copied!' : 'Copy Script'}
                </Button>
              )}
            </CopyButton>
            <Button leftSection={<Download size={16} />} onClick={() => downloadScript(d.dealer.id, d.content)} title={scriptFileName(d.dealer.id)}>
              Download
            </Button>
          </Group>
        </Group>
      </Paper>

      <Paper withBorder p="lg" radius="md">
        <SectionTitle icon={<Link2 size={16} />} title="Production script address" />
        <Stack gap="sm">
          <BlocklistNotice scriptUrl={d.scriptUrl} dealerId={d.dealer.id} />
          <CopyField value={d.scriptUrl} label="production address" />
        </Stack>
      </Paper>

      <Paper withBorder p="lg" radius="md" component="section" aria-label="Tag and shortcodes">
        <SectionTitle icon={<Code2 size={16} />} title="Tag and shortcodes" />
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            The same tag and shortcodes as the dealer&apos;s Script page: the tag goes first in the &lt;head&gt; of every page, each shortcode where its
            banner should appear on the search pages.
          </Text>
          <CopyField value={d.scriptTag} label="script tag" />
          {d.shortcodes.map((code) => (
            <CopyField key={code} value={code} label={`shortcode ${code}`} />
          ))}
        </Stack>
      </Paper>

      <Counting info={d} editHref={`/admin/dealers/${encodeURIComponent(d.dealer.id)}/settings`} />

      <TagManagerInstall install={d.tagManager} />

      <FirstPartyInstall install={d.firstParty} />

      <TagHealthPanel dealerId={d.dealer.id} />

      <SimpleGrid cols={{ base: 1, md: 3 }}>
        {/* A mapping's key is the dealer's own spelling (what it matches), shown as written; standard models by display name. */}
        <Summary icon={<GitBranch size={16} />} title="Model mappings" rows={d.summary.mappings.map(([k, v]) => [k, modelName(v)])} total={d.summary.mappingsTotal} />
        <Summary icon={<TrendingUp size={16} />} title="Upsell rules" rows={d.summary.upsellRules.map(([k, v]) => [modelName(k), modelName(v)])} total={d.summary.upsellRulesTotal} />
        <Paper withBorder p="md" radius="md">
          <SectionTitle icon={<BarChart3 size={16} />} title="Performance" />
          <Stack gap={6}>
            <Metric label="Impressions" value={d.summary.impressions.toLocaleString('en-US')} />
            <Metric label="Clicks" value={d.summary.clicks.toLocaleString('en-US')} />
            <Metric label="CTR" value={formatCtr(d.summary.ctr)} />
          </Stack>
        </Paper>
      </SimpleGrid>

      <Paper withBorder p="lg" radius="md">
        <SectionTitle title="Script content" />
        <ScrollArea.Autosize mah={420} type="auto" offsetScrollbars viewportProps={{ tabIndex: 0, 'aria-label': 'Script content' }}>
          <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid="script-content">
            {d.content}
          </Code>
        </ScrollArea.Autosize>
      </Paper>
    </Stack>
  );
}

function ScriptNotFound() {
  return (
    <Center mih="50vh" p="md">
      <Stack align="center" gap="sm" ta="center">
        <ThemeIcon size={64} radius="xl" variant="light" color="gray">
          <FileSearch size={32} />
        </ThemeIcon>
        <Title order={2}>Dealer Not Found</Title>
        <Text c="dimmed">The requested dealer script could not be found.</Text>
        <Button component={Link} to="/" variant="default" mt="xs">
          Go Home
        </Button>
      </Stack>
    </Center>
  );
}

function LoadingSkeleton() {
  return (
    <Stack gap="lg" aria-busy="true" aria-label="Loading dealer script">
      <Skeleton h={110} radius="md" />
      <Skeleton h={90} radius="md" />
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <Skeleton h={180} radius="md" />
        <Skeleton h={180} radius="md" />
        <Skeleton h={180} radius="md" />
      </SimpleGrid>
      <Skeleton h={300} radius="md" />
    </Stack>
  );
}

function SectionTitle({ icon, title }: { icon?: ReactNode; title: string }) {
  return (
    <Group gap={6} mb="sm">
      {icon}
      <Text fw={600}>{title}</Text>
    </Group>
  );
}

function Detail({ label, value, mono }: { label: string; value: string; mono?: boolean }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} ff={mono ? 'monospace' : undefined}>
        {value}
      </Text>
    </div>
  );
}

function Metric({ label, value }: { label: string; value: string }) {
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600}>
        {value}
      </Text>
    </Group>
  );
}

/** First entries of a map with '+N more...' for the rest. */
function Summary({ icon, title, rows, total }: { icon: ReactNode; title: string; rows: Array<[string, string]>; total: number }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Group justify="space-between" mb="sm">
        <Group gap={6}>
          {icon}
          <Text fw={600}>{title}</Text>
        </Group>
        <Badge variant="light" color="gray" radius="sm">
          {total}
        </Badge>
      </Group>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          None configured
        </Text>
      ) : (
        <Table fz="sm" verticalSpacing={4} horizontalSpacing={0}>
          <Table.Tbody>
            {rows.map(([k, v], i) => (
              <Table.Tr key={i}>
                <Table.Td>{k}</Table.Td>
                <Table.Td w={24} c="dimmed">
                  <ArrowRight size={14} aria-label="maps to" />
                </Table.Td>
                <Table.Td fw={500}>{v}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {total > rows.length && (
        <Text size="xs" c="dimmed" mt={6}>
          +{total - rows.length} more...
        </Text>
      )}
    </Paper>
  );
}
