import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelConfigInput } from './config.ts';
import { ConnectionFlood, closedByPeer, openIdle } from './connection-flood.ts';
import { MAX_UNPROVEN } from './link/unproven.ts';
import { PlcSimulator } from './simulator/index.ts';
import { Cleanup, RecordingHandler, captureLog, makeChannel, stateReached, waitFor } from '../test/support/plc.ts';

// A tcp-server channel under a flood of connections from other addresses and ports
// (docs/plc.md, "Who gets a connection"), over real loopback sockets: idle sockets that
// never send a byte and ignore our FIN, and loops that connect and close at once. The
// PLC (the simulator) connects and reconnects through it and must be answered every
// time, and the log must not grow with the number of connections.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const HERE = 'CONV/0001/0001/0000/0000';
const NEXT = 'CONV/0001/0002/0000/0000';
const REQ = { barcode: '4711', actualLocation: HERE };

async function serverChannel(config: Partial<ChannelConfigInput> = {}) {
  const { log, lines } = captureLog();
  const channel = makeChannel({ name: 'CNV01', host: '127.0.0.1', port: 0, ...config }, log);
  await channel.start(new RecordingHandler(NEXT));
  cleanup.add(() => channel.stop());
  return { channel, lines, port: channel.address()!.port };
}

/** The PLC: dials from 127.0.0.1 (the flood comes from 127.0.0.2 and up). */
async function plc(port: number): Promise<PlcSimulator> {
  const sim = new PlcSimulator({ transport: { kind: 'tcp-client', host: '127.0.0.1', port, connectTimeoutMs: 20_000 }, requestTimeoutMs: 20_000 });
  cleanup.add(() => sim.close());
  await sim.connect();
  return sim;
}

/** `127.0.0.1:PORT` of the simulator's end of its link, as the channel names its peer. */
function plcAddress(sim: PlcSimulator): string {
  return /^tcp (\S+) →/.exec(sim.link!.description)![1]!;
}

/** Log lines above debug: what an operator's log shows. */
const shown = (lines: () => Record<string, any>[]) => lines().filter((l) => l.level !== 'debug' && l.level !== 'trace');

describe('a tcp-server channel under a flood of connections', () => {
  it('every slot held by idle connections: the PLC connects and is answered; the oldest idle ones gave way, logged once', async () => {
    const { channel, lines, port } = await serverChannel();
    const idle = await openIdle(port, MAX_UNPROVEN + 8);
    cleanup.add(() => idle.forEach((s) => s.destroy()));
    const sim = await plc(port);
    const res = await sim.request(REQ);
    expect(res.targetLocation).toBe(NEXT);
    expect(channel.state).toBe('ONLINE');
    expect(channel.snapshot().peer).toBe(plcAddress(sim));
    // Every idle socket was taken in and the oldest ones closed to make room: at most
    // MAX_UNPROVEN wait beside the PLC's.
    expect(channel.counters.connections).toBe(MAX_UNPROVEN + 9);
    expect(channel.counters.gaveWay).toBeGreaterThanOrEqual(9);
    await waitFor(() => idle.filter(closedByPeer).length === channel.counters.gaveWay, undefined, 'the idle sockets that gave way to be closed');
    expect(channel.snapshot().connections).toBeLessThanOrEqual(MAX_UNPROVEN + 1);
    const flood = shown(lines).filter((l) => /gave way/.test(l.msg));
    expect(flood).toHaveLength(1);
    expect(flood[0]).toMatchObject({ level: 'warn' });
  });

  it('a sustained flood (idle sockets and connect-close loops from other ports): the PLC reconnects five times and is answered each time', async () => {
    const { channel, lines, port } = await serverChannel();
    // More idle sockets than slots: the ones pushed out come back at once, and push others out.
    const flood = new ConnectionFlood({ port, idle: MAX_UNPROVEN + 64, churn: 4 });
    flood.start();
    cleanup.add(() => flood.stop());
    await waitFor(() => channel.counters.gaveWay > 0 && flood.connected >= 2 * MAX_UNPROVEN, 20_000, 'the flood to fill the slots');
    const sim = await plc(port);
    expect((await sim.request(REQ)).targetLocation).toBe(NEXT);
    for (let i = 0; i < 5; i++) {
      await sim.reconnect();
      expect((await sim.request({ ...REQ, barcode: `48${i}` })).targetLocation).toBe(NEXT);
      expect(channel.snapshot().peer).toBe(plcAddress(sim));
    }
    expect(channel.state).toBe('ONLINE');
    await flood.stop();
    expect(channel.counters.connections).toBeGreaterThanOrEqual(2 * MAX_UNPROVEN);
    // The log does not grow with the flood: what it shows is about the PLC's six
    // connections (each one's state changes and the old one closing) and a line or two
    // about the flood, however many connections came.
    expect(shown(lines).length).toBeLessThanOrEqual(6 * 8);
  });

  it('allowFrom: a flood from addresses outside the list is refused before it takes a slot, each address logged once; the PLC is answered', async () => {
    const { channel, lines, port } = await serverChannel({ allowFrom: ['127.0.0.1'] });
    const flood = new ConnectionFlood({ port, idle: MAX_UNPROVEN + 64, churn: 2 });
    flood.start();
    cleanup.add(() => flood.stop());
    await waitFor(() => channel.counters.refusedPeers > MAX_UNPROVEN, 20_000, 'the flood to be refused');
    const sim = await plc(port);
    expect((await sim.request(REQ)).targetLocation).toBe(NEXT);
    await sim.reconnect();
    expect((await sim.request(REQ)).targetLocation).toBe(NEXT);
    // Only the PLC's two connections were taken in; none of the flood's had to give way.
    expect(channel.counters.connections).toBe(2);
    expect(channel.counters.gaveWay).toBe(0);
    // The flood comes from 127.0.0.2 … 127.0.0.9: one line for each address.
    expect(
      shown(lines)
        .filter((l) => /not in allowFrom/.test(l.msg))
        .map((l) => l.remote)
        .sort(),
    ).toEqual(Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`));
  });

  it('an idle first connection does not stay the active one: the PLC that connects after it gets the unsolicited RES_, and the idle one is closed after idleTimeoutMs', async () => {
    const { channel, port } = await serverChannel({ idleTimeoutMs: 500, staleTimeoutMs: 60_000 });
    const [idle] = await openIdle(port, 1);
    cleanup.add(() => idle!.destroy());
    await stateReached(channel, 'LINKED');
    const sim = await plc(port);
    const address = plcAddress(sim);
    // Neither has sent a valid telegram: the newer one is the channel's, so what the
    // appliance has to tell the PLC goes to the PLC and not to the stray connection.
    await waitFor(() => channel.snapshot().peer === address, undefined, "the PLC's connection to be the active one");
    expect(channel.sendUnsolicited({ type: 'RES_', barcode: '4711', actualLocation: HERE, targetLocation: NEXT })).toBe(true);
    expect((await sim.expect('RES_', () => true, 20_000)).barcode).toBe('00000000000000004711');
    const heartbeat = sim.heartbeat(100);
    cleanup.add(() => heartbeat.stop());
    await stateReached(channel, 'ONLINE');
    // The idle one never proves to be the PLC: closed once idleTimeoutMs has passed.
    await waitFor(() => closedByPeer(idle!), undefined, 'the idle connection to be closed');
    expect(channel.state).toBe('ONLINE');
    expect(channel.snapshot().peer).toBe(address);
    expect(channel.snapshot().connections).toBe(1);
  });
});
