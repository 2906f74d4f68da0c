/**
 * Asset upload panel (spec 02 §2 Asset upload panel, §5 Asset upload, §9; DECISIONS 10-13, 24):
 * naming-convention help, the configured sizes, the storage bar, a drop zone with its rejection
 * texts, real per-file upload progress and the server's per-file validation results; an optional
 * promotion window for the files of the upload. Results with a warning ("Will never show",
 * another make, a real size other than the file name's, the same image stored for another model)
 * stay on screen until the dealer dismisses them; an upload without any closes the panel.
 */
import { useEffect, useRef, useState } from 'react';
import { Alert, Badge, Button, Code, Group, Paper, Progress, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { FileName } from '../../components/Truncated';
import '@mantine/dropzone/styles.css';
import { Dropzone, type FileRejection, type FileWithPath } from '@mantine/dropzone';
import { useQueryClient } from '@tanstack/react-query';
import { CircleAlert, CircleCheck, CircleX, HardDrive, ImageUp, Info, TriangleAlert } from 'lucide-react';
import type { Dealer } from '../../../domain/schemas';
import {
  ACCEPTED_IMAGE_EXTENSIONS,
  ACCEPTED_IMAGE_MIME_TYPES,
  MAX_ASSET_BYTES,
  STORAGE_FULL_RATIO,
  STORAGE_RED_RATIO,
  STORAGE_REFUSE_RATIO,
  STORAGE_WARN_RATIO,
  TEXT,
} from '../../../domain/constants';
import { bannerTypeLabel } from '../../../domain/banner-type';
import { slotColor } from '../../../domain/slots';
import { errorMessage } from '../../api/client';
import { dealerKeys } from '../api';
import { uploadAssetFile, type StorageUsage, type UploadResult } from './api';
import { formatKb, formatMb } from './format';
import { SizeList } from './SizeList';
import { ScheduleFields, windowErrors, type WindowValue } from './ScheduleFields';

/** Files per drop; more gives the drop zone's 'Too many files' rejection. */
const MAX_FILES_PER_DROP = 20;
/** Upload progress stops here until the server has answered for the file (then 100). */
const PROGRESS_BEFORE_ANSWER = 95;

const NAMING_PATTERN = 'new_{year}_{manufacturer}_{model}_{trim}_{width}x{height}.{ext}';
const NAMING_EXAMPLE = 'new_2025_honda_civic_sport_1920x300.jpg';

interface FileState {
  key: string;
  name: string;
  sizeBytes: number;
  progress: number;
  result?: UploadResult;
}

interface PanelError {
  id: number;
  text: string;
}

/** Share of the quota in use, 0 with no quota. */
const usageRatio = (u: StorageUsage) => (u.quotaBytes > 0 ? u.usedBytes / u.quotaBytes : 0);

/** The upload panel of a dealer; `onDone(count)` is called after an upload in which every file succeeded. */
export function UploadPanel({ dealer, usage, onDone }: { dealer: Dealer; usage: StorageUsage; onDone: (uploaded: number) => void }) {
  const qc = useQueryClient();
  const [files, setFiles] = useState<FileState[]>([]);
  const [errors, setErrors] = useState<PanelError[]>([]);
  const [busy, setBusy] = useState(false);
  const [schedule, setSchedule] = useState<WindowValue>({ startsAt: '', endsAt: '' });
  const windowProblems = windowErrors(schedule);
  const nextId = useRef(0);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const ratio = usageRatio(usage);
  const full = ratio > STORAGE_FULL_RATIO;
  const nearlyFull = ratio > STORAGE_REFUSE_RATIO;

  const addErrors = (texts: string[]) =>
    setErrors((cur) => [...cur, ...texts.map((text) => ({ id: nextId.current++, text }))]);

  const onDropAny = async (accepted: FileWithPath[], rejections: FileRejection[]) => {
    addErrors(rejections.map((r) => `${r.file.name}: ${r.errors.map((e) => e.message).join('; ')}`));
    if (accepted.length === 0) return;
    if (nearlyFull) {
      addErrors([TEXT.storageNearlyFull]);
      return;
    }
    if (windowProblems.endsAt) {
      addErrors([`Schedule: the end must be after the start`]);
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    const batch = accepted.map((f, i) => ({ key: `${nextId.current++}-${i}`, name: f.name, sizeBytes: f.size, progress: 0 }));
    setFiles(batch);
    setBusy(true);
    const update = (key: string, patch: Partial<FileState>) => setFiles((cur) => cur.map((s) => (s.key === key ? { ...s, ...patch } : s)));
    let allOk = rejections.length === 0;
    let uploaded = 0;
    let warned = false;
    for (const [i, file] of accepted.entries()) {
      const key = batch[i]!.key;
      if (controller.signal.aborted) break;
      try {
        const result = await uploadAssetFile(dealer.id, file, (p) => update(key, { progress: Math.min(p, PROGRESS_BEFORE_ANSWER) }), controller.signal, schedule);
        update(key, { progress: 100, result });
        if (result.ok) uploaded += 1;
        else allOk = false;
        if (result.ok && result.warnings.length > 0) warned = true;
      } catch (e) {
        allOk = false;
        const message = errorMessage(e);
        update(key, { progress: 100, result: { filename: file.name, ok: false, error: message } });
        addErrors([`${file.name}: ${message}`]);
      }
    }
    if (controller.signal.aborted) {
      // Closed mid-upload: files already stored must still show in the list.
      void qc.invalidateQueries({ queryKey: dealerKeys.assets(dealer.id) });
      return;
    }
    await qc.invalidateQueries({ queryKey: dealerKeys.assets(dealer.id) });
    setBusy(false);
    if (allOk && !warned) {
      setFiles([]);
      onDone(uploaded);
    }
  };

  return (
    <Paper withBorder p="lg" radius="md" shadow="xs" component="section" aria-label="Upload banners">
      <Stack gap="md">
        <Group gap="xs">
          <ImageUp size={20} aria-hidden />
          <Title order={3} size="h4">
            Upload banners
          </Title>
        </Group>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Alert icon={<Info size={18} />} color="blue" variant="light" title="Naming convention">
            <Stack gap={6}>
              <Text size="sm">Name each file so the model and trim can be read from it:</Text>
              <Code block fz="xs" style={{ whiteSpace: 'normal' }}>
                {NAMING_PATTERN.split('_').map((part, i) => (
                  <span key={i}>
                    {i > 0 && (
                      <>
                        _<wbr />
                      </>
                    )}
                    {part}
                  </span>
                ))}
              </Code>
              <Text size="sm">
                Example: <Code>{NAMING_EXAMPLE}</Code>
              </Text>
              <Text size="xs" c="dimmed">
                {ACCEPTED_IMAGE_EXTENSIONS.map((e) => `.${e}`).join(', ')} · up to {formatMb(MAX_ASSET_BYTES)} each. The real image
                dimensions decide the banner type; extra parts in the name are ignored.
              </Text>
            </Stack>
          </Alert>
          <SizeList sizes={dealer.assetStorage.bannerSizes} />
        </SimpleGrid>

        <StorageBar usage={usage} />
        {nearlyFull && (
          <Alert color="red" variant="light" icon={<TriangleAlert size={18} />}>
            {TEXT.storageNearlyFull}
          </Alert>
        )}

        <Paper withBorder p="sm" radius="md" component="fieldset" style={{ border: '1px solid var(--mantine-color-gray-3)' }}>
          <Text component="legend" size="sm" fw={600} px={4}>
            Promotion schedule (optional)
          </Text>
          <Stack gap="xs">
            <Text size="xs" c="dimmed">
              Set dates to show the banners you upload now only for a promotion; leave both empty to show them as soon as they are uploaded.
            </Text>
            <ScheduleFields value={schedule} onChange={setSchedule} timeZone={dealer.timeZone} errors={windowProblems} disabled={busy} sideBySide />
          </Stack>
        </Paper>

        <Dropzone
          onDrop={() => undefined}
          onDropAny={(a, r) => void onDropAny(a, r)}
          accept={[...ACCEPTED_IMAGE_MIME_TYPES]}
          maxSize={MAX_ASSET_BYTES}
          maxFiles={MAX_FILES_PER_DROP}
          multiple
          loading={busy}
          disabled={full}
          aria-label={full ? TEXT.storageFull : 'Drop banner images here or press Enter to select files'}
          style={full ? { opacity: 0.6, cursor: 'not-allowed' } : undefined}
        >
          <Group justify="center" gap="lg" mih={130} style={{ pointerEvents: 'none' }}>
            <Dropzone.Accept>
              <ThemeIcon size={56} radius="xl" color="teal" variant="light">
                <CircleCheck size={30} />
              </ThemeIcon>
            </Dropzone.Accept>
            <Dropzone.Reject>
              <ThemeIcon size={56} radius="xl" color="red" variant="light">
                <CircleX size={30} />
              </ThemeIcon>
            </Dropzone.Reject>
            <Dropzone.Idle>
              <ThemeIcon size={56} radius="xl" color={full ? 'gray' : 'red'} variant="light">
                {full ? <HardDrive size={30} /> : <ImageUp size={30} />}
              </ThemeIcon>
            </Dropzone.Idle>
            <div>
              <Text fw={600} size="lg">
                {full ? TEXT.storageFull : 'Drag banner images here or click to select'}
              </Text>
              <Text size="sm" c="dimmed">
                {full
                  ? 'Delete old assets or use Free up space to make room.'
                  : `JPEG, PNG or WebP, up to ${formatMb(MAX_ASSET_BYTES)} each. Several files at once are fine.`}
              </Text>
            </div>
          </Group>
        </Dropzone>

        {errors.map((e) => (
          <Alert
            key={e.id}
            color="red"
            variant="light"
            icon={<CircleAlert size={18} />}
            withCloseButton
            closeButtonLabel="Dismiss error"
            onClose={() => setErrors((cur) => cur.filter((x) => x.id !== e.id))}
          >
            {e.text}
          </Alert>
        ))}

        {files.length > 0 && (
          <Stack gap="xs" aria-live="polite">
            <Group justify="space-between">
              <Text size="sm" fw={600}>
                Validation results
              </Text>
              {!busy && (
                <Button variant="subtle" size="compact-sm" onClick={() => setFiles([])}>
                  Dismiss results
                </Button>
              )}
            </Group>
            {files.map((f) => (
              <FileRow key={f.key} file={f} />
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/** Storage use against the quota: yellow above 70 %, red above 90 % (DECISIONS 12). */
function StorageBar({ usage }: { usage: StorageUsage }) {
  const ratio = usageRatio(usage);
  const percent = Math.round(ratio * 100);
  const color = ratio > STORAGE_RED_RATIO ? 'red' : ratio > STORAGE_WARN_RATIO ? 'yellow' : 'teal';
  return (
    <div>
      <Group justify="space-between" mb={4}>
        <Group gap={6}>
          <HardDrive size={16} aria-hidden />
          <Text size="sm" fw={500}>
            Storage
          </Text>
        </Group>
        <Text size="sm" c={ratio > STORAGE_WARN_RATIO ? color : 'dimmed'} data-testid="storage-usage">
          {formatMb(usage.usedBytes)} of {formatMb(usage.quotaBytes)} used ({percent}%)
        </Text>
      </Group>
      <Progress value={Math.min(100, ratio * 100)} color={color} size="lg" radius="xl" aria-label={`Storage used: ${percent}%`} />
    </div>
  );
}

/** One file of the current upload: progress while it goes, then the server's verdict. */
function FileRow({ file }: { file: FileState }) {
  const r = file.result;
  return (
    <Paper withBorder radius="md" p="sm" bg={r ? (r.ok ? 'var(--mantine-color-teal-0)' : 'var(--mantine-color-red-0)') : undefined}>
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Group gap="xs" wrap="nowrap" miw={0}>
          {r ? r.ok ? <CircleCheck size={18} color="var(--mantine-color-teal-7)" aria-label="Valid" /> : <CircleX size={18} color="var(--mantine-color-red-7)" aria-label="Invalid" /> : <ImageUp size={18} aria-hidden />}
          <FileName size="sm" fw={600}>
            {file.name}
          </FileName>
          <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
            {formatKb(file.sizeBytes)}
          </Text>
        </Group>
        {r?.ok && (
          <Badge color={slotColor(r.asset.type)} variant="light" style={{ flexShrink: 0 }}>
            {bannerTypeLabel(r.asset.type)}
          </Badge>
        )}
        {!r && (
          <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
            {file.progress >= PROGRESS_BEFORE_ANSWER ? 'Validating...' : `${file.progress}%`}
          </Text>
        )}
      </Group>
      {!r && <Progress value={file.progress} size="sm" mt={6} animated striped aria-label={`Upload progress of ${file.name}`} />}
      {r?.ok && (
        <Stack gap={2} mt={4}>
          <Text size="xs">
            Model: <b>{r.asset.model}</b>
            {r.asset.trim && <> · Trim: <b>{r.asset.trim}</b></>} · Dimensions:{' '}
            <b>
              {r.asset.dimensions.width}x{r.asset.dimensions.height}
            </b>
          </Text>
          {r.warnings.map((w) => (
            <Text key={w} size="xs" c="orange">
              <TriangleAlert size={12} aria-hidden style={{ verticalAlign: -2 }} /> {w}
            </Text>
          ))}
        </Stack>
      )}
      {r && !r.ok && (
        <Stack gap={2} mt={4}>
          <Text size="sm" c="red">
            {r.error}
          </Text>
          {r.hint && (
            <Text size="xs" c="dimmed">
              {r.hint}
            </Text>
          )}
        </Stack>
      )}
    </Paper>
  );
}
