/**
 * Asset Manager /dealer/assets (spec 02 §2 Asset Manager; DECISIONS 5, 10-12): the upload
 * panel toggle, the configured sizes, search by model or file name, filters by slot type and
 * status (Live / Scheduled / Expired / Inactive), assets grouped by type (AssetCard: details,
 * promotion window, active toggle, delete with confirmation), several selected at once to
 * deactivate or delete (with confirmation), and 'Free up space'. Viewers see everything but change nothing.
 */
import { lazy, Suspense, useMemo, useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  List,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { Modal, Select } from '../../components/deferred';
import { notifications } from '@mantine/notifications';
import { CircleCheck, CirclePause, Eraser, Eye, ImageOff, Images, Info, Search, Trash2, Upload, X } from 'lucide-react';
import type { Asset, AssetType } from '../../../domain/schemas';
import { TEXT } from '../../../domain/constants';
import { useAuth, useCanEdit } from '../../components/auth';
import { useDealer } from '../api';
import { DealerErrorNotice, NoDealerIdNotice } from '../DealerNotice';
import { useAssets, useBulkAssets, useDeleteAsset, type BulkAction } from './api';
import { AssetCard } from './AssetCard';
import { ASSET_STATUS_DISPLAY, ASSET_TYPES_DISPLAY, assetStatus, type AssetStatus } from './format';
import { FreeUpSpace } from './FreeUpSpace';
import { SizeList } from './SizeList';

/**
 * The upload panel with the dropzone (react-dropzone, file-selector: 19 KB gzipped) and its CSS is a
 * chunk of its own, fetched when Start Upload opens it: the asset list does not need it.
 */
const UploadPanel = lazy(async () => ({ default: (await import('./UploadPanel')).UploadPanel }));

const UPLOAD_PANEL_ID = 'asset-upload-panel';

/** The list's search and filters. */
interface Filters {
  /** Matched against model, trim and file name, case-insensitively. */
  q: string;
  slot: AssetType | 'all';
  status: AssetStatus | 'all';
}
const NO_FILTERS: Filters = { q: '', slot: 'all', status: 'all' };

/** The assets `f` lets through, in list order. */
function applyFilters(list: Asset[], f: Filters): Asset[] {
  const q = f.q.trim().toLowerCase();
  return list.filter(
    (a) =>
      (f.slot === 'all' || a.type === f.slot) &&
      (f.status === 'all' || assetStatus(a) === f.status) &&
      (!q || [a.model, a.trim, a.name].some((v) => v.toLowerCase().includes(q))),
  );
}

/** The dealer's banner assets: upload, browse by type, activate and delete. */
/**
 * What the Upsell Banners group (spec 02 §2) says while empty: an upload is stored as a header or an
 * inline banner by its shape, and the upsell slot shows the inline banner of the model one step up
 * (the dealer's upsell rules), so the group only fills with assets imported as type upsell.
 */
const UPSELL_GROUP_EMPTY = 'Upsell slots show your Inline banners of the model one step up (set on Upsell Rules): no separate upload is needed.';

export function AssetManager() {
  const { user } = useAuth();
  const dealerId = user?.dealerId ?? null;
  const canEdit = useCanEdit();
  const dealer = useDealer(dealerId);
  const assets = useAssets(dealerId);
  const [uploadOpen, setUploadOpen] = useState(false);
  const [freeing, setFreeing] = useState(false);
  const [victim, setVictim] = useState<Asset | null>(null);
  const [uploadedCount, setUploadedCount] = useState(0);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [bulk, setBulk] = useState<BulkAction | null>(null);

  const list = useMemo(() => assets.data?.assets ?? [], [assets.data]);
  const shown = useMemo(() => applyFilters(list, filters), [list, filters]);
  // Only assets still listed and shown stay selected (a deleted or filtered-out one drops out).
  const selected = shown.filter((a) => picked.has(a.id));

  if (!dealerId) return <NoDealerIdNotice />;
  if (dealer.error) return <DealerErrorNotice error={dealer.error} onRetry={() => void dealer.refetch()} />;

  const timeZone = dealer.data?.timeZone ?? 'UTC';
  const filtered = filters.q.trim() !== '' || filters.slot !== 'all' || filters.status !== 'all';
  const select = (ids: string[], on: boolean) =>
    setPicked((cur) => {
      const next = new Set(cur);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" gap="md">
        <Stack gap={4} maw={720}>
          <Group gap="sm">
            <Title order={2}>Asset Manager</Title>
            {!canEdit && (
              <Badge variant="light" color="gray" leftSection={<Eye size={12} />}>
                View only
              </Badge>
            )}
          </Group>
          <Text c="dimmed">
            Uploaded banners are used as fallbacks when CDN auto-discovery cannot find a banner for a vehicle, or as custom overrides for
            promotions. Name each file after its model and trim so it shows on the right search pages.
          </Text>
        </Stack>
        {canEdit && (
          <Group gap="sm">
            <Button leftSection={<Eraser size={16} />} variant="default" onClick={() => setFreeing(true)} disabled={list.length === 0}>
              Free up space
            </Button>
            <Button
              leftSection={uploadOpen ? <X size={16} /> : <Upload size={16} />}
              variant={uploadOpen ? 'default' : 'filled'}
              onClick={() => {
                setUploadOpen((o) => !o);
                setUploadedCount(0);
              }}
              aria-expanded={uploadOpen}
              aria-controls={UPLOAD_PANEL_ID}
              disabled={!dealer.data || !assets.data}
            >
              {uploadOpen ? 'Close Upload' : 'Start Upload'}
            </Button>
          </Group>
        )}
      </Group>

      {canEdit && uploadOpen && dealer.data && assets.data && (
        <div id={UPLOAD_PANEL_ID}>
          <Suspense fallback={<Skeleton h={220} radius="md" />}>
            <UploadPanel
              dealer={dealer.data}
              usage={assets.data.usage}
              onDone={(n) => {
                setUploadOpen(false);
                setUploadedCount(n);
              }}
            />
          </Suspense>
        </div>
      )}

      {!uploadOpen && uploadedCount > 0 && (
        <Alert color="teal" variant="light" icon={<CircleCheck size={18} />} withCloseButton closeButtonLabel="Dismiss" onClose={() => setUploadedCount(0)} role="status">
          {uploadedCount} {uploadedCount === 1 ? 'banner' : 'banners'} uploaded and validated.
        </Alert>
      )}

      {!uploadOpen &&
        (dealer.data ? (
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <SizeList sizes={dealer.data.assetStorage.bannerSizes} />
            <Paper withBorder p="md" radius="md" bg="var(--mantine-color-blue-0)">
              <Group gap={6} mb={6} wrap="nowrap">
                <Info size={16} aria-hidden />
                <Text size="sm" fw={600}>
                  How banners are chosen
                </Text>
              </Group>
              <Text size="sm" c="dimmed">
                A banner whose dimensions match the configured size of a slot is preferred. Wide images (more than twice as wide as high)
                are SRP headers; the others are inline banners. Inactive banners, and scheduled banners outside their dates, are never
                shown on your site.
              </Text>
            </Paper>
          </SimpleGrid>
        ) : (
          <Skeleton h={110} radius="md" />
        ))}

      {assets.error ? (
        <DealerErrorNotice error={assets.error} onRetry={() => void assets.refetch()} />
      ) : assets.isPending ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} aria-busy="true" aria-label="Loading assets">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} h={220} radius="md" />
          ))}
        </SimpleGrid>
      ) : list.length === 0 ? (
        <Paper withBorder p="xl" radius="md">
          <Stack align="center" gap="xs" ta="center">
            <ThemeIcon size={56} radius="xl" variant="light" color="gray">
              <Images size={28} />
            </ThemeIcon>
            <Title order={4}>{TEXT.noAssetsYet}</Title>
            <Text c="dimmed" size="sm" maw={420}>
              {canEdit ? 'Upload your first banner to use it as a fallback or a promotion override.' : 'Banners uploaded by your team will appear here.'}
            </Text>
            {canEdit && !uploadOpen && (
              <Button mt="xs" leftSection={<Upload size={16} />} onClick={() => setUploadOpen(true)} disabled={!dealer.data}>
                Start Upload
              </Button>
            )}
          </Stack>
        </Paper>
      ) : (
        <>
          <Paper withBorder p="sm" radius="md" component="section" aria-label="Search and filter banners">
            <Group gap="sm" align="flex-end" wrap="wrap">
              <TextInput
                label="Search"
                placeholder="Model or file name"
                leftSection={<Search size={14} aria-hidden />}
                value={filters.q}
                onChange={(e) => setFilters({ ...filters, q: e.currentTarget.value })}
                style={{ flex: '1 1 220px' }}
                type="search"
              />
              <Select
                label="Slot type"
                data={[{ value: 'all', label: 'All slot types' }, ...ASSET_TYPES_DISPLAY.map((t) => ({ value: t.type, label: t.label }))]}
                value={filters.slot}
                onChange={(v) => setFilters({ ...filters, slot: (v ?? 'all') as Filters['slot'] })}
                allowDeselect={false}
                w={170}
              />
              <Select
                label="Status"
                data={[{ value: 'all', label: 'All statuses' }, ...ASSET_STATUS_DISPLAY.map((s) => ({ value: s.status, label: s.label }))]}
                value={filters.status}
                onChange={(v) => setFilters({ ...filters, status: (v ?? 'all') as Filters['status'] })}
                allowDeselect={false}
                w={150}
              />
              {filtered && (
                <Button variant="subtle" onClick={() => setFilters(NO_FILTERS)}>
                  Clear filters
                </Button>
              )}
            </Group>
            <Group justify="space-between" mt="sm" gap="sm" wrap="wrap">
              {canEdit ? (
                <Checkbox
                  label={`Select all shown (${shown.length})`}
                  checked={shown.length > 0 && selected.length === shown.length}
                  indeterminate={selected.length > 0 && selected.length < shown.length}
                  disabled={shown.length === 0}
                  onChange={(e) => select(shown.map((a) => a.id), e.currentTarget.checked)}
                />
              ) : (
                <Text size="sm" c="dimmed">
                  {shown.length} of {list.length} banners
                </Text>
              )}
              {canEdit && (
                <Group gap="xs" role="group" aria-label="Actions for the selected banners">
                  <Text size="sm" c="dimmed" aria-live="polite">
                    {selected.length} selected
                  </Text>
                  <Button size="xs" variant="default" leftSection={<CirclePause size={14} />} disabled={selected.length === 0} onClick={() => setBulk('deactivate')}>
                    Deactivate
                  </Button>
                  <Button size="xs" color="red" variant="light" leftSection={<Trash2 size={14} />} disabled={selected.length === 0} onClick={() => setBulk('delete')}>
                    Delete
                  </Button>
                </Group>
              )}
            </Group>
          </Paper>

          {shown.length === 0 ? (
            <Paper withBorder p="lg" radius="md">
              <Stack align="center" gap="xs">
                <Text c="dimmed">No banners match your search or filters.</Text>
                <Button variant="default" onClick={() => setFilters(NO_FILTERS)}>
                  Clear filters
                </Button>
              </Stack>
            </Paper>
          ) : (
            ASSET_TYPES_DISPLAY.filter((g) => filters.slot === 'all' || g.type === filters.slot).map((g) => {
              const items = shown.filter((a) => a.type === g.type);
              if (filtered && items.length === 0) return null;
              return (
                <Stack key={g.type} gap="sm" component="section" aria-label={g.group}>
                  <Group gap="xs">
                    <Title order={3} size="h4">
                      {g.group}
                    </Title>
                    <Badge variant="light" color="gray" radius="sm">
                      {items.length}
                    </Badge>
                  </Group>
                  {items.length === 0 ? (
                    <Text c="dimmed" size="sm">
                      {g.type === 'upsell' ? UPSELL_GROUP_EMPTY : `No ${g.label.toLowerCase()} banners uploaded.`}
                    </Text>
                  ) : (
                    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
                      {items.map((a) => (
                        <AssetCard
                          key={a.id}
                          asset={a}
                          dealerId={dealerId}
                          timeZone={timeZone}
                          canEdit={canEdit}
                          selected={picked.has(a.id)}
                          onSelect={(on) => select([a.id], on)}
                          onDelete={() => setVictim(a)}
                        />
                      ))}
                    </SimpleGrid>
                  )}
                </Stack>
              );
            })
          )}
        </>
      )}

      {!canEdit && (
        <Text size="xs" c="dimmed">
          Your account has view-only access. Ask a dealer manager to upload, activate or delete banners.
        </Text>
      )}

      {canEdit && <FreeUpSpace dealerId={dealerId} opened={freeing} onClose={() => setFreeing(false)} />}
      {canEdit && <DeleteAssetModal dealerId={dealerId} asset={victim} onClose={() => setVictim(null)} />}
      {canEdit && (
        <BulkModal
          dealerId={dealerId}
          action={bulk}
          assets={selected}
          onClose={() => setBulk(null)}
          onDone={(ids) => {
            select(ids, false);
            setBulk(null);
          }}
        />
      )}
    </Stack>
  );
}

