import type { Logger } from '../../src/core/log.ts';
import type { UnitOfWork } from '../../src/core/unit-of-work.ts';
import type { CommonServices } from '../../src/modules/common/service.ts';
import type { RoutingService } from '../../src/modules/routing/service.ts';
import type { TransportOrderService } from '../../src/modules/transport-orders/service.ts';
import type { LocationRef, SightingFailed, UnitRef } from '../port.ts';

// What the adapter's parts share: the services they call, and the lookups of a
// reported location and transport unit.

export interface AdapterDeps {
  work: UnitOfWork;
  common: CommonServices;
  transportOrders: TransportOrderService;
  routing: RoutingService;
  log: Logger;
}

export type Location = NonNullable<ReturnType<CommonServices['locations']['findByPk']>>;
export type TransportUnit = NonNullable<ReturnType<CommonServices['transportUnits']['findByBarcode']>>;
export type LocationGroup = ReturnType<CommonServices['locationGroups']['byPKey']>;

/**
 * The location a reference names: by coordinate, then (when no location has the
 * coordinate, or none was given) by PLC code. Undefined for an unknown location.
 */
export function findLocation(common: CommonServices, ref: LocationRef | undefined): Location | undefined {
  if (!ref) return undefined;
  if (ref.coordinate !== undefined) {
    const found = common.locations.findByLocationId(ref.coordinate);
    if (found || ref.plcCode === undefined) return found;
  }
  return ref.plcCode === undefined ? undefined : common.locations.findByPlcCode(ref.plcCode);
}

/**
 * The transport unit a reference names: by its barcode (`4711`), then by the text as
 * sent (`00000000000000004711`), so a unit stored either way is found.
 */
export function findUnit(common: CommonServices, ref: UnitRef): TransportUnit | undefined {
  return (
    common.transportUnits.findByBarcode(ref.barcode) ??
    (ref.asSent !== undefined && ref.asSent !== ref.barcode ? common.transportUnits.findByBarcode(ref.asSent) : undefined)
  );
}

/** The names of a location's group and of the groups above it, nearest first. */
export function groupChainOf(common: CommonServices, location: Location): string[] {
  return [location.groupName, ...common.locationGroups.ancestors(location.groupPk).map((pk) => common.locationGroups.byPKey(pk).name)];
}

/**
 * Reports that came together (a burst of telegrams, the changes of one poll), in one
 * unit of work, each in a savepoint of its own (`work.isolated`): one commit, one fsync,
 * for the lot, the events of all after it. One that fails is undone alone and answered
 * `internal` with its error; the others stand. When SQLite gave up the whole transaction
 * (disk full, I/O error) or the commit failed, none is kept: every one is `internal`,
 * logged once. Never throws. Runs as the caller's actor.
 */
export function together<T, R>(
  deps: Pick<AdapterDeps, 'work' | 'log'>,
  reports: readonly T[],
  one: (report: T) => R,
  batch: { channel: string; of: string },
): (R | SightingFailed)[] {
  const { work, log } = deps;
  try {
    return work.run(() =>
      reports.map((report): R | SightingFailed => {
        try {
          return work.isolated(() => one(report));
        } catch (error) {
          // Its savepoint is rolled back; the others stand. Unless SQLite gave up the
          // whole transaction: then nothing of the batch may be kept.
          if (!work.transactionOpen) throw error;
          return { outcome: 'internal', error };
        }
      }),
    );
  } catch (err) {
    log.error({ err, [batch.of]: reports.length, channel: batch.channel }, `PLC: committing a batch of ${batch.of} failed; none of them was kept`);
    return reports.map(() => ({ outcome: 'internal' }));
  }
}
