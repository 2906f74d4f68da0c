/**
 * "Choose creatives" of a campaign card: the dealer's existing assets that fit the campaign
 * (domain/campaigns.ts campaignMisfit: its slots and models), each with its thumbnail and file
 * name, ticked when it is one of the campaign's creatives. Saving sends the difference as one
 * request (POST /campaigns/:id/assets, attach and detach lists): the server checks ownership, role
 * and fit again and writes all or nothing. Assets of another campaign are listed but cannot be
 * ticked (they are detached there first); assets that do not fit are counted, not listed.
 */
import { useMemo, useState } from 'react';
import { Badge, Box, Button, Center, Checkbox, Group, Image, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Modal } from '../../components/deferred';
import { FileName } from '../../components/Truncated';
import { ErrorNotice } from '../../components/feedback';
import { campaignMisfit } from '../../../domain/campaigns';
import { SLOT_TEXTS } from '../../../domain/slots';
import type { Asset } from '../../../domain/schemas';
import { useModelNames } from '../api';
import { useAssets } from '../assets/api';
import { useCampaignAssets, type Campaign } from './api';

/** The picker dialog of `campaign`; `campaigns` names the other campaigns an asset may belong to. */
export function CreativePicker({ dealerId, campaign, campaigns, onClose }: { dealerId: string; campaign: Campaign; campaigns: readonly Campaign[]; onClose: () => void }) {
  const list = useAssets(dealerId);
  const save = useCampaignAssets(dealerId);
  const modelName = useModelNames(dealerId);
  const [serverError, setServerError] = useState<string | null>(null);
  const all = useMemo(() => list.data?.assets ?? [], [list.data]);
  const current = useMemo(() => new Set(all.filter((a) => a.campaignId === campaign.id).map((a) => a.id)), [all, campaign.id]);
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const chosen = picked ?? current;
  // The campaign's own creatives first (whatever their fit: a narrowed campaign can still drop them), then the free ones that fit, then those of other campaigns.
  const rows = useMemo(() => {
    const order = (a: Asset) => (a.campaignId === campaign.id ? 0 : a.campaignId ? 2 : 1);
    return all.filter((a) => a.campaignId === campaign.id || campaignMisfit(campaign, a) === null).sort((a, b) => order(a) - order(b));
  }, [all, campaign]);
  const hidden = all.length - rows.length;
  const attach = [...chosen].filter((id) => !current.has(id));
  const detach = [...current].filter((id) => !chosen.has(id));
  const campaignName = (id: string) => campaigns.find((c) => c.id === id)?.name ?? 'another campaign';

  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setPicked(next);
  };
  const submit = () => {
    setServerError(null);
    save.mutate(
      { id: campaign.id, body: { attach, detach } },
      {
        onSuccess: (r) => {
          notifications.show({ color: 'teal', title: 'Creatives saved', message: `${r.campaign.name}: ${r.campaign.assetCount} ${r.campaign.assetCount === 1 ? 'creative' : 'creatives'}` });
          onClose();
        },
        onError: (e) => setServerError(e.message),
      },
    );
  };

  return (
    <Modal opened onClose={onClose} title={<Text fw={700}>Creatives of {campaign.name}</Text>} centered size="lg">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          Tick your uploaded assets to make them this campaign&apos;s creatives: they then show only while the campaign is live, in its slots and for its models. An unticked creative goes back to
          its own schedule.
        </Text>
        {list.error ? (
          <ErrorNotice message={list.error.message} onRetry={() => void list.refetch()} />
        ) : !list.data ? (
          <Stack gap="xs" aria-busy="true" aria-label="Loading assets">
            <Skeleton h={64} />
            <Skeleton h={64} />
          </Stack>
        ) : rows.length === 0 ? (
          <Paper withBorder p="md" radius="md" ta="center">
            <Text fw={600}>No asset fits this campaign</Text>
            <Text size="sm" c="dimmed">
              Upload creatives into it from its card, or widen its slots or models.
            </Text>
          </Paper>
        ) : (
          // A plain scroll box: Mantine's ScrollArea lays its content out as a table, which a long file name would widen instead of being cut.
          <Box mah="55vh" style={{ overflowY: 'auto' }} pr={4}>
            <Stack gap={6} role="list" aria-label="Assets that fit this campaign">
              {rows.map((a) => {
                const elsewhere = a.campaignId !== null && a.campaignId !== campaign.id;
                return (
                  <Paper key={a.id} withBorder p={6} radius="sm" role="listitem" data-testid="picker-asset">
                    <Group gap="sm" wrap="nowrap">
                      <Checkbox
                        aria-label={a.name}
                        checked={chosen.has(a.id)}
                        disabled={elsewhere}
                        onChange={(e) => toggle(a.id, e.currentTarget.checked)}
                      />
                      <Center w={{ base: 64, sm: 96 }} h={48} bg="var(--mantine-color-gray-1)" style={{ flex: 'none', borderRadius: 4 }}>
                        <Image src={`${a.url}&size=thumb`} alt="" mah={44} maw="100%" w="auto" fit="contain" onError={(e) => (e.currentTarget.style.visibility = 'hidden')} />
                      </Center>
                      <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
                        <FileName size="sm" fw={600}>
                          {a.name}
                        </FileName>
                        <Group gap={6} wrap="wrap">
                          <Badge size="xs" variant="light" color={SLOT_TEXTS[a.type].color} style={{ textTransform: 'none' }}>
                            {SLOT_TEXTS[a.type].short}
                          </Badge>
                          <Text size="xs" c="dimmed">
                            {[modelName(a.model), a.trim].filter(Boolean).join(' ')} · {a.dimensions.width}x{a.dimensions.height}
                          </Text>
                          {elsewhere && (
                            <Text size="xs" c="orange">
                              In {campaignName(a.campaignId!)}
                            </Text>
                          )}
                        </Group>
                      </Stack>
                    </Group>
                  </Paper>
                );
              })}
            </Stack>
          </Box>
        )}
        {hidden > 0 && (
          <Text size="xs" c="dimmed" data-testid="picker-hidden">
            {hidden} {hidden === 1 ? 'asset does' : 'assets do'} not fit this campaign&apos;s slots or models and {hidden === 1 ? 'is' : 'are'} not listed.
          </Text>
        )}
        {serverError && <ErrorNotice message={serverError} />}
        <Group justify="space-between" mt="xs" wrap="wrap">
          <Text size="sm" c="dimmed" data-testid="picker-summary">
            {attach.length || detach.length ? [attach.length && `${attach.length} to add`, detach.length && `${detach.length} to remove`].filter(Boolean).join(', ') : 'No changes'}
          </Text>
          <Group gap="xs">
            <Button variant="default" onClick={onClose} disabled={save.isPending}>
              Cancel
            </Button>
            <Button onClick={submit} loading={save.isPending} disabled={attach.length + detach.length === 0}>
              Save creatives
            </Button>
          </Group>
        </Group>
      </Stack>
    </Modal>
  );
}
