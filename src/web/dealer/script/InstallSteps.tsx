/**
 * The frame of an alternative install on the Script page (FirstPartyInstall, TagManagerInstall):
 * a titled section with an introduction and its numbered steps, each step a bold line saying where
 * and what, followed by what to copy.
 */
import type { ReactNode } from 'react';
import { Paper, Stack, Text, Title } from '@mantine/core';

/** A section named `title` (its heading and its landmark label), `intro` under the heading, then the steps. */
export function InstallSection({ title, intro, children }: { title: string; intro: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label={title}>
      <Title order={3} size="h4">
        {title}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {intro}
      </Text>
      <Stack gap="md">{children}</Stack>
    </Paper>
  );
}

/** One step: `label` in bold ("1. On your web server: …"), then what it asks to copy. */
export function InstallStep({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      {children}
    </Stack>
  );
}
