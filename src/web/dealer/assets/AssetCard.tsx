/**
 * One Asset Manager card (spec 02 §2 Asset Manager): thumbnail, name, model, dimensions,
 * size, upload date, a status badge (Live / Scheduled / Expired, or Inactive), the promotion
 * window in the dealer's time zone with its Schedule dialog, the active toggle, delete, and a
 * selection checkbox for the bulk actions. Viewers see the same card read-only.
 */
import { useState } from 'react';
import { ActionIcon, Badge, Button, Card, Center, Checkbox, FileButton, Group, Image, SimpleGrid, Stack, Switch, Text } from '@mantine/core';
import { FileName } from '../../components/Truncated';
import { Modal, Tooltip } from '../../components/deferred';
import { notifications } from '@mantine/notifications';
import { CalendarClock, Replace, Trash2 } from 'lucide-react';
import type { Asset } from '../../../domain/schemas';
import { utcToZonedLocal } from '../../../domain/schedule';
import { fieldErrorsOf } from '../../api/field-errors';
import { useReplaceAssetFile, useUpdateAsset } from './api';
import { ASSET_STATUS_DISPLAY, assetStatus, formatDate, formatInZone, formatKb } from './format';
import { ScheduleFields, windowErrors, type WindowValue } from './ScheduleFields';

