import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { EventStream } from './support/event-stream.ts';
import { scrape as scrapeOf, scrapeUntil as scrapeUntilOf } from './support/metrics.ts';
import { allPages, connectedPlc, site, unitWithOrder, until } from './support/warehouse.ts';

// What operators alert on, scraped from GET /metrics over real HTTP while a simulated
// PLC drives units over real TCP: telegrams and reply latency, the channel's state and
// connections, the database files and commits, the event loop, open event streams and
// active alarms. The general /metrics behaviour (HTTP figures, grant): test/system.test.ts.

let wms: TestAppliance;
let sim: PlcSimulator;
const enc = encodeURIComponent;

beforeAll(async () => {
  wms = await startTestAppliance({
    plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true }] },
  });
  sim = await connectedPlc(wms, 'CNV01');
});
afterAll(async () => {
  await sim?.close();
  await wms?.close();
});

const scrape = () => scrapeOf(wms);
const scrapeUntil = (check: Parameters<typeof scrapeUntilOf>[1], what: string) => scrapeUntilOf(wms, check, what);

const telegrams = (labels: string) => `wms_plc_telegrams_total{channel="CNV01",${labels}}`;

describe('PLC telegrams', () => {
  it('counts every telegram by channel, direction, type and outcome, as the telegram log holds them; RES_ latency as a histogram', async () => {
    const s = await site(wms, 'MTRC');
    await unitWithOrder(wms, 'MET-1', s.INFEED, s.STOCK);
    const trace = await sim.runTu('MET-1', s.INFEED, { timeoutMs: 10_000 });
    expect(trace.steps.length).toBeGreaterThanOrEqual(3);
    await sim.synq({ timeoutMs: 10_000 });
    await sim.sendUnknownType('ZZZZ');
    await until(async () => (await allPages(wms, '/v1/plc-channels/CNV01/telegrams?type=ZZZZ')).items.length === 1, 'the unknown telegram logged');

    const { text, value } = await scrape();
    const log = (await allPages(wms, '/v1/plc-channels/CNV01/telegrams?limit=1000')).items;
    const inLog = (direction: string, type: string, outcome: string) =>
      log.filter((e) => e.direction === direction && e.type === type && e.outcome === outcome).length;
    const reqs = inLog('in', 'REQ_', 'ok');
    expect(reqs).toBe(trace.steps.length);
    expect(value(telegrams('direction="in",type="REQ_",outcome="ok"'))).toBe(reqs);
    expect(value(telegrams('direction="out",type="RES_",outcome="reply"'))).toBe(inLog('out', 'RES_', 'reply'));
    expect(value(telegrams('direction="in",type="SYNQ",outcome="sync"'))).toBe(inLog('in', 'SYNQ', 'sync'));
    // A type outside the catalogue is `other`, whatever the PLC wrote: the label set stays bounded.
    expect(value(telegrams('direction="in",type="other",outcome="unknown-type"'))).toBe(1);
    expect(value(telegrams('direction="out",type="ERR_",outcome="error-reply"'))).toBe(1);
    expect(text).not.toContain('ZZZZ');
    // Nor do barcodes and locations become labels.
    expect(text).not.toContain('MET-1');
    expect(text).not.toContain(s.INFEED);

    const series = 'wms_plc_reply_latency_seconds';
    expect(value(`${series}_count{channel="CNV01",type="RES_"}`)).toBe(inLog('out', 'RES_', 'reply'));
    expect(value(`${series}_bucket{le="+Inf",channel="CNV01",type="RES_"}`)).toBe(inLog('out', 'RES_', 'reply'));
    expect(value(`${series}_bucket{le="0.0001",channel="CNV01",type="RES_"}`)).toBeDefined();
    expect(value(`${series}_sum{channel="CNV01",type="RES_"}`)).toBeGreaterThan(0);
    expect(value(`${series}_count{channel="CNV01",type="SYNC"}`)).toBeGreaterThanOrEqual(1);
  });

  it("bounds a latency bucket at the site's answer budget (plc.lateAfterMs, 150 ms by default), which the channel shows over REST", async () => {
    const { value } = await scrape();
    const series = 'wms_plc_reply_latency_seconds';
    const bucket = (le: string) => value(`${series}_bucket{le="${le}",channel="CNV01",type="RES_"}`)!;
    // The replies within the budget; the count less these are the late ones.
    expect(bucket('0.15')).toBeGreaterThanOrEqual(bucket('0.1'));
    expect(bucket('0.15')).toBeLessThanOrEqual(bucket('0.25'));
    expect(bucket('0.15')).toBeGreaterThan(0);
    expect((await wms.get('/v1/plc-channels/CNV01')).body.lateAfterMs).toBe(150);
  });

  it('shows the channel ONLINE, and counts its connections and a reconnect that supersedes the old one', async () => {
    const state = (name: string) => `wms_plc_channel_state{channel="CNV01",state="${name}"}`;
    const first = await scrape();
    expect(first.value(state('ONLINE'))).toBe(1);
    for (const other of ['DISABLED', 'WAITING', 'LINKED', 'STALE', 'CLOSED']) expect(first.value(state(other)), other).toBe(0);
    expect(first.value('wms_plc_connections_total{channel="CNV01"}')).toBe(1);
    expect(first.value('wms_plc_connections_superseded_total{channel="CNV01"}')).toBe(0);
    expect(first.value('wms_plc_connections_refused_total{channel="CNV01"}')).toBe(0);
    expect(first.value('wms_plc_connections_gave_way_total{channel="CNV01"}')).toBe(0);
    expect(first.value('wms_plc_channel_state_entries_total{channel="CNV01",state="ONLINE"}')).toBe(1);

    // The PLC reconnects before its old socket timed out: the new connection supersedes it.
    await sim.reconnect({ keepOld: true, timeoutMs: 10_000 });
    await sim.synq({ timeoutMs: 10_000 });
    await scrapeUntil((value) => value('wms_plc_connections_superseded_total{channel="CNV01"}') === 1, 'the superseded connection counted');
    const second = await scrape();
    expect(second.value('wms_plc_connections_total{channel="CNV01"}')).toBe(2);
    expect(second.value(state('ONLINE'))).toBe(1);
  });
});

