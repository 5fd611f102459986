// The hub link as a site runs it, against real nats-server processes: the appliance
// (the bundle, a process of its own) killed with SIGKILL while it publishes leaves
// every event in the hall's stream exactly once after its restart; a hall's leaf node
// with its own JetStream domain feeds the office hub's aggregate stream, which catches
// up completely after the link between them was cut; a command published at the hub
// reaches the hall and is answered.

import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE, DIST, NATS_CLIENT } from '../scripts/build.ts';
import { startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';
import { adminToken, startApplianceProcess, type ApplianceProcess } from './support/executable.ts';
import { jetstreamManager, startHubAndLeaf, startNats, streamMessages, type HubAndLeaf, type NatsServer, type StreamMessage } from './support/nats.ts';
import { until } from './support/warehouse.ts';

const SITE = 'HALL1';
const PASSWORD = 'federation-hub-password';

/** Event ids of a stream's messages, in stream order. */
const idsOf = (messages: StreamMessage[]) => messages.map((m) => m.json.id as number);
const consecutive = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function streamOf(server: NatsServer, stream: string, domain?: string): Promise<StreamMessage[]> {
  const nc = await server.connect();
  try {
    return await streamMessages(await jetstreamManager(nc, domain ? { domain } : {}), stream);
  } finally {
    await nc.close();
  }
}

describe('SIGKILL while publishing', () => {
  let nats: NatsServer;
  let cwd: string;
  let wms: ApplianceProcess | undefined;
  let token: string;

  const start = async () => {
    wms = await startApplianceProcess(
      process.execPath,
      [path.join(cwd, 'wms.cjs'), '--port', '0', '--host', '127.0.0.1', '--data-dir', path.join(cwd, 'data')],
      {
        cwd,
        env: { PATH: process.env.PATH, WMS_ADMIN_PASSWORD: PASSWORD },
      },
    );
    token = await adminToken(wms.url, PASSWORD);
  };
  const status = async () => (await (await fetch(`${wms!.url}/v1/federation`, { headers: { Authorization: `Bearer ${token}` } })).json()) as any;

  beforeAll(async () => {
    nats = await startNats();
    cwd = tempDir('wms-federation-kill-');
    // The bundle with what it loads beside it: the addons and the NATS client.
    const files = new Set([path.basename(BUNDLE), path.basename(NATS_CLIENT)]);
    for (const file of readdirSync(DIST).filter((f) => files.has(f) || f.endsWith('.node'))) copyFileSync(path.join(DIST, file), path.join(cwd, file));
    mkdirSync(path.join(cwd, 'data'));
    // Small batches and few in flight: the export of the backlog takes long enough to be cut half-way.
    writeFileSync(
      path.join(cwd, 'data', 'wms.config.json'),
      JSON.stringify({ federation: { site: SITE, nats: { servers: [nats.url] }, batch: 20, maxInFlight: 4 } }),
    );
    await start();
  }, 60_000);

  afterAll(() => {
    wms?.child.kill('SIGKILL');
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('the stream holds every event exactly once after the restart', async () => {
    await until(async () => (await status()).state === 'CONNECTED', 'the link is CONNECTED', 20_000);
    await nats.stop();
    // A backlog made while the server is away, so the export has a lot to do when it is back.
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    for (let i = 0; i < 600; i++) {
      const reply = await fetch(`${wms!.url}/v1/locations`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ locationId: `FEDK/${String(i).padStart(4, '0')}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' }),
      });
      expect(reply.status).toBe(201);
    }
    const newest = (await status()).newestEventId;
    await nats.start();
    // Killed once the stream has some of the backlog, not all of it.
    await until(async () => (await status()).cursor > newest - 550, 'the export is under way', 30_000).catch(async (err) => {
      throw new Error(`${(err as Error).message}: ${JSON.stringify(await status())}\n${wms!.output().slice(-3000)}`);
    });
    wms!.child.kill('SIGKILL');
    await wms!.exited;
    const atKill = idsOf(await streamOf(nats, `WMS_${SITE}`));
    expect(atKill.at(-1)!, 'killed before the export ended').toBeLessThan(newest);

    await start();
    await until(
      async () => {
        const s = await status();
        return s.state === 'CONNECTED' && s.eventsWaiting === 0;
      },
      'the export caught up after the restart',
      60_000,
    );
    const ids = idsOf(await streamOf(nats, `WMS_${SITE}`));
    const history = await historyIds(wms!.url, token);
    expect(new Set(ids).size, 'no event twice').toBe(ids.length);
    expect(ids).toEqual(history);
    expect(ids).toEqual(consecutive(ids[0]!, ids.at(-1)!));
  }, 180_000);
});

/** The ids of the appliance's events at `url` as its history pages them, oldest first. */
async function historyIds(url: string, token: string): Promise<number[]> {
  const ids: number[] = [];
  let next: string | undefined = `${url}/v1/events/history?limit=500`;
  while (next) {
    const reply: Response = await fetch(next, { headers: { Authorization: `Bearer ${token}` } });
    expect(reply.status).toBe(200);
    ids.push(...((await reply.json()) as Array<{ id: number }>).map((e) => e.id));
    next = /^<([^>]+)>; rel="next"$/.exec(reply.headers.get('link') ?? '')?.[1];
  }
  return ids;
}

describe('a hall behind a leaf node feeds the hub', () => {
  let net: HubAndLeaf;
  let wms: TestAppliance;

  beforeAll(async () => {
    net = await startHubAndLeaf({ hallDomain: 'hall1', hubDomain: 'hub' });
    wms = await startTestAppliance({ federation: { site: SITE, domain: 'hall1', nats: { servers: [net.leaf.url] } } });
    await until(
      async () => (await wms.get('/v1/federation')).body.eventsWaiting === 0 && (await wms.get('/v1/federation')).body.state === 'CONNECTED',
      'the export is up',
      30_000,
    );
    // The office's aggregate stream sources the hall's stream from the hall's JetStream domain.
    const nc = await net.hub.connect();
    try {
      const jsm = await jetstreamManager(nc, { domain: 'hub' });
      await jsm.streams.add({ name: 'WMS_HUB', sources: [{ name: `WMS_${SITE}`, external: { api: '$JS.hall1.API', deliver: '' } }] });
    } finally {
      await nc.close();
    }
  }, 90_000);

  afterAll(async () => {
    await wms?.close();
  });

  const caughtUp = async () => {
    const { newestEventId } = (await wms.get('/v1/federation')).body;
    const hub = await streamOf(net.hub, 'WMS_HUB', 'hub');
    return hub.length > 0 && hub.at(-1)!.json.id === newestEventId;
  };

  it('the hub’s aggregate stream holds the hall’s events, and catches up completely after the link was cut', async () => {
    await until(caughtUp, 'the hub has the hall’s events', 30_000);
    await net.cutLink();
    for (let i = 0; i < 200; i++) {
      expect(
        (await wms.post('/v1/locations', { locationId: `FEDH/${String(i).padStart(4, '0')}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' })).status,
      ).toBe(201);
    }
    // The hall keeps exporting to its own leaf node while the office is away.
    await until(async () => (await wms.get('/v1/federation')).body.eventsWaiting === 0, 'the hall’s stream has everything', 30_000);
    await net.restoreLink();
    await until(caughtUp, 'the hub caught up', 60_000);
    const hub = idsOf(await streamOf(net.hub, 'WMS_HUB', 'hub'));
    const hall = idsOf(await streamOf(net.leaf, `WMS_${SITE}`, 'hall1'));
    expect(hub).toEqual(hall);
    expect(new Set(hub).size).toBe(hub.length);
    expect(hub.filter((id) => id > 0)).toEqual(consecutive(hub[0]!, hub.at(-1)!));
  }, 120_000);

  it('a command published at the hub reaches the hall; its answer comes back through the aggregate stream', async () => {
    expect((await wms.post('/v1/transport-units', { barcode: 'HUBL-1', actualLocation: 'FEDH/0001/0000/0000/0000', transportUnitType: 'EURO' })).status).toBe(
      201,
    );
    const nc = await net.hub.connect();
    try {
      // Published at the hub as core NATS: the hall's commands stream captures it over the leaf link.
      nc.publish(
        `wms.${SITE}.commands.create-transport-order`,
        JSON.stringify({ commandId: 'hub-cmd-1', barcode: 'HUBL-1', targetLocation: 'FEDH/0002/0000/0000/0000' }),
      );
      await nc.flush();
    } finally {
      await nc.close();
    }
    await until(
      async () => (await streamOf(net.hub, 'WMS_HUB', 'hub')).some((m) => m.subject === `wms.${SITE}.results.hub-cmd-1`),
      'the answer at the hub',
      30_000,
    );
    const answer = (await streamOf(net.hub, 'WMS_HUB', 'hub')).find((m) => m.subject === `wms.${SITE}.results.hub-cmd-1`)!;
    expect(answer.json.data).toMatchObject({ status: 201, ok: true });
    expect((await wms.get('/v1/transport-orders?barcode=HUBL-1')).body).toHaveLength(1);
  }, 60_000);
});
