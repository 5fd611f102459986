import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';
import { EventStream, RawEventStream, type SseEvent } from './support/event-stream.ts';
import { scrape } from './support/metrics.ts';
import { until } from './support/warehouse.ts';

// The live event stream (`GET /v1/events`, Server-Sent Events) read over real HTTP,
// with the headers a browser's EventSource sends: bearer tokens and tickets, replay
// from the durable log (also across a restart), callers that lose their right to
// read, and clients that stop reading.

const named = (type: string) => (events: SseEvent[]) => events.some((e) => e.event === type);
const dataOf = (e: SseEvent) =>
  JSON.parse(e.data!) as { id: number; type: string; at: string; actor: { kind: string; name: string }; reason?: string; data: Record<string, unknown> };
/** What every browser's EventSource sends. */
const BROWSER = { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' };

/** The event streams as /metrics shows them: open, closed for not reading, replays by state. */
async function streamState(): Promise<{ open: number; stalled: number; serving: number; waiting: number; blocked: number }> {
  const { value } = await scrape(wms);
  const replays = (state: string) => value(`wms_event_stream_replays{state="${state}"}`) ?? 0;
  return {
    open: value('wms_event_streams_open') ?? 0,
    stalled: value('wms_event_streams_stalled_total') ?? 0,
    serving: replays('serving'),
    waiting: replays('waiting'),
    blocked: replays('blocked'),
  };
}

let wms: TestAppliance;
const streams: EventStream[] = [];
const open = async (query = '', headers: Record<string, string> = {}) => {
  const { stream, response } = await EventStream.open(`${wms.url}/v1/events${query}`, { Authorization: `Bearer ${await wms.token()}`, ...headers });
  streams.push(stream);
  return { stream, response };
};

beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await wms.close();
});

