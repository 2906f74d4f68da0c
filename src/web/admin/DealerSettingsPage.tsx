/**
 * Dealer Settings (/admin/dealers/:dealerId/settings; spec 01 §2, §4, §5, §9; DECISIONS 2, 12):
 * dealer details, asset storage (provider, base URL, fallback, the four banner sizes (an empty one
 * is left to the server's default), naming pattern and variables, storage quota), branding, security (with
 * Respect Do-Not-Track / Global Privacy Control), notifications and the dealer's time zone
 * for promotion schedules (a searchable list of the browser's IANA zones). 'Unsaved changes',
 * Reset to Defaults (asset storage and branding only; marks the form dirty) and Save Changes
 * ('Saving...', disabled when clean or saving) in a bar that stays in view while the form scrolls;
 * Enter in any field saves. A refused save marks each field the server (or the form's own check)
 * names, in the user's words, keeps the form dirty and says so in a notification. A
 * @mantine/form checked on every change against the shared domain schemas: Save is disabled while
 * a changed field is invalid; leaving with unsaved changes asks first. The
 * configuration guide, and 'Dealer Not Found'.
 */
import type { ReactNode } from 'react';
import { Link, Navigate, useParams } from 'react-router';
import {
  Alert,
  Anchor,
  Button,
  Center,
  Group,
  List,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { ColorInput, Select, TagsInput } from '../components/deferred';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Info, MailWarning, RotateCcw } from 'lucide-react';
import { enterWhileInvalid, SaveControls, StickyActionBar } from '../components/SaveControls';
import { useUnsavedChangesPrompt } from '../components/unsaved';
import { Truncated } from '../components/Truncated';
import { deferredValidator, fieldAmong, showSaveErrors, summarizeFieldErrors, type FieldErrors } from '../api/field-errors';
import type { Dealer } from '../../domain/schemas';
import { BANNER_SLOTS, DEALER_STATUSES, PROVIDERS, STORAGE_PROVIDERS, type BannerSlot, type Provider } from '../../domain/enums';
import { BANNER_SIZE_LABELS } from '../../domain/slots';
import { BANNER_SIZE_RANGES, FONT_CHOICES, MAX_REQUESTS_PER_MINUTE } from '../../domain/constants';
import { defaultAssetStorage, defaultBranding, parseAllowedDomains } from '../../domain/defaults';
import { isApiStatus } from '../dealer/api';
import { ErrorNotice } from '../components/feedback';
import { useAdminDealer, useSaveDealerSettings, type DealerSettings } from './api';
import { useOutbox } from './outbox-api';
import { providerLabel, timeZoneOptions } from './parts';

const MB = 1024 * 1024;
const SLOT_LABELS = BANNER_SIZE_LABELS;

type Num = number | string;

/**
 * The form's values, at the paths the server names its fields by; numbers may be '' while typed
 * (an empty one is not sent, so the server's schema default applies: 100 requests per minute, a
 * 2 % alert threshold, the slot's default size), allowed domains are the textarea's text, and the
 * storage quota is in MB.
 */
interface Values {
  name: string;
  websiteUrl: string;
  provider: Provider;
  status: string;
  assetStorage: Omit<Dealer['assetStorage'], 'bannerSizes' | 'storageQuotaBytes'> & { bannerSizes: Record<BannerSlot, { width: Num; height: Num }>; storageQuotaMb: Num };
  branding: Dealer['branding'];
  security: Omit<Dealer['security'], 'allowedDomains' | 'maxRequestsPerMinute'> & { allowedDomains: string; maxRequestsPerMinute: Num };
  notifications: Omit<Dealer['notifications'], 'alertThreshold'> & { alertThreshold: Num };
  /** IANA zone promotion schedules are entered in. */
  timeZone: string;
}

function valuesOf(d: Pick<Dealer, 'name' | 'websiteUrl' | 'provider' | 'status' | 'assetStorage' | 'branding' | 'security' | 'notifications' | 'timeZone'>): Values {
  const { bannerSizes, storageQuotaBytes, ...storage } = d.assetStorage;
  return {
    name: d.name,
    websiteUrl: d.websiteUrl,
    provider: d.provider,
    status: d.status,
    assetStorage: { ...structuredClone(storage), bannerSizes: structuredClone(bannerSizes), storageQuotaMb: storageQuotaBytes / MB },
    branding: { ...d.branding },
    security: { ...d.security, allowedDomains: d.security.allowedDomains.join('\n') },
    notifications: { ...d.notifications },
    timeZone: d.timeZone,
  };
}

