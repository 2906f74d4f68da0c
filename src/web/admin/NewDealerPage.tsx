/**
 * Add Dealer (/admin/dealers/new; DECISIONS 8): name (the id is its slug, shown as typed),
 * manufacturer from the catalogue, website URL, provider, status and time zone (this browser's
 * zone to start with: the zone promotion schedules are entered in). The server refuses a
 * duplicate id with a clear message; on success the new dealer's settings open. The form checks
 * itself (no browser bubbles), submits on Enter, shows a server error under the field it names,
 * and says how to add a manufacturer when there is none.
 */
import { Link, useNavigate } from 'react-router';
import { Alert, Anchor, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { Select } from '../components/deferred';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { CircleAlert } from 'lucide-react';
import { DEALER_STATUSES, PROVIDERS, type Provider } from '../../domain/enums';
import { slugify } from '../../domain/slug';
import { useCreateDealer, useManufacturers, type NewDealer } from './api';
import { providerLabel, timeZoneOptions } from './parts';
import { formErrorsOf } from '../api/field-errors';

/** The fields a server error can name (shown under the field). */
const DEALER_FIELDS = ['name', 'manufacturer', 'websiteUrl', 'provider', 'status', 'timeZone'] as const;

export function NewDealerPage() {
  const navigate = useNavigate();
  const manufacturers = useManufacturers();
  const create = useCreateDealer();
  const form = useForm<NewDealer>({
    mode: 'controlled',
    initialValues: { name: '', manufacturer: '', websiteUrl: 'https://', provider: 'mxs', status: 'active', timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone },
    validate: {
      name: (v) => (!v.trim() ? 'Name is required' : !slugify(v) ? 'The name needs at least one letter or digit' : null),
      manufacturer: (v) => (v ? null : 'Choose a manufacturer'),
      websiteUrl: (v) => (/^https?:\/\/[^\s/]+\.[^\s]+$/i.test(v.trim()) ? null : 'Enter the website URL, e.g. https://www.example.com'),
    },
  });

  const submit = form.onSubmit((values) =>
    create.mutate(
      { ...values, name: values.name.trim(), websiteUrl: values.websiteUrl.trim() },
      {
        onSuccess: ({ dealer }) => {
          notifications.show({ color: 'teal', title: 'Dealer created', message: `${dealer.name} (${dealer.id}) has every default setting.` });
          navigate(`/admin/dealers/${dealer.id}/settings`);
        },
        onError: (e) => form.setErrors(formErrorsOf(e, DEALER_FIELDS)),
      },
    ),
  );

  const id = slugify(form.values.name);
  const noManufacturers = manufacturers.data?.length === 0;
  return (
    <Stack gap="lg" maw={720}>
      <div>
        <Title order={2}>Add Dealer</Title>
        <Text c="dimmed">The dealer starts with the default asset storage, branding, security and notification settings and its manufacturer's model mappings, upsell rules and trim patterns.</Text>
      </div>
      <Paper withBorder radius="md" p="lg" component="form" onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Dealer name" required placeholder="Honda of Springfield" description={id ? `Dealer id: ${id}` : 'The dealer id is made from the name.'} {...form.getInputProps('name')} />
          <Select
            label="Manufacturer"
            required
            placeholder={manufacturers.isPending ? 'Loading...' : noManufacturers ? 'No manufacturers yet' : 'Choose a manufacturer'}
            description={
              noManufacturers ? (
                <>
                  There are no manufacturers yet.{' '}
                  <Anchor component={Link} to="/admin/manufacturers" size="xs">
                    Add one under Manufacturers
                  </Anchor>{' '}
                  first.
                </>
              ) : manufacturers.error ? (
                `The manufacturers could not be loaded: ${manufacturers.error.message}`
              ) : undefined
            }
            nothingFoundMessage={noManufacturers ? 'No manufacturers yet: add one under Manufacturers first' : 'No manufacturer matches'}
            data={(manufacturers.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
            searchable
            {...form.getInputProps('manufacturer')}
          />
          <TextInput label="Website URL" required type="url" {...form.getInputProps('websiteUrl')} />
          <Group grow>
            <Select label="Provider" data={PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))} allowDeselect={false} {...form.getInputProps('provider')} onChange={(v) => form.setFieldValue('provider', (v ?? 'mxs') as Provider)} />
            <Select label="Status" data={[...DEALER_STATUSES]} allowDeselect={false} {...form.getInputProps('status')} />
          </Group>
          <Select
            label="Time zone"
            description="Promotion schedules are entered and shown in this zone; e-mails follow it"
            data={timeZoneOptions(form.values.timeZone ?? 'UTC')}
            searchable
            allowDeselect={false}
            {...form.getInputProps('timeZone')}
          />
          {create.error && Object.keys(formErrorsOf(create.error, DEALER_FIELDS)).length === 0 && (
            <Alert color="red" icon={<CircleAlert size={18} />} title="Could not create the dealer" role="alert">
              {create.error.message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => navigate('/admin/dealers')}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create Dealer
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}
