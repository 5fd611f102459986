import { signal } from '@preact/signals';
import { get } from '../../api.ts';
import { keptFor } from '../../lists/live-list.ts';
import { page } from '../../lists/pages.ts';
import type { LiveEvent } from '../../live.ts';
import { can } from '../../session.ts';
import { applyOrderEvent, isEnded, orderKeyOf, priorityRank, type OrderEvent, type TransportOrder } from './order.ts';
import type * as Wire from '../../../../contract/replies.ts';

// What the orders board holds: the open orders (waiting, running) read from the
// appliance page by page, the orders that ended while the board is open (the lists
// are oldest first and keep every order ever made, so their first pages are last
// month's), and where each unit stands now. Live events change single orders in place.
// One board for the page (sharedBoard), kept while other screens are shown.
//
// Its lanes are not live lists (lists/live-list.ts), which read a record again when an
// event names it: an order's events carry all the board shows, so the board applies
// them as they come, moves the order from lane to lane, and keeps the ended ones, which
// no list of the API gives back; a lane and the units' places are put on the board
// together.

export type LaneId = 'waiting' | 'running' | 'ended';
export const LANES: readonly LaneId[] = ['waiting', 'running', 'ended'];

/** The states read from the appliance per open lane. */
const LANE_STATE: Record<'waiting' | 'running', string> = { waiting: 'INITIALIZED', running: 'STARTED' };

export const PAGE = 50;
/** Ended orders kept on the board, the newest. */
const ENDED_KEPT = 50;

export const laneOf = (o: TransportOrder): LaneId => (isEnded(o.state) ? 'ended' : o.state === 'STARTED' ? 'running' : 'waiting');

/** Open lanes: highest priority first, then the oldest (the order they start in). Ended: the latest first. */
export function laneOrders(orders: Iterable<TransportOrder>, lane: LaneId): TransportOrder[] {
  const list = [...orders].filter((o) => laneOf(o) === lane);
  if (lane === 'ended') return list.sort((a, b) => (b.endDate ?? '').localeCompare(a.endDate ?? '')).slice(0, ENDED_KEPT);
  return list.sort((a, b) => priorityRank(a.priority) - priorityRank(b.priority) || a.createDt.localeCompare(b.createDt));
}

type Unit = Pick<Wire.TransportUnit, 'barcode' | 'actualLocation'>;

export class Board {
  readonly orders = signal<ReadonlyMap<string, TransportOrder>>(new Map());
  /** Cursor of the next page of an open lane; undefined when all are read. */
  readonly next = signal<Partial<Record<LaneId, string>>>({});
  /** Barcode → the coordinate the unit stands on. */
  readonly unitAt = signal<ReadonlyMap<string, string>>(new Map());
  readonly loaded = signal(false);
  readonly busy = signal<LaneId | undefined>(undefined);
  readonly error = signal<unknown>(undefined);

  /** The board's reads one after the other: a load begun before a Show more ended would put back the first page. */
  private reading: Promise<unknown> = Promise.resolve();

  private inTurn(work: () => Promise<void>): Promise<void> {
    const run = this.reading.then(work, work);
    this.reading = run;
    return run;
  }

  /**
   * Each open lane from its first page, as far as the board showed it (a page at least),
   * and where their units stand, put on the board in one go (at the start, when the board
   * is opened again, and after the stream could not say what was missed: pages read with
   * Show more are read again, not dropped). What the board held stays shown until the
   * answers are in.
   */
  load(): Promise<void> {
    return this.inTurn(() => this.loadNow());
  }

  private async loadNow(): Promise<void> {
    try {
      const shownIn = (lane: 'waiting' | 'running') => Math.max(PAGE, laneOrders(this.orders.value.values(), lane).length);
      const [waiting, running] = await Promise.all([this.readLane('waiting', shownIn('waiting')), this.readLane('running', shownIn('running'))]);
      const open = [...waiting.items, ...running.items];
      // All of them: units move while the board is not open, and no event tells it then.
      const at = await this.whereAre(open);
      const orders = new Map<string, TransportOrder>();
      // Ended orders stay: the appliance's lists cannot give them back.
      for (const o of this.orders.value.values()) if (isEnded(o.state)) orders.set(o.persistentKey, o);
      for (const o of open) orders.set(o.persistentKey, o);
      if (!sameOrders(orders, this.orders.value)) this.orders.value = orders;
      const next = { waiting: waiting.next, running: running.next };
      if (next.waiting !== this.next.value.waiting || next.running !== this.next.value.running) this.next.value = next;
      this.placeUnits(at);
      this.loaded.value = true;
      this.error.value = undefined;
    } catch (err) {
      this.error.value = err;
    }
  }

  more(lane: 'waiting' | 'running'): Promise<void> {
    return this.inTurn(() => this.moreNow(lane));
  }

