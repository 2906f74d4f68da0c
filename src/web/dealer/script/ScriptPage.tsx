/**
 * Script page /dealer/script (spec 02 §2 Script, §9): step 1 the tag (inline snippet and
 * async script) with what it does for page speed and its CSP hash, step 2 the three shortcodes
 * (each copyable) and the banner element for sites a framework hydrates, step 3 the lead page snippet and the script's API, the install through
 * a tag manager (TagManagerInstall), the install from the dealer's own domain (FirstPartyInstall), where banners are counted
 * (the dealer's allowed domains, read-only here: admins edit them in the dealer's settings, and
 * what one page view counts), whether the tag is working (tag health and "Test my page",
 * TagHealthPanel), a preview of the generated script and its download.
 */
import type { ReactNode } from 'react';
import { Badge, Button, Code, Group, Paper, ScrollArea, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { Download, FileCode2 } from 'lucide-react';
import { SCRIPT_PREVIEW_CHARS } from '../../../domain/constants';
import { SLOT_TEXTS, SLOT_TYPES } from '../../../domain/slots';
import { useAuth } from '../../components/auth';
import { DealerErrorNotice, NoDealerIdNotice } from '../DealerNotice';
import { useScriptInfo } from './api';
import { CopyField } from './CopyField';
import { BlocklistNotice } from './BlocklistNotice';
import { TagHealthPanel } from './TagHealthPanel';
import { TagManagerInstall } from './TagManagerInstall';
import { Counting } from './Counting';
import { FirstPartyInstall } from './FirstPartyInstall';
import { downloadScript, scriptFileName } from './download';

/** What each shortcode's banner is for, by its type (the slot registry's help text). */
const SHORTCODE_HELP: Record<string, string> = Object.fromEntries(SLOT_TYPES.map((t) => [t, SLOT_TEXTS[t].help]));
/** The lead page snippet: runs once the banner script (async) has loaded. */
const LEAD_SNIPPET = `<script>addEventListener('load', function () { window.dcBanners && dcBanners.conversion({ leadId: 'YOUR-LEAD-ID' }); });</script>`;
const shortcodeType = (code: string) => /type="([^"]+)"/.exec(code)?.[1] ?? '';

/**
 * How a site whose pages a framework hydrates (React's hydrateRoot, Next.js, Nuxt, Vue) places
 * banners: the banner element `<div data-dc-banner="type">` (shown for `type`), which the script
 * fills once the framework has hydrated it, and the `data-dc-hydrate` mark for server HTML that
 * holds shortcodes (embed/slots.ts HYDRATED_ROOTS).
 */
