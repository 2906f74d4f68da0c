/**
 * Set-password screen (public, SET_PASSWORD_PATH; the invitation e-mail's link, domain/invitations.ts):
 * reads the one-time token from the URL's fragment (then drops it from the address bar and
 * history), greets the invited user (POST /api/auth/invitation), takes a new password twice
 * (at least MIN_PASSWORD_LENGTH characters, the rule of every password) and sets it (POST
 * /api/auth/invitation/accept). A used, expired or unknown link says so; after success it offers
 * Sign in with the user's email.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Alert, Anchor, Button, Center, Loader, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { CircleAlert, CircleCheck } from 'lucide-react';
import { apiFetch } from '../api/client';
import { usePasswordToggle } from '../components/password';
import { AuthScreen } from './AuthScreen';
import { useDocumentTitle } from '../components/title';
import { MIN_PASSWORD_LENGTH } from '../../domain/passwords';
import { INVITATION_INVALID, tokenFromHash } from '../../domain/invitations';

/**
 * The token of the page's fragment, read once when this module loads (it is loaded for this path
 * only), then removed from the address bar and history: a remount of the screen (Suspense,
 * the session answering) still has it.
 */
const linkToken: string | null = (() => {
  const t = tokenFromHash(window.location.hash);
  if (t) window.history.replaceState(null, '', window.location.pathname);
  return t;
})();

export function SetPasswordPage() {
  useDocumentTitle('Set your password');
  const token = linkToken;
  const invitation = useQuery({
    queryKey: ['auth', 'invitation', token],
    queryFn: () => apiFetch<{ email: string; name: string }>('/api/auth/invitation', { method: 'POST', json: { token } }),
    enabled: Boolean(token),
    retry: false,
  });
  const accept = useMutation({ mutationFn: (password: string) => apiFetch<{ email: string }>('/api/auth/invitation/accept', { method: 'POST', json: { token, password } }) });
  const toggle = usePasswordToggle();
  const form = useForm({
    initialValues: { password: '', confirm: '' },
    validate: {
      password: (v) => (v.length >= MIN_PASSWORD_LENGTH ? null : `At least ${MIN_PASSWORD_LENGTH} characters`),
      confirm: (v, values) => (v === values.password ? null : 'The two passwords differ'),
    },
  });

  let body;
  if (!token || invitation.error) {
    body = (
      <Alert color="red" icon={<CircleAlert size={16} />} role="alert" title="Link not valid">
        {invitation.error?.message ?? INVITATION_INVALID}
      </Alert>
    );
  } else if (invitation.isPending) {
    body = (
      <Center py="lg">
        <Loader aria-label="Checking the link" />
      </Center>
    );
  } else if (accept.data) {
    body = (
      <Stack>
        <Alert color="teal" icon={<CircleCheck size={16} />} role="status" title="Password set">
          Sign in with {accept.data.email} and your new password.
        </Alert>
        <Button component="a" href="/">
          Sign in
        </Button>
      </Stack>
    );
  } else {
    body = (
      <form noValidate onSubmit={form.onSubmit((v) => accept.mutate(v.password))}>
        <Stack>
          <Text>
            Welcome, {invitation.data.name}. Choose the password you will sign in with as <b>{invitation.data.email}</b>.
          </Text>
          <PasswordInput label="New password" autoComplete="new-password" required description={`At least ${MIN_PASSWORD_LENGTH} characters`} {...form.getInputProps('password')} {...toggle} />
          <PasswordInput label="Repeat the password" autoComplete="new-password" required {...form.getInputProps('confirm')} visible={toggle.visible} />
          {accept.error && (
            <Alert color="red" icon={<CircleAlert size={16} />} py="xs" role="alert">
              {accept.error.message}
            </Alert>
          )}
          <Button type="submit" loading={accept.isPending} fullWidth>
            Set password
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <AuthScreen main>
      <Stack>
        <Title order={2} size="h3">
          Set your password
        </Title>
        {body}
        {!accept.data && (
          <Anchor href="/" size="sm">
            Back to sign in
          </Anchor>
        )}
      </Stack>
    </AuthScreen>
  );
}
