// The hub link against a real nats-server with JetStream (test/support/nats.ts): every
// event of the durable log arrives in the hall's stream in order, once, with the
// documented subjects and message ids — also across an outage of the server; the hub's
// commands run through the API and are answered on their result subjects, a command
// delivered again is answered, not run again, and a malformed one gets an error answer;
// the status route and the lag alarm.

import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, redactedConfig } from '../src/config.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { configError } from './support/config.ts';
import { freePort, jetstream, jetstreamManager, startNats, streamMessages, type NatsServer, type StreamMessage } from './support/nats.ts';
import { allPages, createLocations, site, until, unitWithOrder, type Site } from './support/warehouse.ts';

const SITE = 'HALL1';

/** The appliance's events as the history route shows them, oldest first. */
async function history(wms: TestAppliance): Promise<Array<{ id: number; type: string }>> {
  return (await allPages(wms, '/v1/events/history?limit=500')).items;
}
const historyIds = async (wms: TestAppliance) => (await history(wms)).map((e) => e.id);

/** Everything in the hall's stream (events and results), oldest first. */
async function hallStream(nats: NatsServer): Promise<StreamMessage[]> {
  const nc = await nats.connect();
  try {
    return await streamMessages(await jetstreamManager(nc), `WMS_${SITE}`);
  } finally {
    await nc.close();
  }
}

const exported = async (wms: TestAppliance) => {
  const status = (await wms.get('/v1/federation')).body;
  return status.state === 'CONNECTED' && status.eventsWaiting === 0 && status.cursor === status.newestEventId;
};

/** The stream holds event ids 1..n (or from its first), each once, in order, as documented. */
function expectWholeLog(messages: StreamMessage[], newest: number): void {
  const ids = messages.map((m) => m.json.id as number);
  expect(new Set(ids).size, 'no event twice').toBe(ids.length);
  expect(ids, 'in event-id order, without gaps').toEqual(Array.from({ length: ids.length }, (_, i) => ids[0]! + i));
  expect(ids.at(-1)).toBe(newest);
  for (const m of messages) {
    expect(m.msgId).toBe(`${SITE}-${m.json.id}`);
    const expected = m.json.type === 'hubCommand.answered' ? `wms.${SITE}.results.${m.json.data.commandId}` : `wms.${SITE}.events.${m.json.type}`;
    expect(m.subject).toBe(expected);
    expect(m.json.site).toBe(SITE);
  }
}

