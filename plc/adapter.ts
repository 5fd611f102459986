import { asActor } from '../src/core/actor.ts';
import type { PlcAdapter, Reporter, RouteListeners, SightingFailed, UnitOutcome, UnitRef, UnitSighting } from './port.ts';
import { together, type AdapterDeps } from './adapter/shared.ts';
import { createStates } from './adapter/states.ts';
import { createUnitAtLocation } from './adapter/unit-at-location.ts';
import { createUnsolicited } from './adapter/unsolicited.ts';

// The PLC adapter (docs/routing.md): the warehouse operations every PLC protocol calls
// (plc/port.ts PlcOperations), over the module services. Each operation's effects are
// one unit of work (all or nothing), done as the reporting channel's PLC (actor `plc`);
// its events are delivered after the commit. Sightings that came together
// (unitSightings) and states that came together (stateChanges: the changes of a signal
// channel's poll) share one commit, each still all or nothing in a savepoint of its own
// (adapter/shared.ts, together): under load the fsync, not the work, is what a report
// costs most. The protocols own their wire (OSIP: plc/osip/, framing, sequence numbers,
// duplicates, replies); the adapter owns what a report means, once for all of them.
//
//   unitArrived / unitReport / unitSightings → adapter/unit-at-location.ts (book the unit, its orders, next hop)
//   locationState / groupState / plcError    → adapter/states.ts (location and group states)
//   stateChanges / onNamed                   → adapter/states.ts (the same, batched; places that come to exist)
//   order events                             → adapter/unsolicited.ts (a new route, told to the channel owning the unit's location)

export type { AdapterDeps } from './adapter/shared.ts';

export type { PlcAdapter } from './port.ts';

/** The barcodes a report names: the order events its commit delivers are its own (unsolicited.ts). */
const barcodesOf = (units: readonly (UnitRef | undefined)[]) =>
  units.flatMap((u) => (u === undefined ? [] : u.asSent === undefined ? [u.barcode] : [u.barcode, u.asSent]));

/**
 * The adapter over the module services. With `channels` it is attached at once (the
 * composition root passes the PLC channels); otherwise call `attach` when they exist.
 */
export function createAdapter(deps: AdapterDeps & { channels?: RouteListeners | undefined }): PlcAdapter {
  const { routing } = deps;
  const unsolicited = createUnsolicited(deps);
  const units = createUnitAtLocation(deps);
  const states = createStates(deps);
  const as = <T>(from: Reporter, fn: () => T): T => asActor({ kind: 'plc', name: from.channel }, fn);
  if (deps.channels) unsolicited.attach(deps.channels);

  function seenAlone(at: UnitSighting['at'], unit: UnitRef | undefined, arrival: boolean, from: Reporter): UnitOutcome {
    return as(from, () =>
      unsolicited.quietly(barcodesOf([unit]), () => {
        // The routing model from committed data, cached: built inside the transaction it
        // would be thrown away.
        if (arrival && unit !== undefined) routing.prepare();
        return units.seen(at, unit, arrival, from);
      }),
    );
  }

  /**
   * Sightings in one transaction, each in a savepoint of its own: one commit (one fsync)
   * for all; the events of all after it. Sightings change nothing the routing model
   * holds, so each still decides as if reported alone.
   */
  function sightingsTogether(sightings: readonly UnitSighting[], from: Reporter): (UnitOutcome | SightingFailed)[] {
    routing.prepare();
    const one = (s: UnitSighting) => units.seen(s.at, s.unit, s.arrival, { ...from, said: s.said ?? from.said });
    return together(deps, sightings, one, { channel: from.channel, of: 'telegrams' });
  }

  return {
    unitArrived: (at, unit, from) => seenAlone(at, unit, true, from),
    unitReport: (at, unit, from) => seenAlone(at, unit, false, from),
    unitSightings(sightings, from) {
      if (sightings.length === 1) {
        const s = sightings[0]!;
        try {
          return [seenAlone(s.at, s.unit, s.arrival, { ...from, said: s.said ?? from.said })];
        } catch (error) {
          return [{ outcome: 'internal', error }];
        }
      }
      return as(from, () => unsolicited.quietly(barcodesOf(sightings.map((s) => s.unit)), () => sightingsTogether(sightings, from)));
    },
    locationState: (at, change, from) => as(from, () => states.locationState(at, change, from)),
    groupState: (group, change, from) => as(from, () => states.groupState(group, change, from)),
    plcError: (group, code, change, from) => as(from, () => states.plcError(group, code, change, from)),
    stateChanges: (reports, from) => as(from, () => together(deps, reports, (r) => states.report(r, from), { channel: from.channel, of: 'changes' })),
    onNamed: states.named,
    heartbeat: () => ({ time: new Date() }),
    afterFlush: (answer) => deps.work.afterFlush(answer),
    hasGroup: states.hasGroup,
    plcCodeOf: (location) => deps.common.locations.findByLocationId(location)?.plcCode ?? undefined,
    attach: unsolicited.attach,
    close: unsolicited.close,
  };
}