  private async moreNow(lane: 'waiting' | 'running'): Promise<void> {
    const after = this.next.value[lane];
    if (!after) return;
    this.busy.value = lane;
    try {
      const more = await this.read(lane, after);
      this.put(...more.items);
      this.next.value = { ...this.next.value, [lane]: more.next };
      this.error.value = undefined;
      await this.locate(more.items);
    } catch (err) {
      this.error.value = err;
    } finally {
      this.busy.value = undefined;
    }
  }

  /** Orders as the appliance answered them (a create, a cancel, a read). */
  put(...orders: TransportOrder[]): void {
    if (orders.length === 0) return;
    const map = new Map(this.orders.value);
    for (const o of orders) map.set(o.persistentKey, o);
    // A board open for a shift sees thousands of orders end: keep only those it shows.
    const ended = laneOrders(map.values(), 'ended');
    if (ended.length === ENDED_KEPT) {
      const kept = new Set(ended.map((o) => o.persistentKey));
      for (const [pKey, o] of map) if (isEnded(o.state) && !kept.has(pKey)) map.delete(pKey);
    }
    this.orders.value = map;
  }

  /**
   * An order this page created, as the appliance answered it, and where its unit stands.
   * The answer can come before the order's event: that event then finds the order on the
   * board and does not look for its unit, so the answer does.
   */
  created(order: TransportOrder): void {
    this.put(order);
    void this.locate([order]).catch(() => {});
  }

  /** Reads one order again (after a PATCH, which answers 204; or an event about one not on the board). */
  async reread(pKey: string): Promise<void> {
    const order = (await get<TransportOrder>(`/v1/transport-orders/${encodeURIComponent(pKey)}`)).body;
    this.put(order);
    await this.locate([order]);
  }

  onEvent = (event: OrderEvent | LiveEvent<'transportUnit.moved'>): void => {
    if (event.type === 'transportUnit.moved') {
      const { barcode, to } = event.data;
      if (!this.unitAt.value.has(barcode)) return;
      this.unitAt.value = new Map(this.unitAt.value).set(barcode, to);
      return;
    }
    const pKey = orderKeyOf(event);
    const known = this.orders.value.get(pKey);
    const changed = applyOrderEvent(known, event);
    if (changed) {
      this.put(changed);
      if (!known) void this.locate([changed]).catch(() => {});
      return;
    }
    // An order not on the board (on a page not read yet, or older): read it when it
    // belongs on a lane that is complete, or it just ended.
    const state = event.data.state;
    const lane = isEnded(state) ? 'ended' : state === 'STARTED' ? 'running' : 'waiting';
    if (lane === 'ended' || this.next.value[lane] === undefined) void this.reread(pKey).catch(() => {});
  };

  /** A lane's pages from the first until `want` orders are read or the lane has no more. */
  private async readLane(lane: 'waiting' | 'running', want: number) {
    const items: TransportOrder[] = [];
    let next: string | undefined;
    do {
      const read = await this.read(lane, next);
      items.push(...read.items);
      next = read.next;
    } while (next !== undefined && items.length < want);
    return { items, next };
  }

  private async read(lane: 'waiting' | 'running', after?: string) {
    return page<TransportOrder>('/v1/transport-orders', { state: LANE_STATE[lane] }, PAGE, after);
  }

  /** Where the units of these orders stand now, those not known yet (one request for all; needs transport-units:read). */
  private async locate(orders: readonly TransportOrder[]): Promise<void> {
    this.placeUnits(await this.whereAre(orders.filter((o) => !this.unitAt.value.has(o.transportUnitBK))));
  }

  private async whereAre(orders: readonly TransportOrder[]): Promise<Unit[]> {
    if (!can('transport-units:read')) return [];
    const bks = [...new Set(orders.map((o) => o.transportUnitBK))];
    if (bks.length === 0) return [];
    const query = new URLSearchParams(bks.map((bk) => ['bks', bk]));
    return (await get<Unit[]>(`/v1/transport-units?${query}`)).body ?? [];
  }

  private placeUnits(units: readonly Unit[]): void {
    const moved = units.filter((u) => this.unitAt.value.get(u.barcode) !== u.actualLocation);
    if (moved.length === 0) return;
    const map = new Map(this.unitAt.value);
    for (const u of moved) map.set(u.barcode, u.actualLocation);
    this.unitAt.value = map;
  }
}

/** The same orders as held: a board read again that finds nothing new redraws nothing. */
function sameOrders(a: ReadonlyMap<string, TransportOrder>, b: ReadonlyMap<string, TransportOrder>): boolean {
  if (a.size !== b.size) return false;
  for (const [pKey, o] of a) if (JSON.stringify(o) !== JSON.stringify(b.get(pKey))) return false;
  return true;
}

/**
 * The page's board, kept when the screen is left: opened again, it shows what it held at
 * once and reads the lanes again in the background (lists/live-list.ts, keptFor).
 */
export const sharedBoard = (): Board => keptFor('orders.board', () => new Board());
