import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { EventJournal, JournalEntry } from '../../core/event-journal.ts';
import { indexRoute } from '../../http/hal.ts';
import type { Route } from '../../http/router.ts';

// Live domain events for HMI pages and integrations, as Server-Sent Events: every
// change the services publish (a location locked, a transport unit moved, an order
// finished, a PLC channel going online: `plcChannel.stateChanged`, …), with
// `Last-Event-ID` replay after a reconnect. `?types=` narrows the stream
// (`transportUnit.*,location.stateChanged`).

const READ = 'events:read';
const BASE = '/v1/events';
const HEARTBEAT_MS = 15_000;
export const eventIndexLinks = { 'event-index': `${BASE}/index` };

const query = z.object({
  types: z
    .string()
    .transform((t) => t.split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[\w.]+\*?$|^\*$/, 'event types are names, optionally ending in *')))
    .optional(),
  lastEventId: z.string().max(64).optional(),
});

/** `location.*` matches `location.stateChanged`; `*` matches all. */
const matcher = (patterns: readonly string[] | undefined) => {
  if (!patterns?.length) return () => true;
  return (type: string) => patterns.some((p) => (p.endsWith('*') ? type.startsWith(p.slice(0, -1)) : type === p));
};

const frame = (entry: JournalEntry) => `id: ${entry.id}\nevent: ${entry.event.type}\ndata: ${JSON.stringify(entry.event)}\n\n`;

export function eventRoutes(journal: EventJournal): Route[] {
  const routes: Route[] = [
    {
      method: 'GET', path: BASE, grant: READ, link: 'events-stream', optionalQuery: ['types', 'lastEventId'],
      summary: 'Server-Sent Events of every domain change; Last-Event-ID (header or lastEventId) replays what was missed.',
      handler: (ctx) => {
        const q = ctx.queryAs(query);
        const wanted = matcher(q.types);
        const header = ctx.headers['last-event-id'];
        const lastId = (typeof header === 'string' ? header : undefined) ?? q.lastEventId;
        return {
          status: 200,
          stream: (res: ServerResponse) => {
            res.write('retry: 3000\n\n');
            const missed = journal.since(lastId);
            // The view cannot know what it missed: tell it to reload before it applies more.
            if (!missed.complete) res.write(`event: reset\ndata: ${JSON.stringify({ bootId: journal.bootId })}\n\n`);
            for (const entry of missed.entries) if (wanted(entry.event.type)) res.write(frame(entry));
            const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
            const unsubscribe = journal.subscribe({
              deliver: (entry) => {
                if (wanted(entry.event.type)) res.write(frame(entry));
              },
              end: () => res.end(),
            });
            res.on('close', () => {
              clearInterval(heartbeat);
              unsubscribe();
            });
          },
        };
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the live event stream.'), ...routes];
}
