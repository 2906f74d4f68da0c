/** The four configured banner sizes with a link to configuration (spec 02 §2 Asset Manager, upload panel). */
import { Link } from 'react-router';
import { Anchor, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { Monitor, Ruler, Smartphone } from 'lucide-react';
import type { BannerSizes } from '../../../domain/schemas';
import { BANNER_SIZE_LABELS, BANNER_SLOTS } from '../../../domain/slots';

/** The dealer's configured sizes for the four banner slots, linking to /dealer/config. */
export function SizeList({ sizes }: { sizes: BannerSizes }) {
  return (
    <Paper withBorder p="md" radius="md" bg="var(--mantine-color-gray-0)">
      <Group justify="space-between" mb="xs" wrap="nowrap">
        <Group gap={6} wrap="nowrap">
          <Ruler size={16} aria-hidden />
          <Text size="sm" fw={600}>
            Configured banner sizes
          </Text>
        </Group>
        <Anchor component={Link} to="/dealer/config" size="xs">
          Change in Configuration
        </Anchor>
      </Group>
      <SimpleGrid cols={2} spacing="xs" verticalSpacing={6}>
        {BANNER_SLOTS.map((slot) => (
          <Stack key={slot} gap={0}>
            <Group gap={4} wrap="nowrap">
              {slot.endsWith('Mobile') ? <Smartphone size={12} aria-hidden /> : <Monitor size={12} aria-hidden />}
              <Text size="xs" c="dimmed">
                {BANNER_SIZE_LABELS[slot]}
              </Text>
            </Group>
            <Text size="sm" fw={600} ff="monospace" data-testid={`size-${slot}`}>
              {sizes[slot].width}x{sizes[slot].height}
            </Text>
          </Stack>
        ))}
      </SimpleGrid>
    </Paper>
  );
}
