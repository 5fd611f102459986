// The NATS test support with the plain client only (no appliance): a hall's leaf node and
// the hub on real nats-server processes, the hub's aggregate stream catching up after the
// link was cut, a command from the hub reaching the hall, a server keeping its stream
// over a restart; and the configuration files docs/federation ships, run as a three-node
// hub cluster with a hall's leaf node.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AckPolicy, type JetStreamManager } from '@nats-io/jetstream';
import { afterAll, describe, expect, it } from 'vitest';
import {
  closeAllNats,
  freePort,
  jetstream,
  jetstreamManager,
  runNats,
  startHubAndLeaf,
  startNats,
  streamMessages,
  knowsMetaLeader,
  untilOneMetaLeader,
  type HubAndLeaf,
  type Ports,
} from './support/nats.ts';
import { until } from './support/warehouse.ts';

afterAll(() => closeAllNats());

const DAY_NS = 86_400_000_000_000;
const SECOND_NS = 1_000_000_000;

/** The hall's event stream as the appliance declares it (federation.stream defaults). */
async function addHallStream(jsm: JetStreamManager, site: string): Promise<void> {
  await jsm.streams.add({
    name: `WMS_${site.toUpperCase()}`,
    subjects: [`wms.${site}.events.>`, `wms.${site}.results.>`],
    storage: 'file' as never,
    max_age: 7 * DAY_NS,
    max_bytes: 2_147_483_648,
    duplicate_window: 120 * SECOND_NS,
    num_replicas: 1,
  });
}

/** Publishes events id from..to as the exporter does: message id `<site>-<id>`, no expectation headers (a sourcing hub would check them against its own stream). */
async function publishEvents(hall: HubAndLeaf['leaf'], site: string, from: number, to: number): Promise<void> {
  const js = jetstream(await hall.connect());
  for (let id = from; id <= to; id++) {
    const event = {
      id,
      type: 'transportOrder.created',
      at: new Date(0).toISOString(),
      actor: { kind: 'user', name: 'admin' },
      subject: { kind: 'transportOrder', key: `TO-${id}` },
      data: {},
      site,
    };
    await js.publish(`wms.${site}.events.${event.type}`, JSON.stringify(event), {
      msgID: `${site}-${id}`,
    });
  }
}

const streamCount = async (jsm: JetStreamManager, stream: string) => (await jsm.streams.info(stream)).state.messages;

