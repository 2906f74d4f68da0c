/**
 * Dealer Settings (/admin/dealers/:dealerId/settings; spec 01 §2, §4, §5, §9; DECISIONS 2, 12):
 * dealer details, asset storage (provider, base URL, fallback, the four banner sizes with numeric
 * fallback to the defaults, naming pattern and variables, storage quota), branding, security (with
 * Respect Do-Not-Track / Global Privacy Control, issue 13) and notifications. 'Unsaved changes',
 * Reset to Defaults (asset storage and branding only; marks the form dirty) and Save Changes
 * ('Saving...', disabled when clean or saving) in a bar that stays in view while the form scrolls;
 * Enter in any field saves. A refused save marks each field the server (or the form's own check)
 * names, in the user's words, keeps the form dirty and says so in a notification (issue 16). The
 * configuration guide, and 'Dealer Not Found'.
 */
import { useState, type ReactNode } from 'react';
import { Link, Navigate, useParams } from 'react-router';
import {
  Alert,
  Anchor,
  Button,
  Center,
  ColorInput,
  Group,
  List,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Info, RotateCcw } from 'lucide-react';
import { SaveControls, StickyActionBar } from '../components/SaveControls';
import { Truncated } from '../components/Truncated';
import { fieldErrorsOf, summarizeFieldErrors, type FieldErrors } from '../api/field-errors';
import type { Dealer } from '../../domain/schemas';
import { BANNER_SLOTS, DEALER_STATUSES, PROVIDERS, STORAGE_PROVIDERS, type BannerSlot, type Provider } from '../../domain/schemas';
import { BANNER_SIZE_RANGES, FONT_CHOICES, MAX_REQUESTS_PER_MINUTE } from '../../domain/constants';
import {
  alertThresholdOrDefault,
  defaultAssetStorage,
  defaultBranding,
  maxRequestsOrDefault,
  numberOr,
  parseAllowedDomains,
  sizesWithFallback,
} from '../../domain/defaults';
import { isApiStatus } from '../dealer/api';
import { ErrorNotice } from '../components/feedback';
import { useAdminDealer, useSaveDealerSettings, type DealerSettings } from './api';
import { providerLabel } from './parts';

const MB = 1024 * 1024;
const SLOT_LABELS: Record<BannerSlot, string> = {
  srpHeaderDesktop: 'SRP header, desktop',
  srpHeaderMobile: 'SRP header, mobile',
  inlineDesktop: 'Inline, desktop',
  inlineMobile: 'Inline, mobile',
};

type Num = number | string;

/** The form as typed: numbers may be '' or text until saved (then they fall back to defaults). */
interface Draft {
  name: string;
  websiteUrl: string;
  provider: Provider;
  status: string;
  storage: Omit<Dealer['assetStorage'], 'bannerSizes' | 'storageQuotaBytes'> & { sizes: Record<BannerSlot, { width: Num; height: Num }>; quotaMb: Num };
  branding: Dealer['branding'];
  security: Omit<Dealer['security'], 'allowedDomains' | 'maxRequestsPerMinute'> & { domains: string; maxRequestsPerMinute: Num };
  notifications: Omit<Dealer['notifications'], 'alertThreshold'> & { alertThreshold: Num };
}

function draftOf(d: Dealer): Draft {
  const { bannerSizes, storageQuotaBytes, ...storage } = d.assetStorage;
  const { allowedDomains, ...security } = d.security;
  return {
    name: d.name,
    websiteUrl: d.websiteUrl,
    provider: d.provider,
    status: d.status,
    storage: { ...storage, customNaming: { ...storage.customNaming, variables: [...storage.customNaming.variables] }, sizes: structuredClone(bannerSizes), quotaMb: storageQuotaBytes / MB },
    branding: { ...d.branding },
    security: { ...security, domains: allowedDomains.join('\n') },
    notifications: { ...d.notifications },
  };
}

