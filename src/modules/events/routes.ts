import type { ServerResponse } from 'node:http';
import { decodeCursor, encodeCursor } from '../../core/paging.ts';
import { indexRoute, ok, pageReply } from '../../http/hal.ts';
import type { Route } from '../../http/router.ts';
import { streamFilter } from './filter.ts';
import type { History } from './history.ts';
import { historyQuery, streamQuery, unitHistoryQuery } from './schema.ts';
import type { LiveStreams } from './streams.ts';
import type { EventTickets } from './tickets.ts';
import { z } from 'zod';
import { EventSchema, TicketSchema, UnitHistoryEntrySchema } from './openapi.ts';

// The event log over HTTP (docs/events.md):
// - `GET /v1/events`: every committed change as Server-Sent Events, narrowed by
//   `?types=`, replayed from the durable log after `Last-Event-ID` (header, or
//   `lastEventId` for a first connect that carries one). Browsers authenticate with a
//   ticket from `POST /v1/events/tickets` (`?ticket=`); other clients with a bearer token.
// - `GET /v1/events/history`: the log as pages, filtered, for audit and history views.
// - `GET /v1/transport-units/{bk}/history`: one unit's events and telegrams.

const READ = 'events:read';
const BASE = '/v1/events';
export const eventIndexLinks = { 'event-index': `${BASE}/index` };

interface EventRouteDeps {
  streams: LiveStreams;
  tickets: EventTickets;
  history: History;
}

const cursorOf = (after: string | undefined) => (after === undefined ? 0 : decodeCursor(after, ['e'] as const).e);

export function eventRoutes({ streams, tickets, history }: EventRouteDeps): Route[] {
  const routes: Route[] = [
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'events-stream',
      optionalQuery: ['types', 'subjectKind', 'subject', 'lastEventId', 'ticket'],
      eventStream: true,
      ticket: true,
      querySchema: streamQuery,
      summary:
        'Server-Sent Events of every committed change (id = event id); Last-Event-ID (header or lastEventId) replays what was missed from the durable log. ' +
        'Narrowed by types (names or prefix.*) and by the subject the events are about: subjectKind, and subject (a key, or a prefix of keys ending in *). ' +
        'Authenticate with a bearer token, or with ?ticket= from POST /v1/events/tickets (browsers).',
      handler: (ctx) => {
        const q = ctx.queryAs(streamQuery);
        const wanted = streamFilter(q);
        const header = ctx.headers['last-event-id'];
        const lastId = (typeof header === 'string' && header !== '' ? header : undefined) ?? q.lastEventId;
        const principal = ctx.caller;
        return {
          status: 200,
          headers: { 'X-Accel-Buffering': 'no' },
          stream: (res: ServerResponse) => streams.open(res, principal, wanted, lastId),
        };
      },
    },
    {
      method: 'POST',
      path: `${BASE}/tickets`,
      body: 'none',
      grant: READ,
      // An in-memory ticket of the thread whose event stream redeems it; nothing is written.
      thread: 'http',
      link: 'events-ticket',
      responseSchema: TicketSchema,
      summary: `A single-use ticket (valid 60 s) that opens the event stream as the caller: GET ${BASE}?ticket=… (browsers' EventSource cannot send Authorization).`,
      handler: (ctx) => ok(tickets.issue(ctx.caller)),
    },
    {
      method: 'GET',
      path: `${BASE}/history`,
      grant: READ,
      link: 'events-history',
      optionalQuery: ['types', 'subjectKind', 'subject', 'actor', 'from', 'to', 'limit', 'after'],
      querySchema: historyQuery,
      responseSchema: z.array(EventSchema),
      summary:
        'Recorded events, oldest first, as pages (limit ≤ 1000, default 100; Link rel="next" while more exist): filter by types (names or prefix.*), ' +
        'subjectKind and subject (events about it, also those naming it), actor (name or kind:name), from/to (ISO times).',
      handler: async (ctx) => {
        const q = ctx.queryAs(historyQuery);
        const page = await history.events(q, cursorOf(q.after), q.limit);
        return pageReply(ctx, page.items, page.next === undefined ? undefined : encodeCursor({ e: page.next }));
      },
    },
    {
      method: 'GET',
      path: '/v1/transport-units/{bk}/history',
      grant: 'transport-units:read',
      link: 'transport-unit-history',
      linkHref: '/v1/transport-units/{bk}/history?limit={limit}&after={after}',
      querySchema: unitHistoryQuery,
      responseSchema: z.array(UnitHistoryEntrySchema),
      summary:
        'The trace of a transport unit by barcode: its events (created, moved, orders, movements, stock, locks) and the PLC telegrams that named it, ' +
        'oldest first, paged like the event history. Each entry says its source (event or telegram).',
      handler: async (ctx) => {
        const q = ctx.queryAs(unitHistoryQuery);
        const after = q.after === undefined ? { e: 0, t: 0 } : decodeCursor(q.after, ['e', 't'] as const);
        const page = await history.unit(ctx.param('bk'), after, q.limit);
        return pageReply(ctx, page.items, page.next && encodeCursor(page.next));
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the live event stream and the event history.'), ...routes];
}
