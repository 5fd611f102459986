// The writes of the crash suite and how they are checked after a restart.
//
// Each writer owns its keys (locations `C<w>/R<round>/<n>/0/0`, units `C<w>R<round>N<n>`)
// and sends one request at a time: it creates locations and transport units on them,
// moves its units between its locations and locks and releases its locations. A write
// is acknowledged when its 2xx reply arrived; at most one write per writer is in flight
// when the process is killed, and its outcome is unknown (either state is right).
//
// After the restart every acknowledged write must be there twice over: in the state
// (the location exists with its lock flags, the unit stands where its last move put
// it) and in the event log (one event per write, in the writer's order, and no event
// of a write that was not sent or was refused).

import type { HttpClient, Outcome } from './http.ts';
import type { Random } from './random.ts';

export type WriteKind = 'location.create' | 'unit.create' | 'unit.move' | 'location.lock';
export const WRITE_KINDS: readonly WriteKind[] = ['location.create', 'unit.create', 'unit.move', 'location.lock'];

export interface Write {
  kind: WriteKind;
  /** The location's coordinate or the unit's barcode. */
  key: string;
  /** location.lock: locked after it; unit.create, unit.move: the location after it. */
  value: string | boolean;
  /** `unsent`: the connection was refused, the appliance was already gone. */
  state: 'acknowledged' | 'in-flight' | 'refused' | 'unsent';
  /** The reply of a refused write. */
  reply?: string;
}

interface OwnLocation {
  locationId: string;
  pKey: string;
  locked: boolean;
}

/** One writer of one round. */
export class Writer {
  readonly writes: Write[] = [];
  private readonly locations: OwnLocation[] = [];
  private readonly units = new Map<string, string>();
  private next = 1;
  private readonly client: HttpClient;
  private readonly token: string;
  private readonly id: number;
  private readonly round: number;
  private readonly random: Random;

  constructor(client: HttpClient, token: string, id: number, round: number, random: Random) {
    this.client = client;
    this.token = token;
    this.id = id;
    this.round = round;
    this.random = random;
  }

  /** Writes until the appliance stops answering (it was killed). */
  async run(): Promise<void> {
    for (;;) {
      const write = this.plan();
      this.writes.push(write);
      const outcome = await this.send(write);
      if (outcome.kind === 'none') {
        // In flight at the kill: its outcome is unknown. Refused at connect: it never arrived.
        if (outcome.error === 'ECONNREFUSED') write.state = 'unsent';
        return;
      }
      if (outcome.status >= 200 && outcome.status < 300) {
        write.state = 'acknowledged';
        this.apply(write, outcome.json);
      } else {
        write.state = 'refused';
        write.reply = `${outcome.status} ${outcome.text.slice(0, 300)}`;
      }
    }
  }

  private plan(): Write {
    const r = this.random.next();
    const unitList = [...this.units.keys()];
    if (this.locations.length < 2 || r < 0.2) {
      const n = this.next++;
      return { kind: 'location.create', key: `C${this.id}/R${this.round}/${n}/0/0`, value: true, state: 'in-flight' };
    }
    if (unitList.length === 0 || r < 0.5) {
      const n = this.next++;
      return { kind: 'unit.create', key: `C${this.id}R${this.round}N${n}`, value: this.random.pick(this.locations).locationId, state: 'in-flight' };
    }
    if (r < 0.8) {
      const barcode = this.random.pick(unitList);
      const here = this.units.get(barcode)!;
      const there = this.random.pick(this.locations.filter((l) => l.locationId !== here));
      return { kind: 'unit.move', key: barcode, value: there.locationId, state: 'in-flight' };
    }
    const location = this.random.pick(this.locations);
    return { kind: 'location.lock', key: location.locationId, value: !location.locked, state: 'in-flight' };
  }

