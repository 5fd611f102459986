import net from 'node:net';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { expectApiError, startTestAppliance, tempDir } from '../test/support/appliance.ts';
import { PlcChannels } from './channels.ts';
import { plcConfigSchema } from './config.ts';
import { ERR_CODES } from './osip/index.ts';
import { PlcSimulator } from './simulator/index.ts';
import { Cleanup, RecordingHandler, captureLog, stateReached, waitFor } from '../test/support/plc.ts';

// The set of channels: the directory the adapter sends unsolicited telegrams through,
// and the channels inside the real appliance (started after HTTP, stopped on close,
// shown by GET /v1/plc-channels).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const HERE = 'CONV/0001/0001/0000/0000';
const STOCK = 'STCK/0001/0003/0002/0001';

async function simulator(port: number, name = 'CNV01'): Promise<PlcSimulator> {
  const sim = new PlcSimulator({ transport: { kind: 'tcp-client', host: '127.0.0.1', port }, name, requestTimeoutMs: 3000 });
  cleanup.add(() => sim.close());
  await sim.connect();
  return sim;
}

describe('the channel directory (ChannelDirectory of plc/osip/port.ts)', () => {
  async function twoChannels() {
    const { log } = captureLog();
    const config = plcConfigSchema.parse({
      channels: [
        { name: 'CNV01', host: '127.0.0.1', port: 0, locationGroups: ['AISLE1'] },
        { name: 'CNV02', host: '127.0.0.1', port: 0, locationGroups: ['STOCK', 'AISLE1'] },
        { name: 'CNV03', host: '127.0.0.1', port: 0, unsolicited: false },
      ],
    });
    const channels = new PlcChannels(config, log);
    const handler = new RecordingHandler();
    await channels.start(handler);
    cleanup.add(() => channels.stop());
    const port = (name: string) => channels.channel(name).address()!.port;
    return { channels, handler, port };
  }

  it('names the channel that last reported a location (REQ_, UPD_, LOCU), in padded or plain form', async () => {
    const { channels, port } = await twoChannels();
    expect(channels.ownerOf(HERE, [])).toBeUndefined();
    const one = await simulator(port('CNV01'), 'CNV01');
    await one.request({ barcode: '4711', actualLocation: HERE });
    expect(channels.ownerOf(HERE, [])).toBe('CNV01');
    expect(channels.ownerOf('CONV/1/1/0/0', [])).toBe('CNV01');
    const two = await simulator(port('CNV02'), 'CNV02');
    await two.update('4711', HERE);
    await waitFor(() => channels.ownerOf(HERE, []) === 'CNV02', 3000, 'CNV02 to own the location');
    await one.report(HERE, '0000***0');
    await waitFor(() => channels.ownerOf(HERE, ['STOCK']) === 'CNV01', 3000, 'CNV01 to own it again');
  });

  it('falls back to the channel configured for the nearest group, in configuration order', async () => {
    const { channels } = await twoChannels();
    expect(channels.ownerOf(STOCK, ['AISLE1', 'STOCK'])).toBe('CNV01');
    expect(channels.ownerOf(STOCK, ['STOCK', 'AISLE1'])).toBe('CNV02');
    expect(channels.ownerOf(STOCK, ['ELSEWHERE'])).toBeUndefined();
  });

  it('sends unsolicited telegrams on a linked channel only, and never on a half-duplex one', async () => {
    const { channels, handler, port } = await twoChannels();
    const move = { type: 'RES_' as const, barcode: '4711', actualLocation: HERE, targetLocation: STOCK };
    expect(channels.sendUnsolicited('CNV01', move)).toBe(false);
    expect(channels.sendUnsolicited('NOPE_', move)).toBe(false);
    const one = await simulator(port('CNV01'), 'CNV01');
    await stateReached(channels.channel('CNV01'), 'LINKED');
    expect(channels.sendUnsolicited('CNV01', move)).toBe(true);
    const res = await one.expect('RES_', () => true, 3000);
    expect(res).toMatchObject({ sender: 'MFC__', receiver: 'CNV01', seq: 1, targetLocation: STOCK });
    const three = await simulator(port('CNV03'), 'CNV03');
    await three.synq();
    expect(channels.sendUnsolicited('CNV03', move)).toBe(false);
    expect(handler.calls).toEqual([]);
  });
});