describe('GET /v1/events', () => {
  it('streams each committed change as an event with id, type and the change as JSON', async () => {
    const { stream, response } = await open();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-store');

    expect((await wms.post('/v1/locations', { locationId: 'EVNT/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    const events = await stream.until(named('location.created'));
    const created = events.find((e) => e.event === 'location.created')!;
    expect(created.id).toMatch(/^\d+$/);
    expect(dataOf(created)).toMatchObject({
      id: Number(created.id),
      actor: { kind: 'user', name: 'admin' },
      subject: { kind: 'location', key: 'EVNT/0001/0000/0000/0000' },
    });
    expect(dataOf(created)).toMatchObject({ type: 'location.created', data: { locationId: 'EVNT/0001/0000/0000/0000' } });
    expect(dataOf(created).at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('sends nothing for a change that was refused', async () => {
    const { stream } = await open();
    expectApiError(await wms.post('/v1/locations', { locationId: 'EVNT/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' }), 409, 'already.exists');
    // A later change arrives; nothing came before it.
    expect((await wms.post('/v1/locations', { locationId: 'EVNT/0002/0000/0000/0000', locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    const events = await stream.until(named('location.created'));
    expect(events.map((e) => [e.event, dataOf(e).data.locationId])).toEqual([['location.created', 'EVNT/0002/0000/0000/0000']]);
  });

  it('?types= narrows the stream to the named types and type prefixes', async () => {
    const { stream } = await open('?types=transportUnit.*,locationGroup.created');
    expect((await wms.post('/v1/locations', { locationId: 'EVNT/0003/0000/0000/0000', locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    expect(
      (await wms.post('/v1/transport-units', { barcode: 'EVNT-TU-1', actualLocation: 'EVNT/0003/0000/0000/0000', transportUnitType: 'EURO' })).status,
    ).toBe(201);
    expect((await wms.post('/v1/location-groups', { name: 'EVNT-GROUP' })).status).toBe(201);
    const events = await stream.until(named('locationGroup.created'));
    expect(events.map((e) => e.event)).toEqual(['transportUnit.created', 'locationGroup.created']);
  });

  it('?subjectKind= and ?subject= narrow the stream to the events about one thing, or about things whose keys start alike; replayed alike', async () => {
    const area = await open(`?subjectKind=location&subject=${enc('EVSB/0001/*')}`);
    const one = await open(`?types=location.*&subjectKind=location&subject=${enc('EVSB/0001/0001/0000/0000')}`);
    const pKeys: string[] = [];
    for (const aisle of ['EVSB/0001/0001', 'EVSB/0002/0001', 'EVSB/0001/0002']) {
      const created = await wms.post('/v1/locations', { locationId: `${aisle}/0000/0000`, locationGroupName: 'WAREHOUSE' });
      expect(created.status, created.text).toBe(201);
      pKeys.push(created.body.pKey);
    }
    expect((await lock(pKeys[0]!, 'subject filter')).status).toBe(204);
    // Events about other kinds of things, naming the location: not about it.
    expect(
      (await wms.post('/v1/transport-units', { barcode: 'EVSB-TU-1', actualLocation: 'EVSB/0001/0001/0000/0000', transportUnitType: 'EURO' })).status,
    ).toBe(201);
    // The last change, about both: whatever came before it came in order.
    expect((await wms.patch(`/v1/location/${pKeys[0]}?op=change-state`, { errorCode: '00000000' })).status).toBe(204);

    const about = (e: SseEvent) => [e.event, (JSON.parse(e.data!) as { subject: { key: string } }).subject.key];
    const areaEvents = await area.stream.until((events) => events.length >= 4);
    expect(areaEvents.map(about)).toEqual([
      ['location.created', 'EVSB/0001/0001/0000/0000'],
      ['location.created', 'EVSB/0001/0002/0000/0000'],
      ['location.stateChanged', 'EVSB/0001/0001/0000/0000'],
      ['location.stateChanged', 'EVSB/0001/0001/0000/0000'],
    ]);
    const oneEvents = await one.stream.until((events) => events.length >= 3);
    expect(oneEvents.map(about)).toEqual([
      ['location.created', 'EVSB/0001/0001/0000/0000'],
      ['location.stateChanged', 'EVSB/0001/0001/0000/0000'],
      ['location.stateChanged', 'EVSB/0001/0001/0000/0000'],
    ]);
    // A view that reconnects with the same filter is replayed the same events, the same ids.
    const again = await open(`?subjectKind=location&subject=${enc('EVSB/0001/*')}&lastEventId=${Number(areaEvents[0]!.id) - 1}`);
    const replayed = await again.stream.until((events) => events.length >= 4);
    expect(replayed.map((e) => e.id)).toEqual(areaEvents.map((e) => e.id));
  });

  it('refuses a subject without its kind, and a kind it does not know, with 400', async () => {
    expectApiError(await wms.get(`/v1/events?subject=${enc('EVSB/*')}`), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/events?subjectKind=aisle&subject=EVSB'), 400, 'core.validation.error');
  });

  it('replays what a view missed after the Last-Event-ID it saw, header or query parameter', async () => {
    const first = await open('?types=location.created');
    expect((await wms.post('/v1/locations', { locationId: 'EVNT/0004/0000/0000/0000', locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    const seen = (await first.stream.until(named('location.created')))[0]!;
    first.stream.close();

    // While the view is away.
    for (const n of ['0005', '0006']) {
      expect((await wms.post('/v1/locations', { locationId: `EVNT/${n}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    }
    const byHeader = await open('?types=location.created', { 'Last-Event-ID': seen.id! });
    const replayed = await byHeader.stream.until((events) => events.length >= 2);
    expect(replayed.map((e) => dataOf(e).data.locationId)).toEqual(['EVNT/0005/0000/0000/0000', 'EVNT/0006/0000/0000/0000']);
    expect(replayed.every((e) => e.event !== 'reset')).toBe(true);

    const byQuery = await open(`?types=location.created&lastEventId=${seen.id}`);
    expect((await byQuery.stream.until((events) => events.length >= 2)).map((e) => dataOf(e).data.locationId)).toEqual([
      'EVNT/0005/0000/0000/0000',
      'EVNT/0006/0000/0000/0000',
    ]);
  });

  it('tells a view whose id the log cannot place to reload (event reset): not an id of this log, or newer than it', async () => {
    for (const lastId of ['00000000-42', '99999999']) {
      const { stream } = await open('', { 'Last-Event-ID': lastId });
      const events = await stream.until(named('reset'));
      expect(events[0]!.event).toBe('reset');
      expect(JSON.parse(events[0]!.data!)).toEqual({ lastEventId: lastId, oldest: expect.any(Number), newest: expect.any(Number) });
    }
  });

  it('refuses a malformed types list with 400 and a token-less request with 401', async () => {
    expectApiError(await wms.get('/v1/events?types=location%20created'), 400, 'core.validation.error');
    expectServerError(await wms.get('/v1/events', { anonymous: true }), 401);
  });

  it('is linked from the entry index through its module index', async () => {
    const index = await wms.get('/index');
    expect(index.body._links['event-index'].href).toBe(`${wms.url}/v1/events/index`);
    const own = await wms.get('/v1/events/index');
    expect(own.body._links['events-stream'].href).toBe(
      `${wms.url}/v1/events?types={types}&subjectKind={subjectKind}&subject={subject}&lastEventId={lastEventId}&ticket={ticket}`,
    );
  });
});

describe('stopping the appliance', () => {
  it('ends the open streams, so that the appliance stops at once', async () => {
    const other = await startTestAppliance();
    const { stream, response } = await EventStream.open(`${other.url}/v1/events`, { Authorization: `Bearer ${await other.token()}` });
    expect(response.status).toBe(200);
    await stream.until(() => stream.raw.join('').includes('retry: 3000'));
    await other.close();
    await stream.ends();
  });
});

// ---- helpers for the sections below ----------------------------------------------------

const enc = encodeURIComponent;
let counter = 0;
async function newLocation(): Promise<{ locationId: string; pKey: string }> {
  const locationId = `EVLK/${String(++counter).padStart(4, '0')}/0000/0000/0000`;
  const created = await wms.post('/v1/locations', { locationId, locationGroupName: 'WAREHOUSE' });
  expect(created.status, created.text).toBe(201);
  return { locationId, pKey: created.body.pKey };
}
const lock = (pKey: string, reason?: string, token?: string) =>
  wms.patch(`/v1/location/${pKey}?op=change-state`, { errorCode: '00000001', ...(reason ? { reason } : {}) }, token ? { token } : {});

/** A user with a role holding these grants, and a token of it. */
async function userWith(username: string, grants: string[]): Promise<{ pKey: string; token: string }> {
  const role = await wms.post('/roles', { name: `${username}-role`, grants });
  expect(role.status, role.text).toBe(201);
  const user = await wms.post('/users', { username, password: `${username}-password`, roleNames: [`${username}-role`] });
  expect(user.status, user.text).toBe(201);
  const res = await fetch(`${wms.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password: `${username}-password` }).toString(),
  });
  return { pKey: user.body.pKey, token: ((await res.json()) as { access_token: string }).access_token };
}

const ticketOf = async (token?: string) => {
  const reply = await wms.post('/v1/events/tickets', undefined, token ? { token } : {});
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { ticket: string; expiresIn: number };
};
const openWithTicket = async (ticket: string, query = '') => {
  const opened = await EventStream.open(`${wms.url}/v1/events?ticket=${enc(ticket)}${query}`, BROWSER);
  streams.push(opened.stream);
  return opened;
};

describe('what a browser sends', () => {
  it("answers text/event-stream whatever the Accept header: EventSource's, */*, none, or a JSON type", async () => {
    for (const accept of ['text/event-stream', '*/*', undefined, 'application/json', 'text/html,application/xhtml+xml']) {
      const { stream, response } = await open('', accept ? { Accept: accept } : {});
      expect(response.status, String(accept)).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      stream.close();
    }
  });

  it('a ticket opens the stream without an Authorization header; the first event is a lock with its actor and reason', async () => {
    const { ticket, expiresIn } = await ticketOf();
    expect(ticket).toMatch(/^[\w-]{20,}$/);
    expect(expiresIn).toBe(60);
    const { stream, response } = await openWithTicket(ticket, '&types=location.stateChanged');
    expect(response.status).toBe(200);
    const location = await newLocation();
    expect((await lock(location.pKey, 'conveyor jam, cleared by hand')).status).toBe(204);
    const [event] = await stream.until(named('location.stateChanged'));
    expect(dataOf(event!)).toMatchObject({
      type: 'location.stateChanged',
      actor: { kind: 'user', name: 'admin' },
      reason: 'conveyor jam, cleared by hand',
      subject: { kind: 'location', key: location.locationId },
      data: { locationId: location.locationId, field: 'incomingActive', value: false, from: true },
    });
  });

  it('a ticket is good once; an unknown one and a token-less request are refused with 401 in the server-declined shape', async () => {
    const { ticket } = await ticketOf();
    const first = await openWithTicket(ticket);
    expect(first.response.status).toBe(200);
    const again = await fetch(`${wms.url}/v1/events?ticket=${enc(ticket)}`, { headers: BROWSER });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { message: string }).message).toMatch(/already used or expired/);
    expectServerError(await wms.get('/v1/events?ticket=not-a-ticket', { anonymous: true, headers: BROWSER }), 401);
    expectServerError(await wms.get('/v1/events', { anonymous: true, headers: BROWSER }), 401);
  });

  it('a ticket acts for its user only: its grants, and a user locked before redeeming it is refused', async () => {
    const reader = await userWith('ev-reader', ['events:read']);
    const { ticket } = await ticketOf(reader.token);
    // Issued to the reader, the stream runs as the reader.
    const { stream } = await openWithTicket(ticket, '&types=location.*');
    const location = await newLocation();
    expect((await lock(location.pKey)).status).toBe(204);
    await stream.until(named('location.stateChanged'));

    const nobody = await userWith('ev-nobody', ['locations:read']);
    expectServerError(await wms.post('/v1/events/tickets', undefined, { token: nobody.token }), 403);

    const later = await ticketOf(reader.token);
    const locked = await wms.put('/users', { ...(await wms.get(`/users/${reader.pKey}`)).body, locked: true });
    expect(locked.status, locked.text).toBe(200);
    expectServerError(await wms.get(`/v1/events?ticket=${enc(later.ticket)}`, { anonymous: true, headers: BROWSER }), 401);
  });

  it('a user locked, disabled or deprived of events:read while streaming loses the stream', async () => {
    for (const [name, change] of [
      ['ev-locked', (u: Record<string, unknown>) => ({ ...u, locked: true })],
      ['ev-disabled', (u: Record<string, unknown>) => ({ ...u, enabled: false })],
      ['ev-demoted', (u: Record<string, unknown>) => ({ ...u, roleNames: [] })],
    ] as const) {
      const user = await userWith(name, ['events:read']);
      const { stream } = await openWithTicket((await ticketOf(user.token)).ticket);
      await stream.until(() => stream.raw.join('').includes('retry:'));
      const changed = await wms.put('/users', change((await wms.get(`/users/${user.pKey}`)).body));
      expect(changed.status, changed.text).toBe(200);
      await stream.ends();
      expect(stream.events.at(-1)).toMatchObject({ event: 'closed' });
    }
    // A deleted user too.
    const gone = await userWith('ev-deleted', ['events:read']);
    const { stream } = await openWithTicket((await ticketOf(gone.token)).ticket);
    await stream.until(() => stream.raw.join('').includes('retry:'));
    expect((await wms.del(`/users/${gone.pKey}`)).status).toBe(204);
    await stream.ends();
  });
});

describe('replay from the durable log', () => {
  it('after a restart a view replays from its last id without a reset', async () => {
    const dataDir = tempDir();
    let first: TestAppliance | undefined = await startTestAppliance({}, dataDir);
    let second: TestAppliance | undefined;
    try {
      const token = await first.token();
      const { stream } = await EventStream.open(`${first.url}/v1/events?types=location.created`, { Authorization: `Bearer ${token}`, ...BROWSER });
      expect((await first.post('/v1/locations', { locationId: 'RSTR/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' })).status).toBe(201);
      const seen = (await stream.until(named('location.created')))[0]!;
      await first.app.close(); // the data directory stays
      await stream.ends();
      first = undefined;

      second = await startTestAppliance({}, dataDir);
      for (const n of ['0002', '0003']) {
        expect((await second.post('/v1/locations', { locationId: `RSTR/${n}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' })).status).toBe(201);
      }
      const back = await EventStream.open(`${second.url}/v1/events?types=location.created`, {
        Authorization: `Bearer ${await second.token()}`,
        'Last-Event-ID': seen.id!,
        ...BROWSER,
      });
      const replayed = await back.stream.until((events) => events.length >= 2);
      back.stream.close();
      expect(replayed.map((e) => e.event)).toEqual(['location.created', 'location.created']);
      expect(replayed.map((e) => dataOf(e).data.locationId)).toEqual(['RSTR/0002/0000/0000/0000', 'RSTR/0003/0000/0000/0000']);
      expect(Number(replayed[0]!.id)).toBeGreaterThan(Number(seen.id));
    } finally {
      await first?.close();
      await second?.close();
    }
  });

  it('a replay longer than one read of the log comes whole, in order, and joins the live events without gaps or doubles', async () => {
    const first = await open('?types=locationGroup.stateChanged');
    const group = await wms.post('/v1/location-groups', { name: 'EV-REPLAY', parentName: 'WAREHOUSE' });
    expect(group.status).toBe(201);
    const toggle = (state: string) => wms.patch(`/v1/location-group/${group.body.pKey}?op=change-state&statein=${state}`);
    expect((await toggle('NOT_AVAILABLE')).status).toBe(204);
    const mark = (await first.stream.until(named('locationGroup.stateChanged')))[0]!.id!;
    first.stream.close();
    // 1,200 changes while away: more than one page of the replay. One commit: 1,200
    // commits one after the other would hold the loop for seconds on a slow disk.
    const { work } = wms.app;
    const common = wms.app.module('common');
    work.run(() => {
      for (let i = 0; i < 1200; i++) common.locationGroups.changeState(group.body.pKey, { groupStateIn: i % 2 ? 'NOT_AVAILABLE' : 'AVAILABLE' });
    });
    const back = await open('?types=locationGroup.stateChanged', { 'Last-Event-ID': mark });
    // More while it replays.
    for (const state of ['AVAILABLE', 'NOT_AVAILABLE']) expect((await toggle(state)).status).toBe(204);
    const all = await back.stream.until((events) => events.length >= 1202, 20_000);
    const ids = all.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(1202);
  });
});

describe('replays of the whole log', () => {
  /** A tree of 100 location groups: a change of its root's state is 100 events, of its last leaf's one. */
  async function groupTree(name: string) {
    const root = await wms.post('/v1/location-groups', { name, parentName: 'WAREHOUSE' });
    expect(root.status, root.text).toBe(201);
    let leaf = root;
    for (let i = 0; i < 99; i++) {
      leaf = await wms.post('/v1/location-groups', { name: `${name}-${i}`, parentName: name });
      expect(leaf.status, leaf.text).toBe(201);
    }
    const { work } = wms.app;
    const common = wms.app.module('common');
    const toggle = (pKey: string) => (round: number) =>
      work.run(() => common.locationGroups.changeState(pKey, { groupStateIn: round % 2 ? 'AVAILABLE' : 'NOT_AVAILABLE' }));
    return { hundred: toggle(root.body.pKey), one: toggle(leaf.body.pKey) };
  }
  /** The ids the log holds now, oldest first. */
  const logIds = () => wms.app.events.after(0, 1_000_000).map((e) => e.id);
  // Thousands of events committed at once would overrun the streams earlier tests left open.
  beforeEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  it('many clients replaying from the start at once each get every event once, in order, then what was committed meanwhile; /healthz answers all along', async () => {
    const toggle = await groupTree('EV-MANY');
    // Several thousand events in the log.
    for (let round = 0; round < 50; round++) toggle.hundred(round);
    const token = await wms.token();
    const clients = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const opened = await EventStream.open(`${wms.url}/v1/events`, { Authorization: `Bearer ${token}`, 'Last-Event-ID': '0', ...BROWSER });
        streams.push(opened.stream);
        return opened.stream;
      }),
    );
    // While they replay: changes commit now and then, and the appliance answers other requests.
    // At least one round, however fast the replays end.
    let round = 0;
    let replaying: number;
    do {
      toggle.one(round++);
      const health = await fetch(`${wms.url}/healthz`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { status: string }).status).toBe('UP');
      const state = await streamState();
      replaying = state.serving + state.waiting;
    } while (replaying > 0);
    const ids = logIds();
    for (const client of clients) {
      const received = await client.until((events) => events.at(-1)?.id === String(ids.at(-1)), 60_000);
      expect(received.map((e) => Number(e.id))).toEqual(ids);
    }
  }, 120_000);

  it('holds nothing in memory for a client that replays and does not read: what commits meanwhile comes from the log when it reads again', async () => {
    const toggle = await groupTree('EV-HOLD');
    const { work } = wms.app;
    const stalledBefore = (await streamState()).stalled;
    const token = await wms.token();
    // A client that replays from the start and does not read: the log grows until its
    // replay is more than its socket buffers take, and the replay waits for it.
    let client: RawEventStream | undefined;
    for (let round = 0; !client && round < 2000; round += 20) {
      work.run(() => {
        for (let i = round; i < round + 20; i++) toggle.hundred(i);
      });
      const candidate = await RawEventStream.open(`${wms.url}/v1/events`, { Authorization: `Bearer ${token}`, 'Last-Event-ID': '0' });
      let live = await streamState();
      await until(
        async () => {
          live = await streamState();
          return live.open > 0 && (live.blocked > 0 || live.serving + live.waiting === 0);
        },
        'its request is in and its replay waits for it or has caught up',
        30_000,
      );
      if (live.blocked === 1) client = candidate;
      else candidate.close(); // it caught up: the log is not long enough yet
    }
    if (!client) throw new Error('no replay ever waited for its client');
    try {
      // 30,000 events more while it does not read: more than any stream may have buffered.
      for (let round = 0; round < 300; round++) toggle.hundred(round);
      expect(await streamState()).toMatchObject({ stalled: stalledBefore, serving: 1, blocked: 1 });
      client.read();
      const ids = logIds();
      await until(() => client!.ids.at(-1) === ids.at(-1) || client!.closed, 'the client has read the whole log', 60_000);
      expect(client.ids).toEqual(ids);
      expect(client.closed).toBe(false);
      expect((await streamState()).stalled).toBe(stalledBefore);
    } finally {
      client.close();
    }
  }, 120_000);
});

describe('a client that does not read', () => {
  it('is disconnected once its unsent data passes the bound, while the other streams go on receiving', async () => {
    for (const stream of streams.splice(0)) stream.close();
    const token = await wms.token();
    const stalledBefore = (await streamState()).stalled;
    // A raw socket that sends the request and then never reads: its buffers fill up.
    const stalled = net.connect(wms.app.port, '127.0.0.1');
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write(
      `GET /v1/events?types=locationGroup.stateChanged HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    stalled.pause();
    let closed = false;
    stalled.on('close', () => (closed = true));
    stalled.on('error', () => {});
    const healthy = await open('?types=locationGroup.stateChanged');
    await healthy.stream.until(() => healthy.stream.raw.join('').includes('retry:'));

    // A group tree of 100 groups: each state change of the root is 100 events.
    const root = await wms.post('/v1/location-groups', { name: 'EV-STALL', parentName: 'WAREHOUSE' });
    for (let i = 0; i < 99; i++) expect((await wms.post('/v1/location-groups', { name: `EV-STALL-${i}`, parentName: 'EV-STALL' })).status).toBe(201);
    const { work } = wms.app;
    const common = wms.app.module('common');
    let sent = 0;
    for (let round = 0; (await streamState()).stalled === stalledBefore && round < 1000; round++) {
      work.run(() => common.locationGroups.changeState(root.body.pKey, { groupStateIn: round % 2 ? 'AVAILABLE' : 'NOT_AVAILABLE' }));
      sent += 100;
      // The reading client (in this process) gets its turn, as a real one would keep reading.
      await new Promise((r) => setTimeout(r, 1));
    }
    expect((await streamState()).stalled).toBe(stalledBefore + 1);
    expect(wms.logs().some((line) => line.includes('the client does not read'))).toBe(true);
    // The healthy stream got every one of them.
    await healthy.stream.until((events) => events.length >= sent, 30_000);
    stalled.resume();
    await new Promise<void>((resolve) => (closed ? resolve() : stalled.once('close', () => resolve())));
  }, 120_000);
});
