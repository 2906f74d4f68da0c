/**
 * The coverage matrix of Banner Preview: every standard model of the dealer x slot
 * (header, inline, upsell) x device, each cell what shoppers get now (or as of `asOf`), from the server's own
 * delivery choice (GET /coverage, the same answer as Preview for that model and device): the
 * creative's thumbnail and where it comes from (uploaded asset, CDN, fallback), a shape that
 * differs from the slot (amber), or the placeholder (red "Missing"). A cell opens that model and
 * device in Preview; a missing or mismatched cell offers one-click upload: the chosen image is sent
 * under the asset naming convention for that model and slot size (new_{year}_{make}_{model}_base_{w}x{h}.{ext}),
 * so it fills exactly that cell; the server still checks the image's real size (DECISIONS 10).
 */
import { useState } from 'react';
import { Badge, Button, FileButton, Group, Paper, ScrollArea, Skeleton, Stack, Table, Text, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Upload } from 'lucide-react';
import type { SlotType, Variant } from '../../../domain/schemas';
import { showsUpsell, SLOT_TEXTS, SLOT_TYPES } from '../../../domain/slots';
import type { PreviewSlot } from '../../../domain/configs';
import { ErrorNotice } from '../../components/feedback';
import { uploadAssetFile } from '../assets/api';
import { useCoverage } from './api';

/** The slot types in registry order, with their column titles. */
const SLOTS: Array<[SlotType, string]> = SLOT_TYPES.map((t) => [t, SLOT_TEXTS[t].short]);
const VARIANTS: Array<[Variant, string]> = [
  ['desktop', 'Desktop'],
  ['mobile', 'Mobile'],
];
const SOURCE_LABELS: Record<PreviewSlot['source'], string> = { asset: 'Asset', cdn: 'CDN', fallback: 'Fallback', placeholder: 'Missing' };

/** The file name that makes an upload fill `cell` (asset naming convention, spec 01 §4). */
export function conventionName(make: string, cell: PreviewSlot, original: File): string {
  const ext = (/\.(jpe?g|png|webp|gif)$/i.exec(original.name)?.[1] ?? original.type.split('/')[1] ?? 'jpg').toLowerCase();
  return `new_${new Date().getFullYear()}_${make}_${cell.modelKey}_base_${cell.width}x${cell.height}.${ext}`;
}

function Cell({ cell, background, make, canEdit, dealerId, onOpen, onUploaded }: { cell: PreviewSlot; background: string; make: string; canEdit: boolean; dealerId: string; onOpen: () => void; onUploaded: () => void }) {
  const [uploading, setUploading] = useState(false);
  const missing = cell.source === 'placeholder';
  const color = missing ? 'red' : cell.status === 'mismatch' ? 'yellow' : 'teal';
  const label = cell.status === 'mismatch' && cell.creative ? `Shape differs (${cell.creative.width}x${cell.creative.height})` : SOURCE_LABELS[cell.source];
  const upload = async (file: File | null) => {
    if (!file) return;
    setUploading(true);
    try {
      const result = await uploadAssetFile(dealerId, new File([file], conventionName(make, cell, file), { type: file.type }), () => undefined);
      if (result.ok) notifications.show({ color: result.warnings.length ? 'yellow' : 'teal', title: `Uploaded for ${cell.model} ${cell.width}x${cell.height}`, message: result.warnings.join(' ') || result.filename });
      else notifications.show({ color: 'red', title: 'Upload refused', message: result.error });
      onUploaded();
    } catch (e) {
      notifications.show({ color: 'red', title: 'Upload failed', message: (e as Error).message });
    } finally {
      setUploading(false);
    }
  };
  return (
    <Stack gap={4} align="flex-start" data-testid={`coverage-${cell.modelKey}-${cell.slot}`}>
      <Tooltip label={`Open ${showsUpsell(cell.slot) ? `the upsell (${cell.model})` : cell.model} in Preview`} withinPortal>
        <UnstyledButton onClick={onOpen} aria-label={`Preview ${cell.slot} for ${cell.model}: ${label}`}>
          <img src={cell.imageUrl} alt="" loading="lazy" width={cell.width} height={cell.height} style={{ display: 'block', height: 40, width: 'auto', maxWidth: 110, aspectRatio: `${cell.width} / ${cell.height}`, objectFit: 'contain', background, borderRadius: 2 }} />
        </UnstyledButton>
      </Tooltip>
      <Badge size="xs" variant="light" color={color} tt="none" data-testid="coverage-source" data-source={cell.source}>
        {label}
      </Badge>
      {cell.rotation.length > 1 && (
        <Badge size="xs" variant="outline" color="blue" tt="none" title={cell.rotation.map((c) => c.assetName).join(', ')}>
          A/B: {cell.rotation.length} rotate
        </Badge>
      )}
      {showsUpsell(cell.slot) && (
        <Text size="xs" c="dimmed">
          → {cell.model}
        </Text>
      )}
      {canEdit && (missing || cell.status === 'mismatch') && (
        <FileButton onChange={(f) => void upload(f)} accept="image/jpeg,image/png,image/webp,image/gif">
          {(props) => (
            <Button {...props} size="compact-xs" variant="subtle" leftSection={<Upload size={12} />} loading={uploading} aria-label={`Upload a ${cell.width}x${cell.height} banner for ${cell.model} ${cell.slot}`}>
              Upload
            </Button>
          )}
        </FileButton>
      )}
    </Stack>
  );
}