describe('storage, event loop, event streams, alarms', () => {
  it('sizes the database files and their WAL, and times the commits', async () => {
    const { value } = await scrape();
    expect(value('wms_db_size_bytes{database="main"}')).toBeGreaterThan(0);
    expect(value('wms_db_size_bytes{database="logs"}')).toBeGreaterThan(0);
    expect(value('wms_db_wal_size_bytes{database="main"}')).toBeGreaterThanOrEqual(0);
    expect(value('wms_db_wal_size_bytes{database="logs"}')).toBeGreaterThanOrEqual(0);
    const commits = value('wms_db_commit_duration_seconds_count')!;
    expect(commits).toBeGreaterThan(0);
    expect(value('wms_db_commit_duration_seconds_bucket{le="+Inf"}')).toBe(commits);

    // Each commit flushes itself (storage.flush: commit): no flush thread, its counters stay 0 (test/durability.test.ts counts them).
    expect(value('wms_db_flushes_total')).toBe(0);
    expect(value('wms_db_flush_seconds_total')).toBe(0);

    // A change over REST is one more unit of work, so one more commit at least.
    expect((await wms.post('/v1/location-groups', { name: 'MET-COMMIT', parentName: 'WAREHOUSE' })).status).toBe(201);
    expect((await scrape()).value('wms_db_commit_duration_seconds_count')).toBeGreaterThan(commits);
  });

  it('answers a scraper that asks for text/plain only (Prometheus asks for its text format); other types get 406', async () => {
    const plain = await wms.get('/metrics', { headers: { Accept: 'text/plain;version=0.0.4' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await wms.get('/metrics', { headers: { Accept: 'text/*' } })).status).toBe(200);
    expect((await wms.get('/metrics', { headers: { Accept: 'image/png' } })).status).toBe(406);
  });

  it('reports the event-loop lag as a summary: p50, p99 and max since the last scrape, sum and count of every sample', async () => {
    const first = await scrape();
    expect(first.text).toMatch(/^# TYPE wms_event_loop_lag_seconds summary$/m);
    for (const quantile of ['0.5', '0.99', '1']) {
      const lag = first.value(`wms_event_loop_lag_seconds{quantile="${quantile}"}`);
      expect(lag, quantile).toBeGreaterThanOrEqual(0);
    }
    expect(first.value('wms_event_loop_lag_seconds_sum')).toBeGreaterThanOrEqual(0);
    // The count goes on across scrapes (the loop is sampled every 20 ms): a counter for rate().
    const count = first.value('wms_event_loop_lag_seconds_count')!;
    expect(count).toBeGreaterThan(0);
    await scrapeUntil((value) => value('wms_event_loop_lag_seconds_count')! > count, 'more samples counted');
  });

  it("leaves out Node's totals of active handles, requests and resources: the sums of the series by type", async () => {
    const { text } = await scrape();
    for (const family of ['handles', 'requests', 'resources']) {
      expect(text).toMatch(new RegExp(`^# TYPE wms_nodejs_active_${family} gauge$`, 'm'));
      expect(text).not.toContain(`wms_nodejs_active_${family}_total`);
    }
  });

  it('counts the open event streams', async () => {
    expect((await scrape()).value('wms_event_streams_open')).toBe(0);
    const ticket = (await wms.post('/v1/events/tickets')).body.ticket as string;
    const { stream, response } = await EventStream.open(`${wms.url}/v1/events?ticket=${enc(ticket)}`, { Accept: 'text/event-stream' });
    expect(response.status).toBe(200);
    try {
      await scrapeUntil((value) => value('wms_event_streams_open') === 1, 'the stream counted');
    } finally {
      stream.close();
    }
    await scrapeUntil((value) => value('wms_event_streams_open') === 0, 'the closed stream no longer counted');
  });

  it('counts the open alarms by severity, without the shelved ones', async () => {
    const major = 'wms_alarms_active{severity="major"}';
    const before = await scrape();
    for (const severity of ['critical', 'major', 'minor', 'warning']) {
      expect(before.value(`wms_alarms_active{severity="${severity}"}`), severity).toBeDefined();
    }
    const s = await site(wms, 'MALM');
    const raised = await wms.patch(`/v1/location/${s.pKey[s.C1]}?op=change-state`, { errorCode: '********', plcState: 12 });
    expect(raised.status, raised.text).toBe(204);
    const alarm = ((await wms.get('/v1/alarms')).body as any[]).find((a) => a.source.key === s.C1);
    expect(alarm).toMatchObject({ kind: 'location.plcState', severity: 'major' });
    expect((await scrape()).value(major)).toBe(before.value(major)! + 1);

    // Acknowledged, it is still open and counted; shelved, it waits for no one until then.
    expect((await wms.post(`/v1/alarms/${alarm.id}/acknowledge`, { comment: 'seen' })).status).toBe(200);
    expect((await scrape()).value(major)).toBe(before.value(major)! + 1);
    expect((await wms.post(`/v1/alarms/${alarm.id}/shelve`, { minutes: 30 })).status).toBe(200);
    expect((await scrape()).value(major)).toBe(before.value(major));
  });
});