/** The card of one asset; `selected`/`onSelect` only for users who may change assets. */
export function AssetCard({
  asset: a,
  dealerId,
  timeZone,
  canEdit,
  selected,
  onSelect,
  onDelete,
}: {
  asset: Asset;
  dealerId: string;
  timeZone: string;
  canEdit: boolean;
  selected: boolean;
  onSelect: (selected: boolean) => void;
  onDelete: () => void;
}) {
  const toggle = useUpdateAsset(dealerId);
  const [scheduling, setScheduling] = useState(false);
  const [replacement, setReplacement] = useState<File | null>(null);
  const status = ASSET_STATUS_DISPLAY.find((s) => s.status === assetStatus(a))!;
  const dim = status.status !== 'live';
  return (
    <Card withBorder padding="sm" radius="md" data-testid="asset-card" data-status={status.status} style={selected ? { outline: '2px solid var(--mantine-color-blue-6)' } : undefined}>
      <Card.Section bg="var(--mantine-color-gray-1)" pos="relative">
        {canEdit && (
          <Checkbox
            pos="absolute"
            top={8}
            left={8}
            style={{ zIndex: 1 }}
            aria-label={`Select ${a.name}`}
            checked={selected}
            onChange={(e) => onSelect(e.currentTarget.checked)}
          />
        )}
        <Center h={130} p="xs" style={dim ? { opacity: 0.6 } : undefined}>
          <Image src={`${a.url}&size=thumb`} alt={a.name} mah={114} maw="100%" w="auto" fit="contain" onError={(e) => (e.currentTarget.style.visibility = 'hidden')} />
        </Center>
      </Card.Section>
      <Group justify="space-between" mt="sm" wrap="nowrap" gap="xs">
        <FileName size="sm" fw={600}>
          {a.name}
        </FileName>
        {canEdit && (
          <Tooltip label="Delete asset" withArrow>
            <ActionIcon variant="subtle" color="red" aria-label={`Delete ${a.name}`} onClick={onDelete}>
              <Trash2 size={16} />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
      <SimpleGrid cols={2} spacing={4} verticalSpacing={2} mt={4}>
        <Meta label="Model" value={[a.model, a.trim].filter(Boolean).join(' ')} />
        <Meta label="Dimensions" value={`${a.dimensions.width}x${a.dimensions.height}`} />
        <Meta label="Size" value={formatKb(a.sizeBytes)} />
        <Meta label="Uploaded" value={formatDate(a.createdAt)} />
      </SimpleGrid>
      {a.neverShows && (
        <Text size="xs" c="red.8" mt={4} fw={500} data-testid="asset-never-shows">
          {a.neverShows}
        </Text>
      )}
      {a.replacements.length > 0 && (
        <Text size="xs" c="dimmed" mt={4} data-testid="asset-replaced">
          File replaced {a.replacements.length === 1 ? 'once' : `${a.replacements.length} times`}, last {formatDate(a.replacements.at(-1)!.at)}: statistics kept
        </Text>
      )}
      <Group mt="xs" gap={6} wrap="nowrap" align="flex-start">
        <CalendarClock size={14} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
        <Text size="xs" c="dimmed" data-testid="asset-window">
          {windowText(a, timeZone)}
        </Text>
      </Group>
      <Group mt="sm" justify="space-between" gap="xs">
        <Badge size="sm" variant="light" color={status.color} data-testid="asset-status">
          {status.label}
        </Badge>
        {canEdit && (
          <Group gap="xs">
            <Button size="compact-xs" variant="default" leftSection={<CalendarClock size={12} />} onClick={() => setScheduling(true)} aria-label={`Schedule ${a.name}`}>
              Schedule
            </Button>
            <FileButton onChange={setReplacement} accept="image/jpeg,image/png,image/webp">
              {(props) => (
                <Button {...props} size="compact-xs" variant="default" leftSection={<Replace size={12} />} aria-label={`Replace the file of ${a.name}`}>
                  Replace
                </Button>
              )}
            </FileButton>
            <Switch
              size="xs"
              label={a.isActive ? 'Active' : 'Inactive'}
              aria-label={`Active: ${a.name}`}
              checked={a.isActive}
              disabled={toggle.isPending}
              onChange={(e) =>
                toggle.mutate(
                  { assetId: a.id, patch: { isActive: e.currentTarget.checked } },
                  { onError: (err) => notifications.show({ color: 'red', title: 'Update failed', message: err.message }) },
                )
              }
            />
          </Group>
        )}
      </Group>
      {canEdit && scheduling && <ScheduleModal asset={a} dealerId={dealerId} timeZone={timeZone} onClose={() => setScheduling(false)} />}
      {canEdit && replacement && <ReplaceModal asset={a} dealerId={dealerId} file={replacement} onClose={() => setReplacement(null)} />}
    </Card>
  );
}

/** The window in words, in the dealer's zone, which it names: 'From … (America/New_York)', 'Until …', '… – …', or no schedule. */
function windowText(a: Asset, timeZone: string): string {
  const from = a.startsAt ? formatInZone(a.startsAt, timeZone) : null;
  const to = a.endsAt ? formatInZone(a.endsAt, timeZone) : null;
  if (!from && !to) return 'No schedule: shown whenever active';
  const span = from && to ? `${from} – ${to}` : from ? `From ${from}` : `Until ${to}`;
  return `${span} (${timeZone})`;
}

function Meta({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" lh={1.3}>
        {label}
      </Text>
      <Text size="xs" fw={500} lh={1.3} truncate title={value}>
        {value || '—'}
      </Text>
    </div>
  );
}

/** The Schedule dialog: start and end in the dealer's zone; Save, or Clear schedule. */
function ScheduleModal({ asset, dealerId, timeZone, onClose }: { asset: Asset; dealerId: string; timeZone: string; onClose: () => void }) {
  const update = useUpdateAsset(dealerId);
  const [value, setValue] = useState<WindowValue>({
    startsAt: asset.startsAt ? utcToZonedLocal(asset.startsAt, timeZone) : '',
    endsAt: asset.endsAt ? utcToZonedLocal(asset.endsAt, timeZone) : '',
  });
  const [errors, setErrors] = useState<Partial<Record<keyof WindowValue, string>>>({});
  const save = (v: WindowValue) => {
    const own = windowErrors(v);
    setErrors(own);
    if (Object.keys(own).length) return;
    update.mutate(
      { assetId: asset.id, patch: { startsAt: v.startsAt || null, endsAt: v.endsAt || null } },
      {
        onSuccess: () => {
          notifications.show({ color: 'teal', title: v.startsAt || v.endsAt ? 'Schedule saved' : 'Schedule cleared', message: asset.name });
          onClose();
        },
        onError: (e) => {
          const fields = fieldErrorsOf(e);
          if (fields.startsAt || fields.endsAt) setErrors({ startsAt: fields.startsAt, endsAt: fields.endsAt });
          else notifications.show({ color: 'red', title: 'Schedule not saved', message: e.message });
        },
      },
    );
  };
  return (
    <Modal opened onClose={onClose} title={<Text fw={700}>Schedule banner</Text>} centered>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          save(value);
        }}
      >
        <Stack gap="sm">
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            {asset.name}
          </Text>
          <ScheduleFields value={value} onChange={setValue} timeZone={timeZone} errors={errors} disabled={update.isPending} />
          <Group justify="space-between" mt="sm">
            <Button variant="subtle" color="gray" onClick={() => save({ startsAt: '', endsAt: '' })} disabled={update.isPending || (!asset.startsAt && !asset.endsAt)}>
              Clear schedule
            </Button>
            <Group gap="sm">
              <Button variant="default" onClick={onClose} disabled={update.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={update.isPending}>
                Save
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Confirms replacing an asset's file: what stays (id, statistics, name, schedule) and that shoppers see the new file at once. */
function ReplaceModal({ asset, dealerId, file, onClose }: { asset: Asset; dealerId: string; file: File; onClose: () => void }) {
  const replace = useReplaceAssetFile(dealerId);
  const submit = () =>
    replace.mutate(
      { assetId: asset.id, file },
      {
        onSuccess: () => {
          notifications.show({ color: 'teal', title: 'File replaced', message: `${asset.name} now shows ${file.name}.` });
          onClose();
        },
      },
    );
  return (
    <Modal opened onClose={onClose} title={`Replace the file of ${asset.name}?`} centered>
      <Stack gap="sm">
        <Text size="sm">
          Shoppers see <b>{file.name}</b> at once wherever this banner shows. Its statistics, name, schedule and Active setting stay; the new image must be{' '}
          {asset.dimensions.width}x{asset.dimensions.height} like this one.
        </Text>
        {replace.error && (
          <Text size="sm" c="red" role="alert">
            {replace.error.message}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={submit} loading={replace.isPending}>
            Replace file
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
