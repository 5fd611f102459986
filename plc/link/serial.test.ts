import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, PtyPair, captureLog, waitFor } from '../../test/support/plc.ts';
import type { Connection, LinkEvents } from './link.ts';
import { SerialLink } from './serial.ts';

// The serial link over a real socat pseudo-terminal pair: the link opens one end, the
// test plays the PLC on the other with serialport directly.

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
    data: (_conn, chunk) => (received += chunk.toString('latin1')),
    closed: (_conn, reason) => seen.push(`closed ${reason}`),
  };
  return { seen, conns, events, received: () => received };
}

async function openPlcEnd(path: string) {
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate: 38_400, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  let received = '';
  port.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  cleanup.add(() => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())));
  return { port, received: () => received };
}

describe('SerialLink', () => {
  it('opens the device as a connection at once and carries bytes both ways', async () => {
    const pty = await PtyPair.open();
    cleanup.add(() => pty.close());
    const rec = recorder();
    const { log } = captureLog();
    const link = new SerialLink({ device: pty.host, baudRate: 38_400 }, { events: rec.events, log });
    await link.start();
    cleanup.add(() => link.stop());
    expect(link.endpoint).toBe(`serial ${pty.host} @ 38400 8N1`);
    await waitFor(() => rec.conns.length === 1, 5000, 'device open');
    expect(rec.conns[0]!.peer).toBe(pty.host);
    const plc = await openPlcEnd(pty.plc);
    plc.port.write('from the PLC');
    rec.conns[0]!.write(Buffer.from('from the host'));
    await waitFor(() => rec.received() === 'from the PLC' && plc.received() === 'from the host', 5000, 'bytes both ways');
  });

  it('a device that is not there: retried, logged once; opened when it appears', async () => {
    const pty = await PtyPair.open();
    cleanup.add(() => pty.close());
    await pty.kill();
    const rec = recorder();
    const { log, lines } = captureLog();
    const link = new SerialLink({ device: pty.host, baudRate: 38_400, backoffMs: [20, 40] }, { events: rec.events, log });
    await link.start();
    cleanup.add(() => link.stop());
    await waitFor(() => rec.seen.filter((s) => s === 'waiting').length >= 4, 5000, 'several attempts');
    await pty.start();
    await waitFor(() => rec.conns.length === 1, 5000, 'device open');
    expect(
      lines()
        .filter((l) => l.level === 'warn')
        .map((l) => l.problem),
    ).toEqual([expect.stringMatching(/^open .*No such file or directory/)]);
  });

  it('a device that disappears is closed and reopened when it comes back, also when nobody used its other end', async () => {
    const pty = await PtyPair.open();
    cleanup.add(() => pty.close());
    const rec = recorder();
    const { log } = captureLog();
    const link = new SerialLink({ device: pty.host, baudRate: 38_400, backoffMs: [20, 40] }, { events: rec.events, log });
    await link.start();
    cleanup.add(() => link.stop());
    await waitFor(() => rec.conns.length === 1, 5000, 'device open');
    await pty.kill();
    await waitFor(() => rec.seen.some((s) => s.startsWith('closed')), 5000, 'closed');
    expect(rec.conns[0]!.isOpen).toBe(false);
    await pty.start();
    await waitFor(() => rec.conns.length === 2, 5000, 'reopened');
    const plc = await openPlcEnd(pty.plc);
    rec.conns[1]!.write(Buffer.from('back again'));
    await waitFor(() => plc.received() === 'back again', 5000, 'bytes on the new device');
  });
});