/** A number as typed: undefined when empty (the server's default applies), else the number ('abc' stays NaN and is refused). */
const typed = (v: Num): number | undefined => (typeof v === 'number' ? v : v.trim() === '' ? undefined : Number(v));

/** The settings body Save sends for the form's values (no defaults filled in: the server decides them). */
function bodyOf(v: Values) {
  const { storageQuotaMb, bannerSizes, ...storage } = v.assetStorage;
  const quotaMb = typed(storageQuotaMb);
  return {
    name: v.name.trim(),
    websiteUrl: v.websiteUrl.trim(),
    provider: v.provider,
    status: v.status,
    assetStorage: {
      ...storage,
      baseUrl: storage.baseUrl.trim(),
      bannerSizes: Object.fromEntries(BANNER_SLOTS.map((slot) => [slot, { width: typed(bannerSizes[slot].width), height: typed(bannerSizes[slot].height) }])),
      storageQuotaBytes: quotaMb === undefined ? undefined : Math.round(quotaMb * MB),
    },
    branding: { ...v.branding, logoUrl: v.branding.logoUrl.trim() },
    security: { ...v.security, allowedDomains: parseAllowedDomains(v.security.allowedDomains), maxRequestsPerMinute: typed(v.security.maxRequestsPerMinute) },
    notifications: { ...v.notifications, alertThreshold: typed(v.notifications.alertThreshold) },
    timeZone: v.timeZone,
  };
}

/** The label of each settings field, by its form path (the path the server names it with, but the quota in MB). */
const LABELS: Record<string, string> = {
  name: 'Name',
  websiteUrl: 'Website URL',
  provider: 'Provider',
  status: 'Status',
  'assetStorage.provider': 'Storage provider',
  'assetStorage.baseUrl': 'Base URL',
  'assetStorage.customNaming.pattern': 'Naming pattern',
  'assetStorage.customNaming.variables': 'Pattern variables',
  'assetStorage.storageQuotaMb': 'Storage quota (MB)',
  ...Object.fromEntries(BANNER_SLOTS.flatMap((slot) => (['width', 'height'] as const).map((dim) => [`assetStorage.bannerSizes.${slot}.${dim}`, `${SLOT_LABELS[slot]} ${dim}`]))),
  'branding.primaryColor': 'Primary color',
  'branding.secondaryColor': 'Secondary color',
  'branding.logoUrl': 'Logo URL',
  'branding.fontFamily': 'Font',
  'branding.customCss': 'Custom CSS',
  'security.allowedDomains': 'Allowed domains',
  'security.maxRequestsPerMinute': 'Max requests per minute',
  'notifications.alertThreshold': 'CTR alert threshold (%)',
  timeZone: 'Time zone',
};
const FIELDS = Object.keys(LABELS);

/** The form field a server path is about ('security.allowedDomains.2' -> 'security.allowedDomains'; bytes -> the MB field). */
function fieldOf(path: string): string {
  return path.startsWith('assetStorage.storageQuotaBytes') ? 'assetStorage.storageQuotaMb' : fieldAmong(FIELDS, path);
}

const labelOf = (field: string): string | undefined => LABELS[field];

/** Range messages as the fields' descriptions say them ('Must be 10-1,000'), for the range checks of the shared schema. */
const RANGE_WORDS: Record<string, string> = {
  'security.maxRequestsPerMinute': `Must be ${MAX_REQUESTS_PER_MINUTE.min}-${MAX_REQUESTS_PER_MINUTE.max.toLocaleString('en-US')}`,
  'notifications.alertThreshold': 'Must be 0-100',
  'assetStorage.storageQuotaMb': 'Must be 1-10,240 MB',
};

/**
 * What the form checks before asking the server: the body Save would send against the shared
 * domain schemas the server validates with (dealer-settings-schema.ts), fetched after first paint
 *.
 */
const { validate, useSchemaCheck, submitChecked } = deferredValidator<Values>(async () => {
  const { schemaValidator, settingsSchema } = await import('./dealer-settings-schema');
  return schemaValidator<Values>(settingsSchema, bodyOf, {
    fieldOf,
    words: (field, issue) => (issue.code === 'too_big' || issue.code === 'too_small' ? RANGE_WORDS[field] : undefined),
  });
});

export function DealerSettingsPage() {
  const { dealerId } = useParams();
  if (!dealerId) return <Navigate to="/admin/dealers" replace />;
  return <Settings key={dealerId} dealerId={dealerId} />;
}

