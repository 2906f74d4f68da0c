/**
 * Loading the web app's code-split chunks (the screens and the signed-in app are fetched on first
 * use). A chunk can fail to arrive: the server shed the request, the network dropped it, or a newer
 * deploy removed the file the open tab still names. `retryChunk` tries such a load once more
 * before giving up, and the error screens show `ChunkReloadPrompt` (reload the page, which fetches
 * the current build) instead of 'Something went wrong' when a chunk is what failed.
 */
import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { RefreshCw } from 'lucide-react';

/** How long to wait before the one retry of a failed chunk, ms (a shed request asks for seconds; a dropped one needs none). */
export const CHUNK_RETRY_DELAY_MS = 1000;

/**
 * True when `err` is a failed chunk load: the browsers' dynamic-import failures (Chromium "Failed to
 * fetch dynamically imported module", Firefox "error loading dynamically imported module", Safari
 * "Importing a module script failed") and Vite's "Unable to preload CSS" for a chunk's stylesheet.
 */
export function isChunkLoadError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  return /dynamically imported module|Importing a module script failed|Unable to preload CSS/i.test(message);
}

/**
 * `load` (a dynamic import) that, when the chunk fails to load, waits `delayMs` and tries once more;
 * the second failure (or any other error) rejects as it came.
 */
export function retryChunk<T>(load: () => Promise<T>, delayMs = CHUNK_RETRY_DELAY_MS): () => Promise<T> {
  return () =>
    load().catch(async (err: unknown) => {
      if (!isChunkLoadError(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return load();
    });
}

/** What a screen shows when its code could not be loaded twice: a prompt to reload the page. */
export function ChunkReloadPrompt() {
  return (
    <Center mih="60vh" p="xl">
      <Stack align="center" gap="sm" maw={480} role="alert">
        <RefreshCw size={40} strokeWidth={1.5} aria-hidden />
        <Title order={2} ta="center">
          This page could not be loaded
        </Title>
        <Text c="dimmed" ta="center">
          Part of the app did not arrive, or a newer version was released. Reload to continue; nothing you saved is lost.
        </Text>
        <Button leftSection={<RefreshCw size={16} />} onClick={() => location.reload()}>
          Reload
        </Button>
      </Stack>
    </Center>
  );
}