describe('the channels in the appliance', () => {
  async function appliance() {
    const wms = await startTestAppliance({
      plc: {
        channels: [
          { name: 'CNV01', host: '127.0.0.1', port: 0 },
          { name: 'CNV02', transport: 'tcp-client', host: '127.0.0.1', port: 9, enabled: false },
        ],
      },
    });
    cleanup.add(() => wms.close());
    return wms;
  }

  it('starts with the HTTP server and hands telegrams to the adapter (a REQ_ at an unknown location: RES_ without target)', async () => {
    const wms = await appliance();
    const channel = wms.app.module('plc').channel('CNV01');
    expect(channel.state).toBe('WAITING');
    const published: unknown[] = [];
    wms.app.bus.on('plcChannel.stateChanged', (event) => published.push(event.data));
    const sim = await simulator(channel.address()!.port);
    const sync = await sim.synq();
    expect(sync).toMatchObject({ sender: 'MFC__', receiver: 'CNV01', seq: 2 });
    const res = await sim.request({ barcode: '4711', actualLocation: HERE });
    expect(res).toMatchObject({ barcode: '00000000000000004711', actualLocation: HERE, targetLocation: null });
    expect(channel.counters.rxOk).toBe(2);
    expect(wms.app.module('plc').channel('CNV02').state).toBe('DISABLED');
    // Live views (GET /v1/events) see the channel come online.
    expect(published).toEqual([
      { name: 'CNV01', state: 'LINKED', from: 'WAITING', reason: expect.any(String) },
      { name: 'CNV01', state: 'ONLINE', from: 'LINKED' },
    ]);
  });

  it('GET /v1/plc-channels shows state, peer, last rx/tx, counters and the telegram log', async () => {
    const wms = await appliance();
    const sim = await simulator(wms.app.module('plc').channel('CNV01').address()!.port);
    await sim.synq();
    await sim.request({ barcode: '4711', actualLocation: HERE });
    await sim.sendUnknownType('ZZZZ');
    await sim.expect('ERR_', (t) => t.errorCode === ERR_CODES.unknownType, 3000);

    const list = await wms.get('/v1/plc-channels');
    expect(list.status, list.text).toBe(200);
    expect(list.body.map((c: { name: string; state: string }) => [c.name, c.state])).toEqual([
      ['CNV01', 'ONLINE'],
      ['CNV02', 'DISABLED'],
    ]);
    const one = await wms.get('/v1/plc-channels/CNV01');
    expect(one.status).toBe(200);
    const c = one.body;
    expect(c).toMatchObject({
      name: 'CNV01',
      transport: 'tcp-server',
      enabled: true,
      state: 'ONLINE',
      connections: 1,
      endpoint: `listen 127.0.0.1:${wms.app.module('plc').channel('CNV01').address()!.port}`,
    });
    expect(c.peer).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(Date.parse(c.lastRx)).not.toBeNaN();
    expect(Date.parse(c.lastTx)).not.toBeNaN();
    expect(c.counters).toMatchObject({ rxOk: 2, tx: 3, duplicates: 0 });
    expect(c.counters.rxRejected['unknown-type']).toBe(1);
    // The adapter's verdict on the REQ_ (the location is unknown here), counted and logged.
    const [reqOutcome, ...others] = Object.keys(c.counters.outcomes);
    expect(others).toEqual([]);
    expect(c.counters.outcomes[reqOutcome!]).toBe(1);
    expect(c.telegrams.map((t: { direction: string; outcome: string; text: string }) => `${t.direction} ${t.text.slice(23, 27)} ${t.outcome}`)).toEqual([
      'in SYNQ sync',
      'out SYNC reply',
      `in REQ_ ${reqOutcome}`,
      'out RES_ reply',
      'in ZZZZ unknown-type',
      'out ERR_ error-reply',
    ]);
    expect(c.links).toEqual([{ rel: 'plc-channels-findbyname', href: `${wms.url}/v1/plc-channels/CNV01` }]);

    const missing = await wms.get('/v1/plc-channels/NOPE_');
    expectApiError(missing, 404, 'not.found');
    expect((await wms.get('/v1/plc-channels', { anonymous: true })).status).toBe(401);
  });

  it('has a module index linked from the entry index, and lists serial devices', async () => {
    const wms = await appliance();
    const entry = await wms.get('/index', { anonymous: true });
    expect(entry.body._links['plc-channel-index']).toEqual({ href: `${wms.url}/v1/plc-channels/index` });
    const index = await wms.get('/v1/plc-channels/index');
    expect(index.status).toBe(200);
    expect(Object.keys(index.body._links).sort()).toEqual(['plc-channel-telegrams', 'plc-channels-findall', 'plc-channels-findbyname', 'plc-serial-ports']);
    const ports = await wms.get('/v1/plc-serial-ports');
    expect(ports.status).toBe(200);
    expect(Array.isArray(ports.body)).toBe(true);
    for (const p of ports.body) expect(p.path).toMatch(/^\/dev\/tty(S|USB|ACM)\d+$/);
  });

  it('stops the channels when it closes', async () => {
    const wms = await appliance();
    const channel = wms.app.module('plc').channel('CNV01');
    const port = channel.address()!.port;
    const sim = await simulator(port);
    await sim.synq();
    const dropped = new Promise((resolve) => sim.once('disconnected', resolve));
    await wms.app.close();
    await dropped;
    expect(channel.state).toBe('CLOSED');
    await expect(
      new Promise((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port });
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });

  it('does not start when a channel cannot listen, naming the channel', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanup.add(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as net.AddressInfo).port;
    const dir = tempDir();
    cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
    await expect(startTestAppliance({ plc: { channels: [{ name: 'CNV01', host: '127.0.0.1', port }] } }, dir)).rejects.toThrow(
      new RegExp(`PLC channel CNV01: listen on 127\\.0\\.0\\.1:${port} failed: .*EADDRINUSE`),
    );
  });

  it('accepts its channels from the environment as JSON', () => {
    const dir = tempDir();
    cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
    const { config } = loadConfig({
      WMS_DATA_DIR: dir,
      WMS_PLC_CHANNELS: '[{"name":"CNV01","transport":"tcp-server","host":"127.0.0.1","port":5020}]',
    });
    expect(config.plc.channels).toEqual([expect.objectContaining({ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 5020 })]);
  });
});
