/**
 * Platform export and import (DECISIONS 3): Export downloads the whole platform as one versioned
 * JSON document; Import reads such a file, asks for confirmation, and the server validates the
 * whole document before applying it in one transaction ('Invalid export format', 'Invalid import
 * data format' otherwise, nothing changed). The toast after an import names the new users, who need
 * a password reset.
 */
import { useRef, useState } from 'react';
import { Alert, Button, FileButton, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Modal } from '../components/deferred';
import { notifications } from '@mantine/notifications';
import { Download, Upload } from 'lucide-react';
import { TEXT } from '../../domain/constants';
import { plural } from '../../domain/metrics';
import { useImportPlatform } from './api';

interface Pending {
  name: string;
  doc: { manufacturers?: unknown[]; dealers?: unknown[]; users?: unknown[] };
}

export function ExportImport() {
  const importer = useImportPlatform();
  const [pending, setPending] = useState<Pending | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Clears the file input, so choosing the same file again is noticed. */
  const resetFile = useRef<() => void>(null);

  const onFile = async (file: File | null) => {
    if (!file) return;
    resetFile.current?.();
    setError(null);
    try {
      const doc = JSON.parse(await file.text()) as Pending['doc'];
      if (!doc || typeof doc !== 'object') throw new Error('not an object');
      setPending({ name: file.name, doc });
    } catch {
      setError(TEXT.invalidExportFormat);
    }
  };

  const confirm = () =>
    pending &&
    importer.mutate(pending.doc, {
      onSuccess: ({ imported }) => {
        setPending(null);
        const resets = imported.passwordResetRequired;
        const counts = `${plural(imported.manufacturers, 'manufacturer')}, ${plural(imported.dealers, 'dealer')} and ${plural(imported.users, 'user')} imported.`;
        notifications.show({
          color: resets.length > 0 ? 'yellow' : 'teal',
          title: 'Import complete',
          // New users got a random password: name them, so the admin resets each one.
          message: resets.length > 0 ? `${counts} New users need a password reset (Users → Reset password) before they can sign in: ${resets.join(', ')}.` : counts,
          autoClose: resets.length > 0 ? false : undefined,
        });
      },
      onError: (e) => {
        setPending(null);
        setError(e.message);
      },
    });

  const count = (a: unknown[] | undefined) => (Array.isArray(a) ? a.length : 0);
  return (
    <Paper withBorder radius="md" p="lg">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={4}>Export / Import</Title>
          <Text size="sm" c="dimmed" maw={560}>
            Download every manufacturer, dealer (with all settings and configuration) and user (without passwords) as one JSON file, or import such a file. An import adds or updates records; it never deletes.
          </Text>
        </div>
        <Group>
          <Button component="a" href="/api/admin/export" variant="default" leftSection={<Download size={16} />}>
            Export Data
          </Button>
          <FileButton resetRef={resetFile} onChange={(f) => void onFile(f)} accept="application/json,.json">
            {(props) => (
              <Button {...props} variant="light" leftSection={<Upload size={16} />}>
                Import Data
              </Button>
            )}
          </FileButton>
        </Group>
      </Group>
      {error && (
        <Alert color="red" mt="md" title="Import refused" withCloseButton onClose={() => setError(null)} role="alert">
          {error}
        </Alert>
      )}
      <Modal opened={pending !== null} onClose={() => setPending(null)} title="Import platform data?" centered>
        <Stack>
          <Text size="sm">
            {pending?.name}: {plural(count(pending?.doc.manufacturers), 'manufacturer')}, {plural(count(pending?.doc.dealers), 'dealer')}, {plural(count(pending?.doc.users), 'user')}. Existing records with the same id (users: email) are overwritten.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setPending(null)} disabled={importer.isPending}>
              Cancel
            </Button>
            <Button onClick={confirm} loading={importer.isPending}>
              Import
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
