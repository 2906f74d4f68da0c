/**
 * The frame of the signed-out screens (LoginPage, SetPasswordPage): the product's name and
 * one-line description centred above a card holding the screen's form, and `below` under the card
 * (the demo accounts on the sign-in screen).
 */
import type { ReactNode } from 'react';
import { Box, Center, Paper, Stack, Text, Title } from '@mantine/core';

/** `children` in the card; with `main`, the frame is the page's main landmark. */
export function AuthScreen({ main = false, below, children }: { main?: boolean; below?: ReactNode; children: ReactNode }) {
  const content = (
    <Stack w={460} maw="100%">
      <Box ta="center">
        <Title order={1}>dc-banners</Title>
        <Text c="dimmed">Dynamic promotional banners for dealership websites</Text>
      </Box>
      <Paper withBorder shadow="sm" p="xl" radius="md">
        {children}
      </Paper>
      {below}
    </Stack>
  );
  return main ? (
    <Center mih="100vh" bg="gray.1" p="md" component="main">
      {content}
    </Center>
  ) : (
    <Center mih="100vh" bg="gray.1" p="md">
      {content}
    </Center>
  );
}
