import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, RawClient, captureLog, waitFor } from '../../test/support/plc.ts';
import type { Connection, LinkEvents } from './link.ts';
import { TcpServerLink } from './tcp-server.ts';

// The listening link over real loopback sockets: it reports connections and bytes,
// and closes what it is told to close, after what was written has gone out.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

function recorder() {
  const seen: string[] = [];
  const conns: Connection[] = [];
  const received = new Map<number, Buffer>();
  const events: LinkEvents = {
    waiting: () => seen.push('waiting'),
    opened: (conn) => {
      conns.push(conn);
      seen.push(`opened ${conn.id}`);
    },
    data: (conn, chunk) => received.set(conn.id, Buffer.concat([received.get(conn.id) ?? Buffer.alloc(0), chunk])),
    closed: (conn, reason) => seen.push(`closed ${conn.id} ${reason}`),
  };
  return { seen, conns, received, events };
}

async function listening() {
  const rec = recorder();
  const { log } = captureLog();
  const link = new TcpServerLink({ host: '127.0.0.1', port: 0 }, { events: rec.events, log });
  await link.start();
  cleanup.add(() => link.stop());
  return { link, rec, port: link.address()!.port };
}

describe('TcpServerLink', () => {
  it('listens, reports every connection with its remote address, and the bytes each one carries', async () => {
    const { link, rec, port } = await listening();
    expect(link.endpoint).toBe(`listen 127.0.0.1:${port}`);
    expect(rec.seen).toEqual(['waiting']);
    const a = await RawClient.connect(port);
    const b = await RawClient.connect(port);
    cleanup.add(() => a.close());
    cleanup.add(() => b.close());
    await waitFor(() => rec.conns.length === 2, 3000, 'two connections');
    expect(rec.conns[0]!.peer).toBe(`127.0.0.1:${a.socket.localPort}`);
    await a.write('from a');
    await b.write('from b');
    await waitFor(() => rec.received.size === 2, 3000, 'bytes of both');
    expect(rec.received.get(rec.conns[0]!.id)!.toString()).toBe('from a');
    expect(rec.received.get(rec.conns[1]!.id)!.toString()).toBe('from b');
    expect(rec.conns[1]!.write(Buffer.from('to b'))).toBe(true);
    await waitFor(() => b.bytes.toString() === 'to b', 3000, 'the write');
    expect(a.bytes.length).toBe(0);
  });

  it("takes in and reports every connection, however many: which ones give way is the session's decision", async () => {
    const { rec, port } = await listening();
    const clients = await Promise.all(Array.from({ length: 20 }, () => RawClient.connect(port)));
    for (const c of clients) cleanup.add(() => c.close());
    await waitFor(() => rec.conns.length === 20, 3000, 'twenty connections');
    expect(rec.seen.filter((s) => s.startsWith('closed'))).toEqual([]);
    expect(clients.every((c) => !c.closed)).toBe(true);
  });

  it('close(reason): what was written still arrives, then the connection ends and is reported closed', async () => {
    const { rec, port } = await listening();
    const client = await RawClient.connect(port);
    cleanup.add(() => client.close());
    await waitFor(() => rec.conns.length === 1, 3000, 'connection');
    const conn = rec.conns[0]!;
    conn.write(Buffer.from('last words'));
    conn.close('wrong peer');
    expect(conn.isOpen).toBe(false);
    expect(conn.write(Buffer.from('more'))).toBe(false);
    await client.whenClosed();
    expect(client.bytes.toString()).toBe('last words');
    await waitFor(() => rec.seen.includes(`closed ${conn.id} wrong peer`), 3000, 'closed event');
  });

  it('reports a peer that goes away', async () => {
    const { rec, port } = await listening();
    const client = await RawClient.connect(port);
    await waitFor(() => rec.conns.length === 1, 3000, 'connection');
    client.socket.end();
    await waitFor(() => rec.seen.some((s) => s.startsWith(`closed ${rec.conns[0]!.id}`)), 3000, 'closed event');
    expect(rec.seen.at(-1)).toBe(`closed ${rec.conns[0]!.id} closed by peer`);
  });

  it('stop() closes every connection and the listener', async () => {
    const { link, rec, port } = await listening();
    const client = await RawClient.connect(port);
    await waitFor(() => rec.conns.length === 1, 3000, 'connection');
    await link.stop();
    await client.whenClosed();
    await expect(RawClient.connect(port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('rejects start() when the port is taken, naming the address', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanup.add(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as net.AddressInfo).port;
    const { log } = captureLog();
    const link = new TcpServerLink({ host: '127.0.0.1', port }, { events: recorder().events, log });
    await expect(link.start()).rejects.toMatchObject({ code: 'EADDRINUSE', message: expect.stringContaining(`listen on 127.0.0.1:${port} failed`) });
  });
});
