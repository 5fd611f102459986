import { notFound } from '../../core/errors.ts';
import { type Listing } from '../../core/listing.ts';
import { mapListing } from '../../core/listing-ops.ts';
import type { CommonServices } from '../common/service.ts';
import type { StoredMovement, MovementStore } from './store.ts';

// Finding movements: one by pKey, the lists of a unit and of a source, each movement
// with the names of its unit, locations and groups as they are now. The writes
// (service.ts, completion.ts) read what they change through `byPKey` here too, so a
// reply always shows the names a client would read back.

/** A movement as the API shows it: the names of the unit, locations and groups as they are now. */
export type Movement = StoredMovement;

interface MovementLookupDeps {
  store: MovementStore;
  common: CommonServices;
}

export function createMovementLookups({ store, common }: MovementLookupDeps) {
  /**
   * The movement with the current names of what it refers to: a renamed unit, location
   * or group shows its new name; a deleted one the name recorded when the movement was
   * last written.
   */
  function live(m: StoredMovement): Movement {
    const unit = common.transportUnits.findByPk(m.transportUnitPk);
    const source = common.locations.findByPk(m.sourceLocationPk);
    let target: Pick<Movement, 'target' | 'targetLocationGroup'> = m;
    if (m.targetKind === 'LOCATION') {
      const location = common.locations.findByPk(m.targetPk);
      if (location) target = { target: location.locationId, targetLocationGroup: location.groupName };
    } else {
      const group = common.locationGroups.findByPk(m.targetPk);
      if (group) target = { target: group.name, targetLocationGroup: group.name };
    }
    return {
      ...m,
      transportUnitBk: unit?.barcode ?? m.transportUnitBk,
      sourceLocation: source?.locationId ?? m.sourceLocation,
      sourceLocationGroupName: source?.groupName ?? m.sourceLocationGroupName,
      target: target.target,
      targetLocationGroup: target.targetLocationGroup,
    };
  }

  /** A list of movements as they are shown, each with what it names as it is now. */
  const shown = (listing: Listing<StoredMovement>): Listing<Movement> => mapListing(listing, (stored) => stored.map(live));

  function byPKey(pKey: string): Movement {
    const movement = store.byPk(pKey);
    if (!movement) throw notFound(`Movement with pKey [${pKey}] does not exist`, [pKey]);
    return live(movement);
  }

  return {
    /** Every movement, oldest first: pages, or the whole list streamed. */
    list: (): Listing<Movement> => shown(store.list()),
    byPKey,

    /** The movement at `/v1/transport-units/{bk}/movements/{pKey}`: it must belong to that unit. */
    byUnitAndPKey(barcode: string, pKey: string): Movement {
      const movement = byPKey(pKey);
      if (movement.transportUnitBk !== barcode) {
        throw notFound(`Movement with pKey [${pKey}] does not exist for TransportUnit [${barcode}]`, [pKey]);
      }
      return movement;
    },

    /**
     * The movements of a transport unit of those types and in those states (`undefined`
     * = any). A barcode that names no unit lists the movements recorded for it (of a
     * unit since deleted) — usually none.
     */
    forUnit(barcode: string, types?: readonly string[], states?: readonly string[]): Listing<Movement> {
      const unit = common.transportUnits.findByBarcode(barcode);
      return shown(unit ? store.listForUnit(unit.pk, types, states) : store.listForBarcode(barcode, types, states));
    },

    /**
     * Movements in those states and of those types whose source is the location named
     * by `source` (a coordinate), or lies in the group named by `source` or in a group
     * below it; in work order (priority, latestDueAt, age). A source that names
     * nothing lists nothing.
     */
    forSource(states?: readonly string[], types?: readonly string[], source?: string): Listing<Movement> {
      let sourcePks: string[] | undefined;
      if (source !== undefined) {
        const location = common.locations.findByLocationId(source);
        const group = location ? undefined : common.locationGroups.byNames([source])[0];
        sourcePks = location ? [location.pk] : group ? common.locations.inGroupTree(group.pk).map((l) => l.pk) : [];
      }
      return shown(store.listForSources(states, types, sourcePks));
    },
  };
}
