import { signal } from '@preact/signals';
import { ApiFailure, get } from '../../api.ts';
import { readAll } from '../../lists/pages.ts';
import type { LiveEvent } from '../../live.ts';
import { can } from '../../session.ts';
import { applyOrderEvent, isOrderEvent, ORDER_EVENTS, orderKeyOf, type OrderEvent, type TransportOrder } from '../orders/order.ts';
import { Trace } from './trace.ts';
import type * as Wire from '../../../../contract/replies.ts';

// One transport unit as the unit screen shows it: the unit (where it stands, its
// state), its location's state, its transport orders and its trace, each read from the
// appliance and kept current by the live events that name the unit.

/** A transport unit as the API sends it. */
export type TransportUnit = Wire.TransportUnit;

/** What the unit search shows of a location. */
export type Location = Pick<Wire.Location, 'locationId' | 'locationGroupName' | 'incomingActive' | 'outgoingActive' | 'plcState'>;

/** Events that can name a unit (their data carries its barcode), and the location states. */
export const UNIT_EVENTS = [
  'transportUnit.created',
  'transportUnit.changed',
  'transportUnit.moved',
  'transportUnit.stateChanged',
  'transportUnit.deleted',
  'transportUnit.divided',
  'plc.bookedOntoLockedLocation',
  ...ORDER_EVENTS,
  'movement.created',
  'movement.changed',
  'movement.completed',
  'movement.cancelled',
  'packagingUnit.created',
  'packagingUnit.moved',
  'loadUnit.reserved',
  'location.stateChanged',
] as const;

const ORDERS_PAGE = 100;
/**
 * The answer to a REQ_ is logged a moment after the move it caused is published: the
 * trace is read again shortly after an event, and once more a little later for it.
 */
const SETTLE_MS = [150, 1500];

function namesUnit(event: LiveEvent, barcode: string): boolean {
  const d = event.data as Record<string, unknown>;
  return (
    (event.subject.kind === 'transportUnit' && event.subject.key === barcode) ||
    d.barcode === barcode ||
    d.transportUnitBK === barcode ||
    d.transportUnitBk === barcode ||
    (d.from as { barcode?: unknown } | undefined)?.barcode === barcode
  );
}

export class UnitView {
  /** null: no unit has the barcode (now). */
  readonly unit = signal<TransportUnit | null | undefined>(undefined);
  readonly location = signal<Location | undefined>(undefined);
  readonly orders = signal<readonly TransportOrder[] | undefined>(undefined);
  readonly error = signal<unknown>(undefined);
  readonly trace: Trace;
  private timers: number[] = [];

  readonly barcode: string;

  constructor(barcode: string) {
    this.barcode = barcode;
    this.trace = new Trace(barcode);
  }

  load = (): void => {
    void this.readUnit();
    if (can('transport-orders:read')) void this.readOrders();
    void this.trace.load();
  };

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  onEvent = (event: LiveEvent): void => {
    if (event.type === 'location.stateChanged') {
      if (event.data.locationId === this.unit.value?.actualLocation) void this.readLocation();
      return;
    }
    if (!namesUnit(event, this.barcode)) return;
    if (event.type.startsWith('transportUnit.')) void this.readUnit();
    if (isOrderEvent(event)) void this.orderChanged(event);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = SETTLE_MS.map((ms) => window.setTimeout(() => void this.trace.refresh(), ms));
  };

  private async readUnit(): Promise<void> {
    try {
      const unit = (await get<TransportUnit>('/v1/transport-units', { bk: this.barcode })).body;
      this.unit.value = unit;
      this.error.value = undefined;
      await this.readLocation();
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) {
        this.unit.value = null;
        this.location.value = undefined;
      } else this.error.value = err;
    }
  }

  private async readLocation(): Promise<void> {
    const at = this.unit.value?.actualLocation;
    if (!at || !can('locations:read')) return;
    try {
      this.location.value = (await get<Location>('/v1/locations', { locationId: at })).body;
    } catch {
      // The location's state is a detail: the unit's own place is shown without it.
      this.location.value = undefined;
    }
  }

  /** Every order of the unit: a unit has few, so all pages are read. */
  private async readOrders(): Promise<void> {
    try {
      this.orders.value = await readAll<TransportOrder>('/v1/transport-orders', { barcode: this.barcode }, ORDERS_PAGE);
    } catch (err) {
      this.error.value = err;
    }
  }

  private async orderChanged(event: OrderEvent): Promise<void> {
    const list = this.orders.value ?? [];
    const pKey = orderKeyOf(event);
    const known = list.find((o) => o.persistentKey === pKey);
    let changed = applyOrderEvent(known, event);
    if (!changed) {
      try {
        changed = (await get<TransportOrder>(`/v1/transport-orders/${encodeURIComponent(pKey)}`)).body;
      } catch {
        return;
      }
    }
    const current = this.orders.value ?? [];
    this.orders.value = current.some((o) => o.persistentKey === pKey) ? current.map((o) => (o.persistentKey === pKey ? changed : o)) : [...current, changed];
  }
}
