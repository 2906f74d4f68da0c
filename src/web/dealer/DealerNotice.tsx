/**
 * Full-width notices the dealer screens share (spec 02 §8): 'Dealer ID not found' for a user
 * without a dealer, 'Dealer not found' for a dealer the API answers 404 (or 403) for, and any
 * other load error with its message and a retry.
 */
import type { ReactNode } from 'react';
import { Button, Center, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { Building2, RotateCcw, TriangleAlert } from 'lucide-react';
import { TEXT } from '../../domain/constants';
import { errorMessage } from '../api/client';
import { isApiStatus } from './api';

/** A centred card with an icon, a title and an explanation. */
function NoticeCard({ title, body, color, action }: { title: string; body: string; color: string; action?: ReactNode }) {
  return (
    <Center mih="40vh" p="md">
      <Paper withBorder radius="md" p="xl" maw={480} w="100%" role="alert">
        <Stack align="center" gap="sm" ta="center">
          <ThemeIcon size={52} radius="xl" variant="light" color={color}>
            {color === 'red' ? <TriangleAlert size={26} /> : <Building2 size={26} />}
          </ThemeIcon>
          <Title order={3}>{title}</Title>
          <Text c="dimmed" size="sm">
            {body}
          </Text>
          {action}
        </Stack>
      </Paper>
    </Center>
  );
}

/** 'Dealer ID not found': the signed-in user is not tied to a dealer. */
export function NoDealerIdNotice() {
  return <NoticeCard title={TEXT.dealerIdNotFound} body="Your account is not linked to a dealership. Ask an administrator to assign one." color="gray" />;
}

/** 'Dealer not found' for a 404/403 answer, otherwise the error's message with a Try again button. */
export function DealerErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (isApiStatus(error, 404, 403)) {
    return <NoticeCard title={TEXT.dealerNotFound} body="This dealership does not exist or is not available to your account." color="gray" />;
  }
  return (
    <NoticeCard
      title="Something went wrong"
      body={errorMessage(error)}
      color="red"
      action={
        onRetry && (
          <Button variant="default" leftSection={<RotateCcw size={16} />} onClick={onRetry}>
            Try again
          </Button>
        )
      }
    />
  );
}
