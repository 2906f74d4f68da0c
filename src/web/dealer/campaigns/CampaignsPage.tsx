/**
 * Campaigns (/dealer/campaigns; domain/campaigns.ts): a dealer's named promotions, each with a
 * window in the dealer's time zone, the models and slots it covers, its mode (takeover: its
 * creatives replace the regular ones; rotate: they join the rotation) and its status. Dealer
 * managers create and edit them, upload creatives into them or choose existing assets as their
 * creatives (CreativePicker; drafts until published and inside the window), publish, pause, resume, end now and delete (ending and deleting ask first);
 * viewers read. Every state comes from the server (its badge is the server's `state`).
 */
import { useState } from 'react';
import { Badge, Button, Checkbox, FileButton, Group, List, Paper, SegmentedControl, SimpleGrid, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { CalendarPlus, Images, Pause, Pencil, Play, Send, Square, Trash2, Upload } from 'lucide-react';
import { Modal } from '../../components/deferred';
import { useAuth, useCanEdit } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { ViewOnlyNotice } from '../../components/ViewOnlyNotice';
import { TEXT } from '../../../domain/constants';
import { SLOT_TEXTS, SLOT_TYPES } from '../../../domain/slots';
import type { SlotType } from '../../../domain/schemas';
import { utcToZonedLocal } from '../../../domain/schedule';
import { useModelNames } from '../api';
import { useConfigs } from '../config/api';
import { standardModels } from '../config/draft';
import { uploadAssetFile } from '../assets/api';
import { formatInZone } from '../assets/format';
import { ScheduleFields, windowErrors, type WindowValue } from '../assets/ScheduleFields';
import { CreativePicker } from './CreativePicker';
import { useCampaignAction, useCampaigns, useDeleteCampaign, useRefreshCampaigns, useSaveCampaign, type Campaign, type CampaignAction } from './api';

const STATE_BADGES: Record<Campaign['state'], { label: string; color: string }> = {
  draft: { label: 'Draft', color: 'gray' },
  scheduled: { label: 'Scheduled', color: 'blue' },
  live: { label: 'Live', color: 'teal' },
  paused: { label: 'Paused', color: 'yellow' },
  ended: { label: 'Ended', color: 'dark' },
};
const MODE_TEXT: Record<Campaign['mode'], string> = { takeover: 'Takeover: replaces the regular banners', rotate: 'Rotate: joins the regular banners' };

/** The Campaigns screen. */
export function CampaignsPage() {
  const { user } = useAuth();
  const canEdit = useCanEdit();
  const dealerId = user?.dealerId ?? null;
  const list = useCampaigns(dealerId);
  const [editing, setEditing] = useState<Campaign | 'new' | null>(null);
  const [confirming, setConfirming] = useState<{ campaign: Campaign; what: 'end' | 'delete' } | null>(null);
  const [picking, setPicking] = useState<Campaign | null>(null);

  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Campaigns</Title>
          <Text c="dimmed">Name a promotion, schedule it, choose its models and slots, and switch it on or off as a whole.</Text>
        </div>
        {canEdit && (
          <Button leftSection={<CalendarPlus size={16} />} onClick={() => setEditing('new')}>
            New campaign
          </Button>
        )}
      </Group>
      {!canEdit && <ViewOnlyNotice action="create or change campaigns" />}
      {list.error ? (
        <ErrorNotice message={list.error.message} onRetry={() => void list.refetch()} />
      ) : !list.data ? (
        <Stack gap="sm" aria-busy="true" aria-label="Loading campaigns">
          <Skeleton h={110} />
          <Skeleton h={110} />
        </Stack>
      ) : list.data.campaigns.length === 0 ? (
        <Paper withBorder p="xl" radius="md" ta="center">
          <Text fw={600}>No campaigns yet</Text>
          <Text c="dimmed" size="sm">
            {canEdit ? 'Create one for your next promotion: its banners go live only once it is published and its start date comes.' : 'A dealer manager can create one for the next promotion.'}
          </Text>
        </Paper>
      ) : (
        <Stack gap="sm">
          {list.data.campaigns.map((c) => (
            <CampaignCard key={c.id} campaign={c} dealerId={dealerId} timeZone={list.data.timeZone} canEdit={canEdit} onEdit={() => setEditing(c)} onPick={() => setPicking(c)} onConfirm={(what) => setConfirming({ campaign: c, what })} />
          ))}
        </Stack>
      )}
      {canEdit && editing !== null && list.data && <CampaignForm dealerId={dealerId} campaign={editing === 'new' ? null : editing} timeZone={list.data.timeZone} onClose={() => setEditing(null)} />}
      {canEdit && picking && list.data && <CreativePicker dealerId={dealerId} campaign={list.data.campaigns.find((c) => c.id === picking.id) ?? picking} campaigns={list.data.campaigns} onClose={() => setPicking(null)} />}
      {canEdit && <ConfirmModal dealerId={dealerId} target={confirming} onClose={() => setConfirming(null)} />}
    </Stack>
  );
}

