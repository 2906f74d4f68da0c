/**
 * Asset Manager /dealer/assets (spec 02 §2 Asset Manager; DECISIONS 5, 10-12): the upload panel
 * toggle, the configured sizes, assets grouped by type with thumbnail, details, active toggle and
 * delete (with confirmation), and 'Free up space'. Viewers see everything but change nothing.
 */
import { useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Group,
  Image,
  Modal,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Switch,
  Text,
  ThemeIcon,
  Title,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { CircleCheck, Eraser, Eye, ImageOff, Images, Info, Trash2, Upload, X } from 'lucide-react';
import type { Asset } from '../../../domain/schemas';
import { TEXT } from '../../../domain/constants';
import { useAuth } from '../../components/auth';
import { useDealer } from '../api';
import { DealerErrorNotice, NoDealerIdNotice } from '../DealerNotice';
import { useAssets, useDeleteAsset, useSetAssetActive } from './api';
import { ASSET_TYPES_DISPLAY, formatDate, formatKb } from './format';
import { FreeUpSpace } from './FreeUpSpace';
import { SizeList } from './SizeList';
import { UploadPanel } from './UploadPanel';

const UPLOAD_PANEL_ID = 'asset-upload-panel';

/** The dealer's banner assets: upload, browse by type, activate and delete. */
export function AssetManager() {
  const { user } = useAuth();
  const dealerId = user?.dealerId ?? null;
  const canEdit = user?.role !== 'viewer';
  const dealer = useDealer(dealerId);
  const assets = useAssets(dealerId);
  const [uploadOpen, setUploadOpen] = useState(false);
  const [freeing, setFreeing] = useState(false);
  const [victim, setVictim] = useState<Asset | null>(null);
  const [uploadedCount, setUploadedCount] = useState(0);

  if (!dealerId) return <NoDealerIdNotice />;
  if (dealer.error) return <DealerErrorNotice error={dealer.error} onRetry={() => void dealer.refetch()} />;

  const list = assets.data?.assets ?? [];
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
          <UploadPanel
            dealer={dealer.data}
            usage={assets.data.usage}
            onDone={(n) => {
              setUploadOpen(false);
              setUploadedCount(n);
            }}
          />
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
                are SRP headers; the others are inline banners. Inactive banners are never shown on your site.
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
        ASSET_TYPES_DISPLAY.map((g) => {
          const items = list.filter((a) => a.type === g.type);
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
                  No {g.label.toLowerCase()} banners uploaded.
                </Text>
              ) : (
                <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
                  {items.map((a) => (
                    <AssetCard key={a.id} asset={a} dealerId={dealerId} canEdit={canEdit} onDelete={() => setVictim(a)} />
                  ))}
                </SimpleGrid>
              )}
            </Stack>
          );
        })
      )}

      {!canEdit && (
        <Text size="xs" c="dimmed">
          Your account has view-only access. Ask a dealer manager to upload, activate or delete banners.
        </Text>
      )}

      {canEdit && <FreeUpSpace dealerId={dealerId} opened={freeing} onClose={() => setFreeing(false)} />}
      {canEdit && <DeleteAssetModal dealerId={dealerId} asset={victim} onClose={() => setVictim(null)} />}
    </Stack>
  );
}

/** One asset: thumbnail, name, model, dimensions, size, upload date, active toggle and delete. */
function AssetCard({ asset: a, dealerId, canEdit, onDelete }: { asset: Asset; dealerId: string; canEdit: boolean; onDelete: () => void }) {
  const toggle = useSetAssetActive(dealerId);
  return (
    <Card withBorder padding="sm" radius="md" data-testid="asset-card" style={a.isActive ? undefined : { opacity: 0.75 }}>
      <Card.Section bg="var(--mantine-color-gray-1)">
        <Center h={130} p="xs">
          <Image
            src={a.url}
            alt={a.name}
            mah={114}
            maw="100%"
            w="auto"
            fit="contain"
            onError={(e) => (e.currentTarget.style.visibility = 'hidden')}
          />
        </Center>
      </Card.Section>
      <Group justify="space-between" mt="sm" wrap="nowrap" gap="xs">
        <Text size="sm" fw={600} truncate title={a.name}>
          {a.name}
        </Text>
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
      <Group mt="sm" justify="space-between">
        {canEdit ? (
          <Switch
            size="xs"
            label={a.isActive ? 'Active' : 'Inactive'}
            aria-label={`Active: ${a.name}`}
            checked={a.isActive}
            disabled={toggle.isPending}
            onChange={(e) =>
              toggle.mutate(
                { assetId: a.id, isActive: e.currentTarget.checked },
                { onError: (err) => notifications.show({ color: 'red', title: 'Update failed', message: err.message }) },
              )
            }
          />
        ) : (
          <Badge size="sm" variant="light" color={a.isActive ? 'teal' : 'gray'}>
            {a.isActive ? 'Active' : 'Inactive'}
          </Badge>
        )}
      </Group>
    </Card>
  );
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
