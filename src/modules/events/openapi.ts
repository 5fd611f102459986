import { z } from 'zod';
import { SUBJECT_KINDS, eventTypes } from '../../core/event-catalogue.ts';
import { instant } from '../../http/openapi/representation.ts';

// Events, history entries and tickets of the events module as schemas of the API
// description (docs/events.md describes each event type's data).

const eventFields = {
  id: z.number().int().meta({ description: 'Strictly increasing, never reused; the SSE id.' }),
  type: z.enum(eventTypes() as [string, ...string[]]),
  at: instant,
  actor: z.object({ kind: z.enum(['user', 'apiKey', 'plc', 'hub', 'system']), name: z.string() }),
  reason: z.string().optional(),
  subject: z.object({ kind: z.enum(SUBJECT_KINDS), key: z.string() }),
  data: z.record(z.string(), z.unknown()).meta({ description: 'What changed, in API terms; per type in docs/events.md.' }),
};

export const EventSchema = z.object(eventFields).meta({ id: 'Event', description: 'A committed change, as the event log keeps it.' });

const telegramFields = {
  id: z.number().int(),
  at: instant,
  channel: z.string(),
  direction: z.enum(['in', 'out']),
  type: z.string().nullable(),
  seq: z.number().int().nullable(),
  text: z.string(),
  outcome: z.string(),
  barcode: z.string().nullable(),
  location: z.string().nullable(),
  order: z.string().nullable(),
  latencyMs: z.number().nullable(),
  connection: z.number().int().nullable(),
};

/** A telegram of the telegram log (plc/telegram-log.ts). */
export const TelegramSchema = z.object(telegramFields).meta({ id: 'Telegram', description: 'A PLC telegram in or out, as the telegram log keeps it.' });

export const UnitHistoryEntrySchema = z
  .discriminatedUnion('source', [
    z.object({ source: z.literal('event'), ...eventFields }),
    z.object({
      source: z.literal('telegram'),
      ...telegramFields,
      fields: z.record(z.string(), z.unknown()).nullable().meta({
        description:
          "Its fields, decoded as the channel's telegram log decodes them (GET /v1/plc-channels/{name}/telegrams); null when the text does not decode.",
      }),
    }),
  ])
  .meta({ id: 'UnitHistoryEntry', description: "An entry of a transport unit's trace: an event about it, or a telegram that named it." });

export const TicketSchema = z
  .object({
    ticket: z.string(),
    expiresIn: z.number().int().meta({ description: 'Seconds the ticket stays valid.' }),
  })
  .meta({ id: 'EventTicket', description: 'A single-use ticket that opens the event stream: GET /v1/events?ticket=….' });
