/**
 * Asset upload panel (spec 02 §2, §5; DECISIONS 10-13, 24): naming help, configured sizes, storage
 * bar, drop zone with its rejection texts, per-file progress and validation results.
 */
import { useState } from 'react';
import { Alert, Badge, Code, CloseButton, Group, List, Paper, Progress, SimpleGrid, Stack, Text } from '@mantine/core';
import { Dropzone, type FileRejection } from '@mantine/dropzone';
import { useQueryClient } from '@tanstack/react-query';
import { CircleAlert, CircleCheck, ImageUp, Info, TriangleAlert } from 'lucide-react';
import type { Dealer } from '../../../domain/schemas';
import { ACCEPTED_IMAGE_MIME_TYPES, MAX_ASSET_BYTES, STORAGE_FULL_RATIO, STORAGE_RED_RATIO, STORAGE_REFUSE_RATIO, STORAGE_WARN_RATIO, TEXT } from '../../../domain/constants';
import { bannerTypeLabel } from '../../../domain/banner-type';
import { dealerKeys, uploadAssetFile, type UploadResult } from '../api';
import { SizeList } from './SizeList';

interface FileState {
  name: string;
  progress: number;
  result?: UploadResult;
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

/** The upload panel; `onDone` is called after an upload in which every file succeeded. */
export function UploadPanel({ dealer, usage, onDone }: { dealer: Dealer; usage: { usedBytes: number; quotaBytes: number }; onDone: () => void }) {
  const qc = useQueryClient();
  const [files, setFiles] = useState<FileState[]>([]);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const ratio = usage.quotaBytes > 0 ? usage.usedBytes / usage.quotaBytes : 0;
  const full = ratio > STORAGE_FULL_RATIO;

  const onReject = (rejections: FileRejection[]) =>
    setErrors((e) => [...e, ...rejections.map((r) => `${r.file.name}: ${r.errors.map((x) => x.message).join(', ')}`)]);

  const onDrop = async (dropped: File[]) => {
    if (ratio > STORAGE_REFUSE_RATIO) {
      setErrors((e) => [...e, TEXT.storageNearlyFull]);
      return;
    }
    setBusy(true);
    const states: FileState[] = dropped.map((f) => ({ name: f.name, progress: 0 }));
    setFiles(states);
    const update = (i: number, patch: Partial<FileState>) => setFiles((cur) => cur.map((s, j) => (j === i ? { ...s, ...patch } : s)));
    let allOk = true;
    for (const [i, file] of dropped.entries()) {
      try {
        const result = await uploadAssetFile(dealer.id, file, (p) => update(i, { progress: p }));
        update(i, { progress: 100, result });
        if (!result.ok) allOk = false;
      } catch (e) {
        allOk = false;
        update(i, { progress: 100, result: { filename: file.name, ok: false, error: e instanceof Error ? e.message : 'Upload failed: Unknown error' } });
      }
    }
    await qc.invalidateQueries({ queryKey: dealerKeys.assets(dealer.id) });
    setBusy(false);
    if (allOk) {
      setFiles([]);
      onDone();
    }
  };

  return (
    <Paper withBorder p="lg" radius="md">
      <Stack>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Alert icon={<Info size={18} />} color="blue" title="Naming convention">
            <Text size="sm">
              Name files <Code>new_&#123;year&#125;_&#123;manufacturer&#125;_&#123;model&#125;_&#123;trim&#125;_&#123;width&#125;x&#123;height&#125;.&#123;ext&#125;</Code>
            </Text>
            <Text size="sm" mt={4}>
              Example: <Code>new_2025_honda_civic_sport_1920x300.jpg</Code>. JPEG, PNG or WebP, up to 2 MB each.
            </Text>
          </Alert>
          <SizeList sizes={dealer.assetStorage.bannerSizes} />
        </SimpleGrid>
        <div>
          <Group justify="space-between" mb={4}>
            <Text size="sm" fw={500}>
              Storage
            </Text>
            <Text size="sm" c="dimmed">
              {mb(usage.usedBytes)} MB of {mb(usage.quotaBytes)} MB ({Math.round(ratio * 100)}%)
            </Text>
          </Group>
          <Progress value={Math.min(100, ratio * 100)} color={ratio > STORAGE_RED_RATIO ? 'red' : ratio > STORAGE_WARN_RATIO ? 'yellow' : 'teal'} aria-label="Storage used" />
        </div>
        <Dropzone
          onDrop={onDrop}
          onReject={onReject}
          accept={[...ACCEPTED_IMAGE_MIME_TYPES]}
          maxSize={MAX_ASSET_BYTES}
          multiple
          maxFiles={20}
          loading={busy}
          disabled={full}
        >
          <Group justify="center" gap="md" mih={120} style={{ pointerEvents: 'none' }}>
            <Dropzone.Accept>
              <CircleCheck size={40} />
            </Dropzone.Accept>
            <Dropzone.Reject>
              <TriangleAlert size={40} />
            </Dropzone.Reject>
            <Dropzone.Idle>
              <ImageUp size={40} strokeWidth={1.5} />
            </Dropzone.Idle>
            <div>
              <Text fw={600}>{full ? TEXT.storageFull : 'Drag banners here or click to select files'}</Text>
              <Text size="sm" c="dimmed">
                Several files at once; each is validated and uploaded on its own.
              </Text>
            </div>
          </Group>
        </Dropzone>
        {errors.map((e, i) => (
          <Alert key={i} color="red" icon={<CircleAlert size={16} />} withCloseButton={false}>
            <Group justify="space-between" wrap="nowrap">
              <Text size="sm">{e}</Text>
              <CloseButton aria-label="Dismiss error" onClick={() => setErrors((cur) => cur.filter((_, j) => j !== i))} />
            </Group>
          </Alert>
        ))}
        {files.length > 0 && (
          <List spacing="sm" listStyleType="none">
            {files.map((f) => (
              <List.Item key={f.name}>
                <Group justify="space-between" wrap="nowrap">
                  <Text size="sm" fw={500} truncate>
                    {f.name}
                  </Text>
                  {f.result?.ok && (
                    <Group gap="xs" wrap="nowrap">
                      <Badge color="teal" variant="light">
                        {bannerTypeLabel(f.result.asset.type)}
                      </Badge>
                      <Text size="xs" c="dimmed">
                        {f.result.asset.model} · {f.result.asset.dimensions.width}x{f.result.asset.dimensions.height}
                      </Text>
                    </Group>
                  )}
                </Group>
                {!f.result && <Progress value={f.progress} size="sm" mt={4} animated />}
                {f.result?.ok && f.result.warnings.map((w) => <Text key={w} size="xs" c="orange.8">{w}</Text>)}
                {f.result && !f.result.ok && (
                  <Text size="sm" c="red.7">
                    {f.result.error}
                    {f.result.hint && <Text span size="xs" c="dimmed" display="block">{f.result.hint}</Text>}
                  </Text>
                )}
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Paper>
  );
}
