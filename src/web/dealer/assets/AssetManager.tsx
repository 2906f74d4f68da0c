/** Asset Manager (spec 02 §2; DECISIONS 12): upload panel toggle, assets grouped by type, active toggle, delete with confirmation, 'Free up space'. */
import { useState } from 'react';
import { Badge, Button, Card, Group, Image, Modal, Paper, SimpleGrid, Skeleton, Stack, Switch, Text, Title, ActionIcon, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Eraser, Trash2, Upload, X } from 'lucide-react';
import type { Asset, AssetType } from '../../../domain/schemas';
import { TEXT } from '../../../domain/constants';
import { useAuth } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { useAssets, useDealer, useDeleteAsset, useSetAssetActive } from '../api';
import { FreeUpSpace } from './FreeUpSpace';
import { UploadPanel } from './UploadPanel';
import { SizeList } from './SizeList';

const GROUPS: Array<{ type: AssetType; title: string }> = [
  { type: 'header', title: 'SRP Header Banners' },
  { type: 'primary', title: 'Inline Banners' },
  { type: 'upsell', title: 'Upsell Banners' },
];

/** The dealer's banner assets. */
export function AssetManager() {
  const { user } = useAuth();
  const dealerId = user?.dealerId ?? null;
  const canEdit = user?.role !== 'viewer';
  const dealer = useDealer(dealerId);
  const assets = useAssets(dealerId);
  const remove = useDeleteAsset(dealerId ?? '');
  const toggle = useSetAssetActive(dealerId ?? '');
  const [freeing, setFreeing] = useState(false);
  const [uploading, setUploading] = useState(false);
  const [victim, setVictim] = useState<Asset | null>(null);

  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  if (dealer.error || assets.error) return <ErrorNotice message={(dealer.error ?? assets.error)!.message} />;

  const list = assets.data?.assets ?? [];
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={2}>Asset Manager</Title>
          <Text c="dimmed" maw={640}>
            Uploaded banners are the fallback when CDN auto-discovery finds nothing, or custom overrides for promotions.
          </Text>
        </div>
        {canEdit && (
          <Group>
            <Button leftSection={<Eraser size={16} />} variant="default" onClick={() => setFreeing(true)}>
              Free up space
            </Button>
            <Button leftSection={uploading ? <X size={16} /> : <Upload size={16} />} onClick={() => setUploading((u) => !u)} variant={uploading ? 'default' : 'filled'}>
              {uploading ? 'Close Upload' : 'Start Upload'}
            </Button>
          </Group>
        )}
      </Group>
      {dealer.data && assets.data && uploading && canEdit && (
        <UploadPanel dealer={dealer.data} usage={assets.data.usage} onDone={() => setUploading(false)} />
      )}
      {dealer.data && !uploading && <SizeList sizes={dealer.data.assetStorage.bannerSizes} />}
      {assets.isPending ? (
        <Skeleton h={200} />
      ) : list.length === 0 ? (
        <Paper withBorder p="xl" radius="md" ta="center">
          <Text fw={600}>{TEXT.noAssetsYet}</Text>
          <Text c="dimmed" size="sm">
            {canEdit ? 'Use Start Upload to add your first banner.' : 'Banners uploaded by your team will appear here.'}
          </Text>
        </Paper>
      ) : (
        GROUPS.map((g) => {
          const items = list.filter((a) => a.type === g.type);
          return (
            <section key={g.type}>
              <Title order={4} mb="sm">
                {g.title} <Badge variant="light">{items.length}</Badge>
              </Title>
              {items.length === 0 ? (
                <Text c="dimmed" size="sm">
                  None yet.
                </Text>
              ) : (
                <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
                  {items.map((a) => (
                    <Card key={a.id} withBorder padding="sm" radius="md">
                      <Card.Section bg="gray.1">
                        <Image src={a.url} alt={a.name} h={120} fit="contain" />
                      </Card.Section>
                      <Group justify="space-between" mt="xs" wrap="nowrap">
                        <Text size="sm" fw={600} truncate title={a.name}>
                          {a.name}
                        </Text>
                        {canEdit && (
                          <Tooltip label="Delete asset">
                            <ActionIcon variant="subtle" color="red" aria-label={`Delete ${a.name}`} onClick={() => setVictim(a)}>
                              <Trash2 size={16} />
                            </ActionIcon>
                          </Tooltip>
                        )}
                      </Group>
                      <Text size="xs" c="dimmed">
                        {a.model} {a.trim} · {a.dimensions.width}x{a.dimensions.height} · {Math.round(a.sizeBytes / 1024)} KB · {new Date(a.createdAt).toLocaleDateString()}
                      </Text>
                      {canEdit ? (
                        <Switch
                          mt="xs"
                          size="xs"
                          label={a.isActive ? 'Active' : 'Inactive'}
                          aria-label={`Active: ${a.name}`}
                          checked={a.isActive}
                          disabled={toggle.isPending && toggle.variables?.assetId === a.id}
                          onChange={(e) =>
                            toggle.mutate(
                              { assetId: a.id, isActive: e.currentTarget.checked },
                              { onError: (err) => notifications.show({ color: 'red', title: 'Update failed', message: err.message }) },
                            )
                          }
                        />
                      ) : (
                        !a.isActive && (
                          <Badge mt="xs" size="xs" color="gray">
                            Inactive
                          </Badge>
                        )
                      )}
                    </Card>
                  ))}
                </SimpleGrid>
              )}
            </section>
          );
        })
      )}
      {dealerId && canEdit && <FreeUpSpace dealerId={dealerId} opened={freeing} onClose={() => setFreeing(false)} />}
      <Modal opened={victim !== null} onClose={() => setVictim(null)} title="Delete asset?" centered>
        <Text size="sm">
          <b>{victim?.name}</b> will be removed and stop showing on your site. This cannot be undone.
        </Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setVictim(null)}>
            Cancel
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(victim!.id, {
                onSuccess: () => notifications.show({ color: 'teal', message: `${victim!.name} deleted` }),
                onError: (e) => notifications.show({ color: 'red', title: 'Delete failed', message: e.message }),
                onSettled: () => setVictim(null),
              })
            }
          >
            Delete
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
