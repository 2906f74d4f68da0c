/**
 * 'Manual Upload' tab (spec 02 §2 Inventory, §4 Manual inventory, §5 Inventory upload, §8): drop a
 * JSON or CSV file, the server parses it for a preview (rows skipped and why), then Cancel or
 * 'Apply Inventory Data'. Errors show under 'Upload Error' with the server's message. Without a
 * preview, the stored inventory is shown (or 'No inventory data uploaded'). Applying while the
 * automatic feed is active asks whether to pause the feed.
 */
import { useRef, useState } from 'react';
import { Alert, Badge, Button, Group, List, Loader, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import '@mantine/dropzone/styles.css';
import { Dropzone, type FileRejection } from '@mantine/dropzone';
import { notifications } from '@mantine/notifications';
import { CircleAlert, FileSpreadsheet, Upload, X } from 'lucide-react';
import type { InventoryPreview } from '../../../domain/inventory';
import { INVENTORY_TEXT, MAX_INVENTORY_BYTES } from '../../../domain/constants';
import { plural } from '../../../domain/metrics';
import { errorMessage } from '../../api/client';
import { useModelNames } from '../api';
import { previewInventoryFile, useApplyInventory, useFeed, useInventory } from './api';
import { InventoryDetails } from './InventoryDetails';
import { RaiseUpsellButton } from '../analytics/RaiseUpsellButton';
import { useConfigs } from '../config/api';

const SKIPS_SHOWN = 10;

export function ManualUpload({ dealerId, canEdit }: { dealerId: string; canEdit: boolean }) {
  const stored = useInventory(dealerId);
  const configs = useConfigs(dealerId);
  const apply = useApplyInventory(dealerId);
  const feed = useFeed(dealerId).data?.feed ?? null;
  const modelName = useModelNames(dealerId);
  // Applying while the feed is active: ask whether to pause it first, since its next run replaces the upload.
  const [askPause, setAskPause] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<InventoryPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [parsing, setParsing] = useState(false);
  const abort = useRef<AbortController | null>(null);

  const onDrop = async (files: File[]) => {
    const f = files[0];
    if (!f) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setError(null);
    setPreview(null);
    setFile(f);
    setParsing(true);
    try {
      setPreview(await previewInventoryFile(dealerId, f, controller.signal));
    } catch (e) {
      if (!controller.signal.aborted) {
        setFile(null);
        setError(errorMessage(e) || INVENTORY_TEXT.failed);
      }
    } finally {
      if (!controller.signal.aborted) setParsing(false);
    }
  };

  const onReject = (rejections: FileRejection[]) =>
    setError(rejections.map((r) => `${r.file.name}: ${r.errors.map((e) => e.message).join('; ')}`).join('\n'));

  const cancel = () => {
    abort.current?.abort();
    setParsing(false);
    setPreview(null);
    setFile(null);
  };

  const applyFile = (pauseFeed: boolean) => {
    if (!file) return;
    setAskPause(false);
    apply.mutate(
      { file, pauseFeed },
      {
        onSuccess: ({ inventory, feedPaused }) => {
          const what = `${plural(inventory.summary.totalUnits, 'vehicle')} across ${plural(inventory.summary.modelCount, 'model')}. Upsell rules regenerated.`;
          notifications.show({ color: 'teal', title: 'Inventory applied', message: feedPaused ? `${what} The automatic feed is paused.` : what });
          setPreview(null);
          setFile(null);
        },
        onError: (e) => notifications.show({ color: 'red', title: 'Apply failed', message: e.message }),
      },
    );
  };
  const onApply = () => (feed?.isActive ? setAskPause(true) : applyFile(false));

  return (
    <Stack gap="lg">
      <Modal opened={askPause} onClose={() => setAskPause(false)} title="Your automatic feed is active" centered>
        <Stack gap="md">
          <Text size="sm">
            The feed&apos;s next run will replace the inventory you apply now. Pause the feed to keep this upload until you resume the feed, or apply it anyway and
            let the feed replace it.
          </Text>
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={() => setAskPause(false)}>
              Cancel
            </Button>
            <Button variant="light" onClick={() => applyFile(false)}>
              Apply only
            </Button>
            <Button onClick={() => applyFile(true)}>Pause the feed and apply</Button>
          </Group>
        </Stack>
      </Modal>
      {canEdit && !preview && (
        <Dropzone
          onDrop={onDrop}
          onReject={onReject}
          maxFiles={1}
          multiple={false}
          maxSize={MAX_INVENTORY_BYTES}
          loading={parsing}
          aria-label="Inventory file drop zone"
          data-testid="inventory-dropzone"
        >
          <Group justify="center" gap="xl" mih={140} style={{ pointerEvents: 'none' }}>
            <Dropzone.Accept>
              <Upload size={44} color="var(--mantine-color-blue-6)" />
            </Dropzone.Accept>
            <Dropzone.Reject>
              <X size={44} color="var(--mantine-color-red-6)" />
            </Dropzone.Reject>
            <Dropzone.Idle>
              <FileSpreadsheet size={44} color="var(--mantine-color-dimmed)" />
            </Dropzone.Idle>
            <div>
              <Text size="lg" fw={600}>
                Drop an inventory file here or click to choose one
              </Text>
              <Text size="sm" c="dimmed" mt={4}>
                JSON (a vehicle array, Inventory.ListOfVehicles, listOfVehicles, vehicles or inventory) or CSV with a header row. Up to 20 MB and 50,000 vehicles.
              </Text>
            </div>
          </Group>
        </Dropzone>
      )}

      {error && (
        <Alert color="red" icon={<CircleAlert size={18} />} title={INVENTORY_TEXT.uploadError} withCloseButton onClose={() => setError(null)} role="alert">
          <Text size="sm" style={{ whiteSpace: 'pre-line' }}>
            {error}
          </Text>
        </Alert>
      )}

      {preview && file && (
        <Stack gap="lg" data-testid="inventory-preview">
          <Paper withBorder radius="md" p="md" bg="blue.0">
            <Group justify="space-between" wrap="wrap">
              <div>
                <Title order={4}>Preview: {file.name}</Title>
                <Text size="sm" c="dimmed" data-testid="rows-summary">
                  {plural(preview.rowsRead, 'row')} read, {plural(preview.summary.totalUnits, 'new vehicle')} counted
                  {preview.skippedCount > 0 ? `, ${preview.skippedCount.toLocaleString('en-US')} skipped` : ''}. Nothing is stored until you apply.
                </Text>
              </div>
              <Group>
                <Button variant="default" onClick={cancel} disabled={apply.isPending}>
                  Cancel
                </Button>
                <Button onClick={onApply} loading={apply.isPending}>
                  {INVENTORY_TEXT.apply}
                </Button>
              </Group>
            </Group>
            {preview.skippedCount > 0 && (
              <List size="sm" mt="sm" data-testid="skipped-rows">
                {preview.skipped.slice(0, SKIPS_SHOWN).map((s) => (
                  <List.Item key={s.row}>
                    {/* The file's own numbering: a CSV's line (the header is line 1), a JSON array's item from 1. */}
                    {s.line ? `Line ${s.line}` : `Item ${s.row}`}: {s.reason}
                  </List.Item>
                ))}
                {preview.skippedCount > SKIPS_SHOWN && <List.Item>and {preview.skippedCount - SKIPS_SHOWN} more</List.Item>}
              </List>
            )}
          </Paper>
          <InventoryDetails view={preview} modelName={modelName} />
        </Stack>
      )}

      {!preview && !parsing && (
        <Paper withBorder radius="md" p="lg">
          <Group justify="space-between" mb="md">
            <Title order={4}>Current inventory</Title>
            {stored.data && (
              <Group gap="xs">
                <Badge variant="light">{stored.data.source === 'feed' ? 'From feed' : 'Uploaded'}</Badge>
                <Text size="sm" c="dimmed">
                  Updated {new Date(stored.data.updatedAt).toLocaleString()}
                </Text>
              </Group>
            )}
          </Group>
          {stored.isPending ? (
            <Loader size="sm" />
          ) : stored.error ? (
            <Text c="red">{stored.error.message}</Text>
          ) : stored.data ? (
            <InventoryDetails view={stored.data} modelName={modelName} upsellPriorities={configs.data?.inventoryWeights} pushAction={(m) => <RaiseUpsellButton dealerId={dealerId} model={m.key} label={m.name} />} />
          ) : (
            <Text c="dimmed">{INVENTORY_TEXT.noData}</Text>
          )}
        </Paper>
      )}
    </Stack>
  );
}
