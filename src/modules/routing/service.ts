import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { CommonServices } from '../common/service.ts';
import { decide, type Decision, type OrderTarget, type RoutingModel } from './decision.ts';
import { createHopEditing } from './hop-editing.ts';
import { createModelCache } from './model-cache.ts';
import { createRouteEditing } from './route-editing.ts';
import type { RoutingStore } from './store.ts';

// The rules of the routing module (docs/routing.md). Locations and groups belong to the common base
// module and are reached only through its services; the transport order of a unit
// comes from the transport-orders module through the `OrderLookup` it implements.
//
// Here: the decision where a unit goes next, the path the PLC takes per REQ_ telegram,
// with the model it is made on (model-cache.ts). Editing the routes is in
// route-editing.ts, their hops and the default hop table in hop-editing.ts.

export type { RouteResource } from './route-editing.ts';

/** What routing asks the transport-orders module. */
export interface OrderLookup {
  /** The STARTED transport order of the unit (at most one), with the coordinate / name of its target. */
  startedOrderOf(transportUnitBK: string): OrderTarget | undefined;
}

/** Until the transport-orders module is connected: no unit has an order. */
const NO_ORDERS: OrderLookup = { startedOrderOf: () => undefined };

/** A decision with the order it was made for. */
export type RoutingDecision = Decision & { order: OrderTarget | undefined };

interface RoutingServiceDeps {
  work: UnitOfWork;
  store: RoutingStore;
  common: CommonServices;
  /** The transport-orders module; `NO_ORDERS` until it is connected (see `connectOrders`). */
  orders?: OrderLookup;
}

export function createRoutingService({ work, store, common, orders = NO_ORDERS }: RoutingServiceDeps) {
  let orderLookup = orders;

  const models = createModelCache({ work, store, common });
  const { stored, ...routeEditing } = createRouteEditing({ work, store, common, models });
  const hopEditing = createHopEditing({ work, store, common, models, stored });

  function decideFor(transportUnitBK: string | undefined, locationId: string, within: RoutingModel = models.current()): RoutingDecision {
    const order = transportUnitBK === undefined ? undefined : orderLookup.startedOrderOf(transportUnitBK);
    return { ...decide(within, { location: locationId, order }), order };
  }

  return {
    // Routes (route-editing.ts), their hops and the default hop table (hop-editing.ts).
    ...routeEditing,
    ...hopEditing,

    /**
     * The routing decision for the PLC adapter (docs/plc.md): where the
     * unit `transportUnitBK` (undefined: a unit without barcode, i.e. no order) standing
     * at `locationId` goes next. Never throws for an unknown unit or location: an unknown
     * location is the kind `unknown-location`, a unit without STARTED order is routed by
     * the default hop table.
     */
    decide: decideFor,

    /**
     * Brings the cached model up to date from committed data. Callers that decide inside
     * their own transaction (the PLC adapter, once per REQ_) call it before opening it:
     * a model built inside a transaction is used once and not kept, as it might hold
     * that transaction's uncommitted changes.
     */
    prepare(): void {
      if (!work.active) models.current();
    },

    /** How often the routing model has been built since start (diagnostics and tests). */
    modelBuilds: () => models.builds(),

    /**
     * The diagnostic lookup behind `GET /v1/api/routes/decision`: as `decide`, but an
     * unknown location (404 `loc.notFoundByName`) or transport unit (404
     * `tu.notFoundByBK`) is refused. With `assumeEnabled` (a route's key; an unknown one
     * is refused as `GET /v1/api/routes/{key}` refuses it), the decision as if that route
     * were enabled: the dry run before enabling a route. It builds a model of its own
     * (one rebuild's work) and changes nothing.
     */
    lookup(transportUnitBK: string | undefined, locationId: string, assumeEnabled?: string): RoutingDecision {
      const location = common.locations.resolve(locationId);
      if (transportUnitBK !== undefined) common.transportUnits.byBarcode(transportUnitBK);
      if (assumeEnabled === undefined) return decideFor(transportUnitBK, location.locationId);
      stored(assumeEnabled);
      return decideFor(transportUnitBK, location.locationId, models.withEnabled(assumeEnabled));
    },

    /** Replaces the order lookup (a routing service built without one: tests). */
    connectOrders(lookup: OrderLookup): void {
      orderLookup = lookup;
    },
  };
}

export type RoutingService = ReturnType<typeof createRoutingService>;
