import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { EventStream } from './support/event-stream.ts';
import { freePort, memory, putText, tcpSlave, type Slave } from './support/modbus-slave.ts';
import { startNats, type NatsServer } from './support/nats.ts';
import { startOpcuaServer, type TestOpcuaServer } from './support/opcua-server.ts';
import { connectedPlc, site, unitWithOrder, until } from './support/warehouse.ts';

// What a Prometheus server would say of GET /metrics: a real reply, from an appliance
// with every part that adds metrics running (an OSIP channel with a PLC on it, a Modbus
// and an OPC UA signal channel, the hub link to a real nats-server, an open event stream,
// an alarm) and every kind of series filled (telegrams and their latency, handshakes,
// heartbeats, commits, HTTP requests), piped into `promtool check metrics`, which exits
// 0 and prints nothing only when every metric is well formed and named and typed by
// Prometheus's conventions.

const PROMTOOL = process.env.PROMTOOL ?? 'promtool';

let wms: TestAppliance;
let sim: PlcSimulator;
let slave: Slave;
let opcua: TestOpcuaServer;
let nats: NatsServer;
const plc = memory();

beforeAll(async () => {
  const modbusPort = await freePort();
  slave = await tcpSlave(plc, modbusPort);
  opcua = await startOpcuaServer();
  nats = await startNats();
  wms = await startTestAppliance({
    plc: {
      channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0 }],
      signals: [
        {
          name: 'MB1',
          protocol: 'modbus-tcp',
          host: '127.0.0.1',
          port: modbusPort,
          pollMs: 20,
          timeoutMs: 500,
          points: [
            { kind: 'plcState', location: 'PROM/0002/0000/0000/0000', address: 'hr:100' },
            { kind: 'arrival', location: 'PROM/0001/0000/0000/0000', barcode: 'hr:20*10', trigger: 'coil:0', target: 'hr:40', done: 'coil:1' },
            { kind: 'heartbeat', address: 'hr:200', periodMs: 50 },
          ],
        },
        {
          name: 'UA1',
          protocol: 'opcua',
          endpoint: opcua.endpoint,
          securityMode: 'None',
          samplingMs: 20,
          points: [
            { kind: 'plcState', location: 'PROM/0003/0000/0000/0000', node: 'ns=1;s=Conv.C1.Error' },
            { kind: 'heartbeat', node: 'ns=1;s=Host.Life', periodMs: 50 },
          ],
        },
      ],
    },
    federation: { site: 'PROM1', nats: { servers: [nats.url] } },
  });
  sim = await connectedPlc(wms, 'CNV01');
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await wms?.close();
  await slave?.close();
  await opcua?.close();
  await nats?.stop();
});

/** The channel's REST view. */
const channel = async (name: string) => (await wms.get(`/v1/plc-channels/${name}`)).body;

describe('GET /metrics under promtool', () => {
  it('passes `promtool check metrics` with no complaint, every collector of the appliance filled', async () => {
    const s = await site(wms, 'PROM');
    await until(async () => (await channel('MB1')).state === 'ONLINE' && (await channel('UA1')).state === 'ONLINE', 'both signal channels ONLINE', 30_000);
    await until(async () => (await wms.get('/v1/federation')).body.state === 'CONNECTED', 'the hub link CONNECTED', 30_000);
    // Telegrams both ways, and a reply latency.
    await unitWithOrder(wms, 'PROM-1', s.INFEED, s.STOCK);
    await sim.runTu('PROM-1', s.INFEED, { timeoutMs: 10_000 });
    // A signal change, an arrival handshake and heartbeats.
    plc.holding.set(100, 7);
    putText(plc, 20, 10, 'NOREAD');
    plc.coils.set(0, true);
    await until(() => plc.coils.get(1) === true, 'the handshake done');
    opcua.set('Conv.C1.Error', 3);
    await until(async () => (await channel('MB1')).counters.heartbeats > 0 && (await channel('UA1')).counters.heartbeats > 0, 'heartbeats written');
    // An event stream open while scraped.
    const ticket = (await wms.post('/v1/events/tickets')).body.ticket as string;
    const { stream } = await EventStream.open(`${wms.url}/v1/events?ticket=${encodeURIComponent(ticket)}`, { Accept: 'text/event-stream' });
    try {
      await until(async () => /^wms_event_streams_open 1$/m.test((await wms.get('/metrics')).text), 'the stream counted');
      const reply = await wms.get('/metrics');
      expect(reply.status).toBe(200);
      // Each collector shows in the reply: the check below covers them all.
      for (const family of [
        'wms_plc_telegrams_total',
        'wms_plc_reply_latency_seconds',
        'wms_plc_signal_writes_total',
        'wms_db_commit_duration_seconds',
        'wms_db_flushes_total',
        'wms_db_flush_max_seconds',
        'wms_event_loop_lag_seconds',
        'wms_federation_connected',
        'wms_http_requests_total',
        'wms_alarms_active',
        'wms_process_cpu_seconds_total',
      ]) {
        expect(reply.text, family).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
      }
      const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: reply.text, encoding: 'utf8' });
      expect(check.error, `${PROMTOOL} runs`).toBeUndefined();
      expect({ status: check.status, output: `${check.stdout}${check.stderr}` }).toEqual({ status: 0, output: '' });
    } finally {
      stream.close();
    }
  });
});
