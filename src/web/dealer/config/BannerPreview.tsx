/**
 * Banner Preview (/dealer/preview; spec 02 §2 Banner Preview, §4 "Preview asset choice";
 * DECISIONS 14): model, optional trim and device; each slot's status and image come from the
 * server's own delivery choice (never re-implemented here); the upsell slot says which candidates
 * were weighed and which won. A failed image load swaps once to a local placeholder.
 * Models are shown by their catalogue display names. Above it, the coverage matrix of
 * every model, slot and device (CoverageMatrix.tsx). "As of" shows both at another date and time
 * in the dealer's time zone (a scheduled campaign before it starts, an ended one after it ends).
 */
import { useState } from 'react';
import { Badge, Button, Group, Image, Paper, SegmentedControl, SimpleGrid, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { Select } from '../../components/deferred';
import type { SlotType, Variant } from '../../../domain/schemas';
import { TEXT } from '../../../domain/constants';
import { upsellChoiceText } from '../../../domain/configs';
import { useAuth, useCanEdit } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { useDealer, useModelNames } from '../api';
import { useConfigs, usePreview, type PreviewSlot } from './api';
import { standardModels } from './draft';
import { CoverageMatrix } from './CoverageMatrix';
import { modelKey } from '../../../domain/model-keys';
import { showsUpsell } from '../../../domain/slots';

const SLOT_TITLES: Record<SlotType, string> = { header: 'SRP Header Banner', primary: 'Inline Banner', upsell: 'Upsell Banner' };

/** An inline SVG placeholder (manufacturer, model, slot, size) for an image that failed to load. */
function placeholderDataUri(manufacturer: string, s: PreviewSlot): string {
  const esc = (v: string) => v.replace(/[<>&"]/g, '');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${s.width}" height="${s.height}" viewBox="0 0 ${s.width} ${s.height}"><rect width="100%" height="100%" fill="#e9ecef"/><text x="50%" y="50%" text-anchor="middle" dominant-baseline="middle" font-family="Arial" font-size="${Math.max(12, Math.round(Math.min(s.width, s.height) / 10))}" fill="#495057">${esc(manufacturer)} ${esc(s.model)} · ${s.slot} · ${s.width}x${s.height}</text></svg>`;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

function SlotImage({ slot, manufacturer, background }: { slot: PreviewSlot; manufacturer: string; background: string }) {
  const [failedFor, setFailedFor] = useState<string | null>(null);
  const failed = failedFor === slot.imageUrl;
  return (
    <img
      src={failed ? placeholderDataUri(manufacturer, slot) : slot.imageUrl}
      alt={`${SLOT_TITLES[slot.slot]} for ${slot.model}`}
      data-testid={`preview-${slot.slot}`}
      width={slot.width}
      height={slot.height}
      // The slot's box at its configured shape; the creative shown whole inside it, never stretched (as on the dealer site).
      style={{ display: 'block', width: slot.width, maxWidth: '100%', height: 'auto', aspectRatio: `${slot.width} / ${slot.height}`, objectFit: 'contain', background }}
      onError={() => {
        if (!failed) setFailedFor(slot.imageUrl);
      }}
    />
  );
}

/** The Banner Preview screen. */
export function BannerPreview() {
  const { user } = useAuth();
  const canEdit = useCanEdit();
  const dealerId = user?.dealerId ?? null;
  const configs = useConfigs(dealerId);
  const modelName = useModelNames(dealerId);
  const [chosen, setChosen] = useState<string | null>(null);
  const [trim, setTrim] = useState('');
  const [variant, setVariant] = useState<Variant>('desktop');
  const models = configs.data ? standardModels(configs.data.modelMap) : [];
  const model = chosen && models.includes(chosen) ? chosen : (models[0] ?? '');
  const [asOf, setAsOf] = useState('');
  const dealer = useDealer(dealerId);
  const timeZone = dealer.data?.timeZone ?? 'UTC';
  const preview = usePreview(dealerId, { model, trim, variant, asOf });

  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  if (configs.error) return <ErrorNotice message={configs.error.message} onRetry={() => void configs.refetch()} />;
  if (!configs.data) return <Text c="dimmed">Loading...</Text>;
  const manufacturer = configs.data.manufacturer.name;

  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>Banner Preview</Title>
        <Text c="dimmed">Each slot as your visitors see it, chosen exactly as the banner script chooses it.</Text>
      </div>
      <Paper withBorder p="md" radius="md">
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            type="datetime-local"
            label="As of"
            description={`What shows at this date and time (${timeZone}); empty: now`}
            value={asOf}
            onChange={(e) => setAsOf(e.currentTarget.value)}
            w={300}
            data-testid="preview-as-of"
          />
          <Button variant="default" onClick={() => setAsOf('')} disabled={!asOf}>
            Now
          </Button>
          {asOf && (
            <Badge color="grape" variant="light" style={{ textTransform: 'none' }}>
              Showing {asOf.replace('T', ' ')}, not now
            </Badge>
          )}
        </Group>
      </Paper>
      {models.length > 0 && (
        <CoverageMatrix
          asOf={asOf}
          dealerId={dealerId}
          make={configs.data.manufacturer.id}
          canEdit={canEdit}
          onOpen={(key, device) => {
            setChosen(models.find((m) => modelKey(m) === key) ?? null);
            setVariant(device);
            document.getElementById('preview-controls')?.scrollIntoView({ behavior: 'smooth' });
          }}
        />
      )}
      {models.length === 0 ? (
        <Paper withBorder p="xl" radius="md" ta="center">
          <Text>No models configured yet. Please configure model mappings first.</Text>
        </Paper>
      ) : (
        <>
          <Paper withBorder p="md" radius="md" id="preview-controls">
            <Group align="flex-end">
              <Select label="Model" data={models.map((m) => ({ value: m, label: modelName(m) }))} value={model} onChange={(v) => setChosen(v)} allowDeselect={false} searchable w={220} />
              <TextInput label="Trim (optional)" value={trim} onChange={(e) => setTrim(e.currentTarget.value)} placeholder="e.g. sport" w={200} />
              <div>
                <Text size="sm" fw={500} mb={4}>
                  Device
                </Text>
                <SegmentedControl
                  value={variant}
                  onChange={(v) => setVariant(v as Variant)}
                  data={[
                    { value: 'desktop', label: 'Desktop' },
                    { value: 'mobile', label: 'Mobile' },
                  ]}
                />
              </div>
            </Group>
          </Paper>
          {preview.error ? (
            <ErrorNotice message={preview.error.message} onRetry={() => void preview.refetch()} />
          ) : !preview.data ? (
            <Skeleton h={300} />
          ) : (
            <>
              <Paper withBorder p="md" radius="md">
                <Title order={5} mb="xs">
                  Asset status
                </Title>
                <SimpleGrid cols={{ base: 1, sm: 3 }}>
                  {preview.data.slots.map((s) => (
                    <Group key={s.slot} gap="xs" wrap="nowrap" data-testid={`status-${s.slot}`}>
                      <Text size="sm" fw={500}>
                        {s.slot}:
                      </Text>
                      {s.status === 'found' ? (
                        <Badge color="teal" variant="light" style={{ textTransform: 'none' }} title={s.assetName ?? ''}>
                          {s.assetName ?? 'found'}
                        </Badge>
                      ) : s.status === 'mismatch' && s.creative ? (
                        <Badge color="yellow" variant="light" style={{ textTransform: 'none' }} title={s.assetName ?? ''}>
                          Shape differs: {s.creative.width}x{s.creative.height} in a {s.width}x{s.height} slot
                        </Badge>
                      ) : (
                        <Badge color="red" variant="light">
                          Missing
                        </Badge>
                      )}
                    </Group>
                  ))}
                </SimpleGrid>
              </Paper>
              {preview.data.slots.map((s) => (
                <Paper key={s.slot} withBorder p="md" radius="md">
                  <Group justify="space-between" mb="xs">
                    <Text fw={600}>
                      {SLOT_TITLES[s.slot]}
                      {showsUpsell(s.slot) && (
                        <Text span c="dimmed" size="sm">
                          {' '}
                          ({modelName(model)} → {modelName(s.model)})
                        </Text>
                      )}
                    </Text>
                    <Text size="sm" c="dimmed">
                      {s.width}x{s.height}
                    </Text>
                  </Group>
                  {showsUpsell(s.slot) && s.candidates && (
                    <Text size="sm" mb="xs" data-testid="upsell-candidates">
                      {upsellChoiceText(
                        modelName(preview.data.slots[0]?.model ?? model),
                        s.candidates.map((c) => ({ ...c, model: modelName(c.model) })),
                      )}
                    </Text>
                  )}
                  <div style={{ overflowX: 'auto' }}>
                    <SlotImage slot={s} manufacturer={manufacturer} background={preview.data.background} />
                  </div>
                  {s.rotation.length > 1 && (
                    <div data-testid={`rotation-${s.slot}`}>
                      <Text size="sm" mt="sm" mb={4}>
                        <b>Rotates {s.rotation.length} creatives evenly (A/B):</b> each shopper's visit gets one of them; Analytics compares their CTR.
                      </Text>
                      <SimpleGrid cols={{ base: 1, sm: Math.min(3, s.rotation.length) }}>
                        {s.rotation.map((c) => (
                          <Stack key={c.assetId} gap={2}>
                            <Image src={c.imageUrl} alt={c.assetName ?? ''} mah={90} fit="contain" bg="gray.1" radius="sm" />
                            <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                              {c.assetName}
                            </Text>
                          </Stack>
                        ))}
                      </SimpleGrid>
                    </div>
                  )}
                </Paper>
              ))}
            </>
          )}
        </>
      )}
    </Stack>
  );
}
