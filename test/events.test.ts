import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type TestAppliance } from './support/appliance.ts';

// The live event stream (`GET /v1/events`, Server-Sent Events) read over real HTTP.

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** An open event stream: its events as they arrive, parsed from the raw bytes. */
class EventStream {
  readonly events: SseEvent[] = [];
  readonly raw: string[] = [];
  ended = false;
  private readonly controller = new AbortController();
  private waiters: Array<() => void> = [];

  static async open(url: string, token: string, headers: Record<string, string> = {}): Promise<{ stream: EventStream; response: Response }> {
    const stream = new EventStream();
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, ...headers }, signal: stream.controller.signal });
    if (response.ok) void stream.pump(response);
    return { stream, response };
  }

  private async pump(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body!) {
        const text = decoder.decode(chunk as Uint8Array, { stream: true });
        this.raw.push(text);
        buffer += text;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) continue; // comments (keep-alive) and blank lines
            const field = line.slice(0, colon) as keyof SseEvent | 'retry';
            if (field === 'retry') continue;
            event[field] = line.slice(colon + 1).trimStart();
          }
          if (Object.keys(event).length) this.events.push(event);
        }
        this.wake();
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Waits until `predicate` holds for the events so far (or the stream ends, or 5 s pass). */
  async until(predicate: (events: SseEvent[]) => boolean, timeoutMs = 5000): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.events)) {
      if (this.ended) throw new Error(`stream ended; events: ${JSON.stringify(this.events)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; events: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.events;
  }

  /** Until the stream ended (the server closed it). */
  async ends(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (!this.ended) throw new Error('the stream is still open');
  }

  close(): void {
    this.controller.abort();
  }
}

const named = (type: string) => (events: SseEvent[]) => events.some((e) => e.event === type);
const dataOf = (e: SseEvent) => JSON.parse(e.data!) as { type: string; at: string; data: Record<string, unknown> };

let wms: TestAppliance;
const streams: EventStream[] = [];
const open = async (query = '', headers: Record<string, string> = {}) => {
  const { stream, response } = await EventStream.open(`${wms.url}/v1/events${query}`, await wms.token(), headers);
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
    expect(response.headers.get('cache-control')).toBe('no-cache');

    expect((await wms.post('/v1/locations', { locationId: 'EVNT/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    const events = await stream.until(named('location.created'));
    const created = events.find((e) => e.event === 'location.created')!;
    expect(created.id).toMatch(/^\d+$/);
    expect(dataOf(created)).toMatchObject({ id: Number(created.id), actor: { kind: 'user', name: 'admin' }, subject: { kind: 'location', key: 'EVNT/0001/0000/0000/0000' } });
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
    expect((await wms.post('/v1/transport-units', { barcode: 'EVNT-TU-1', actualLocation: 'EVNT/0003/0000/0000/0000', transportUnitType: 'EURO' })).status).toBe(201);
    expect((await wms.post('/v1/location-groups', { name: 'EVNT-GROUP' })).status).toBe(201);
    const events = await stream.until(named('locationGroup.created'));
    expect(events.map((e) => e.event)).toEqual(['transportUnit.created', 'locationGroup.created']);
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
    expect(own.body._links['events-stream'].href).toBe(`${wms.url}/v1/events?types={types}&lastEventId={lastEventId}&ticket={ticket}`);
  });
});

describe('stopping the appliance', () => {
  it('ends the open streams, so that the appliance stops at once', async () => {
    const other = await startTestAppliance();
    const { stream, response } = await EventStream.open(`${other.url}/v1/events`, await other.token());
    expect(response.status).toBe(200);
    await stream.until(() => stream.raw.join('').includes('retry: 3000'));
    await other.close();
    await stream.ends();
  });
});
