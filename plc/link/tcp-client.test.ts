import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, captureLog, waitFor } from '../../test/support/plc.ts';
import type { Connection, LinkEvents } from './link.ts';
import { TcpClientLink } from './tcp-client.ts';

// The dialling link against a real listener on loopback: it connects, redials when
// the connection drops or the peer is not there, and says so once.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

function recorder() {
  const seen: string[] = [];
  const conns: Connection[] = [];
  let received = '';
  const events: LinkEvents = {
    waiting: () => seen.push('waiting'),
    opened: (conn) => {
      conns.push(conn);
      seen.push('opened');
    },
    data: (_conn, chunk) => (received += chunk.toString()),
    closed: (_conn, reason) => seen.push(`closed ${reason}`),
  };
  return { seen, conns, events, received: () => received };
}

/** A listener that keeps its accepted sockets (to write to them or cut them). */
async function peer(port = 0) {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return { server, sockets, close, port: (server.address() as net.AddressInfo).port };
}

describe('TcpClientLink', () => {
  it('connects, carries bytes both ways, and redials after the peer hangs up', async () => {
    const plc = await peer();
    cleanup.add(() => plc.close());
    const rec = recorder();
    const { log } = captureLog();
    const link = new TcpClientLink({ host: '127.0.0.1', port: plc.port, backoffMs: [20] }, { events: rec.events, log });
    await link.start();
    cleanup.add(() => link.stop());
    expect(link.endpoint).toBe(`connect 127.0.0.1:${plc.port}`);
    await waitFor(() => rec.conns.length === 1 && plc.sockets.length === 1, 3000, 'connected');
    expect(rec.conns[0]!.peer).toBe(`127.0.0.1:${plc.port}`);
    plc.sockets[0]!.write('hello host');
    rec.conns[0]!.write(Buffer.from('hello plc'));
    await waitFor(() => rec.received() === 'hello host', 3000, 'bytes from the PLC');
    plc.sockets[0]!.destroy();
    await waitFor(() => rec.conns.length === 2, 3000, 'redialled');
    expect(rec.seen).toEqual(['waiting', 'opened', 'closed closed by peer', 'waiting', 'opened']);
  });

  it('keeps dialling a peer that is not there, logs that once, and connects when it comes', async () => {
    const gone = await peer();
    const port = gone.port;
    await gone.close();
    const rec = recorder();
    const { log, lines } = captureLog();
    const link = new TcpClientLink({ host: '127.0.0.1', port, backoffMs: [10, 20, 30] }, { events: rec.events, log });
    await link.start();
    cleanup.add(() => link.stop());
    await waitFor(() => rec.seen.filter((s) => s === 'waiting').length >= 6, 5000, 'several attempts');
    const plc = await peer(port);
    cleanup.add(() => plc.close());
    await waitFor(() => rec.conns.length === 1, 5000, 'connected');
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.problem)).toEqual(['connect ECONNREFUSED']);
    const recovered = lines().filter((l) => l.msg === 'connected after link problem');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.repeats).toBeGreaterThanOrEqual(5);
  });

  it('stop() ends the connection and dials no more', async () => {
    const plc = await peer();
    cleanup.add(() => plc.close());
    const rec = recorder();
    const { log } = captureLog();
    const link = new TcpClientLink({ host: '127.0.0.1', port: plc.port, backoffMs: [10] }, { events: rec.events, log });
    await link.start();
    await waitFor(() => plc.sockets.length === 1, 3000, 'connected');
    const ended = new Promise((resolve) => plc.sockets[0]!.once('close', resolve));
    await link.stop();
    await ended;
    await new Promise((r) => setTimeout(r, 100));
    expect(plc.sockets).toHaveLength(1);
  });
});
