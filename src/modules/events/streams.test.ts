import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../../db/migrations/index.ts';
import { EventStream } from '../../../test/support/event-stream.ts';
import { openDatabase, type Db } from '../../core/db.ts';
import { EventLog } from '../../core/event-log.ts';
import { createLogger } from '../../core/log.ts';
import { migrate } from '../../core/migrations.ts';
import { UnitOfWork } from '../../core/unit-of-work.ts';
import type { Principal } from '../../http/context.ts';
import { frameOf, LiveStreams } from './streams.ts';

// The live streams over a real node:http server and a real event log, with the timing
// knobs turned down: the heartbeat every 30 ms instead of every 15 s.

const reader: Principal = { id: 'p-1', username: 'reader', kind: 'user', grants: new Set(['events:read']), roleNames: [] };
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function setUp(options: { heartbeatMs?: number } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wms-streams-'));
  const db: Db = openDatabase({ file: path.join(dir, 'db.sqlite'), busyTimeoutMs: 1000 });
  const log = createLogger({ level: 'silent' });
  migrate(db, migrations, { backupDir: path.join(dir, 'backups'), backupsToKeep: 1, log });
  const events = new EventLog(db);
  const work = new UnitOfWork(db, events, (err) => {
    throw err;
  });
  const streams = new LiveStreams(events, work.bus, (p) => p, log, options);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    streams.open(res, reader, () => true, undefined);
  });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => db.close(), () => streams.shutdown(), () => new Promise((r) => server.close(r)));
  return { work, streams, server };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

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
    cleanup.push(() => a.stream.close(), () => b.stream.close());
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
});