  private send(write: Write): Promise<Outcome> {
    const json = (method: string, path: string, body?: unknown) =>
      this.client.send({
        method,
        path,
        headers: [
          ['Authorization', `Bearer ${this.token}`],
          ['Content-Type', 'application/json'],
        ],
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    switch (write.kind) {
      case 'location.create':
        return json('POST', '/v1/locations', { locationId: write.key, locationGroupName: 'WAREHOUSE' });
      case 'unit.create':
        return json('POST', '/v1/transport-units', { barcode: write.key, actualLocation: write.value, transportUnitType: 'EURO' });
      case 'unit.move':
        return json('PATCH', `/v1/transport-units?bk=${encodeURIComponent(write.key)}&newLocation=${encodeURIComponent(String(write.value))}`);
      case 'location.lock': {
        const pKey = this.locations.find((l) => l.locationId === write.key)!.pKey;
        // Positions from the right: 0 incoming, 1 outgoing; 1 = locked.
        return json('PATCH', `/v1/location/${encodeURIComponent(pKey)}?op=change-state`, { errorCode: write.value ? '00000011' : '00000000' });
      }
    }
  }

  private apply(write: Write, body: unknown): void {
    switch (write.kind) {
      case 'location.create':
        this.locations.push({ locationId: write.key, pKey: (body as { pKey: string }).pKey, locked: false });
        return;
      case 'unit.create':
      case 'unit.move':
        this.units.set(write.key, String(write.value));
        return;
      case 'location.lock':
        this.locations.find((l) => l.locationId === write.key)!.locked = write.value as boolean;
    }
  }
}

/** What the writes of a round leave behind: per key, the values it may have now. */
export interface Expectation {
  kind: 'location' | 'unit';
  key: string;
  /** false: created by a write in flight, may be absent. */
  mustExist: boolean;
  /** Location: locked flags allowed; unit: locations allowed. */
  allowed: (string | boolean)[];
  /** Acknowledged writes of this key, in order (to match the events). */
  acknowledged: Write[];
  /** The write in flight at the kill, if it was about this key. */
  inFlight?: Write;
}

export function expectations(writes: readonly Write[]): Map<string, Expectation> {
  const byKey = new Map<string, Expectation>();
  for (const w of writes) {
    if (w.state === 'refused' || w.state === 'unsent') continue;
    const kind = w.kind.startsWith('location') ? 'location' : 'unit';
    const id = `${kind}:${w.key}`;
    let e = byKey.get(id);
    if (w.kind === 'location.create' || w.kind === 'unit.create') {
      e = { kind, key: w.key, mustExist: w.state === 'acknowledged', allowed: [w.kind === 'location.create' ? false : w.value], acknowledged: [] };
      byKey.set(id, e);
    }
    if (!e) throw new Error(`write before create: ${w.kind} ${w.key}`);
    const value = w.kind === 'location.create' ? false : w.value;
    if (w.state === 'acknowledged') {
      e.acknowledged.push(w);
      e.allowed = [value];
    } else {
      e.inFlight = w;
      e.allowed = [...e.allowed, value];
    }
  }
  return byKey;
}

export interface Finding {
  key: string;
  problem: string;
}

/** The state of every key through the API: absent, or its value now. */
export async function readState(
  api: (p: string) => Promise<{ status: number; json: any }>,
  e: Expectation,
): Promise<{ exists: boolean; value?: string | boolean }> {
  const reply =
    e.kind === 'location'
      ? await api(`/v1/locations?locationId=${encodeURIComponent(e.key)}`)
      : await api(`/v1/transport-units?bk=${encodeURIComponent(e.key)}`);
  if (reply.status === 404) return { exists: false };
  if (reply.status !== 200) throw new Error(`reading ${e.kind} ${e.key}: ${reply.status} ${JSON.stringify(reply.json)}`);
  if (e.kind === 'location') {
    const l = reply.json as { incomingActive: boolean; outgoingActive: boolean };
    if (l.incomingActive !== l.outgoingActive) return { exists: true, value: `incomingActive ${l.incomingActive}, outgoingActive ${l.outgoingActive}` };
    return { exists: true, value: !l.incomingActive };
  }
  return { exists: true, value: (reply.json as { actualLocation: string }).actualLocation };
}

export function checkState(e: Expectation, state: { exists: boolean; value?: string | boolean }): Finding[] {
  if (!state.exists) return e.mustExist ? [{ key: e.key, problem: `acknowledged ${e.kind} create lost: ${e.kind} absent` }] : [];
  if (!e.allowed.includes(state.value!)) {
    const what = e.kind === 'location' ? 'locked' : 'at';
    return [{ key: e.key, problem: `${what} ${String(state.value)}, expected ${e.allowed.map(String).join(' or ')} (last acknowledged write lost)` }];
  }
  return [];
}

/** An event as the history answers it. */
export interface HistoryEvent {
  id: number;
  type: string;
  subject: { kind: string; key: string };
  data: Record<string, unknown>;
}

export const EVENT_TYPES = ['location.created', 'location.stateChanged', 'transportUnit.created', 'transportUnit.moved'];

/** The write an event records, in the terms of `Write`; undefined for events the writers do not cause. */
function writeOf(event: HistoryEvent): { kind: WriteKind; key: string; value: string | boolean } | undefined {
  switch (event.type) {
    case 'location.created':
      return { kind: 'location.create', key: event.subject.key, value: true };
    case 'location.stateChanged':
      // One event per field; the incoming flag stands for the lock.
      return event.data.field === 'incomingActive' ? { kind: 'location.lock', key: event.subject.key, value: event.data.value === false } : undefined;
    case 'transportUnit.created':
      return { kind: 'unit.create', key: event.subject.key, value: String(event.data.actualLocation) };
    case 'transportUnit.moved':
      return { kind: 'unit.move', key: event.subject.key, value: String(event.data.to) };
  }
  return undefined;
}

/**
 * Events of the round against its writes, key by key: the acknowledged writes in
 * order, then at most the write that was in flight. Anything else is a lost write
 * (acknowledged, no event) or a phantom (an event no acknowledged or in-flight write explains).
 */
export function checkEvents(expected: Map<string, Expectation>, events: readonly HistoryEvent[], ownKey: (key: string) => boolean): Finding[] {
  const seen = new Map<string, { kind: WriteKind; value: string | boolean }[]>();
  for (const event of events) {
    const w = writeOf(event);
    if (!w || !ownKey(w.key)) continue;
    const id = `${w.kind.startsWith('location') ? 'location' : 'unit'}:${w.key}`;
    const list = seen.get(id) ?? [];
    list.push(w);
    seen.set(id, list);
  }
  const findings: Finding[] = [];
  const same = (a: { kind: WriteKind; value: string | boolean }, b: { kind: WriteKind; value: string | boolean }) => a.kind === b.kind && a.value === b.value;
  for (const [id, e] of expected) {
    const got = seen.get(id) ?? [];
    seen.delete(id);
    const acked = e.acknowledged;
    for (let i = 0; i < acked.length; i++) {
      if (!got[i] || !same(got[i]!, acked[i]!)) {
        findings.push({
          key: e.key,
          problem: `event of acknowledged write ${i + 1} (${acked[i]!.kind} → ${String(acked[i]!.value)}) missing; events: ${describe(got)}`,
        });
        break;
      }
    }
    const extra = got.slice(acked.length);
    const explained = extra.length === 0 || (extra.length === 1 && e.inFlight !== undefined && same(extra[0]!, e.inFlight));
    if (!explained) findings.push({ key: e.key, problem: `events without an acknowledged write: ${describe(extra)}` });
  }
  for (const [id, got] of seen) findings.push({ key: id, problem: `events of a key no write created: ${describe(got)}` });
  return findings;
}

const describe = (ws: readonly { kind: WriteKind; value: string | boolean }[]) =>
  ws.length ? ws.map((w) => `${w.kind} → ${String(w.value)}`).join(', ') : 'none';
