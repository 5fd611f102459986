import { z } from 'zod';
import { validationError } from '../../core/errors.ts';
import { decodeCursor, DEFAULT_PAGE, encodeCursor, MAX_PAGE } from '../../core/paging.ts';
import { enumList, pageParams } from '../../core/schema.ts';
import type { RequestContext } from '../../http/context.ts';
import { indexRoute, link, ok, pageReply } from '../../http/hal.ts';
import type { Route } from '../../http/router.ts';
import { MAX_SHELVE_MINUTES, type AlarmService } from './service.ts';
import { ALARM_STATES, type Alarm } from './store.ts';
import { AlarmSchema } from './openapi.ts';

// Alarms over HTTP (docs/events.md): the open ones (critical first, then the oldest),
// the journal of cleared ones, acknowledge and shelve.

const READ = 'alarms:read';
const WRITE = 'alarms:write';
const BASE = '/v1/alarms';
export const alarmIndexLinks = { 'alarm-index': `${BASE}/index` };

const listQuery = z.object({ state: enumList(ALARM_STATES).optional(), ...pageParams(DEFAULT_PAGE, MAX_PAGE) });
const comment = z.string().trim().max(500).optional();
const acknowledgeBody = z.strictObject({ comment }).optional();
const shelveBody = z.strictObject({ minutes: z.number().int().min(1).max(MAX_SHELVE_MINUTES), comment });

const vo = (ctx: RequestContext, a: Alarm) => ({
  ...a,
  shelved: a.shelvedUntil !== null && a.shelvedUntil > new Date().toISOString() && a.state !== 'cleared',
  links: [
    link(ctx, 'self', `${BASE}/${a.id}`),
    ...(a.state === 'cleared' ? [] : [link(ctx, 'alarm-acknowledge', `${BASE}/${a.id}/acknowledge`), link(ctx, 'alarm-shelve', `${BASE}/${a.id}/shelve`)]),
  ],
});

const idOf = (ctx: RequestContext) => {
  const text = ctx.param('id');
  if (!/^\d{1,15}$/.test(text)) throw validationError(`Validation failed: id: [${text}] is not an alarm id (a whole number)`);
  return Number(text);
};

export function alarmRoutes(alarms: AlarmService): Route[] {
  const routes: Route[] = [
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'alarms-findall',
      optionalQuery: ['state', 'limit', 'after'],
      querySchema: listQuery,
      responseSchema: z.array(AlarmSchema),
      summary:
        'Open alarms (state active and/or acknowledged; default both), critical first, then the oldest; state=cleared: the journal of cleared alarms, newest first, paged.',
      handler: (ctx) => {
        const q = ctx.queryAs(listQuery);
        if (!q.state?.includes('cleared')) return ok(alarms.open(q.state).map((a) => vo(ctx, a)));
        if (q.state.length > 1) throw validationError('Validation failed: state: cleared is a journal of its own; ask for it alone');
        const before = q.after === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(q.after, ['id'] as const).id;
        const page = alarms.cleared(before, q.limit + 1);
        const items = page.slice(0, q.limit);
        return pageReply(
          ctx,
          items.map((a) => vo(ctx, a)),
          page.length > q.limit ? encodeCursor({ id: items.at(-1)!.id }) : undefined,
        );
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{id}`,
      grant: READ,
      link: 'alarms-findbyid',
      responseSchema: AlarmSchema,
      summary: 'One alarm.',
      handler: (ctx) => ok(vo(ctx, alarms.byId(idOf(ctx)))),
    },
    {
      method: 'POST',
      path: `${BASE}/{id}/acknowledge`,
      grant: WRITE,
      link: 'alarm-acknowledge',
      body: ['json', 'none'],
      requestSchema: acknowledgeBody,
      responseSchema: AlarmSchema,
      errors: [409],
      summary: 'Acknowledge an open alarm, with an optional comment; an alarm of a one-off event (an ERR_ without group, an order ONFAILURE) is cleared by it.',
      handler: (ctx) => {
        const id = idOf(ctx);
        return ok(vo(ctx, alarms.acknowledge(id, ctx.body(acknowledgeBody)?.comment)));
      },
    },
    {
      method: 'POST',
      path: `${BASE}/{id}/shelve`,
      grant: WRITE,
      link: 'alarm-shelve',
      requestSchema: shelveBody,
      responseSchema: AlarmSchema,
      errors: [409],
      summary: `Shelve an open alarm for {minutes} (1 to ${MAX_SHELVE_MINUTES}), with an optional comment: it stays open but leaves the active views until then.`,
      handler: (ctx) => {
        const id = idOf(ctx);
        const body = ctx.body(shelveBody);
        return ok(vo(ctx, alarms.shelve(id, body.minutes, body.comment)));
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the alarms.'), ...routes];
}