describe('export of the event log', () => {
  let nats: NatsServer;
  let wms: TestAppliance;
  let s: Site;

  beforeAll(async () => {
    nats = await startNats();
    wms = await startTestAppliance({ federation: { site: SITE, nats: { servers: [nats.url] } } });
    await until(async () => (await wms.get('/v1/federation')).body.state === 'CONNECTED', 'the link is CONNECTED', 20_000);
  }, 60_000);

  afterAll(async () => {
    await wms?.close();
  });

  it('publishes every event in id order, with subject wms.<site>.events.<type> and message id <site>-<eventId>', async () => {
    s = await site(wms, 'FEDA');
    await unitWithOrder(wms, 'FED-1', s.INFEED, s.STOCK);
    await until(() => exported(wms), 'the export caught up');
    const messages = await hallStream(nats);
    const ids = await historyIds(wms);
    expectWholeLog(messages, ids.at(-1)!);
    expect(messages.map((m) => m.json.id)).toEqual(ids);
    // The body is the event as the history shows it.
    const last = (await history(wms)).at(-1)!;
    expect(messages.at(-1)!.json).toEqual({ site: SITE, ...last });
  });

  it('the status names the stream, the cursor and what is waiting', async () => {
    const status = (await wms.get('/v1/federation')).body;
    expect(status).toMatchObject({ enabled: true, site: SITE, state: 'CONNECTED', stream: `WMS_${SITE}`, eventsWaiting: 0, lagSeconds: 0, lastError: null });
    expect(status.export.published).toBeGreaterThan(0);
  });

  it('a stream deleted under the running appliance is created again and the export goes on', async () => {
    const nc = await nats.connect();
    try {
      await (await jetstreamManager(nc)).streams.delete(`WMS_${SITE}`);
    } finally {
      await nc.close();
    }
    expect((await wms.post('/v1/location-groups', { name: 'FEDD', parentName: 'WAREHOUSE' })).status).toBe(201);
    await until(
      async () => (await hallStream(nats).catch(() => [])).some((m) => m.json.type === 'locationGroup.created' && m.json.subject.key === 'FEDD'),
      'the event in the new stream',
      30_000,
    );
    await until(() => exported(wms), 'the export caught up', 30_000);
  }, 60_000);

  it('a server outage: 1,000 changes made meanwhile all arrive after it, none twice', async () => {
    await nats.stop();
    await until(async () => (await wms.get('/v1/federation')).body.state === 'DISCONNECTED', 'the link is DISCONNECTED');
    createLocations(wms, 'FEDB', 1000);
    const waiting = (await wms.get('/v1/federation')).body.eventsWaiting;
    expect(waiting).toBeGreaterThanOrEqual(1000);
    await nats.start();
    await until(() => exported(wms), 'the export caught up after the outage', 60_000);
    const messages = await hallStream(nats);
    expectWholeLog(messages, (await historyIds(wms)).at(-1)!);
    expect(messages.filter((m) => m.json.type === 'location.created' && m.json.subject.key.startsWith('FEDB/'))).toHaveLength(1000);
  }, 120_000);
});

describe('the NATS server killed while the export is under way', () => {
  it('after its restart the stream holds every event exactly once, in order unless a publish was lost with the connection', async () => {
    const nats = await startNats();
    // Small batches and few in flight: the backlog takes long enough to be cut half-way.
    const wms = await startTestAppliance({ federation: { site: SITE, nats: { servers: [nats.url] }, batch: 20, maxInFlight: 8 } });
    try {
      await until(() => exported(wms), 'the link is up', 20_000);
      await nats.stop();
      createLocations(wms, 'FEDN', 600);
      const newest = (await wms.get('/v1/federation')).body.newestEventId;
      await nats.start();
      await until(async () => (await wms.get('/v1/federation')).body.cursor > newest - 550, 'the export is under way', 30_000);
      await nats.kill();
      await nats.start();
      await until(() => exported(wms), 'the export caught up after the kill', 60_000);
      const status = (await wms.get('/v1/federation')).body;
      expect(status.export.resyncs).toBeGreaterThan(1);
      const ids = (await hallStream(nats)).map((m) => m.json.id as number);
      const history = await historyIds(wms);
      expect(new Set(ids).size, 'no event twice').toBe(ids.length);
      expect(
        [...ids].sort((a, b) => a - b),
        'every event',
      ).toEqual(history);
      if (status.export.reordered === 0) expect(ids, 'in event-id order').toEqual(history);
    } finally {
      await wms.close();
    }
  }, 120_000);
});

