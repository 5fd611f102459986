import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../../db/migrations/index.ts';
import { EventStream, RawEventStream } from '../../../test/support/event-stream.ts';
import { until as waitUntil } from '../../../test/support/warehouse.ts';
import { asActor } from '../../core/actor.ts';
import { openDatabase, type Db } from '../../core/db.ts';
import type { EventRecord } from '../../core/event-catalogue.ts';
import { EventLog } from '../../core/event-log.ts';
import { EventBus } from '../../core/events.ts';
import { createLogger } from '../../core/log.ts';
import { migrate } from '../../core/migrations.ts';
import { ReadPool } from '../../core/read-pool.ts';
import { UnitOfWork } from '../../core/unit-of-work.ts';
import type { Principal } from '../../http/context.ts';
import type { StreamFilter } from './filter.ts';
import { frameOf } from './frames.ts';
import { LiveStreams, type StreamOptions } from './streams.ts';

// The live streams over a real node:http server and a real event log, with the timing
// knobs turned down: the heartbeat every 30 ms instead of every 15 s, and, where a test
// is about the bounds of the replays, fewer replays at once and a shorter patience with
// a client that does not read.

const reader: Principal = { id: 'p-1', username: 'reader', kind: 'user', grants: new Set(['events:read']), roleNames: [] };
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/**
 * `heldBack`: the streams hear of commits only when `release()` is called, as on the HTTP
 * thread, which hears of the conveyor thread's commits a moment after its read
 * connections can see them.
 */
function setUp(options: StreamOptions = {}, heldBack = false) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wms-streams-'));
  const file = path.join(dir, 'db.sqlite');
  const db: Db = openDatabase({ file, busyTimeoutMs: 1000 });
  const log = createLogger({ level: 'silent' });
  migrate(db, migrations, { backupDir: path.join(dir, 'backups'), backupsToKeep: 1, log });
  const events = new EventLog(db);
  const work = new UnitOfWork(db, events, (err) => {
    throw err;
  });
  const reads = new ReadPool({ file, size: 2 });
  const heard = heldBack
    ? new EventBus((err) => {
        throw err;
      })
    : work.bus;
  const held: EventRecord[] = [];
  if (heldBack) work.bus.onAny((event) => held.push(event));
  /** Tells the streams of the events held back so far, or of the first `events` of them (on disk: the streams hear of events once they are). */
  const release = (events = held.length) => heard.deliver(held.splice(0, events), true);
  const streams = new LiveStreams(events, reads, heard, (p) => p, log, options);
  /** Streams opened on a response already closed (`?gone`: the client left while the request waited). */
  const late = { opened: 0 };
  /** What the streams opened with `?writes` were written, call by call, and to which response. */
  const writes: { chunk: string | Buffer; text: string; res: http.ServerResponse }[] = [];
  /** One filter per `?type=`, shared by the streams that ask for it, as the route's are (filter.ts). */
  const filters = new Map<string | null, StreamFilter>();
  const handler: http.RequestListener = (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const last = req.headers['last-event-id'];
    const query = new URL(req.url!, 'http://x').searchParams;
    if (query.has('writes')) {
      const write = res.write.bind(res) as (chunk: string | Buffer) => boolean;
      res.write = ((chunk: string | Buffer) => {
        writes.push({ chunk, text: chunk.toString(), res });
        return write(chunk);
      }) as typeof res.write;
    }
    // `?type=…`: that type only.
    const only = query.get('type');
    let wanted = filters.get(only);
    if (!wanted) {
      wanted = (type) => only === null || type === only;
      filters.set(only, wanted);
    }
    const open = () => streams.open(res, reader, wanted, typeof last === 'string' ? last : undefined);
    if (!query.has('gone')) return open();
    res.once('close', () => {
      open();
      late.opened++;
    });
    req.socket.destroy();
  };
  const server = http.createServer(handler);
  // The same streams on a Unix socket, for the clients that do not read: its buffers hold
  // a few hundred kilobytes, where those of a loopback TCP connection grow to megabytes,
  // so such a client holds its replay up after thousands of events, not hundreds of
  // thousands. What the tests check (how the streams wait for a client) is the same.
  const local = http.createServer(handler);
  const socketPath = path.join(dir, 'streams.sock');
  cleanup.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => db.close(),
    () => reads.close(),
    () => streams.shutdown(),
    () => new Promise((r) => server.close(r)),
    () => new Promise((r) => (local.listening ? local.close(r) : r(undefined))),
  );
  /** Listens on the Unix socket; resolves with its path. */
  const listenLocal = () => new Promise<string>((resolve) => local.listen(socketPath, () => resolve(socketPath)));
  /** `n` events committed in units of 1,000 (what a busy hall writes in a few seconds). */
  const commit = (n: number) => {
    for (let done = 0; done < n; done += 1000) {
      work.run(() => {
        for (let i = done; i < Math.min(n, done + 1000); i++) work.emit({ type: 'backup.deleted', key: `b-${i}`, data: { name: `backup-${i}` } });
      });
    }
  };
  return { work, streams, server, listenLocal, events, commit, release, late, writes };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** The shared wait for a state, with a deadline for a busy box: the replays rest while the loop is busy. */