/** The settings body of a draft, with the spec's numeric fallbacks applied. */
function payloadOf(d: Draft): DealerSettings {
  const { sizes, quotaMb, ...storage } = d.storage;
  const { domains, ...security } = d.security;
  return {
    name: d.name.trim(),
    websiteUrl: d.websiteUrl.trim(),
    provider: d.provider,
    status: d.status,
    assetStorage: { ...storage, baseUrl: storage.baseUrl.trim(), bannerSizes: sizesWithFallback(sizes), storageQuotaBytes: Math.round(numberOr(quotaMb, 50) * MB) },
    branding: { ...d.branding, logoUrl: d.branding.logoUrl.trim() },
    security: { ...security, allowedDomains: parseAllowedDomains(domains), maxRequestsPerMinute: maxRequestsOrDefault(security.maxRequestsPerMinute) },
    notifications: { ...d.notifications, alertThreshold: alertThresholdOrDefault(d.notifications.alertThreshold) },
  };
}

/** The label of each settings field, by the path the server names it with. */
const LABELS: Record<string, string> = {
  name: 'Name',
  websiteUrl: 'Website URL',
  provider: 'Provider',
  status: 'Status',
  'assetStorage.provider': 'Storage provider',
  'assetStorage.baseUrl': 'Base URL',
  'assetStorage.customNaming.pattern': 'Naming pattern',
  'assetStorage.customNaming.variables': 'Pattern variables',
  'assetStorage.storageQuotaBytes': 'Storage quota (MB)',
  ...Object.fromEntries(BANNER_SLOTS.flatMap((slot) => (['width', 'height'] as const).map((dim) => [`assetStorage.bannerSizes.${slot}.${dim}`, `${SLOT_LABELS[slot]} ${dim}`]))),
  'branding.primaryColor': 'Primary colour',
  'branding.secondaryColor': 'Secondary colour',
  'branding.logoUrl': 'Logo URL',
  'branding.fontFamily': 'Font',
  'branding.customCss': 'Custom CSS',
  'security.allowedDomains': 'Allowed domains',
  'security.maxRequestsPerMinute': 'Max requests per minute',
  'notifications.alertThreshold': 'CTR alert threshold (%)',
};

/** The label of the field a server error path is about ('security.allowedDomains.2' -> 'Allowed domains'). */
function labelOf(path: string): string | undefined {
  const key = Object.keys(LABELS)
    .filter((k) => path === k || path.startsWith(`${k}.`))
    .sort((a, b) => b.length - a.length)[0];
  return key && LABELS[key];
}

/** The value at a dotted path ('assetStorage.bannerSizes.inlineMobile.width'), undefined when absent. */
function valueAt(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), obj);
}

/** True when both settings bodies hold the same value at `path`. */
function sameAt(a: unknown, b: unknown, path: string): boolean {
  return JSON.stringify(valueAt(a, path)) === JSON.stringify(valueAt(b, path));
}

/**
 * What the form can tell before asking the server: integer and range limits of the numbers as
 * typed (a value typed and saved with Enter is not clamped yet) and a name. Empty numbers fall
 * back to the defaults. The server checks everything again.
 */
function checkDraft(d: Draft, payload: DealerSettings): FieldErrors {
  const errors: FieldErrors = {};
  const whole = (path: string, typed: Num, min: number, max: number) => {
    if (typeof typed === 'string' && typed.trim() === '') return;
    const n = Number(typed);
    if (!Number.isInteger(n)) errors[path] = 'Enter a whole number';
    else if (n < min || n > max) errors[path] = `Must be ${min.toLocaleString('en-US')}-${max.toLocaleString('en-US')}`;
  };
  if (!payload.name) errors.name = 'Required';
  whole('security.maxRequestsPerMinute', d.security.maxRequestsPerMinute, MAX_REQUESTS_PER_MINUTE.min, MAX_REQUESTS_PER_MINUTE.max);
  for (const slot of BANNER_SLOTS) {
    const r = BANNER_SIZE_RANGES[slot];
    whole(`assetStorage.bannerSizes.${slot}.width`, d.storage.sizes[slot].width, r.width.min, r.width.max);
    whole(`assetStorage.bannerSizes.${slot}.height`, d.storage.sizes[slot].height, r.height.min, r.height.max);
  }
  const quota = numberOr(d.storage.quotaMb, 50);
  if (quota < 1 || quota > 10240) errors['assetStorage.storageQuotaBytes'] = 'Must be 1-10,240 MB';
  const threshold = numberOr(d.notifications.alertThreshold, 2);
  if (threshold < 0 || threshold > 100) errors['notifications.alertThreshold'] = 'Must be 0-100';
  return errors;
}

export function DealerSettingsPage() {
  const { dealerId } = useParams();
  if (!dealerId) return <Navigate to="/admin/dealers" replace />;
  return <Settings key={dealerId} dealerId={dealerId} />;
}

