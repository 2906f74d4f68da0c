/** Script page (spec 02 §2 Script): the script tag, the three shortcodes, a preview and a download. */
import { Button, Code, CopyButton, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Check, Copy, Download } from 'lucide-react';
import { COPY_CONFIRMATION_MS, SCRIPT_PREVIEW_CHARS, TEXT } from '../../../domain/constants';
import { useAuth } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { useScriptInfo } from '../api';

/** Downloads text as a file in the browser. */
export function downloadText(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/javascript' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  URL.revokeObjectURL(url);
}

/** A code line with a copy button that confirms for 2 seconds. */
export function CopyLine({ value, label }: { value: string; label: string }) {
  return (
    <Group wrap="nowrap" gap="xs">
      <Code block style={{ flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {value}
      </Code>
      <CopyButton value={value} timeout={COPY_CONFIRMATION_MS}>
        {({ copied, copy }) => (
          <Button size="xs" variant={copied ? 'filled' : 'light'} color={copied ? 'teal' : undefined} onClick={copy} leftSection={copied ? <Check size={14} /> : <Copy size={14} />} aria-label={`Copy ${label}`}>
            {copied ? 'Copied!' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

export function ScriptPage() {
  const { user } = useAuth();
  const info = useScriptInfo(user?.dealerId);
  if (!user?.dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  if (info.error) return <ErrorNotice message={info.error.message} />;
  const d = info.data;
  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>Embed Script</Title>
        <Text c="dimmed">Two steps put your banners on your new-vehicle search pages.</Text>
      </div>
      <Paper withBorder p="lg" radius="md">
        <Title order={4}>Step 1: add the script to your site's &lt;head&gt;</Title>
        <Text size="sm" c="dimmed" mb="sm">
          One tag on every page of the site; it only acts on new-vehicle search pages.
        </Text>
        {d ? <CopyLine value={d.scriptTag} label="script tag" /> : <Skeleton h={40} />}
      </Paper>
      <Paper withBorder p="lg" radius="md">
        <Title order={4}>Step 2: place the shortcodes</Title>
        <Text size="sm" c="dimmed" mb="sm">
          Header above the results, primary inline in the results, upsell for the next model up.
        </Text>
        <Stack gap="xs">{d ? d.shortcodes.map((s) => <CopyLine key={s} value={s} label={s} />) : <Skeleton h={120} />}</Stack>
      </Paper>
      <Paper withBorder p="lg" radius="md">
        <Group justify="space-between" mb="sm">
          <Title order={4}>Generated script</Title>
          <Button leftSection={<Download size={16} />} disabled={!d} onClick={() => d && downloadText(`dc-banners-${d.dealer.id}.js`, d.content)}>
            Download Script
          </Button>
        </Group>
        {d ? (
          <Code block style={{ maxHeight: 260, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {d.content.slice(0, SCRIPT_PREVIEW_CHARS)}
            {d.content.length > SCRIPT_PREVIEW_CHARS ? '…' : ''}
          </Code>
        ) : (
          <Skeleton h={200} />
        )}
      </Paper>
    </Stack>
  );
}
