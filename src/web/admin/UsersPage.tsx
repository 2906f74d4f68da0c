/**
 * User Management (/admin/users; DECISIONS 4, 7): list with search; Add User (email, name, role,
 * dealer for dealer roles, initial password of at least 8 characters); edit name, role and dealer;
 * reset password; deactivate (after confirmation; the user's sessions end at once) and reactivate.
 * The server refuses a duplicate email and changes that would leave no active admin, with messages
 * shown here.
 */
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useDebouncedValue } from '@mantine/hooks';
import { ActionIcon, Alert, Badge, Box, Button, Group, Paper, PasswordInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Modal, Select } from '../components/deferred';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { MoreHorizontal, Plus, Search } from 'lucide-react';
import type { AdminUser } from '../../domain/admin';
import { ROLES, type Role } from '../../domain/enums';
import { useAuth } from '../components/auth';
import { ErrorNotice } from '../components/feedback';
import { usePasswordToggle } from '../components/password';
import { formErrorsOf } from '../api/field-errors';
import { useNarrowScreen } from '../components/responsive';
import { Truncated } from '../components/Truncated';
import { MIN_PASSWORD_LENGTH } from '../../domain/passwords';
import { useAdminDealers, useCreateUser, useResetPassword, useUpdateUser, useUsers, type NewUser } from './api';
import { ActionsHeader } from '../components/table';

const MIN_PASSWORD = MIN_PASSWORD_LENGTH;
/** The Add User / Edit fields a server error can name (shown under the field). */
const USER_FIELDS = ['email', 'name', 'role', 'dealerId', 'password'] as const;
const ROLE_LABELS: Record<Role, string> = { admin: 'Admin', 'dealer-manager': 'Dealer manager', viewer: 'Viewer' };

export type Dialog = { kind: 'create' } | { kind: 'edit'; user: AdminUser } | { kind: 'password'; user: AdminUser } | { kind: 'deactivate'; user: AdminUser } | null;