const until = (check: () => boolean, what: string, timeoutMs = 45_000) => waitUntil(check, what, timeoutMs);

/** A client on the Unix socket `socketPath` replaying from `lastEventId` that reads nothing until told to. */
async function rawClient(socketPath: string, lastEventId: string): Promise<RawEventStream> {
  const client = await RawEventStream.open('http://localhost/', { 'Last-Event-ID': lastEventId }, socketPath);
  cleanup.push(() => client.close());
  return client;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('LiveStreams', () => {
  it('sends a keep-alive comment at every heartbeat', async () => {
    const { server } = setUp({ heartbeatMs: 30 });
    const { stream } = await EventStream.open(await listen(server));
    cleanup.push(() => stream.close());
    await stream.until(() => stream.raw.join('').split(': keep-alive').length > 3);
    expect(stream.events).toEqual([]);
  });

  it('serialises an event once for every stream: the same frame, built on first use', async () => {
    const { server, work } = setUp();
    const url = await listen(server);
    const a = await EventStream.open(url);
    const b = await EventStream.open(url);
    cleanup.push(
      () => a.stream.close(),
      () => b.stream.close(),
    );
    await a.stream.until(() => a.stream.raw.join('').includes('retry:'));
    await b.stream.until(() => b.stream.raw.join('').includes('retry:'));
    const stringify = JSON.stringify;
    let calls = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      calls++;
      return stringify(...args);
    }) as typeof stringify;
    let record;
    try {
      record = work.run(() => work.emit({ type: 'backup.deleted', key: 'b-1', data: { name: 'b-1' } }));
    } finally {
      JSON.stringify = stringify;
    }
    // Once for the log row, once for the frame: not once per stream.
    expect(calls).toBe(2);
    await a.stream.until((events) => events.length === 1);
    await b.stream.until((events) => events.length === 1);
    expect(a.stream.events[0]).toEqual(b.stream.events[0]);
    expect(frameOf(record)).toBe(`id: ${record.id}\nevent: backup.deleted\ndata: ${stringify(record)}\n\n`);
  });

  it("writes a commit's events to a stream at once: one write for the unit's frames", async () => {
    const { server, work, writes } = setUp();
    const { stream } = await EventStream.open(`${await listen(server)}?writes`);
    cleanup.push(() => stream.close());
    await stream.until(() => stream.raw.join('').includes('retry:'));
    work.run(() => {
      for (const key of ['b-1', 'b-2', 'b-3']) work.emit({ type: 'backup.deleted', key, data: { name: key } });
    });
    await stream.until((events) => events.length === 3);
    work.run(() => work.emit({ type: 'backup.deleted', key: 'b-4', data: { name: 'b-4' } }));
    await stream.until((events) => events.length === 4);
    const framed = writes.filter((w) => w.text.startsWith('id: '));
    expect(framed.map((w) => w.text.split('\n\n').filter(Boolean).length)).toEqual([3, 1]);
    expect(stream.events.map((e) => JSON.parse(e.data!).subject.key)).toEqual(['b-1', 'b-2', 'b-3', 'b-4']);
  });

  it('writes the frames of every commit of one turn of the event loop in one write, as a busy HTTP thread hears them', async () => {
    const { server, work, writes, release } = setUp({}, true);
    const { stream } = await EventStream.open(`${await listen(server)}?writes`);
    cleanup.push(() => stream.close());
    await stream.until(() => stream.raw.join('').includes('retry:'));
    // Three commits told as the conveyor thread tells the HTTP thread: a message each,
    // which a busy thread takes in one turn, each in a callback of its own.
    const { port1, port2 } = new MessageChannel();
    cleanup.push(() => port1.close());
    port2.on('message', () => release(1));
    for (const key of ['b-1', 'b-2', 'b-3']) {
      work.run(() => work.emit({ type: 'backup.deleted', key, data: { name: key } }));
      port1.postMessage('committed');
    }
    await stream.until((events) => events.length === 3);
    const framed = writes.filter((w) => w.text.startsWith('id: '));
    expect(framed.map((w) => w.text.split('\n\n').filter(Boolean).length)).toEqual([3]);
    expect(stream.events.map((e) => JSON.parse(e.data!).subject.key)).toEqual(['b-1', 'b-2', 'b-3']);
  });

  it('writes streams of one filter the same bytes, encoded once; a stream of another filter its own', async () => {
    const { server, work, writes } = setUp();
    const url = await listen(server);
    const opened = await Promise.all(
      [`${url}?writes&type=backup.deleted`, `${url}?writes&type=backup.deleted`, `${url}?writes`].map((u) => EventStream.open(u)),
    );
    cleanup.push(
      ...opened.map(
        ({ stream }) =>
          () =>
            stream.close(),
      ),
    );
    for (const { stream } of opened) await stream.until(() => stream.raw.join('').includes('retry:'));
    work.run(() => {
      work.emit({ type: 'backup.deleted', key: 'b-1', data: { name: 'b-1' } });
      work.emit({
        type: 'location.stateChanged',
        key: 'CONV/0001/0004/0000/0000',
        data: { pKey: 'p-1', locationId: 'CONV/0001/0004/0000/0000', field: 'plcState', value: 1, from: 0 },
      });
    });
    const [a, b, all] = opened.map(({ stream }) => stream);
    await a!.until((events) => events.length === 1);
    await b!.until((events) => events.length === 1);
    await all!.until((events) => events.length === 2);
    const framed = writes.filter((w) => w.text.startsWith('id: '));
    expect(framed).toHaveLength(3);
    const byType = framed.filter((w) => !w.text.includes('location.stateChanged'));
    expect(byType).toHaveLength(2);
    expect(byType[0]!.res).not.toBe(byType[1]!.res);
    expect(byType[0]!.chunk).toBeInstanceOf(Buffer);
    expect(byType[0]!.chunk).toBe(byType[1]!.chunk);
    expect(a!.raw.join('')).toBe(b!.raw.join(''));
  });

  it('replays an event with the very bytes it had live: the frame built from the stored row', async () => {
    const { server, work } = setUp();
    const url = await listen(server);
    const live = await EventStream.open(url);
    cleanup.push(() => live.stream.close());
    await live.stream.until(() => live.stream.raw.join('').includes('retry:'));
    // Quotes, backslashes, line separators, emoji, nested data, a reason, every kind of actor.
    const name = 'Nacht "B" \\ Ü\u2028😀 </script>';
    asActor({ kind: 'user', name: 'O\'Brien "nights"' }, () =>
      work.run(() => {
        work.emit({ type: 'backup.deleted', key: name, data: { name } });
        work.emit({
          type: 'location.stateChanged',
          key: 'CONV/0001/0004/0000/0000',
          reason: 'roller 4 "broken"\n\tsee log',
          data: { pKey: 'p-1', locationId: 'CONV/0001/0004/0000/0000', field: 'plcState', value: { code: 7, text: 'ÄÖ' }, from: [1, 2.5, null, true] },
        });
      }),
    );
    asActor({ kind: 'plc', name: 'CNV01' }, () => work.run(() => work.emit({ type: 'backup.deleted', key: 'b-2', data: { name: 'b-2' } })));
    work.run(() => work.emit({ type: 'backup.deleted', key: 'b-3', data: { name: '' } }));
    await live.stream.until((events) => events.length === 4);
    const replayed = await EventStream.open(url, { 'Last-Event-ID': '0' });
    cleanup.push(() => replayed.stream.close());
    await replayed.stream.until((events) => events.length === 4);
    const frames = (s: EventStream) =>
      s.raw
        .join('')
        .split('\n\n')
        .filter((f) => f.startsWith('id: '));
    expect(frames(replayed.stream)).toEqual(frames(live.stream));
    expect(frames(live.stream)).toHaveLength(4);
    // A stream that wants some types only gets those frames out of the page, byte for byte.
    const some = await EventStream.open(`${url}?type=backup.deleted`, { 'Last-Event-ID': '0' });
    cleanup.push(() => some.stream.close());
    await some.stream.until((events) => events.length === 3);
    expect(frames(some.stream)).toEqual(frames(live.stream).filter((f) => f.includes('event: backup.deleted\n')));
  });

  it('reads and frames a page of the log once for all the replays that need it', async () => {
    const { server, events, commit, streams } = setUp();
    const url = await listen(server);
    commit(1280); // ten pages of 128
    let reads = 0;
    const read = events.storedAfter.bind(events);
    events.storedAfter = (...args) => {
      reads++;
      return read(...args);
    };
    const clients = await Promise.all(Array.from({ length: 5 }, () => EventStream.open(url, { 'Last-Event-ID': '0' })));
    cleanup.push(() => clients.forEach((c) => c.stream.close()));
    for (const { stream } of clients) {
      await stream.until((received) => received.length === 1280);
      expect(stream.events.map((e) => Number(e.id))).toEqual(range(1, 1280));
    }
    await until(() => streams.replaying.serving + streams.replaying.waiting === 0, 'every replay gone live');
    // Each full page once, and for each replay the read that found the end of the log.
    expect(reads).toBe(10 + 5);
  });

  it('a response closed before its stream opens is not kept as a stream, with or without a replay', async () => {
    const { server, streams, commit, late } = setUp();
    const url = await listen(server);
    commit(10);
    for (const headers of [{}, { 'Last-Event-ID': '0' }]) await fetch(`${url}?gone`, { headers }).catch(() => undefined);
    await until(() => late.opened === 2, 'both streams opened');
    expect(streams.size).toBe(0);
    expect(streams.replaying).toMatchObject({ serving: 0, waiting: 0 });
  });

  it('a replay that retention outran while its client did not read is told to reset, never skips the pruned events without a word, then goes live', async () => {
    const { listenLocal, streams, commit, events } = setUp();
    const local = await listenLocal();
    commit(2_000);
    const client = await rawClient(local, '0');
    // The log grows until the replay is held up by its client's full buffers.
    await until(() => {
      if (streams.replaying.blocked === 1) return true;
      commit(1000);
      return false;
    }, 'the replay held up by its client');
    // Retention keeps the newest 1,000 only: most of what the replay had yet to send is gone.
    const before = events.newest();
    events.prune('1970-01-01T00:00:00.000Z', 1000, 1_000_000);
    const oldest = events.oldest()!;
    expect(oldest).toBe(before - 999);
    client.read();
    await until(() => client.resets.length === 1, 'the reset');
    // Every id before the reset in order from the first; none of the pruned ones after it.
    const sent = client.resets[0]!;
    await until(() => streams.replaying.serving + streams.replaying.waiting === 0, 'the stream gone live');
    expect(client.ids.slice(0, sent)).toEqual(range(1, sent));
    expect(sent).toBeLessThan(oldest - 1);
    // Live from then on: what commits next comes, once.
    commit(3);
    const newest = events.newest();
    await until(() => client.ids.at(-1) === newest, 'the live events');
    expect(client.ids.slice(sent)).toEqual(range(newest - 2, newest));
  }, 120_000);

  it('replays only what the streams were handed: an event committed but not handed out yet comes live, once', async () => {
    const { server, commit, release, events, streams } = setUp({}, true);
    const url = await listen(server);
    commit(5);
    release();
    // Committed, in the log, not handed out yet (with storage.flush: apart, maybe not on
    // disk yet): the replay stops before it and goes live.
    commit(1);
    const { stream } = await EventStream.open(url, { 'Last-Event-ID': '0' });
    cleanup.push(() => stream.close());
    await stream.until((received) => received.length === 5);
    await until(() => streams.replaying.serving + streams.replaying.waiting === 0, 'the stream gone live');
    expect(stream.events.map((e) => Number(e.id))).toEqual(range(1, 5));
    release();
    commit(1);
    release();
    await stream.until((received) => received.some((e) => Number(e.id) === events.newest()));
    expect(stream.events.map((e) => Number(e.id))).toEqual(range(1, 7));
  });

  it('serves a bounded number of replays at once; the others wait their turn and then get every event once, in order', async () => {
    const { listenLocal, streams, commit, events } = setUp({ replay: { concurrent: 2 } });
    const local = await listenLocal();
    commit(2_000);
    // Five clients replaying from the start that do not read yet.
    const clients: RawEventStream[] = [];
    for (let i = 0; i < 5; i++) clients.push(await rawClient(local, '0'));
    // The log grows until the two served are held up by their clients' full buffers.
    let most = 0;
    const watch = () => (most = Math.max(most, streams.replaying.serving));
    await until(() => {
      watch();
      if (streams.replaying.blocked >= 2) return true;
      commit(1000);
      return false;
    }, 'two replays held up by their clients');
    expect(streams.replaying).toMatchObject({ serving: 2, waiting: 3 });
    for (const client of clients) client.read();
    const newest = events.newest();
    await until(
      () => {
        watch();
        return clients.every((c) => c.ids.at(-1) === newest);
      },
      'every client has the whole log',
      150_000,
    );
    expect(most).toBe(2);
    for (const client of clients) expect(client.ids).toEqual(range(1, newest));
    expect(streams.replaying).toMatchObject({ serving: 0, waiting: 0 });
  }, 180_000);

  it('serves the first page of a replay on arrival: a view that missed a few events does not wait behind long replays', async () => {
    const { server, listenLocal, streams, commit, events } = setUp({ replay: { concurrent: 1 } });
    const url = await listen(server);
    const local = await listenLocal();
    commit(2_000);
    const long = await rawClient(local, '0');
    await until(() => {
      if (streams.replaying.blocked >= 1) return true;
      commit(1000);
      return false;
    }, 'the long replay held up by its client');
    const newest = events.newest();
    const short = await EventStream.open(url, { 'Last-Event-ID': String(newest - 3) });
    cleanup.push(() => short.stream.close());
    await short.stream.until((received) => received.length === 3);
    // Live from there on, while the long replay still waits for its client.
    commit(1);
    await short.stream.until((received) => received.length === 4);
    expect(short.stream.events.map((e) => Number(e.id))).toEqual(range(newest - 2, newest + 1));
    expect(streams.replaying).toMatchObject({ serving: 1, waiting: 0 });
    expect(long.closed).toBe(false);
  }, 120_000);

  it('gives up a replay whose client takes nothing for a while, and serves the next one in its place', async () => {
    const { listenLocal, streams, commit, events } = setUp({ heartbeatMs: 30, replay: { concurrent: 1, stallMs: 300 } });
    const local = await listenLocal();
    commit(2_000);
    const stalled = await rawClient(local, '0');
    await until(() => {
      if (streams.replaying.blocked >= 1) return true;
      commit(1000);
      return false;
    }, 'the replay held up by its client');
    const next = await rawClient(local, '0');
    next.read();
    await until(() => streams.stalled === 1, 'the stalled client given up');
    // Its socket was closed: it notices as soon as it reads again.
    stalled.read();
    await until(() => stalled.closed, 'the stalled client disconnected');
    const newest = events.newest();
    await until(() => next.ids.at(-1) === newest, 'the next replay done');
    expect(next.ids).toEqual(range(1, newest));
  }, 120_000);
});