/** Confirmation before an asset is deleted for good. */
function DeleteAssetModal({ dealerId, asset, onClose }: { dealerId: string; asset: Asset | null; onClose: () => void }) {
  const remove = useDeleteAsset(dealerId);
  const confirm = () => {
    if (!asset) return;
    remove.mutate(asset.id, {
      onSuccess: () => {
        notifications.show({ color: 'teal', title: 'Asset deleted', message: asset.name });
        onClose();
      },
      onError: (e) => notifications.show({ color: 'red', title: 'Delete failed', message: e.message }),
    });
  };
  return (
    <Modal opened={asset !== null} onClose={onClose} title={<Text fw={700}>Delete asset?</Text>} centered>
      <Stack gap="sm">
        {asset && (
          <Group wrap="nowrap" align="flex-start">
            <ThemeIcon variant="light" color="red" size="lg" radius="xl">
              <ImageOff size={18} />
            </ThemeIcon>
            <Text size="sm">
              <b style={{ wordBreak: 'break-all' }}>{asset.name}</b> will be removed and stop showing on your site. This cannot be undone.
            </Text>
          </Group>
        )}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose} disabled={remove.isPending}>
            Cancel
          </Button>
          <Button color="red" leftSection={<Trash2 size={16} />} loading={remove.isPending} onClick={confirm} data-autofocus>
            Delete
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Confirmation before the selected assets are deactivated or deleted. */
function BulkModal({
  dealerId,
  action,
  assets,
  onClose,
  onDone,
}: {
  dealerId: string;
  action: BulkAction | null;
  assets: Asset[];
  onClose: () => void;
  onDone: (ids: string[]) => void;
}) {
  const run = useBulkAssets(dealerId);
  const n = assets.length;
  const what = `${n} ${n === 1 ? 'banner' : 'banners'}`;
  const deleting = action === 'delete';
  const confirm = () => {
    if (!action || n === 0) return;
    const ids = assets.map((a) => a.id);
    run.mutate(
      { action, assetIds: ids },
      {
        onSuccess: (r) => {
          notifications.show({ color: 'teal', title: deleting ? 'Banners deleted' : 'Banners deactivated', message: `${r.changed} ${r.changed === 1 ? 'banner' : 'banners'}` });
          onDone(ids);
        },
        onError: (e) => notifications.show({ color: 'red', title: deleting ? 'Delete failed' : 'Update failed', message: e.message }),
      },
    );
  };
  return (
    <Modal opened={action !== null && n > 0} onClose={onClose} title={<Text fw={700}>{deleting ? `Delete ${what}?` : `Deactivate ${what}?`}</Text>} centered>
      <Stack gap="sm">
        <Text size="sm">
          {deleting
            ? 'These banners will be removed and stop showing on your site. This cannot be undone.'
            : 'These banners will stop showing on your site until you make them active again.'}
        </Text>
        <List size="sm" spacing={2} style={{ wordBreak: 'break-all' }}>
          {assets.slice(0, 5).map((a) => (
            <List.Item key={a.id}>{a.name}</List.Item>
          ))}
          {n > 5 && <List.Item>and {n - 5} more</List.Item>}
        </List>
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose} disabled={run.isPending}>
            Cancel
          </Button>
          <Button
            color={deleting ? 'red' : undefined}
            leftSection={deleting ? <Trash2 size={16} /> : <CirclePause size={16} />}
            loading={run.isPending}
            onClick={confirm}
            data-autofocus
          >
            {deleting ? `Delete ${what}` : `Deactivate ${what}`}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
