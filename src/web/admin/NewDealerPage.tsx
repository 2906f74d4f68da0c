/**
 * Add Dealer (/admin/dealers/new; DECISIONS 8): name (the id is its slug, shown as typed),
 * manufacturer from the catalogue, website URL, provider and status. The server refuses a
 * duplicate id with a clear message; on success the new dealer's settings open.
 */
import { useNavigate } from 'react-router';
import { Alert, Button, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { CircleAlert } from 'lucide-react';
import { DEALER_STATUSES, PROVIDERS, type Provider } from '../../domain/schemas';
import { slugify } from '../../domain/slug';
import { useCreateDealer, useManufacturers, type NewDealer } from './api';
import { providerLabel } from './parts';

export function NewDealerPage() {
  const navigate = useNavigate();
  const manufacturers = useManufacturers();
  const create = useCreateDealer();
  const form = useForm<NewDealer>({
    mode: 'controlled',
    initialValues: { name: '', manufacturer: '', websiteUrl: 'https://', provider: 'mxs', status: 'active' },
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
      },
    ),
  );

  const id = slugify(form.values.name);
  return (
    <Stack gap="lg" maw={720}>
      <div>
        <Title order={2}>Add Dealer</Title>
        <Text c="dimmed">The dealer starts with the default asset storage, branding, security and notification settings and its manufacturer's model mappings, upsell rules and trim patterns.</Text>
      </div>
      <Paper withBorder radius="md" p="lg" component="form" onSubmit={submit}>
        <Stack>
          <TextInput label="Dealer name" required placeholder="Honda of Springfield" description={id ? `Dealer id: ${id}` : 'The dealer id is made from the name.'} {...form.getInputProps('name')} />
          <Select
            label="Manufacturer"
            required
            placeholder={manufacturers.isPending ? 'Loading...' : 'Choose a manufacturer'}
            data={(manufacturers.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
            searchable
            {...form.getInputProps('manufacturer')}
          />
          <TextInput label="Website URL" required type="url" {...form.getInputProps('websiteUrl')} />
          <Group grow>
            <Select label="Provider" data={PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))} allowDeselect={false} {...form.getInputProps('provider')} onChange={(v) => form.setFieldValue('provider', (v ?? 'mxs') as Provider)} />
            <Select label="Status" data={[...DEALER_STATUSES]} allowDeselect={false} {...form.getInputProps('status')} />
          </Group>
          {create.error && (
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