export function UsersPage() {
  const users = useUsers();
  const update = useUpdateUser();
  const { user: me } = useAuth();
  const narrow = useNarrowScreen();
  const [search, setSearch] = useState('');
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);
  // The deactivate modal keeps showing its user while it fades out.
  const [toDeactivate, setToDeactivate] = useState<AdminUser | null>(null);
  if (dialog?.kind === 'deactivate' && dialog.user !== toDeactivate) setToDeactivate(dialog.user);

  const q = search.trim().toLowerCase();
  const shown = (users.data ?? []).filter((u) => !q || u.name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q) || (u.dealerName ?? '').toLowerCase().includes(q));

  const setActive = (u: AdminUser, isActive: boolean) =>
    update.mutate(
      { id: u.id, patch: { isActive } },
      {
        onSuccess: () => {
          notifications.show({ color: 'teal', message: `${u.name} ${isActive ? 'reactivated' : 'deactivated'}` });
          close();
        },
        onError: (e) => notifications.show({ color: 'red', title: 'Not changed', message: e.message }),
      },
    );

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>User Management</Title>
          <Text c="dimmed">Who can sign in, with which role and for which dealer.</Text>
        </div>
        <Button leftSection={<Plus size={16} />} onClick={() => setDialog({ kind: 'create' })}>
          Add User
        </Button>
      </Group>
      <TextInput label="Search" placeholder="Search by name, email or dealer" leftSection={<Search size={16} />} value={search} onChange={(e) => setSearch(e.currentTarget.value)} maw={420} />
      {users.error ? (
        <ErrorNotice message={users.error.message} onRetry={() => void users.refetch()} />
      ) : (
        <Paper withBorder radius="md">
          {narrow ? (
            // Narrow screens: one card per user, actions included.
            <Stack gap={0} data-testid="users-table">
              {users.isPending && (
                <Text c="dimmed" p="md">
                  Loading...
                </Text>
              )}
              {users.data && shown.length === 0 && (
                <Text c="dimmed" p="md">
                  No users found. Try adjusting your search.
                </Text>
              )}
              {shown.map((u, i) => (
                <Group key={u.id} data-email={u.email} p="md" gap="sm" wrap="nowrap" align="flex-start" style={{ borderTop: i > 0 ? '1px solid var(--mantine-color-gray-3)' : undefined }}>
                  <Box style={{ minWidth: 0, flex: 1 }}>
                    <Group gap={6} wrap="nowrap">
                      <Truncated fw={600} size="sm">
                        {u.name}
                      </Truncated>
                      {u.id === me?.id && (
                        <Badge size="xs" variant="light" style={{ flexShrink: 0 }}>
                          you
                        </Badge>
                      )}
                    </Group>
                    <Truncated size="sm">{u.email}</Truncated>
                    <Text size="xs" c="dimmed">
                      {ROLE_LABELS[u.role]}
                      {u.dealerName ? ` · ${u.dealerName}` : ''}
                    </Text>
                    <Badge mt={6} color={u.isActive ? 'green' : 'gray'} variant={u.isActive ? 'light' : 'outline'}>
                      {u.isActive ? 'Active' : 'Deactivated'}
                    </Badge>
                  </Box>
                  <UserMenu user={u} onDialog={setDialog} onReactivate={() => setActive(u, true)} />
                </Group>
              ))}
            </Stack>
          ) : (
            <Table.ScrollContainer minWidth={720}>
              <Table verticalSpacing="sm" highlightOnHover data-testid="users-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Email</Table.Th>
                    <Table.Th>Role</Table.Th>
                    <Table.Th>Dealer</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <ActionsHeader />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {users.isPending && (
                    <Table.Tr>
                      <Table.Td colSpan={6}>
                        <Text c="dimmed">Loading...</Text>
                      </Table.Td>
                    </Table.Tr>
                  )}
                  {users.data && shown.length === 0 && (
                    <Table.Tr>
                      <Table.Td colSpan={6}>
                        <Text c="dimmed">No users found. Try adjusting your search.</Text>
                      </Table.Td>
                    </Table.Tr>
                  )}
                  {shown.map((u) => (
                    <Table.Tr key={u.id} data-email={u.email}>
                      <Table.Td fw={600}>
                        {u.name}
                        {u.id === me?.id && (
                          <Badge ml={6} size="xs" variant="light">
                            you
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>{u.email}</Table.Td>
                      <Table.Td>{ROLE_LABELS[u.role]}</Table.Td>
                      <Table.Td>{u.dealerName ?? '—'}</Table.Td>
                      <Table.Td>
                        <Badge color={u.isActive ? 'green' : 'gray'} variant={u.isActive ? 'light' : 'outline'}>
                          {u.isActive ? 'Active' : 'Deactivated'}
                        </Badge>
                      </Table.Td>
                      <Table.Td ta="right">
                        <Suspense fallback={<MenuTarget email={u.email} />}>
                          <UserMenu user={u} onDialog={setDialog} onReactivate={() => setActive(u, true)} />
                        </Suspense>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </Paper>
      )}

      {dialog?.kind === 'create' && <UserForm onClose={close} />}
      {dialog?.kind === 'edit' && <UserForm user={dialog.user} onClose={close} />}
      {dialog?.kind === 'password' && <PasswordForm user={dialog.user} onClose={close} />}
      <Modal opened={dialog?.kind === 'deactivate'} onClose={close} title="Deactivate user?" centered>
        {toDeactivate && (
          <Stack>
            <Text size="sm">
              {toDeactivate.name} ({toDeactivate.email}) is signed out everywhere at once and can no longer sign in. You can reactivate the account later.
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button color="red" loading={update.isPending} onClick={() => setActive(toDeactivate, false)}>
                Deactivate
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

/**
 * A user's actions menu (UserMenu.tsx) is a chunk of its own with the menu's popover engine
 * (@floating-ui, 15 KB gzipped), fetched as the list renders; until it is in, each row
 * shows the menu's button, disabled.
 */
const UserMenu = lazy(async () => ({ default: (await import('./UserMenu')).UserMenu }));

/** The actions menu's button (disabled) while UserMenu.tsx is on its way. */
function MenuTarget({ email }: { email: string }) {
  return (
    <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${email}`} disabled>
      <MoreHorizontal size={18} />
    </ActionIcon>
  );
}

/** Add User (no `user`) or Edit (name, role, dealer). */
function UserForm({ user, onClose }: { user?: AdminUser; onClose: () => void }) {
  const create = useCreateUser();
  const update = useUpdateUser();
  const busy = create.isPending || update.isPending;
  const error = create.error ?? update.error;
  const passwordToggle = usePasswordToggle();
  // The invitation link to hand over when the e-mail did not go out (no SMTP, or it failed).
  const [handOver, setHandOver] = useState<{ name: string; email: string; link: string; status: string } | null>(null);
  const form = useForm<NewUser & { password: string }>({
    mode: 'controlled',
    initialValues: { email: user?.email ?? '', name: user?.name ?? '', role: user?.role ?? 'dealer-manager', dealerId: user?.dealerId ?? null, password: '' },
    validate: {
      email: (v) => (user || /^\S+@\S+\.\S+$/.test(v.trim()) ? null : 'Enter a valid email address'),
      name: (v) => (v.trim() ? null : 'Name is required'),
      dealerId: (v, values) => (values.role === 'admin' || v ? null : 'Choose the dealer this user works for'),
      password: (v) => (user || v.length === 0 || v.length >= MIN_PASSWORD ? null : `At least ${MIN_PASSWORD} characters, or leave it empty`),
    },
  });
  const submit = form.onSubmit((v) => {
    const onError = (e: Error) => form.setErrors(formErrorsOf(e, USER_FIELDS));
    const dealerId = v.role === 'admin' ? null : v.dealerId;
    if (user) {
      update.mutate({ id: user.id, patch: { name: v.name.trim(), role: v.role, dealerId } }, { onSuccess: () => (notifications.show({ color: 'teal', message: 'User updated' }), onClose()), onError });
      return;
    }
    const { password, ...rest } = v;
    create.mutate(
      { ...rest, email: v.email.trim(), name: v.name.trim(), dealerId, ...(password ? { password } : {}) },
      {
        onSuccess: ({ invitation }) => {
          // Without an initial password the user needs the link: shown here when the e-mail did not go out.
          if (!password && invitation.link) return setHandOver({ name: v.name.trim(), email: v.email.trim(), link: invitation.link, status: invitation.status });
          notifications.show({ color: 'teal', message: invitation.status === 'sent' ? `Invitation e-mailed to ${v.email.trim()}` : `${v.name.trim()} can now sign in` });
          onClose();
        },
        onError,
      },
    );
  });
  if (handOver)
    return (
      <Modal opened onClose={onClose} title="Invitation link" centered>
        <Stack>
          <Alert color="yellow" role="status">
            {handOver.status === 'failed'
              ? `${handOver.name} was added, but the invitation e-mail could not be sent (see Outbox).`
              : `${handOver.name} was added. E-mail is not configured (SMTP_URL), so send this link to ${handOver.email} yourself.`}{' '}
            It works once, for 72 hours.
          </Alert>
          <TextInput label="Set-password link" readOnly value={handOver.link} onFocus={(e) => e.currentTarget.select()} data-testid="invitation-link" />
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      </Modal>
    );
  return (
    <Modal opened onClose={onClose} title={user ? `Edit ${user.name}` : 'Add User'} centered>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Email" type="email" required disabled={Boolean(user)} {...form.getInputProps('email')} />
          <TextInput label="Name" required {...form.getInputProps('name')} />
          <Select label="Role" data={ROLES.map((r) => ({ value: r, label: ROLE_LABELS[r] }))} allowDeselect={false} {...form.getInputProps('role')} />
          {form.values.role !== 'admin' && (
            <DealerPicker current={user?.dealerId ? { id: user.dealerId, name: user.dealerName ?? user.dealerId } : null} {...form.getInputProps('dealerId')} />
          )}
          {!user && (
            <PasswordInput
              label="Initial password (optional)"
              description={`Leave empty: an invitation e-mail lets the user set their own. Else at least ${MIN_PASSWORD} characters.`}
              {...form.getInputProps('password')}
              {...passwordToggle}
            />
          )}
          {error && Object.keys(formErrorsOf(error, USER_FIELDS)).length === 0 && (
            <Alert color="red" role="alert">
              {error.message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              {user ? 'Save' : 'Add User'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function PasswordForm({ user, onClose }: { user: AdminUser; onClose: () => void }) {
  const reset = useResetPassword();
  const passwordToggle = usePasswordToggle();
  const form = useForm({ mode: 'controlled', initialValues: { password: '' }, validate: { password: (v: string) => (v.length >= MIN_PASSWORD ? null : `At least ${MIN_PASSWORD} characters`) } });
  return (
    <Modal opened onClose={onClose} title={`Reset password of ${user.name}`} centered>
      <form
        noValidate
        onSubmit={form.onSubmit((v) =>
          reset.mutate({ id: user.id, password: v.password }, { onSuccess: () => (notifications.show({ color: 'teal', message: 'Password reset; the user was signed out' }), onClose()) }),
        )}
      >
        <Stack>
          <PasswordInput label="New password" required {...form.getInputProps('password')} {...passwordToggle} />
          {reset.error && (
            <Alert color="red" role="alert">
              {reset.error.message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={reset.isPending}>
              Reset Password
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** How many dealers the picker offers at a time: type to narrow the search (on the server). */
const PICKER_OPTIONS = 50;

/**
 * The Dealer field of the user form: a searchable select whose options come from the server's
 * dealer list (first PICKER_OPTIONS by name matching the typed text), so it stays small however
 * many dealers there are. `current` (the user's dealer) is always an option so its name shows.
 */
function DealerPicker({ current, value, onChange, error }: { current: { id: string; name: string } | null; value?: string | null; onChange: (v: string | null) => void; error?: ReactNode }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const [picked, setPicked] = useState<{ id: string; name: string } | null>(current);
  // The typed text is the chosen dealer's name right after picking it: list from the start then.
  const q = picked && debounced === picked.name ? undefined : debounced.trim() || undefined;
  const dealers = useAdminDealers({ sort: 'name', pageSize: PICKER_OPTIONS, q });
  const options = (dealers.data?.items ?? []).map((d) => ({ value: d.id, label: d.name }));
  if (picked && picked.id === value && !options.some((o) => o.value === picked.id)) options.unshift({ value: picked.id, label: picked.name });
  return (
    <Select
      label="Dealer"
      required
      searchable
      placeholder={dealers.isPending ? 'Loading...' : 'Choose a dealer'}
      data={options}
      value={value ?? null}
      error={error}
      searchValue={search}
      onSearchChange={setSearch}
      // The server already searched name, id and website: show its answer as it is.
      filter={({ options: all }) => all}
      nothingFoundMessage={dealers.isFetching ? 'Searching...' : 'No dealers found'}
      onChange={(v, option) => {
        setPicked(v ? { id: v, name: option.label } : null);
        onChange(v);
      }}
    />
  );
}