describe('a hall and the hub', () => {
  it('the hub aggregate stream catches up with the hall after the link was cut, in order', async () => {
    const link = await startHubAndLeaf({ hallDomain: 'hall1' });
    const hall = await jetstreamManager(await link.leaf.connect());
    await addHallStream(hall, 'HALL1');
    const hub = await jetstreamManager(await link.hub.connect());
    await hub.streams.add({
      name: 'WMS_HUB',
      storage: 'file' as never,
      sources: [{ name: 'WMS_HALL1', external: { api: '$JS.hall1.API', deliver: '' } }],
    });

    await publishEvents(link.leaf, 'HALL1', 1, 1);
    await until(async () => (await streamCount(hub, 'WMS_HUB')) === 1, 'the hub has the first event', 30_000);

    await link.cutLink();
    await publishEvents(link.leaf, 'HALL1', 2, 101);
    expect(await streamCount(hall, 'WMS_HALL1')).toBe(101);
    expect(await streamCount(hub, 'WMS_HUB')).toBe(1);
    // The hall's JetStream is out of the hub's reach while the link is down.
    const hallFromHub = await jetstreamManager(await link.hub.connect(), { domain: 'hall1', timeout: 1_000, checkAPI: false });
    await expect(hallFromHub.streams.info('WMS_HALL1')).rejects.toThrow();

    await link.restoreLink();
    await until(async () => (await streamCount(hub, 'WMS_HUB')) === 101, 'the hub has caught up', 60_000);
    const messages = await streamMessages(hub, 'WMS_HUB');
    expect(messages.map((m) => m.json.id)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    expect(messages.map((m) => m.msgId)).toEqual(Array.from({ length: 101 }, (_, i) => `HALL1-${i + 1}`));
    expect(messages[100]!.subject).toBe('wms.HALL1.events.transportOrder.created');
    expect(messages[100]!.json.site).toBe('HALL1');
    // The hall's stream is readable from the hub through its domain once the link is back.
    expect((await hallFromHub.streams.info('WMS_HALL1')).state.last_seq).toBe(101);
  });

  it('a command published at the hub reaches the hall: a subscriber and its commands stream', async () => {
    const link = await startHubAndLeaf({ hallDomain: 'hall1' });
    const hallConnection = await link.leaf.connect();
    const hall = await jetstreamManager(hallConnection);
    await hall.streams.add({ name: 'WMS_HALL1_COMMANDS', subjects: ['wms.HALL1.commands.>'], storage: 'file' as never });
    await hall.consumers.add('WMS_HALL1_COMMANDS', { durable_name: 'appliance', ack_policy: AckPolicy.Explicit });
    const seen: { subject: string; body: any }[] = [];
    hallConnection.subscribe('wms.HALL1.commands.>', { callback: (_error, m) => void seen.push({ subject: m.subject, body: m.json() }) });
    await hallConnection.flush();
    await link.hubSeesInterest('wms.HALL1.commands.>');

    const office = await link.hub.connect();
    const command = { commandId: 'c-1', barcode: '00000001', targetLocationGroup: 'STOCK' };
    office.publish('wms.HALL1.commands.create-transport-order', JSON.stringify(command));
    await office.flush();

    await until(() => seen.length === 1, 'the hall subscriber has the command');
    expect(seen[0]).toEqual({ subject: 'wms.HALL1.commands.create-transport-order', body: command });
    const consumer = await jetstream(hallConnection).consumers.get('WMS_HALL1_COMMANDS', 'appliance');
    const stored = await consumer.next({ expires: 5_000 });
    expect(stored?.subject).toBe('wms.HALL1.commands.create-transport-order');
    expect(stored?.json()).toEqual(command);
    stored!.ack();

    // A JetStream publish at the hub is acknowledged by the hall's stream itself …
    const ack = await jetstream(office).publish('wms.HALL1.commands.cancel-order', JSON.stringify({ commandId: 'c-2', order: 'transport', pKey: 'x' }), {
      msgID: 'c-2',
    });
    expect(ack).toMatchObject({ stream: 'WMS_HALL1_COMMANDS', domain: 'hall1', seq: 2, duplicate: false });
    // … and fails while the link is down: nothing at the hub stores it.
    await link.cutLink();
    await expect(jetstream(office).publish('wms.HALL1.commands.cancel-order', '{}', { msgID: 'c-3', timeout: 1_000 })).rejects.toThrow();
    expect(await streamCount(hall, 'WMS_HALL1_COMMANDS')).toBe(2);
  });

  it('a standalone server keeps its stream over stop, start and a kill', async () => {
    const server = await startNats({ name: 'solo', domain: 'hall1', token: 'hall-secret' });
    const jsm = await jetstreamManager(await server.connect());
    await addHallStream(jsm, 'HALL1');
    await publishEvents(server, 'HALL1', 1, 5);

    await server.stop();
    expect(server.running()).toBe(false);
    await server.start();
    expect(await streamCount(await jetstreamManager(await server.connect()), 'WMS_HALL1')).toBe(5);
    await publishEvents(server, 'HALL1', 6, 7);

    await server.kill();
    await server.start();
    const after = await jetstreamManager(await server.connect());
    expect((await after.streams.info('WMS_HALL1')).state).toMatchObject({ messages: 7, last_seq: 7 });
    expect(server.log()).toContain('Server is ready');
  });

  it('a client without the token is refused; a server that cannot start says why, with its log', async () => {
    const server = await startNats({ name: 'guarded', token: 'hall-secret' });
    await expect(server.connect({ token: 'wrong' })).rejects.toThrow(/Authorization/i);
    await expect(startNats({ name: 'broken', extraConfig: 'no_such_setting: 1' })).rejects.toThrow(
      /nats-server broken exited while starting[\s\S]*unknown field "no_such_setting"/,
    );
  });
});

describe('what nats-server does that the hub link relies on', () => {
  it('Nats-Expected-Last-Msg-Id: a wrong one is refused, a resend within the duplicate window is a duplicate', async () => {
    const server = await startNats({ name: 'expect' });
    const js = jetstream(await server.connect());
    await addHallStream(await jetstreamManager(await server.connect()), 'HALL1');
    await publishEvents(server, 'HALL1', 1, 3);
    await expect(js.publish('wms.HALL1.events.x', '{}', { msgID: 'HALL1-5', expect: { lastMsgID: 'HALL1-2' } })).rejects.toThrow(/wrong last msg ID: HALL1-3/);
    // The duplicate check comes first: a resend is answered with the stored sequence, whatever it expected.
    const resend = await js.publish('wms.HALL1.events.x', '{}', { msgID: 'HALL1-2', expect: { lastMsgID: 'HALL1-1' } });
    expect(resend).toMatchObject({ seq: 2, duplicate: true });
  });

  it('a restart forgets the last message id once the last message is older than the duplicate window; the last sequence it keeps', async () => {
    const server = await startNats({ name: 'restart' });
    const jsm = await jetstreamManager(await server.connect());
    await jsm.streams.add({ name: 'WMS_HALL1', subjects: ['wms.HALL1.events.>'], storage: 'file' as never, duplicate_window: SECOND_NS });
    await publishEvents(server, 'HALL1', 1, 3);
    const last = (await jsm.streams.info('WMS_HALL1')).state.last_seq;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await server.stop();
    await server.start();
    const js = jetstream(await server.connect());
    await expect(js.publish('wms.HALL1.events.x', '{}', { msgID: 'HALL1-4', expect: { lastMsgID: 'HALL1-3' } })).rejects.toThrow(/wrong last msg ID: $/);
    const ack = await js.publish('wms.HALL1.events.x', '{}', { msgID: 'HALL1-4', expect: { lastSequence: last } });
    expect(ack).toMatchObject({ seq: 4, duplicate: false });
    await expect(js.publish('wms.HALL1.events.x', '{}', { msgID: 'HALL1-5', expect: { lastSequence: last } })).rejects.toThrow(/wrong last sequence: 4/);
  });

  it('a sourcing stream checks the expectation headers of what it sources against itself (so the exporter sends none)', async () => {
    const server = await startNats({ name: 'sourced' });
    const jsm = await jetstreamManager(await server.connect());
    const js = jetstream(await server.connect());
    await addHallStream(jsm, 'HALL1');
    await addHallStream(jsm, 'HALL2');
    await jsm.streams.add({ name: 'WMS_HUB', storage: 'file' as never, sources: [{ name: 'WMS_HALL1' }, { name: 'WMS_HALL2' }] });
    await js.publish('wms.HALL2.events.x', '{}', { msgID: 'HALL2-1' });
    await until(async () => (await streamCount(jsm, 'WMS_HUB')) === 1, 'the hub has hall 2’s event');
    // Right for hall 1's stream (its last sequence is 0), wrong for the hub's (1).
    await js.publish('wms.HALL1.events.x', '{}', { msgID: 'HALL1-1', expect: { lastSequence: 0 } });
    await js.publish('wms.HALL1.events.x', '{}', { msgID: 'HALL1-2' });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await streamCount(jsm, 'WMS_HALL1')).toBe(2);
    expect(
      (await streamMessages(jsm, 'WMS_HUB')).map((m) => m.msgId),
      'hall 1’s events did not get into the hub',
    ).not.toContain('HALL1-1');
  });

  it('the last message of a stream by a wildcard subject (last_by_subj)', async () => {
    const server = await startNats({ name: 'last' });
    const jsm = await jetstreamManager(await server.connect());
    await addHallStream(jsm, 'HALL1');
    expect(await jsm.streams.getMessage('WMS_HALL1', { last_by_subj: 'wms.HALL1.>' })).toBeNull();
    await publishEvents(server, 'HALL1', 1, 2);
    await jetstream(await server.connect()).publish('wms.HALL1.results.c-1', '{}', { msgID: 'HALL1-3' });
    const last = await jsm.streams.getMessage('WMS_HALL1', { last_by_subj: 'wms.HALL1.>' });
    expect({ seq: last?.seq, subject: last?.subject, msgId: last?.header?.get('Nats-Msg-Id') }).toEqual({
      seq: 3,
      subject: 'wms.HALL1.results.c-1',
      msgId: 'HALL1-3',
    });
    expect((await jsm.streams.getMessage('WMS_HALL1', { last_by_subj: 'wms.HALL1.events.>' }))?.seq).toBe(2);
  });
});

