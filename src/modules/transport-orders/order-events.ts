import type { EventInput } from '../../core/event-catalogue.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { TransportOrder } from './order-view.ts';

// The events of the transport-orders module (`transportOrder.*`, docs/events.md), as
// creation, the transitions and the problem texts record them: each is about the order
// and names its unit, so that a unit's history shows its orders too.

/** An event of this module as it is emitted: about the order, naming its unit. */
export type OrderEvent =
  Extract<EventInput, { type: `transportOrder.${string}` }> extends infer E
    ? E extends { type: infer T; data: infer D }
      ? { type: T; data: D }
      : never
    : never;

/** What every order event carries about the order. */
export const eventData = (o: TransportOrder) => ({
  pKey: o.pk,
  transportUnitBK: o.transportUnitBK,
  state: o.state,
  priority: o.priority,
  targetLocation: o.targetLocation,
  targetLocationGroup: o.targetLocationGroup,
});

/** Records an order event in the running unit of work; it is about the order and names its unit. */
export function emitOrder(work: UnitOfWork, event: OrderEvent): void {
  work.emit({ ...event, key: event.data.pKey, refs: [{ kind: 'transportUnit', key: event.data.transportUnitBK }] } as EventInput);
}
