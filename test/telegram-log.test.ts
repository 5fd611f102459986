import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { expectApiError, expectServerError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { allPages, connectedPlc, site, unitWithOrder, until } from './support/warehouse.ts';

// The durable telegram log of a PLC channel (`GET /v1/plc-channels/{name}/telegrams`),
// filled by a simulated PLC over real TCP: every telegram in and out, decoded, with
// what it was about and how long its answer took.

let wms: TestAppliance;
let sim: PlcSimulator;
const enc = encodeURIComponent;

beforeAll(async () => {
  wms = await startTestAppliance({
    plc: { telegramLog: { maxRows: 1000 }, channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true }] },
  });
  sim = await connectedPlc(wms, 'CNV01');
});
afterAll(async () => {
  await sim?.close();
  await wms?.close();
});

const LOG = '/v1/plc-channels/CNV01/telegrams';
/** The log entries matching a query, once `count` of them are there (entries reach the disk with the next commit or within 200 ms). */
async function logged(query: string, count: number): Promise<any[]> {
  let items: any[] = [];
  await until(async () => {
    items = (await allPages(wms, `${LOG}?${query}&limit=1000`)).items;
    return items.length >= count;
  }, `${count} entries for ${query}`);
  return items;
}

describe('GET /v1/plc-channels/{name}/telegrams', () => {
  it("a REQ_ and its RES_: text, decoded fields, sequence numbers, the unit, the location, the order, the answer's latency", async () => {
    const s = await site(wms, 'TLOG');
    const order = await unitWithOrder(wms, 'TL-1', s.INFEED, s.STOCK);
    const sent = await sim.requestExchange({ barcode: 'TL-1', actualLocation: s.INFEED }, { timeoutMs: 10_000 });
    const [req, res] = await logged('barcode=TL-1', 2);
    expect(req).toMatchObject({
      channel: 'CNV01',
      direction: 'in',
      type: 'REQ_',
      seq: sent.sent.seq,
      outcome: 'ok',
      barcode: 'TL-1',
      location: s.INFEED,
      order,
      latencyMs: null,
      fields: { type: 'REQ_', barcode: 'TL-1', actualLocation: s.INFEED, header: { sender: 'CNV01', receiver: 'MFC__', seq: sent.sent.seq } },
    });
    expect(req.text).toHaveLength(160);
    expect(res).toMatchObject({
      direction: 'out',
      type: 'RES_',
      seq: sent.sent.seq! + 1,
      outcome: 'reply',
      barcode: 'TL-1',
      location: s.INFEED,
      order,
      fields: { type: 'RES_', targetLocation: s.C1, errorCode: '00000000', header: { sender: 'MFC__', receiver: 'CNV01' } },
    });
    expect(res.latencyMs).toBeGreaterThanOrEqual(0);
    expect(res.latencyMs).toBeLessThan(10_000);
    expect(res.id).toBeGreaterThan(req.id);
    expect(res.at >= req.at).toBe(true);
  });

  it('heartbeats, reports and refused telegrams are kept too, with their outcome; a frame that does not decode has no fields', async () => {
    await sim.synq({ timeoutMs: 10_000 });
    const [synq] = await logged('type=SYNQ', 1);
    expect(synq).toMatchObject({ direction: 'in', outcome: 'sync', fields: { type: 'SYNQ' } });
    const [sync] = await logged('type=SYNC&direction=out', 1);
    expect(sync).toMatchObject({ direction: 'out', outcome: 'reply' });

    await sim.sendUnknownType('ZZZZ');
    const [unknown] = await logged('type=ZZZZ', 1);
    expect(unknown).toMatchObject({ direction: 'in', outcome: 'unknown-type', fields: null });
    const errors = await logged('type=ERR_&direction=out', 1);
    expect(errors.at(-1)).toMatchObject({ outcome: 'error-reply', fields: { type: 'ERR_', errorCode: '00000010' } });
  });

  it('filters by direction, type, barcode and time; pages oldest first with Link rel="next"', async () => {
    const all = (await allPages(wms, `${LOG}?limit=1000`)).items;
    expect(all.length).toBeGreaterThanOrEqual(6);
    const ids = all.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect((await allPages(wms, `${LOG}?direction=in&limit=1000`)).items).toEqual(all.filter((e) => e.direction === 'in'));
    expect((await allPages(wms, `${LOG}?type=RES_&limit=1000`)).items).toEqual(all.filter((e) => e.type === 'RES_'));
    const paged = await allPages(wms, `${LOG}?limit=3`);
    expect(paged.items).toEqual(all);
    expect(paged.pages).toBe(Math.ceil(all.length / 3));
    const middle = all[Math.floor(all.length / 2)]!;
    expect((await allPages(wms, `${LOG}?from=${enc(middle.at)}&limit=1000`)).items).toEqual(all.filter((e) => e.at >= middle.at));
    expect((await allPages(wms, `${LOG}?to=${enc(middle.at)}&limit=1000`)).items).toEqual(all.filter((e) => e.at <= middle.at));
  });

  it('refuses an unknown channel with 404, bad parameters with 400, and readers without plc-channels:read', async () => {
    expectApiError(await wms.get('/v1/plc-channels/NOPE_/telegrams'), 404, 'not.found');
    for (const query of ['direction=sideways', 'type=REQ', 'limit=0', 'limit=1001', 'after=xyz', 'from=now']) {
      expectApiError(await wms.get(`${LOG}?${query}`), 400, 'core.validation.error');
    }
    expectServerError(await wms.get(LOG, { anonymous: true }), 401);
  });

  it('keeps at most plc.telegramLog.maxRows telegrams: retention prunes the oldest', async () => {
    for (let i = 0; i < 550; i++) await sim.synq({ timeoutMs: 10_000 });
    await logged('type=SYNC', 550);
    const before = (await allPages(wms, `${LOG}?limit=1000`)).items;
    expect(before.length).toBeGreaterThan(1000);
    await wms.app.module('retention').runOnce();
    const after = (await allPages(wms, `${LOG}?limit=1000`)).items;
    expect(after.length).toBe(1000);
    expect(after).toEqual(before.slice(-1000));
  });
});