function windowText(c: Campaign, timeZone: string): string {
  const from = formatInZone(c.startsAt, timeZone);
  return c.endsAt ? `${from} – ${formatInZone(c.endsAt, timeZone)} (${timeZone})` : `From ${from}, no end (${timeZone})`;
}

function CampaignCard({
  campaign: c,
  dealerId,
  timeZone,
  canEdit,
  onEdit,
  onPick,
  onConfirm,
}: {
  campaign: Campaign;
  dealerId: string;
  timeZone: string;
  canEdit: boolean;
  onEdit: () => void;
  onPick: () => void;
  onConfirm: (what: 'end' | 'delete') => void;
}) {
  const modelName = useModelNames(dealerId);
  const action = useCampaignAction(dealerId);
  const refresh = useRefreshCampaigns(dealerId);
  const [uploading, setUploading] = useState(false);
  const badge = STATE_BADGES[c.state];
  const run = (a: CampaignAction, done: string) =>
    action.mutate({ id: c.id, action: a }, { onSuccess: () => notifications.show({ color: 'teal', title: done, message: c.name }), onError: (e) => notifications.show({ color: 'red', title: 'Not changed', message: e.message }) });
  const upload = async (files: File[]) => {
    if (files.length === 0) return;
    setUploading(true);
    try {
      for (const f of files) {
        const r = await uploadAssetFile(dealerId, f, () => undefined, undefined, undefined, c.id);
        if (r.ok) notifications.show({ color: r.warnings.length ? 'yellow' : 'teal', title: `Added to ${c.name}`, message: r.warnings.join(' ') || r.filename });
        else notifications.show({ color: 'red', title: 'Upload refused', message: `${r.filename}: ${r.error}` });
      }
    } catch (e) {
      notifications.show({ color: 'red', title: 'Upload failed', message: (e as Error).message });
    } finally {
      setUploading(false);
      void refresh();
    }
  };
  const ended = c.status === 'ended';
  // Published but past its end date: nothing it could pause or end, and nothing new would show;
  // its dates can still be edited to run it again.
  const windowPassed = !ended && c.state === 'ended';
  return (
    <Paper withBorder p="md" radius="md" data-testid={`campaign-${c.name}`} component="article" aria-label={c.name}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="wrap">
            <Title order={4}>{c.name}</Title>
            <Badge color={badge.color} variant="light" data-testid="campaign-state">
              {badge.label}
            </Badge>
            <Badge color="grape" variant="outline" style={{ textTransform: 'none' }}>
              {c.mode === 'takeover' ? 'Takeover' : 'Rotate'}
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            {c.assetCount} {c.assetCount === 1 ? 'creative' : 'creatives'}
          </Text>
        </Group>
        <Text size="sm">{windowText(c, timeZone)}</Text>
        <Text size="sm" c="dimmed">
          {MODE_TEXT[c.mode]} · Models: {c.models.length ? c.models.map(modelName).join(', ') : 'all'} · Slots: {c.slots.length ? c.slots.map((s) => SLOT_TEXTS[s].short).join(', ') : 'all'}
        </Text>
        {canEdit && (
          <Group gap="xs" mt={4} wrap="wrap">
            {c.status === 'draft' && (
              <Button size="xs" leftSection={<Send size={14} />} loading={action.isPending} onClick={() => run('publish', 'Campaign published')}>
                Publish
              </Button>
            )}
            {c.status === 'published' && !windowPassed && (
              <Button size="xs" variant="light" color="yellow" leftSection={<Pause size={14} />} loading={action.isPending} onClick={() => run('pause', 'Campaign paused')}>
                Pause
              </Button>
            )}
            {c.status === 'paused' && (
              <Button size="xs" variant="light" leftSection={<Play size={14} />} loading={action.isPending} onClick={() => run('resume', 'Campaign resumed')}>
                Resume
              </Button>
            )}
            {!ended && !windowPassed && (
              <>
                <FileButton onChange={(f) => void upload(f)} accept="image/jpeg,image/png,image/webp,image/gif" multiple>
                  {(props) => (
                    <Button {...props} size="xs" variant="default" leftSection={<Upload size={14} />} loading={uploading}>
                      Upload creatives
                    </Button>
                  )}
                </FileButton>
                <Button size="xs" variant="default" leftSection={<Images size={14} />} onClick={onPick}>
                  Choose creatives
                </Button>
              </>
            )}
            {!ended && (
              <Button size="xs" variant="default" leftSection={<Pencil size={14} />} onClick={onEdit}>
                {windowPassed ? 'Edit dates' : 'Edit'}
              </Button>
            )}
            {!ended && !windowPassed && (
              <Button size="xs" variant="light" color="red" leftSection={<Square size={14} />} onClick={() => onConfirm('end')}>
                End now
              </Button>
            )}
            <Button size="xs" variant="subtle" color="red" leftSection={<Trash2 size={14} />} onClick={() => onConfirm('delete')}>
              Delete
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

/** The create/edit form: name, window, mode, models, slots. A new campaign is saved as a draft. */
function CampaignForm({ dealerId, campaign, timeZone, onClose }: { dealerId: string; campaign: Campaign | null; timeZone: string; onClose: () => void }) {
  const configs = useConfigs(dealerId);
  const modelName = useModelNames(dealerId);
  const save = useSaveCampaign(dealerId);
  const [name, setName] = useState(campaign?.name ?? '');
  const [mode, setMode] = useState<Campaign['mode']>(campaign?.mode ?? 'takeover');
  const [window, setWindow] = useState<WindowValue>({
    startsAt: campaign ? utcToZonedLocal(campaign.startsAt, timeZone) : '',
    endsAt: campaign?.endsAt ? utcToZonedLocal(campaign.endsAt, timeZone) : '',
  });
  const [models, setModels] = useState<string[]>(campaign?.models ?? []);
  const [slots, setSlots] = useState<string[]>(campaign?.slots ?? []);
  const [tried, setTried] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const available = configs.data ? standardModels(configs.data.modelMap) : [];
  const errors = { ...windowErrors(window), ...(window.startsAt ? {} : { startsAt: 'Choose when it starts' }) };
  const nameError = name.trim() ? undefined : 'Name the campaign';
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (nameError || Object.keys(errors).length > 0) return;
    const body = { name: name.trim(), mode, startsAt: window.startsAt, endsAt: window.endsAt || null, models, slots: slots as SlotType[] };
    save.mutate(
      { id: campaign?.id, body },
      {
        onSuccess: (r) => {
          notifications.show({ color: 'teal', title: campaign ? 'Campaign saved' : 'Campaign created as a draft', message: r.campaign.name });
          onClose();
        },
        onError: (err) => setServerError(err.message),
      },
    );
  };
  return (
    <Modal opened onClose={onClose} title={<Text fw={700}>{campaign ? 'Edit campaign' : 'New campaign'}</Text>} centered size="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={tried && nameError} placeholder="e.g. Black Friday" data-autofocus maxLength={120} />
          <ScheduleFields value={window} onChange={setWindow} timeZone={timeZone} errors={tried ? errors : {}} sideBySide />
          <div>
            <Text size="sm" fw={500} mb={4} id="campaign-mode-label">
              Mode
            </Text>
            <SegmentedControl
              aria-labelledby="campaign-mode-label"
              value={mode}
              onChange={(v) => setMode(v as Campaign['mode'])}
              data={[
                { value: 'takeover', label: 'Takeover' },
                { value: 'rotate', label: 'Rotate' },
              ]}
            />
            <Text size="xs" c="dimmed" mt={4}>
              {MODE_TEXT[mode]} of its slots and models during its window.
            </Text>
          </div>
          <Checkbox.Group label="Slots" description="None ticked: every slot" value={slots} onChange={setSlots}>
            <Group mt={6} gap="md">
              {SLOT_TYPES.map((s) => (
                <Checkbox key={s} value={s} label={SLOT_TEXTS[s].short} />
              ))}
            </Group>
          </Checkbox.Group>
          <Checkbox.Group label="Models" description="None ticked: every model" value={models} onChange={setModels}>
            {configs.error ? (
              <ErrorNotice message={configs.error.message} onRetry={() => void configs.refetch()} />
            ) : !configs.data ? (
              <Skeleton h={60} mt={6} />
            ) : (
              <SimpleGrid cols={{ base: 2, sm: 3 }} mt={6} spacing={6}>
                {available.map((m) => (
                  <Checkbox key={m} value={m} label={modelName(m)} />
                ))}
              </SimpleGrid>
            )}
          </Checkbox.Group>
          {serverError && <ErrorNotice message={serverError} />}
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={onClose} disabled={save.isPending}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {campaign ? 'Save' : 'Create draft'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * What deleting `c` does to its creatives, in the delete dialog's words: the ones uploaded into it
 * are deleted with it; the ones chosen from the dealer's assets stay there, on their own schedule
 * (they show again when their own window allows).
 */
export function deleteConsequences(c: Pick<Campaign, 'assetCount' | 'uploadedCount'>): string[] {
  const borrowed = c.assetCount - c.uploadedCount;
  if (c.assetCount === 0) return ['It has no creatives: nothing else is deleted.'];
  return [
    ...(c.uploadedCount > 0 ? [`${plural(c.uploadedCount, 'creative uploaded into it is', 'creatives uploaded into it are')} deleted.`] : []),
    ...(borrowed > 0 ? [`${plural(borrowed, 'creative chosen from your assets stays', 'creatives chosen from your assets stay')} in your assets and ${borrowed === 1 ? 'goes' : 'go'} back to ${borrowed === 1 ? 'its' : 'their'} own schedule.`] : []),
  ];
}

/** Asks before ending a campaign now or deleting it (saying what happens to its creatives). */
function ConfirmModal({ dealerId, target, onClose }: { dealerId: string; target: { campaign: Campaign; what: 'end' | 'delete' } | null; onClose: () => void }) {
  const action = useCampaignAction(dealerId);
  const remove = useDeleteCampaign(dealerId);
  const pending = action.isPending || remove.isPending;
  const deleting = target?.what === 'delete';
  const confirm = () => {
    if (!target) return;
    const done = { onSuccess: () => (notifications.show({ color: 'teal', title: deleting ? 'Campaign deleted' : 'Campaign ended', message: target.campaign.name }), onClose()), onError: (e: Error) => notifications.show({ color: 'red', title: 'Not changed', message: e.message }) };
    if (deleting) remove.mutate(target.campaign.id, done);
    else action.mutate({ id: target.campaign.id, action: 'end' }, done);
  };
  return (
    <Modal opened={target !== null} onClose={onClose} title={<Text fw={700}>{deleting ? 'Delete campaign?' : 'End campaign now?'}</Text>} centered>
      <Stack gap="sm">
        {target && (
          <Text size="sm">
            {deleting ? (
              <>
                <b>{target.campaign.name}</b> will be removed and stop showing on your site. This cannot be undone.
              </>
            ) : (
              <>
                <b>{target.campaign.name}</b> stops showing now and cannot be published again.
              </>
            )}
          </Text>
        )}
        {target && deleting && (
          <List size="sm" spacing={4} data-testid="delete-consequences">
            {deleteConsequences(target.campaign).map((line) => (
              <List.Item key={line}>{line}</List.Item>
            ))}
          </List>
        )}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button color="red" loading={pending} onClick={confirm} data-autofocus>
            {deleting ? 'Delete' : 'End now'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
