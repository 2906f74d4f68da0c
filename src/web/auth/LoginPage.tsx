/**
 * Sign-in screen (spec 01 §2, §5, §8): email and password (show/hide, with a named toggle reachable
 * by keyboard), Sign in with a spinner,
 * 'Invalid credentials' / 'Login failed' (or the server's 'Too many attempts, try again in N minutes'
 * when rate-limited), and the demo accounts hint when demo data is seeded.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Alert, Button, Paper, PasswordInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { CircleAlert } from 'lucide-react';
import { apiFetch, ApiError } from '../api/client';
import { useAuth } from '../components/auth';
import { AuthScreen } from './AuthScreen';
import { usePasswordToggle } from '../components/password';
import { TEXT } from '../../domain/constants';

interface DemoAccount {
  email: string;
  password: string;
  role: string;
}

/**
 * The alert text for a failed sign-in: 'Invalid credentials' for a 401, the server's own message
 * for a 429 ('Too many attempts, try again in N minutes'), else 'Login failed'.
 */
function loginErrorText(e: unknown): string {
  if (!(e instanceof ApiError)) return TEXT.loginFailed;
  if (e.status === 401) return TEXT.invalidCredentials;
  if (e.status === 429 && e.message) return e.message;
  return TEXT.loginFailed;
}

/** The sign-in screen, shown on any path while signed out. */
export function LoginPage() {
  const { login } = useAuth();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const demo = useQuery({
    queryKey: ['auth', 'demo-accounts'],
    queryFn: () => apiFetch<{ accounts: DemoAccount[] }>('/api/auth/demo-accounts'),
  });
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (v) => (/^\S+@\S+\.\S+$/.test(v) ? null : 'Enter a valid email address'),
      password: (v) => (v ? null : 'Password is required'),
    },
  });

  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    setError(null);
    try {
      await login(values.email, values.password);
    } catch (e) {
      setError(loginErrorText(e));
    } finally {
      setBusy(false);
    }
  });

  const accounts = demo.data?.accounts ?? [];
  const passwordToggle = usePasswordToggle();
  return (
    <AuthScreen
      below={
        accounts.length > 0 && (
          <Paper withBorder p="md" radius="md">
            <Text size="sm" fw={600} mb="xs" id="demo-accounts">
              Demo accounts
            </Text>
            {/* Two columns, the email above its password: fits 390 px without scrolling. */}
            <Table fz="xs" verticalSpacing={4} aria-labelledby="demo-accounts" data-testid="demo-accounts">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Email and password</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {accounts.map((a) => (
                  <Table.Tr key={a.email}>
                    <Table.Td style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>{a.role}</Table.Td>
                    <Table.Td ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      <div>{a.email}</div>
                      <div>{a.password}</div>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        )
      }
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={3}>Sign in</Title>
          <TextInput label="Email" type="email" autoComplete="username" required {...form.getInputProps('email')} />
          <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} {...passwordToggle} />
          {error && (
            <Alert color="red" icon={<CircleAlert size={16} />} py="xs" role="alert">
              {error}
            </Alert>
          )}
          <Button type="submit" loading={busy} fullWidth>
            Sign in
          </Button>
        </Stack>
      </form>
    </AuthScreen>
  );
}