describe('an event the stream refuses in the middle of a round', () => {
  it("is found by the round's acknowledgement, published on its own until the stream takes it, and reported meanwhile; every event arrives once", async () => {
    const nats = await startNats();
    const wms = await startTestAppliance({ federation: { site: SITE, nats: { servers: [nats.url] } } });
    const limitMessages = async (maxMsgSize: number) => {
      const nc = await nats.connect();
      try {
        await (await jetstreamManager(nc)).streams.update(`WMS_${SITE}`, { max_msg_size: maxMsgSize });
      } finally {
        await nc.close();
      }
    };
    try {
      const location = async (i: number) =>
        expect(
          (await wms.post('/v1/locations', { locationId: `FEDR/${String(i).padStart(4, '0')}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' })).status,
        ).toBe(201);
      await location(999);
      await until(() => exported(wms), 'the link is up', 20_000);
      // A limit an integrator may set on the stream with the nats tool: a location's event
      // fits, a group's with a name of 255 characters (about 450 bytes more) does not.
      const small = (await hallStream(nats)).at(-1)!;
      expect(small.json.type).toBe('location.created');
      await limitMessages(JSON.stringify(small.json).length + 150);
      // Made while the server is away, they go out together as the backlog: in one round.
      await nats.stop();
      for (let i = 0; i < 20; i++) await location(i);
      const name = `FEDR${'G'.repeat(251)}`;
      expect((await wms.post('/v1/location-groups', { name, parentName: 'WAREHOUSE' })).status).toBe(201);
      for (let i = 20; i < 40; i++) await location(i);
      const big = (await history(wms)).find((e: any) => e.type === 'locationGroup.created' && e.data.name === name)!.id;
      await nats.start();
      await until(
        async () => /message size exceeds maximum/i.test((await wms.get('/v1/federation')).body.lastError?.message ?? ''),
        'the refusal is reported',
        30_000,
      );
      const held = (await wms.get('/v1/federation')).body;
      expect(held.cursor, 'the cursor stays before the refused event').toBe(big - 1);
      expect(held.eventsWaiting).toBeGreaterThan(0);
      // The round's other events were stored: the stream has those after the refused one already.
      const stored = (await hallStream(nats)).map((m) => m.json.id as number);
      expect(stored).not.toContain(big);
      expect(stored).toContain(big + 20);
      await limitMessages(-1);
      await until(() => exported(wms), 'the export caught up once the stream takes the event', 30_000);
      const status = (await wms.get('/v1/federation')).body;
      expect(status.export.reordered).toBe(20);
      const ids = (await hallStream(nats)).map((m) => m.json.id as number);
      expect(new Set(ids).size, 'no event twice').toBe(ids.length);
      expect(
        [...ids].sort((a, b) => a - b),
        'every event',
      ).toEqual(await historyIds(wms));
      // The refused event follows the ones stored ahead of it; the order is otherwise kept.
      expect(ids.at(-1)).toBe(big);
      expect(ids.slice(0, -1)).toEqual([...ids.slice(0, -1)].sort((a, b) => a - b));
    } finally {
      await wms.close();
    }
  }, 120_000);
});

describe('logins refused while reconnecting', () => {
  it('a leaf node restarted with other credentials for a while: the refusal is shown, the link keeps trying, and every event arrives once it takes the login again', async () => {
    const nats = await startNats({ user: 'hall1', password: 'first-password' });
    const wms = await startTestAppliance({ federation: { site: SITE, nats: { servers: [nats.url], user: 'hall1', password: 'first-password' } } });
    const config = readFileSync(nats.configFile, 'utf8');
    const restartWith = async (text: string) => {
      await nats.stop();
      writeFileSync(nats.configFile, text);
      await nats.start();
    };
    try {
      await until(() => exported(wms), 'the link is up', 20_000);
      await restartWith(config.replace('"first-password"', '"another-password"'));
      await until(
        async () => {
          const status = (await wms.get('/v1/federation')).body;
          return status.state === 'DISCONNECTED' && /authorization/i.test(status.lastError?.message ?? '');
        },
        'the refused login shown in the status',
        30_000,
      );
      for (let i = 0; i < 50; i++) {
        expect(
          (await wms.post('/v1/locations', { locationId: `FEDL/${String(i).padStart(4, '0')}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' })).status,
        ).toBe(201);
      }
      // Refused more often than the client's own give-up (two refusals in a row): each
      // refusal renews the time of the error shown.
      const refusals = new Set<string>();
      await until(
        async () => {
          const { lastError } = (await wms.get('/v1/federation')).body;
          if (/authorization/i.test(lastError?.message ?? '')) refusals.add(lastError.at);
          return refusals.size >= 3;
        },
        'three refused logins in a row',
        30_000,
      );
      expect((await wms.get('/v1/federation')).body.state).toBe('DISCONNECTED');
      await restartWith(config);
      await until(() => exported(wms), 'the export caught up once the login is taken again', 30_000);
      const ids = (await hallStream(nats)).map((m) => m.json.id as number);
      expect(new Set(ids).size, 'no event twice').toBe(ids.length);
      expect(ids, 'every event, in order').toEqual(await historyIds(wms));
    } finally {
      await wms.close();
    }
  }, 120_000);
});

describe('commands from the hub', () => {
  let nats: NatsServer;
  let wms: TestAppliance;
  let s: Site;

  /** Publishes a command into the commands stream, as the hub does; returns its answer from the hall's stream. */
  async function command(kind: string, body: unknown, commandId?: string): Promise<StreamMessage> {
    const nc = await nats.connect();
    const before = (await hallStream(nats)).length;
    try {
      const js = jetstream(nc);
      await js.publish(`wms.${SITE}.commands.${kind}`, typeof body === 'string' ? body : JSON.stringify(body));
    } finally {
      await nc.close();
    }
    let answer: StreamMessage | undefined;
    await until(
      async () => {
        const results = (await hallStream(nats)).slice(before).filter((m) => m.subject.startsWith(`wms.${SITE}.results.`));
        answer = results.find((m) => commandId === undefined || m.json.data.commandId === commandId);
        return answer !== undefined;
      },
      `the answer to ${commandId ?? kind}`,
      20_000,
    );
    return answer!;
  }

  beforeAll(async () => {
    nats = await startNats();
    wms = await startTestAppliance({ federation: { site: SITE, nats: { servers: [nats.url] } } });
    s = await site(wms, 'FEDC');
    expect((await wms.post('/v1/transport-units', { barcode: 'HUB-1', actualLocation: s.INFEED, transportUnitType: 'EURO' })).status).toBe(201);
    await until(() => exported(wms), 'the link is up and the export caught up', 20_000);
  }, 60_000);

  afterAll(async () => {
    await wms?.close();
  });

  it('create-transport-order: the order appears over REST, made by the actor hub, and its answer carries it', async () => {
    const answer = await command('create-transport-order', { commandId: 'cmd-1', barcode: 'HUB-1', targetLocation: s.STOCK }, 'cmd-1');
    expect(answer.subject).toBe(`wms.${SITE}.results.cmd-1`);
    expect(answer.json).toMatchObject({ type: 'hubCommand.answered', actor: { kind: 'hub', name: 'hub' } });
    expect(answer.json.data).toMatchObject({ commandId: 'cmd-1', kind: 'create-transport-order', status: 201, ok: true, repeated: false });
    const pKey = answer.json.data.body.persistentKey;
    const order = await wms.get(`/v1/transport-orders/${pKey}`);
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({ transportUnitBK: 'HUB-1', targetLocation: s.STOCK, state: 'STARTED' });
    const created = (await history(wms)).find((e: any) => e.type === 'transportOrder.created' && e.subject.key === pKey) as any;
    expect(created.actor).toEqual({ kind: 'hub', name: 'hub' });
  });

  it('the same command sent again is answered again (repeated), not run again', async () => {
    const answer = await command('create-transport-order', { commandId: 'cmd-1', barcode: 'HUB-1', targetLocation: s.STOCK }, 'cmd-1');
    expect(answer.json.data).toMatchObject({ commandId: 'cmd-1', status: 201, ok: true, repeated: true });
    const orders = await wms.get('/v1/transport-orders?barcode=HUB-1');
    expect(orders.body).toHaveLength(1);
    expect((await wms.get('/v1/federation')).body.commands).toMatchObject({ done: 1, repeated: 1 });
  });

  it('a command the API declines gets the error body with its message key, and changes nothing', async () => {
    const before = (await wms.get('/v1/transport-orders')).body.length;
    const answer = await command('create-transport-order', { commandId: 'cmd-2', barcode: 'NO-SUCH-UNIT', targetLocation: s.STOCK }, 'cmd-2');
    expect(answer.json.data).toMatchObject({ commandId: 'cmd-2', status: 404, ok: false });
    expect(answer.json.data.body.messageKey).toEqual(expect.any(String));
    expect((await wms.get('/v1/transport-orders')).body.length).toBe(before);
  });

  it('malformed commands get an error answer and are acknowledged, never delivered again', async () => {
    const notJson = await command('create-transport-order', '{not json');
    expect(notJson.subject).toMatch(new RegExp(`^wms\\.${SITE}\\.results\\.unnamed-\\d+$`));
    expect(notJson.json.data).toMatchObject({ status: 400, ok: false });
    expect(notJson.json.data.body.message).toMatch(/not JSON/);
    const unknown = await command('delete-everything', { commandId: 'cmd-3' }, 'cmd-3');
    expect(unknown.json.data).toMatchObject({ status: 400, ok: false, kind: 'delete-everything' });
    expect(unknown.json.data.body.message).toMatch(/Unknown command delete-everything/);
    const noFields = await command('cancel-order', { commandId: 'cmd-4', order: 'shipping', pKey: 'x' }, 'cmd-4');
    expect(noFields.json.data.body.messageKey).toBe('core.validation.error');
    const nc = await nats.connect();
    try {
      const info = await (await jetstreamManager(nc)).consumers.info(`WMS_${SITE}_COMMANDS`, 'appliance');
      expect(info.num_ack_pending).toBe(0);
      expect(info.num_redelivered).toBe(0);
    } finally {
      await nc.close();
    }
  });

  it('save-product creates a product, and updates it the next time; cancel-order cancels a transport order', async () => {
    const made = await command('save-product', { commandId: 'p-1', sku: 'HUB-SKU', label: 'first', baseUnit: { unit: 'PC', amount: 1 } }, 'p-1');
    expect(made.json.data, JSON.stringify(made.json.data)).toMatchObject({ status: 201, ok: true });
    const changed = await command('save-product', { commandId: 'p-2', sku: 'HUB-SKU', label: 'second', baseUnit: { unit: 'PC', amount: 1 } }, 'p-2');
    expect(changed.json.data, JSON.stringify(changed.json.data)).toMatchObject({ status: 200, ok: true });
    expect((await wms.get('/v1/products?sku=HUB-SKU')).body.label).toBe('second');
    const pKey = (await wms.get('/v1/transport-orders?barcode=HUB-1')).body[0].persistentKey;
    const canceled = await command('cancel-order', { commandId: 'c-1', order: 'transport', pKey }, 'c-1');
    expect(canceled.json.data, JSON.stringify(canceled.json.data)).toMatchObject({ status: 200, ok: true });
    expect((await wms.get(`/v1/transport-orders/${pKey}`)).body.state).toBe('CANCELED');
  });

  it('create-receiving-order and create-shipping-order create the orders the REST bodies describe; cancel-order finds a receiving order by orderId', async () => {
    const pc = (magnitude: number) => ({ '@class': 'org.vendor.core.units.api.Piece', unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude });
    const receiving = await command(
      'create-receiving-order',
      {
        commandId: 'r-1',
        orderId: 'HUB-RO-1',
        positions: [{ positionId: '10', product: { sku: 'HUB-SKU' }, quantityExpected: pc(4) }],
      },
      'r-1',
    );
    expect(receiving.json.data, JSON.stringify(receiving.json.data)).toMatchObject({ status: 201, ok: true, body: { orderId: 'HUB-RO-1', state: 'CREATED' } });
    expect((await wms.get('/v1/receiving-orders?orderId=HUB-RO-1')).status).toBe(200);
    const shipping = await command(
      'create-shipping-order',
      {
        commandId: 's-1',
        orderId: 'HUB-SO-1',
        positions: [{ '@class': 'org.vendor.wms.shipping.api.ShippingOrderPositionVO', pos: '10', product: { sku: 'HUB-SKU' }, qtyOrdered: pc(2) }],
      },
      's-1',
    );
    expect(shipping.json.data, JSON.stringify(shipping.json.data)).toMatchObject({ status: 201, ok: true, body: { orderId: 'HUB-SO-1' } });
    expect((await wms.get('/v1/shipping-orders?orderId=HUB-SO-1')).status).toBe(200);
    const canceled = await command('cancel-order', { commandId: 'c-2', order: 'receiving', orderId: 'HUB-RO-1' }, 'c-2');
    expect(canceled.json.data, JSON.stringify(canceled.json.data)).toMatchObject({ status: 204, ok: true, body: { order: 'receiving', state: 'CANCELED' } });
    expect((await wms.get('/v1/receiving-orders?orderId=HUB-RO-1')).body.state).toBe('CANCELED');
  });
});

describe('messages larger than the limits', () => {
  it('an event larger than the server takes goes out without its data; a command over server.bodyLimitBytes gets 413', async () => {
    const nats = await startNats({ extraConfig: 'max_payload: 16384' });
    const wms = await startTestAppliance({ server: { bodyLimitBytes: 12288 }, federation: { site: SITE, nats: { servers: [nats.url] } } });
    try {
      await until(() => exported(wms), 'the link is up', 20_000);
      // A receiving order whose answer (the order as the API returns it) is over 16 KiB.
      const pc = { '@class': 'org.vendor.core.units.api.Piece', unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude: 1 };
      expect((await wms.post('/v1/products', [{ sku: 'BIG-SKU', baseUnit: pc }])).status).toBe(201);
      const positions = Array.from({ length: 60 }, (_, i) => ({ positionId: String(i + 1), product: { sku: 'BIG-SKU' }, quantityExpected: pc }));
      const nc = await nats.connect();
      try {
        await jetstream(nc).publish(`wms.${SITE}.commands.create-receiving-order`, JSON.stringify({ commandId: 'big-1', orderId: 'BIG-RO', positions }));
        await jetstream(nc).publish(
          `wms.${SITE}.commands.create-receiving-order`,
          JSON.stringify({ commandId: 'big-2', orderId: 'X'.repeat(13000), positions: [] }),
        );
      } finally {
        await nc.close();
      }
      await until(async () => (await hallStream(nats)).filter((m) => m.subject.startsWith(`wms.${SITE}.results.`)).length === 2, 'both answers', 20_000);
      await until(() => exported(wms), 'the export went on after the large one', 20_000);
      const results = (await hallStream(nats)).filter((m) => m.subject.startsWith(`wms.${SITE}.results.`));
      expect(results[0]!.subject).toBe(`wms.${SITE}.results.big-1`);
      expect(results[0]!.json).toMatchObject({ type: 'hubCommand.answered', truncated: true, subject: { key: 'big-1' } });
      expect(results[0]!.json.data).toBeUndefined();
      expect(results[0]!.json.bytes).toBeGreaterThan(16384);
      expect(results[1]!.json.data).toMatchObject({ status: 413, ok: false });
      expect((await wms.get('/v1/receiving-orders?orderId=BIG-RO')).status).toBe(200);
      expect((await wms.get('/v1/federation')).body.export.truncated).toBe(1);
    } finally {
      await wms.close();
    }
  }, 60_000);
});

describe('status, metrics and the lag alarm', () => {
  it('without federation.site the link is off: the status says DISABLED, no NATS is asked, no metrics', async () => {
    const wms = await startTestAppliance();
    try {
      expect((await wms.get('/v1/federation')).body).toMatchObject({ enabled: false, site: null, state: 'DISABLED' });
      const metrics = await wms.get('/metrics');
      expect(metrics.text).not.toContain('wms_federation_');
      expect((await wms.get('/index')).body._links['federation-index']).toBeDefined();
    } finally {
      await wms.close();
    }
  });

  it('with no NATS server to reach the appliance starts and works all the same; the status says why the link is not up', async () => {
    const port = await freePort();
    const wms = await startTestAppliance({ federation: { site: SITE, nats: { servers: [`nats://127.0.0.1:${port}`] } } });
    try {
      // What was committed before (the first start's seeding) waits, and shows at once.
      expect((await wms.get('/v1/federation')).body.eventsWaiting).toBeGreaterThan(0);
      expect((await wms.post('/v1/location-groups', { name: 'FEDX', parentName: 'WAREHOUSE' })).status).toBe(201);
      await until(async () => (await wms.get('/v1/federation')).body.lastError !== null, 'the status names the failure', 20_000);
      const status = (await wms.get('/v1/federation')).body;
      expect(status).toMatchObject({ state: 'CONNECTING', cursor: 0 });
      expect(status.eventsWaiting).toBeGreaterThan(0);
      expect(status.lastError.message).toMatch(/cannot connect to NATS/);
    } finally {
      // Stops although the link never came up (no connection attempt left behind).
      await wms.close();
    }
  });

  it('the status needs the grant federation:read', async () => {
    const wms = await startTestAppliance();
    try {
      expect((await wms.get('/v1/federation', { anonymous: true })).status).toBe(401);
    } finally {
      await wms.close();
    }
  });

  it('an export behind by more than maxLagSeconds raises federation.lag; it clears when the export caught up; metrics show the link', async () => {
    const nats = await startNats();
    const wms = await startTestAppliance({ federation: { site: SITE, nats: { servers: [nats.url] }, maxLagSeconds: 1 } });
    const lagAlarm = async () =>
      ((await wms.get('/v1/alarms')).body as Array<{ kind: string; message: string; params: Record<string, unknown> }>).find(
        (a) => a.kind === 'federation.lag',
      );
    try {
      await until(() => exported(wms), 'the export is up', 20_000);
      const metrics = (await wms.get('/metrics')).text;
      expect(metrics).toMatch(/^wms_federation_connected 1$/m);
      expect(metrics).toMatch(/^wms_federation_events_waiting 0$/m);
      expect(metrics).toMatch(/^wms_federation_events_total\{outcome="published"\} [1-9]\d*$/m);
      await nats.stop();
      expect((await wms.post('/v1/location-groups', { name: 'FEDL', parentName: 'WAREHOUSE' })).status).toBe(201);
      await until(async () => (await lagAlarm()) !== undefined, 'the lag alarm is raised', 20_000);
      expect((await lagAlarm())!.message).toMatch(/behind/);
      expect((await lagAlarm())!.params).toMatchObject({ seconds: expect.any(Number), maxSeconds: 1, waiting: expect.any(Number), state: expect.any(String) });
      expect((await wms.get('/metrics')).text).toMatch(/^wms_federation_connected 0$/m);
      await nats.start();
      await until(async () => (await lagAlarm()) === undefined, 'the lag alarm is cleared', 30_000);
    } finally {
      await wms.close();
    }
  }, 90_000);
});

describe('the federation config', () => {
  it('refuses a site name that is not a subject token, and half-given credentials, with one line naming the key', () => {
    expect(configError(() => loadConfig({}, { values: {} }, { federation: { site: 'hall.1' } }))).toMatch(
      /^invalid config federation\.site .*letters, digits and _/,
    );
    expect(configError(() => loadConfig({}, { values: {} }, { federation: { site: 'H1', nats: { user: 'wms' } } }))).toMatch(
      /federation\.nats.*user and password go together/,
    );
    expect(configError(() => loadConfig({}, { values: {} }, { federation: { site: 'H1', nats: { servers: ['http://x'] } } }))).toMatch(
      /federation\.nats\.servers\.0/,
    );
  });

  it('--print-config hides the NATS token and password', () => {
    const { config } = loadConfig({}, { values: {} }, { federation: { site: 'H1', nats: { token: 'secret-token' } } });
    expect(JSON.stringify(redactedConfig(config))).not.toContain('secret-token');
  });
});
