/**
 * Contract of the admin's Outbox (docs/API.md "Admin"): GET /api/admin/outbox answers
 * whether SMTP_URL is set and the newest notification e-mails. Typed against ../notifications.ts.
 */
import { z } from 'zod';
import type { OutboxKind, OutboxResponse } from '../notifications';

const OUTBOX_KINDS = ['performance-alert', 'feed-alert', 'dead-letter-alert', 'weekly-report', 'invitation'] as const satisfies readonly OutboxKind[];

export const outboxResponseSchema: z.ZodType<OutboxResponse> = z.object({
  mailConfigured: z.boolean(),
  messages: z.array(
    z.object({
      id: z.number().int(),
      createdAt: z.string(),
      dealerId: z.string().nullable(),
      kind: z.enum(OUTBOX_KINDS),
      recipients: z.array(z.string()),
      subject: z.string(),
      text: z.string(),
      status: z.string(),
      error: z.string().nullable(),
      sentAt: z.string().nullable(),
    }),
  ),
});
