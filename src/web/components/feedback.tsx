/**
 * Shared feedback states: loading, not found, inline error, a form editor's own problem and the
 * error boundary screen (spec 01 §2, §8).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Alert, Button, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { RotateCcw, TriangleAlert } from 'lucide-react';
import { ChunkReloadPrompt, isChunkLoadError } from './chunks';

/** Centered spinner with 'Loading...'. */
export function LoadingScreen() {
  return (
    <Center h="100vh">
      <Stack align="center" gap="xs">
        <Loader />
        <Text c="dimmed">Loading...</Text>
      </Stack>
    </Center>
  );
}

/**
 * Inline error box for a failed query, with Try again when `onRetry` is given. A screen shows it
 * instead of the content the query feeds, never beside an empty state (one error state
 * per failure).
 */
export function ErrorNotice({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <Alert color="red" icon={<TriangleAlert size={18} />} title="Something went wrong">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{message}</Text>
        {onRetry && (
          <Button size="xs" variant="default" leftSection={<RotateCcw size={14} />} onClick={onRetry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

/**
 * A problem with a whole editor of a form (a map's entries, the model list, the weights), in the
 * user's words, announced as an alert; nothing when `error` is empty. `mt` spaces it from the editor above.
 */
export function EditorError({ error, mt }: { error: ReactNode; mt?: string }) {
  return error ? (
    <Text c="red" size="sm" mt={mt} role="alert">
      {error}
    </Text>
  ) : null;
}

/** The 'Something went wrong' screen with Reload Page and Go Home (spec 01 §2, §8). */
export function ErrorScreen() {
  return (
    <Center h="100vh" p="xl">
      <Stack align="center" gap="sm" maw={480}>
        <TriangleAlert size={48} strokeWidth={1.5} color="var(--mantine-color-red-6)" />
        <Title order={2}>Something went wrong</Title>
        <Text c="dimmed" ta="center">
          An unexpected error occurred. This has been logged for debugging.
        </Text>
        <Group>
          <Button onClick={() => location.reload()}>Reload Page</Button>
          <Button variant="default" onClick={() => location.assign('/')}>
            Go Home
          </Button>
        </Group>
      </Stack>
    </Center>
  );
}

/** Catches render errors outside the router and shows ErrorScreen (the reload prompt for a chunk that did not load); logs the error. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('Render error', error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return isChunkLoadError(error) ? <ChunkReloadPrompt /> : <ErrorScreen />;
  }
}
