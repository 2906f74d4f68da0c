/** The four configured banner sizes with a link to configuration (spec 02 §2). */
import { Link } from 'react-router';
import { Anchor, Paper, SimpleGrid, Text } from '@mantine/core';
import type { BannerSizes } from '../../../domain/schemas';

const LABELS: Record<keyof BannerSizes, string> = {
  srpHeaderDesktop: 'SRP Header Desktop',
  srpHeaderMobile: 'SRP Header Mobile',
  inlineDesktop: 'Inline Desktop',
  inlineMobile: 'Inline Mobile',
};

export function SizeList({ sizes }: { sizes: BannerSizes }) {
  return (
    <Paper withBorder p="sm" radius="md" bg="gray.0">
      <Text size="sm" fw={600} mb={6}>
        Configured banner sizes{' '}
        <Anchor component={Link} to="/dealer/config" size="xs">
          (change)
        </Anchor>
      </Text>
      <SimpleGrid cols={2} spacing={4}>
        {(Object.keys(LABELS) as Array<keyof BannerSizes>).map((k) => (
          <Text key={k} size="sm">
            {LABELS[k]}: <b>{sizes[k].width}x{sizes[k].height}</b>
          </Text>
        ))}
      </SimpleGrid>
    </Paper>
  );
}
