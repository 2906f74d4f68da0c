/**
 * The Configuration screen's Website tab (ConfigManager): what the embed script does on the
 * dealer's pages. "Send banner events to the page's dataLayer (Google Tag Manager)" (configs
 * dataLayerEvents, on by default) and "Slots without a banner" (configs emptySlots: the server's
 * placeholder, the spec's default, or hidden). Fields of the screen's one form: `dataLayerEvents`
 * and `emptySlots` are its input props; a viewer sees them disabled. Loaded when the tab opens.
 */
import { Input, Paper, SegmentedControl, Stack, Switch, Text, Title } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';

export default function WebsiteSettings({ canEdit, dataLayerEvents, emptySlots }: { canEdit: boolean; dataLayerEvents: GetInputPropsReturnType; emptySlots: GetInputPropsReturnType }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Title order={4}>Website</Title>
      <Text size="sm" c="dimmed" mb="md">
        What the banner script does on your website&apos;s pages. A change reaches them within a few minutes.
      </Text>
      <Stack gap="lg">
        <Switch
          label="Send banner events to the page's dataLayer (Google Tag Manager)"
          description="On pages with Google Tag Manager, each counted banner view and each banner click is also pushed to the page's dataLayer as dc_banner_view or dc_banner_click, with the model, slot and creative. Nothing about the shopper is sent; pages without a dataLayer are left as they are."
          disabled={!canEdit}
          {...dataLayerEvents}
        />
        <Input.Wrapper
          label="Slots without a banner"
          description="What a slot shows when its model has no banner (no uploaded banner, CDN image or fallback asset). Placeholder: a generated banner with the model's name and your logo (the default). Hide: no space is reserved and no impression is counted. After banners are added or removed, copy the tag again from the Script page so pages reserve space for exactly the slots that have one."
        >
          <SegmentedControl
            mt="xs"
            display="flex"
            w="fit-content"
            aria-label="Slots without a banner"
            disabled={!canEdit}
            data={[
              { value: 'placeholder', label: 'Show the placeholder' },
              { value: 'hide', label: 'Hide the slot' },
            ]}
            {...emptySlots}
          />
        </Input.Wrapper>
      </Stack>
    </Paper>
  );
}