function Settings({ dealerId }: { dealerId: string }) {
  const dealer = useAdminDealer(dealerId);
  // The form's check is fetched while the dealer loads; the form renders again when it is in.
  useSchemaCheck();

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
  if (!dealer.data) return <Text c="dimmed">Loading...</Text>;
  return <SettingsForm dealer={dealer.data} />;
}

/** The settings form, from the dealer as the API returns it; after a save, from what the save returned. */
function SettingsForm({ dealer: d }: { dealer: Dealer }) {
  const save = useSaveDealerSettings(d.id);
  const form = useForm<Values>({ initialValues: valuesOf(d), validate, validateInputOnChange: true, validateInputOnBlur: true });
  // What was typed before the check arrived is checked when it does.
  useSchemaCheck(form);
  const dirty = form.isDirty();
  const invalid = !form.isValid();
  const prompt = useUnsavedChangesPrompt(dirty);

  const reset = () => {
    const base = valuesOf({ ...d, assetStorage: defaultAssetStorage(d.id), branding: defaultBranding() });
    form.setValues({ assetStorage: base.assetStorage, branding: base.branding });
  };

  /** The form's own check refused the values: mark the fields and say so (nothing is sent). */
  const refuse = (errors: FieldErrors) => notifications.show({ color: 'red', title: 'Not saved', message: summarizeFieldErrors(errors, labelOf) });

  const onSave = (v: Values) => {
    save.mutate(bodyOf(v) as DealerSettings, {
      onSuccess: ({ dealer: saved }) => {
        // The form now shows what the server stored (its defaults included) and is clean.
        const next = valuesOf(saved);
        form.setInitialValues(next);
        form.setValues(next);
        form.resetDirty(next);
        notifications.show({ color: 'teal', message: 'Dealer settings saved' });
      },
      onError: (e) => showSaveErrors(form, e, fieldOf, labelOf),
    });
  };

  const sizeProps = (slot: BannerSlot, dim: 'width' | 'height') => form.getInputProps(`assetStorage.bannerSizes.${slot}.${dim}`);
  return (
    // One form: Enter in any field saves, with the app's own messages (no browser bubbles);
    // Enter while a field is invalid marks it and says why instead.
    <form
      noValidate
      aria-label="Dealer settings"
      onKeyDown={enterWhileInvalid(dirty && invalid, () => refuse(form.validate().errors as FieldErrors))}
      onSubmit={submitChecked(form.onSubmit((v) => {
        if (dirty && !save.isPending) onSave(v);
      }, (errors) => refuse(errors as FieldErrors)))}
    >
      {prompt}
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
          <SaveControls dirty={dirty} saving={save.isPending} invalid={invalid}>
            <Button variant="default" leftSection={<RotateCcw size={16} />} onClick={reset}>
              Reset to Defaults
            </Button>
          </SaveControls>
        </StickyActionBar>

        <Section title="Dealer">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <TextInput label="Name" {...form.getInputProps('name')} />
            <TextInput label="Website URL" type="url" {...form.getInputProps('websiteUrl')} />
            <Select label="Provider" data={PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))} allowDeselect={false} {...form.getInputProps('provider')} />
            <Select label="Status" data={[...DEALER_STATUSES]} allowDeselect={false} {...form.getInputProps('status')} />
            <Select
              label="Time zone"
              description="Promotion schedules are entered and shown in this zone"
              data={timeZoneOptions(form.values.timeZone)}
              searchable
              allowDeselect={false}
              {...form.getInputProps('timeZone')}
            />
          </SimpleGrid>
        </Section>

        <Section title="Asset Storage">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Select label="Storage provider" data={[...STORAGE_PROVIDERS]} allowDeselect={false} {...form.getInputProps('assetStorage.provider')} />
            <TextInput label="Base URL" description="CDN folder searched for banners by the naming pattern" {...form.getInputProps('assetStorage.baseUrl')} />
            <TextInput
              label="Naming pattern"
              {...form.getInputProps('assetStorage.customNaming.pattern')}
            />
            <TagsInput
              label="Pattern variables"
              {...form.getInputProps('assetStorage.customNaming.variables')}
            />
            <NumberInput label="Storage quota (MB)" min={1} max={10240} decimalScale={2} {...form.getInputProps('assetStorage.storageQuotaMb')} />
            <Switch mt="lg" label="Use fallback assets when no banner matches" {...form.getInputProps('assetStorage.fallbackEnabled', { type: 'checkbox' })} />
          </SimpleGrid>
          <Text fw={600} size="sm" mt="lg" mb="xs">
            Banner sizes (px)
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            {BANNER_SLOTS.map((slot) => {
              const r = BANNER_SIZE_RANGES[slot];
              return (
                <Paper key={slot} withBorder p="sm" radius="md">
                  <Text size="sm" fw={500} mb={4}>
                    {SLOT_LABELS[slot]}
                  </Text>
                  <Group grow gap="xs" align="flex-start">
                    <NumberInput label="Width" aria-label={`${SLOT_LABELS[slot]} width`} allowDecimal={false} allowNegative={false} min={r.width.min} max={r.width.max} {...sizeProps(slot, 'width')} />
                    <NumberInput label="Height" aria-label={`${SLOT_LABELS[slot]} height`} allowDecimal={false} allowNegative={false} min={r.height.min} max={r.height.max} {...sizeProps(slot, 'height')} />
                  </Group>
                </Paper>
              );
            })}
          </SimpleGrid>
        </Section>

        <Section title="Branding">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <ColorInput label="Primary color" format="hex" eyeDropperButtonProps={{ 'aria-label': 'Pick primary from the screen' }} {...form.getInputProps('branding.primaryColor')} />
            <ColorInput label="Secondary color" format="hex" eyeDropperButtonProps={{ 'aria-label': 'Pick secondary from the screen' }} {...form.getInputProps('branding.secondaryColor')} />
            <TextInput label="Logo URL" type="url" {...form.getInputProps('branding.logoUrl')} />
            <Select label="Font" data={[...FONT_CHOICES]} allowDeselect={false} {...form.getInputProps('branding.fontFamily')} />
          </SimpleGrid>
          <Textarea mt="md" label="Custom CSS" autosize minRows={3} styles={{ input: { fontFamily: 'monospace' } }} {...form.getInputProps('branding.customCss')} />
        </Section>

        <Section title="Security">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Textarea
              label="Allowed domains"
              description="One per line; blank lines are dropped"
              autosize
              minRows={3}
              {...form.getInputProps('security.allowedDomains')}
            />
            <Stack gap="sm">
              <Switch label="Enable CORS (only allowed domains may call)" {...form.getInputProps('security.enableCors', { type: 'checkbox' })} />
              <Switch label="Require HTTPS" {...form.getInputProps('security.requireHttps', { type: 'checkbox' })} />
              <Switch label="Rate limit" {...form.getInputProps('security.rateLimitEnabled', { type: 'checkbox' })} />
              <Switch
                label="Respect Do-Not-Track / Global Privacy Control"
                description="With a Do-Not-Track or Global Privacy Control signal, banners still show but nothing is counted or stored in the browser."
                {...form.getInputProps('security.respectDoNotTrack', { type: 'checkbox' })}
              />
              <NumberInput
                label="Max requests per minute"
                description={`A whole number, ${MAX_REQUESTS_PER_MINUTE.min}-${MAX_REQUESTS_PER_MINUTE.max}; empty means ${MAX_REQUESTS_PER_MINUTE.fallback}`}
                allowDecimal={false}
                allowNegative={false}
                min={MAX_REQUESTS_PER_MINUTE.min}
                max={MAX_REQUESTS_PER_MINUTE.max}
                {...form.getInputProps('security.maxRequestsPerMinute')}
              />
            </Stack>
          </SimpleGrid>
        </Section>

        <Section title="Notifications">
          <MailNotConfigured />
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Stack gap="sm">
              <Switch label="Email alerts" {...form.getInputProps('notifications.emailAlerts', { type: 'checkbox' })} />
              <Switch label="Performance alerts" {...form.getInputProps('notifications.performanceAlerts', { type: 'checkbox' })} />
              <Switch label="Error alerts" {...form.getInputProps('notifications.errorAlerts', { type: 'checkbox' })} />
              <Switch label="Weekly reports" {...form.getInputProps('notifications.weeklyReports', { type: 'checkbox' })} />
            </Stack>
            <NumberInput
              label="CTR alert threshold (%)"
              description="A performance alert fires below this CTR; empty means 2"
              min={0}
              max={100}
              decimalScale={2}
              allowNegative={false}
              {...form.getInputProps('notifications.alertThreshold')}
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

/** Says that notification e-mails are only kept in the Outbox while the server has no SMTP_URL. */
function MailNotConfigured() {
  const outbox = useOutbox();
  if (outbox.data?.mailConfigured !== false) return null;
  return (
    <Alert icon={<MailWarning size={18} />} color="blue" mb="md" title="E-mail is not configured">
      The server has no SMTP server (SMTP_URL), so these notifications are written to the <Anchor component={Link} to="/admin/outbox">Outbox</Anchor> and not sent.
    </Alert>
  );
}