function Settings({ dealerId }: { dealerId: string }) {
  const dealer = useAdminDealer(dealerId);
  const save = useSaveDealerSettings(dealerId);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [loadedAt, setLoadedAt] = useState<string | null>(null);
  /** The last refused save: its field errors and the values they were about. */
  const [refused, setRefused] = useState<{ errors: FieldErrors; payload: DealerSettings } | null>(null);
  if (dealer.data && loadedAt !== dealer.data.updatedAt) {
    setLoadedAt(dealer.data.updatedAt);
    setDraft(draftOf(dealer.data));
  }

  if (dealer.error) {
    if (isApiStatus(dealer.error, 404)) {
      return (
        <Center mih="40vh">
          <Stack align="center" gap={6}>
            <Title order={2}>Dealer Not Found</Title>
            <Text c="dimmed">The requested dealer could not be found.</Text>
            <Anchor component={Link} to="/admin/dealers">
              Back to dealers
            </Anchor>
          </Stack>
        </Center>
      );
    }
    return <ErrorNotice message={dealer.error.message} onRetry={() => void dealer.refetch()} />;
  }
  if (!dealer.data || !draft) return <Text c="dimmed">Loading...</Text>;

  const payload = payloadOf(draft);
  const dirty = JSON.stringify(payload) !== JSON.stringify(payloadOf(draftOf(dealer.data)));
  const set = <K extends keyof Draft>(k: K, patch: Partial<Draft[K]>) => setDraft({ ...draft, [k]: { ...(draft[k] as object), ...patch } });
  // An error stays on its field while the field still holds the refused value.
  const shown = Object.fromEntries(Object.entries(refused?.errors ?? {}).filter(([path]) => sameAt(payload, refused!.payload, path)));
  const errorOf = (field: string) => Object.entries(shown).find(([path]) => path === field || path.startsWith(`${field}.`))?.[1];

  const reset = () => {
    const base = draftOf({ ...dealer.data, assetStorage: defaultAssetStorage(dealerId), branding: defaultBranding() });
    setDraft({ ...draft, storage: base.storage, branding: base.branding });
  };

  const onSave = () => {
    const mine = checkDraft(draft, payload);
    if (Object.keys(mine).length > 0) {
      setRefused({ errors: mine, payload });
      notifications.show({ color: 'red', title: 'Not saved', message: summarizeFieldErrors(mine, labelOf) });
      return;
    }
    save.mutate(payload, {
      onSuccess: () => {
        setRefused(null);
        notifications.show({ color: 'teal', message: 'Dealer settings saved' });
      },
      onError: (e) => {
        const fields = fieldErrorsOf(e);
        setRefused({ errors: fields, payload });
        const known = Object.keys(fields).length > 0;
        notifications.show({ color: 'red', title: 'Save failed', message: known ? summarizeFieldErrors(fields, labelOf) : e.message });
      },
    });
  };

  const d = dealer.data;
  const sizeError = (slot: BannerSlot, dim: 'width' | 'height') => errorOf(`assetStorage.bannerSizes.${slot}.${dim}`);
  return (
    // One form: Enter in any field saves, with the app's own messages (no browser bubbles; issue 16).
    <form
      noValidate
      aria-label="Dealer settings"
      onSubmit={(e) => {
        e.preventDefault();
        if (dirty && !save.isPending) onSave();
      }}
    >
      <Stack gap="lg">
        <div>
          <Anchor component={Link} to="/admin/dealers" size="sm">
            ← Dealers
          </Anchor>
          <Title order={2}>Dealer Settings</Title>
          <Text c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {d.name} · {d.id} · {d.manufacturerName}
          </Text>
        </div>

        <StickyActionBar
          start={
            <Truncated fw={600} size="sm">
              {d.name}
            </Truncated>
          }
        >
          <SaveControls dirty={dirty} saving={save.isPending}>
            <Button variant="default" leftSection={<RotateCcw size={16} />} onClick={reset}>
              Reset to Defaults
            </Button>
          </SaveControls>
        </StickyActionBar>

        <Section title="Dealer">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <TextInput label="Name" value={draft.name} error={errorOf('name')} onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })} />
            <TextInput label="Website URL" type="url" value={draft.websiteUrl} error={errorOf('websiteUrl')} onChange={(e) => setDraft({ ...draft, websiteUrl: e.currentTarget.value })} />
            <Select label="Provider" data={PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))} value={draft.provider} allowDeselect={false} error={errorOf('provider')} onChange={(v) => setDraft({ ...draft, provider: (v ?? 'mxs') as Provider })} />
            <Select label="Status" data={[...DEALER_STATUSES]} value={draft.status} allowDeselect={false} error={errorOf('status')} onChange={(v) => setDraft({ ...draft, status: v ?? 'active' })} />
          </SimpleGrid>
        </Section>

        <Section title="Asset Storage">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Select label="Storage provider" data={[...STORAGE_PROVIDERS]} value={draft.storage.provider} allowDeselect={false} error={errorOf('assetStorage.provider')} onChange={(v) => set('storage', { provider: (v ?? 'dc-banners') as Draft['storage']['provider'] })} />
            <TextInput label="Base URL" description="CDN folder searched for banners by the naming pattern" value={draft.storage.baseUrl} error={errorOf('assetStorage.baseUrl')} onChange={(e) => set('storage', { baseUrl: e.currentTarget.value })} />
            <TextInput
              label="Naming pattern"
              value={draft.storage.customNaming.pattern}
              error={errorOf('assetStorage.customNaming.pattern')}
              onChange={(e) => set('storage', { customNaming: { ...draft.storage.customNaming, pattern: e.currentTarget.value } })}
            />
            <TagsInput
              label="Pattern variables"
              value={draft.storage.customNaming.variables}
              error={errorOf('assetStorage.customNaming.variables')}
              onChange={(variables) => set('storage', { customNaming: { ...draft.storage.customNaming, variables } })}
            />
            <NumberInput label="Storage quota (MB)" min={1} max={10240} decimalScale={2} value={draft.storage.quotaMb} error={errorOf('assetStorage.storageQuotaBytes')} onChange={(quotaMb) => set('storage', { quotaMb })} />
            <Switch mt="lg" label="Use fallback assets when no banner matches" checked={draft.storage.fallbackEnabled} onChange={(e) => set('storage', { fallbackEnabled: e.currentTarget.checked })} />
          </SimpleGrid>
          <Text fw={600} size="sm" mt="lg" mb="xs">
            Banner sizes (px)
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            {BANNER_SLOTS.map((slot) => {
              const r = BANNER_SIZE_RANGES[slot];
              const size = draft.storage.sizes[slot];
              const setSize = (patch: Partial<typeof size>) => set('storage', { sizes: { ...draft.storage.sizes, [slot]: { ...size, ...patch } } });
              return (
                <Paper key={slot} withBorder p="sm" radius="md">
                  <Text size="sm" fw={500} mb={4}>
                    {SLOT_LABELS[slot]}
                  </Text>
                  <Group grow gap="xs" align="flex-start">
                    <NumberInput label="Width" aria-label={`${SLOT_LABELS[slot]} width`} allowDecimal={false} allowNegative={false} min={r.width.min} max={r.width.max} value={size.width} error={sizeError(slot, 'width')} onChange={(width) => setSize({ width })} />
                    <NumberInput label="Height" aria-label={`${SLOT_LABELS[slot]} height`} allowDecimal={false} allowNegative={false} min={r.height.min} max={r.height.max} value={size.height} error={sizeError(slot, 'height')} onChange={(height) => setSize({ height })} />
                  </Group>
                </Paper>
              );
            })}
          </SimpleGrid>
        </Section>

        <Section title="Branding">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <ColorInput label="Primary colour" format="hex" value={draft.branding.primaryColor} error={errorOf('branding.primaryColor')} eyeDropperButtonProps={{ 'aria-label': 'Pick primary from the screen' }} onChange={(primaryColor) => set('branding', { primaryColor })} />
            <ColorInput label="Secondary colour" format="hex" value={draft.branding.secondaryColor} error={errorOf('branding.secondaryColor')} eyeDropperButtonProps={{ 'aria-label': 'Pick secondary from the screen' }} onChange={(secondaryColor) => set('branding', { secondaryColor })} />
            <TextInput label="Logo URL" type="url" value={draft.branding.logoUrl} error={errorOf('branding.logoUrl')} onChange={(e) => set('branding', { logoUrl: e.currentTarget.value })} />
            <Select label="Font" data={[...FONT_CHOICES]} value={draft.branding.fontFamily} allowDeselect={false} error={errorOf('branding.fontFamily')} onChange={(v) => set('branding', { fontFamily: (v ?? FONT_CHOICES[0]) as Dealer['branding']['fontFamily'] })} />
          </SimpleGrid>
          <Textarea mt="md" label="Custom CSS" autosize minRows={3} styles={{ input: { fontFamily: 'monospace' } }} value={draft.branding.customCss} error={errorOf('branding.customCss')} onChange={(e) => set('branding', { customCss: e.currentTarget.value })} />
        </Section>

        <Section title="Security">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Textarea
              label="Allowed domains"
              description="One per line; blank lines are dropped"
              autosize
              minRows={3}
              value={draft.security.domains}
              error={errorOf('security.allowedDomains')}
              onChange={(e) => set('security', { domains: e.currentTarget.value })}
            />
            <Stack gap="sm">
              <Switch label="Enable CORS (only allowed domains may call)" checked={draft.security.enableCors} onChange={(e) => set('security', { enableCors: e.currentTarget.checked })} />
              <Switch label="Require HTTPS" checked={draft.security.requireHttps} onChange={(e) => set('security', { requireHttps: e.currentTarget.checked })} />
              <Switch label="Rate limit" checked={draft.security.rateLimitEnabled} onChange={(e) => set('security', { rateLimitEnabled: e.currentTarget.checked })} />
              <Switch
                label="Respect Do-Not-Track / Global Privacy Control"
                description="With a Do-Not-Track or Global Privacy Control signal, banners still show but nothing is counted or stored in the browser."
                checked={draft.security.respectDoNotTrack}
                onChange={(e) => set('security', { respectDoNotTrack: e.currentTarget.checked })}
              />
              <NumberInput
                label="Max requests per minute"
                description={`A whole number, ${MAX_REQUESTS_PER_MINUTE.min}-${MAX_REQUESTS_PER_MINUTE.max}; empty means ${MAX_REQUESTS_PER_MINUTE.fallback}`}
                allowDecimal={false}
                allowNegative={false}
                min={MAX_REQUESTS_PER_MINUTE.min}
                max={MAX_REQUESTS_PER_MINUTE.max}
                value={draft.security.maxRequestsPerMinute}
                error={errorOf('security.maxRequestsPerMinute')}
                onChange={(maxRequestsPerMinute) => set('security', { maxRequestsPerMinute })}
              />
            </Stack>
          </SimpleGrid>
        </Section>

        <Section title="Notifications">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Stack gap="sm">
              <Switch label="Email alerts" checked={draft.notifications.emailAlerts} onChange={(e) => set('notifications', { emailAlerts: e.currentTarget.checked })} />
              <Switch label="Performance alerts" checked={draft.notifications.performanceAlerts} onChange={(e) => set('notifications', { performanceAlerts: e.currentTarget.checked })} />
              <Switch label="Error alerts" checked={draft.notifications.errorAlerts} onChange={(e) => set('notifications', { errorAlerts: e.currentTarget.checked })} />
              <Switch label="Weekly reports" checked={draft.notifications.weeklyReports} onChange={(e) => set('notifications', { weeklyReports: e.currentTarget.checked })} />
            </Stack>
            <NumberInput
              label="CTR alert threshold (%)"
              description="A performance alert fires below this CTR; empty means 2"
              min={0}
              max={100}
              decimalScale={2}
              allowNegative={false}
              value={draft.notifications.alertThreshold}
              error={errorOf('notifications.alertThreshold')}
              onChange={(alertThreshold) => set('notifications', { alertThreshold })}
            />
          </SimpleGrid>
        </Section>

        <Alert icon={<Info size={18} />} color="blue" title="Configuration guide">
          <List size="sm" spacing={4}>
            <List.Item>Banner sizes decide which uploaded banner fills each slot; empty or non-numeric sizes fall back to the defaults.</List.Item>
            <List.Item>With a base URL and naming pattern, banners found on the dealer&apos;s CDN are used when no uploaded banner matches.</List.Item>
            <List.Item>Allowed domains are the only sites allowed to show banners and send events when CORS is on.</List.Item>
            <List.Item>Reset to Defaults restores asset storage and branding only; security and notifications stay as they are.</List.Item>
          </List>
        </Alert>
      </Stack>
    </form>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-label={title}>
      <Title order={4} mb="md">
        {title}
      </Title>
      {children}
    </Paper>
  );
}