// --- docs/federation: the files an integrator starts from ---------------------------------

const docs = (file: string) => readFileSync(path.join(import.meta.dirname, '..', 'docs', 'federation', file), 'utf8');

/**
 * A docs configuration made to run on loopback: the standard ports (4222 clients, 6222
 * routes, 7422 leaf nodes, 8222 monitoring) of this node and of `hub-N.office.example`
 * become free ports, the store a temporary folder. Everything else runs as written.
 */
function onLoopback(config: string, own: Ports, hubs: Ports[], storeDir: string): string {
  const standard: Record<string, keyof Ports> = { '4222': 'client', '6222': 'cluster', '7422': 'leaf', '8222': 'http' };
  const port = (p: Ports, key: keyof Ports) => {
    const n = p[key];
    if (!n) throw new Error(`no ${key} port`);
    return n;
  };
  const text = config
    .replace(/"\/var\/lib\/nats"/, JSON.stringify(storeDir))
    .replace(/hub-(\d)\.office\.example:(\d+)/g, (_m, n: string, p: string) => `127.0.0.1:${port(hubs[Number(n) - 1]!, standard[p]!)}`)
    .replace(/^(\s*(?:listen|http):\s*)(?:0\.0\.0\.0|127\.0\.0\.1):(\d+)/gm, (_m, key: string, p: string) => `${key}127.0.0.1:${port(own, standard[p]!)}`);
  const settings = text.replace(/#.*$/gm, '');
  expect(settings).not.toMatch(/0\.0\.0\.0|office\.example|\/var\/lib\/nats|:(4222|6222|7422|8222)\b/);
  return text;
}

describe('the configuration files of docs/federation', () => {
  it('three hub nodes form a JetStream cluster, a hall leaf node joins it, WMS_HUB sources the hall, also with a hub node down', async () => {
    const hubPorts: Ports[] = [];
    for (let i = 0; i < 3; i++) hubPorts.push({ client: await freePort(), http: await freePort(), cluster: await freePort(), leaf: await freePort() });
    const hubs = await Promise.all(
      hubPorts.map((ports, i) =>
        runNats({
          name: `hub-${i + 1}`,
          ports,
          domain: 'hub',
          auth: { user: 'erp', pass: 'change-me-erp' },
          config: (storeDir) => onLoopback(docs(`hub-${i + 1}.conf`), ports, hubPorts, storeDir),
          ready: knowsMetaLeader,
          // A node is ready only with its peers: all three are started first.
          waitReady: false,
        }),
      ),
    );
    await untilOneMetaLeader(hubs, 'the hub');

    const leafPorts: Ports = { client: await freePort(), http: await freePort() };
    const leaf = await runNats({
      name: 'hall1-leaf',
      ports: leafPorts,
      domain: 'hall1',
      auth: { user: 'wms', pass: 'change-me-wms-hall1' },
      config: (storeDir) => onLoopback(docs('leaf.conf'), leafPorts, hubPorts, storeDir),
    });
    const linkedHub = async () => {
      for (const hub of hubs) if (hub.running() && (await hub.monitor('/leafz')).leafnodes > 0) return hub;
      return undefined;
    };
    await until(async () => (await linkedHub()) !== undefined, 'the hall leaf node is linked to a hub node', 20_000);

    // The stream definition as `nats stream add --config` sends it: the file's JSON, here
    // first with hall 1 alone; `nats stream edit --config` with the whole file adds hall 2.
    const office = await hubs[0]!.connect();
    const definition = JSON.parse(docs('wms-hub.json'));
    const hall1Only = { ...definition, sources: definition.sources.filter((s: { name: string }) => s.name === 'WMS_HALL1') };
    const created = (await office.request('$JS.hub.API.STREAM.CREATE.WMS_HUB', JSON.stringify(hall1Only), { timeout: 30_000 })).json<any>();
    expect(created.error).toBeUndefined();
    expect(created.config).toMatchObject({ name: 'WMS_HUB', num_replicas: 3 });

    const hall = await jetstreamManager(await leaf.connect());
    await addHallStream(hall, 'HALL1');
    await publishEvents(leaf, 'HALL1', 1, 10);
    const hub = await jetstreamManager(office, { domain: 'hub' });
    await until(async () => (await streamCount(hub, 'WMS_HUB')) === 10, 'WMS_HUB has the hall events', 60_000);

    // The hub node the hall is linked to goes down: the leaf dials another, WMS_HUB (three replicas) goes on.
    const down = (await linkedHub())!;
    await down.stop();
    await until(async () => (await linkedHub()) !== undefined, 'the hall leaf node is linked to another hub node', 30_000);
    await publishEvents(leaf, 'HALL1', 11, 20);
    const survivorConnection = await hubs.find((h) => h.running())!.connect();
    const survivor = await jetstreamManager(survivorConnection, { domain: 'hub' });
    await until(async () => (await streamCount(survivor, 'WMS_HUB').catch(() => 0)) === 20, 'WMS_HUB has the events after the failover', 60_000);
    const messages = await streamMessages(survivor, 'WMS_HUB');
    expect(messages.map((m) => m.msgId)).toEqual(Array.from({ length: 20 }, (_, i) => `HALL1-${i + 1}`));

    // A second hall, added as the docs say: its leaf node linked and its stream there
    // (the appliance creates it), then its source added by applying the whole file.
    const hall2Ports: Ports = { client: await freePort(), http: await freePort() };
    const hall2 = await runNats({
      name: 'hall2-leaf',
      ports: hall2Ports,
      domain: 'hall2',
      auth: { user: 'wms', pass: 'change-me-wms-hall2' },
      config: (storeDir) => onLoopback(docs('leaf.conf').replaceAll('hall1', 'hall2'), hall2Ports, hubPorts, storeDir),
    });
    await addHallStream(await jetstreamManager(await hall2.connect()), 'HALL2');
    await publishEvents(hall2, 'HALL2', 1, 5);
    const updated = (await survivorConnection.request('$JS.hub.API.STREAM.UPDATE.WMS_HUB', docs('wms-hub.json'), { timeout: 30_000 })).json<any>();
    expect(updated.error).toBeUndefined();
    expect(updated.config.sources.map((s: { name: string }) => s.name)).toEqual(['WMS_HALL1', 'WMS_HALL2']);
    await until(async () => (await streamCount(survivor, 'WMS_HUB')) === 25, 'WMS_HUB has the second hall events', 60_000);
    expect((await streamMessages(survivor, 'WMS_HUB')).slice(20).map((m) => m.msgId)).toEqual(['HALL2-1', 'HALL2-2', 'HALL2-3', 'HALL2-4', 'HALL2-5']);
    // Each step waits for its state with its own deadline; a cluster's elections beside a
    // second suite on two cores may take most of them.
  }, 420_000);

  it('docs/federation.md shows the files as they are and links only to files that exist', () => {
    const text = readFileSync(path.join(import.meta.dirname, '..', 'docs', 'federation.md'), 'utf8');
    const blockAfter = (heading: string, lang: string) => {
      const from = text.indexOf(heading);
      expect(from, heading).toBeGreaterThan(-1);
      const start = text.indexOf(`\`\`\`${lang}\n`, from) + lang.length + 4;
      return text.slice(start, text.indexOf('```\n', start));
    };
    expect(blockAfter("### A hall's leaf node", 'conf')).toBe(docs('leaf.conf'));
    expect(blockAfter('### The hub: three nodes', 'conf')).toBe(docs('hub-1.conf'));
    expect(blockAfter("## The hub's aggregate stream", 'json')).toBe(docs('wms-hub.json'));
    // hub-2 and hub-3 are hub-1 but for the node's own name.
    for (const n of [2, 3])
      expect(
        docs(`hub-${n}.conf`)
          .replaceAll(`hub-${n}.pem`, 'hub-1.pem')
          .replaceAll(`hub-${n}-key`, 'hub-1-key')
          .replace(`Node ${n} `, 'Node 1 ')
          .replace(`hub-${n}.conf`, 'hub-1.conf')
          .replace(`server_name: hub-${n}`, 'server_name: hub-1')
          .replace(`advertise: "hub-${n}.`, 'advertise: "hub-1.'),
      ).toBe(docs('hub-1.conf'));
    const links = [...text.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(existsSync(path.join(import.meta.dirname, '..', 'docs', link)), link).toBe(true);
  });
});
