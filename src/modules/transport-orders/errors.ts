import { CORE_KEYS, DomainError, notFound } from '../../core/errors.ts';
import type { StoredOrder } from './store.ts';

// The message keys of the transport-orders module (docs/transport-orders.md, "Error
// keys"), and the refusals of its rules (the one of the transition table is beside
// the table, in transitions.ts).

export const TRANSPORT_ORDER_KEYS = {
  tuAlreadyAtTarget: 'svc.tms.to.tuAlreadyAtTarget',
  invalidStateTransition: 'svc.tms.to.invalidStateTransition',
  alreadyStartedForTu: 'svc.tms.to.alreadyStartedForTu',
  endedNotRedirected: 'svc.tms.to.endedNotRedirected',
  endedNotChanged: 'svc.tms.to.endedNotChanged',
  endedNotCancelled: 'svc.tms.to.endedNotCancelled',
} as const;

/** The spec: unknown transport unit or target on create → 404 `not.found` whose message is the key; no `obj`. */
export const notFoundPlain = () => notFound(CORE_KEYS.notFound);

export const orderNotFound = (pKey: string) => notFound(`TransportOrder with pKey [${pKey}] does not exist`, [pKey]);

export const alreadyStartedForTu = (o: StoredOrder, started: StoredOrder) =>
  new DomainError(
    409,
    TRANSPORT_ORDER_KEYS.alreadyStartedForTu,
    `TransportOrder [${o.pk}] cannot start: TransportUnit [${o.transportUnitBK}] already has the STARTED order [${started.pk}]`,
    { obj: [o.pk, o.transportUnitBK, started.pk] },
  );

export const endedNotRedirected = (o: StoredOrder) =>
  new DomainError(409, TRANSPORT_ORDER_KEYS.endedNotRedirected, `TransportOrder [${o.pk}] has ended (state ${o.state}) and cannot be redirected`, {
    obj: [o.pk, o.state],
  });

export const endedNotChanged = (o: StoredOrder) =>
  new DomainError(409, TRANSPORT_ORDER_KEYS.endedNotChanged, `TransportOrder [${o.pk}] has ended (state ${o.state}) and cannot be changed`, {
    obj: [o.pk, o.state],
  });

export const endedNotCancelled = (o: StoredOrder) =>
  new DomainError(409, TRANSPORT_ORDER_KEYS.endedNotCancelled, `TransportOrder [${o.pk}] has ended (state ${o.state}) and cannot be cancelled`, {
    obj: [o.pk, o.state],
  });

export const alreadyAtTarget = (barcode: string, locationId: string) =>
  new DomainError(
    400,
    TRANSPORT_ORDER_KEYS.tuAlreadyAtTarget,
    `TransportUnit [${barcode}] already stands at [${locationId}], the target of the order that would be STARTED`,
    { obj: [barcode, locationId] },
  );