function FrameworkSites({ type }: { type: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        Sites built with React, Next.js, Vue or another framework that hydrates server-rendered pages
      </Text>
      <Text size="sm" c="dimmed">
        Render an empty banner element where the banner goes instead of a shortcode (any of the types above). Its space is reserved before the first paint;
        the script fills it once your framework has hydrated the page and never changes the text your components render.
      </Text>
      <CopyField value={`<div data-dc-banner="${type}"></div>`} label="banner element" />
      <Text size="sm" c="dimmed">
        If your server HTML holds shortcodes, add <Code>data-dc-hydrate</Code> to the element your framework hydrates (the container you pass to
        React&apos;s <Code>hydrateRoot</Code>, or <Code>&lt;html&gt;</Code> when it hydrates the whole document): nothing in it changes before it is
        hydrated, so React reports no hydration error (#418) and keeps your server HTML. Next.js (<Code>#__next</Code>), Nuxt, Gatsby and Vue server-rendered
        roots are recognized without it.
      </Text>
    </Stack>
  );
}

/** The dealer's embed script: installation steps, preview and download. */
export function ScriptPage() {
  const { user } = useAuth();
  const dealerId = user?.dealerId;
  const info = useScriptInfo(dealerId);
  if (!dealerId) return <NoDealerIdNotice />;
  if (info.error) return <DealerErrorNotice error={info.error} onRetry={() => void info.refetch()} />;
  const d = info.data;
  const truncated = d !== undefined && d.content.length > SCRIPT_PREVIEW_CHARS;
  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>Embed Script</Title>
        <Text c="dimmed">Two steps put your banners on your website&apos;s new-vehicle search pages.</Text>
      </div>

      <Step
        n={1}
        title="Add the script to your site"
        description="Paste these two tags first in the <head> of every page, before any stylesheet (an inline script after a stylesheet waits for it). They only act on new-vehicle search pages."
      >
        {d ? (
          <Stack gap="xs">
            <BlocklistNotice scriptUrl={d.scriptUrl} dealerId={d.dealer.id} />
            <CopyField value={d.scriptTag} label="script tag" />
            <Text size="sm" c="dimmed">
              Page speed: the first tag is a small inline snippet that reserves each banner&apos;s space while the page loads, so nothing on the page moves when
              the banners arrive (no layout shift) and shortcode text is never shown; the second loads the banner script without delaying your page. If the
              script cannot load, the reserved spaces stay empty. The snippet carries your banner sizes: copy the tag again after changing them.
            </Text>
            <Text size="sm" c="dimmed">
              If your site&apos;s Content-Security-Policy does not allow inline scripts, add <Code>{d.snippetHash}</Code> to its <Code>script-src</Code>.
            </Text>
          </Stack>
        ) : (
          <Skeleton h={44} />
        )}
      </Step>

      <Step n={2} title="Place the banner shortcodes" description="Put each shortcode where its banner should appear in your search page template.">
        <Stack gap="md">
          {d
            ? d.shortcodes.map((code) => (
                <Stack key={code} gap={4}>
                  <Text size="sm" c="dimmed">
                    {SHORTCODE_HELP[shortcodeType(code)] ?? ''}
                  </Text>
                  <CopyField value={code} label={`shortcode ${code}`} />
                </Stack>
              ))
            : [0, 1, 2].map((i) => <Skeleton key={i} h={44} />)}
          {d && <FrameworkSites type={shortcodeType(d.shortcodes[0] ?? '') || SLOT_TYPES[0]} />}
        </Stack>
      </Step>

      <Step n={3} title="Count leads (optional)" description="On the page a lead form leads to (the thank-you page), count the lead as a conversion of the banner clicked before it.">
        <Stack gap="xs">
          <CopyField value={LEAD_SNIPPET} label="lead page snippet" />
          <Text size="sm" c="dimmed">
            <Code>dcBanners.conversion({'{ model, leadId }'})</Code> counts a conversion only when a banner was clicked in the same browser session within the
            last 30 minutes, at most once per click; pass your lead or form id as <Code>leadId</Code> so a reload or a second call never counts twice.{' '}
            <Code>model</Code> is optional (the clicked banner&apos;s model by default).
          </Text>
          <Text size="sm" c="dimmed">
            Shortcodes added to the page later (search results loaded by your site&apos;s scripts) are found on their own. Call <Code>dcBanners.refresh()</Code>{' '}
            only if your site changes the searched model without changing the page address.
          </Text>
        </Stack>
      </Step>

      {d ? <TagManagerInstall install={d.tagManager} /> : <Skeleton h={120} />}

      {d ? <FirstPartyInstall install={d.firstParty} /> : <Skeleton h={120} />}

      <Counting info={d} />

      <TagHealthPanel dealerId={dealerId} />

      <Paper withBorder p="lg" radius="md">
        <Group justify="space-between" mb="sm" align="flex-start">
          <Group gap="sm" wrap="nowrap">
            <ThemeIcon variant="light" size="lg" radius="md">
              <FileCode2 size={18} />
            </ThemeIcon>
            <div>
              <Title order={3} size="h4">
                Generated script
              </Title>
              <Text size="sm" c="dimmed">
                {d ? (
                  <>
                    Served from <Code>{d.scriptUrl}</Code>
                  </>
                ) : (
                  'Your dealer configuration built into the banner script.'
                )}
              </Text>
            </div>
          </Group>
          <Button leftSection={<Download size={16} />} disabled={!d} onClick={() => d && downloadScript(d.dealer.id, d.content)} title={d ? scriptFileName(d.dealer.id) : undefined}>
            Download Script
          </Button>
        </Group>
        {d ? (
          <>
            <ScrollArea.Autosize mah={320} type="auto" offsetScrollbars viewportProps={{ tabIndex: 0, 'aria-label': 'Script preview' }}>
              <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid="script-preview">
                {d.content.slice(0, SCRIPT_PREVIEW_CHARS)}
                {truncated ? '…' : ''}
              </Code>
            </ScrollArea.Autosize>
            {truncated && (
              <Text size="xs" c="dimmed" mt={6}>
                Preview of the first {SCRIPT_PREVIEW_CHARS.toLocaleString('en-US')} of {d.content.length.toLocaleString('en-US')} characters. Download the script
                for the full text.
              </Text>
            )}
          </>
        ) : (
          <Skeleton h={220} />
        )}
      </Paper>
    </Stack>
  );
}

/** A numbered installation step. */
function Step({ n, title, description, children }: { n: number; title: string; description: string; children: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label={`Step ${n}: ${title}`}>
      <Group gap="sm" mb="md" wrap="nowrap" align="flex-start">
        <Badge size="lg" circle variant="filled">
          {n}
        </Badge>
        <div>
          <Title order={3} size="h4">
            Step {n}: {title}
          </Title>
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        </div>
      </Group>
      {children}
    </Paper>
  );
}