/** The matrix; `onOpen` shows a model and device in the Preview above. */
export function CoverageMatrix({ dealerId, make, canEdit, onOpen, asOf = '' }: { dealerId: string; make: string; canEdit: boolean; onOpen: (model: string, variant: Variant) => void; asOf?: string }) {
  const coverage = useCoverage(dealerId, asOf);
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={5}>Coverage: what shoppers see</Title>
      <Text size="sm" c="dimmed" mb="sm">
        Every model, slot and device as the banner script shows it {asOf ? 'at the date and time chosen above' : 'now'}. Missing cells show a placeholder; amber ones show a creative of another shape, letterboxed.
      </Text>
      {coverage.error ? (
        <ErrorNotice message={coverage.error.message} onRetry={() => void coverage.refetch()} />
      ) : !coverage.data ? (
        <Skeleton h={240} />
      ) : (
        <ScrollArea type="auto">
          <Table withTableBorder withColumnBorders verticalSpacing={6} data-testid="coverage-matrix" style={{ minWidth: 860 }}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th rowSpan={2}>Model</Table.Th>
                {SLOTS.map(([slot, title]) => (
                  <Table.Th key={slot} colSpan={2} ta="center">
                    {title}
                  </Table.Th>
                ))}
              </Table.Tr>
              <Table.Tr>
                {SLOTS.flatMap(([slot]) => VARIANTS.map(([variant, title]) => <Table.Th key={`${slot}-${variant}`}>{title}</Table.Th>))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {coverage.data.models.map((row) => (
                <Table.Tr key={row.model} data-testid={`coverage-row-${row.model}`}>
                  <Table.Th scope="row">{row.displayName}</Table.Th>
                  {SLOTS.flatMap(([slot], i) =>
                    VARIANTS.map(([variant]) => (
                      <Table.Td key={`${slot}-${variant}`} data-variant={variant}>
                        <Cell cell={row[variant][i]!} background={coverage.data.background} make={make} canEdit={canEdit} dealerId={dealerId} onOpen={() => onOpen(row.model, variant)} onUploaded={() => void coverage.refetch()} />
                      </Table.Td>
                    )),
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
      <Group mt="xs" gap="xs">
        <Badge size="xs" variant="light" color="teal" tt="none">
          Asset / CDN / Fallback
        </Badge>
        <Badge size="xs" variant="light" color="yellow" tt="none">
          Shape differs
        </Badge>
        <Badge size="xs" variant="light" color="red" tt="none">
          Missing
        </Badge>
      </Group>
    </Paper>
  );
}
