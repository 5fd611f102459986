import type { GroupStateChange as ServiceGroupChange } from '../../src/modules/common/location-groups/service.ts';
import type { GroupState, GroupStateChange, LocationRef, LocationStateChange, NamedPlace, Reporter, StateOutcome, StateReport } from '../port.ts';
import { findLocation, type AdapterDeps, type LocationGroup } from './shared.ts';

// Location and group states as a PLC reports them (docs/plc.md: LOCU, SYSU, ERR_):
// a location's locks and plcState, the availability of groups in and out (cascading to
// every group below), and errors the PLC reports for a group. Each report is one unit
// of work; `from.said` is kept on the state events, the actor names the channel.

/** A location's flags as the common service takes them: `0` active, `1` locked, `*` unchanged. */
const lockBit = (locked: boolean | undefined) => (locked === undefined ? '*' : locked ? '1' : '0');
const stateBit = (state: GroupState | undefined) => (state === undefined ? '*' : state === 'AVAILABLE' ? '0' : '1');

const serviceChange = (change: GroupStateChange): ServiceGroupChange => ({ groupStateIn: change.in, groupStateOut: change.out });

export function createStates(deps: AdapterDeps) {
  const { work, common, log } = deps;
  const groupByName = (name: string): LocationGroup | undefined => common.locationGroups.byNames([name])[0];

  function locationState(at: LocationRef | undefined, change: LocationStateChange, from: Reporter): StateOutcome {
    const group = change.group === undefined ? undefined : groupByName(change.group);
    if (change.group !== undefined && !group) return { outcome: 'unknown-group' };
    const location = findLocation(common, at);
    if (!location) return { outcome: 'unknown-location' };
    const locks = `${lockBit(change.outboundLocked)}${lockBit(change.inboundLocked)}`;
    work.run(() => {
      if (!group || group.pk === location.groupPk) {
        // The location's flags and plcState, and the availability of its own group.
        common.locations.changeState(location.pk, `****${stateBit(change.groupOut)}${stateBit(change.groupIn)}${locks}`, change.plcState, from.said);
        return;
      }
      // The availability goes to the named group instead of the location's own.
      common.locationGroups.changeState(group.pk, { groupStateIn: change.groupIn, groupStateOut: change.groupOut }, from.said);
      common.locations.changeState(location.pk, `******${locks}`, change.plcState, from.said);
    });
    return { outcome: 'ok', location: location.locationId };
  }

  function groupState(name: string, change: GroupStateChange, from: Reporter): StateOutcome {
    const group = groupByName(name);
    if (!group) return { outcome: 'unknown-group' };
    common.locationGroups.changeState(group.pk, serviceChange(change), from.said);
    return { outcome: 'ok' };
  }

  function plcError(name: string | undefined, code: string, change: GroupStateChange, from: Reporter): StateOutcome {
    const error = { channel: from.channel, name: name ?? null, code };
    // Without a group the error is only recorded.
    if (name === undefined) {
      announceError(error);
      return { outcome: 'ok' };
    }
    const group = groupByName(name);
    if (!group) return { outcome: 'unknown-group' };
    work.run(() => {
      common.locationGroups.changeState(group.pk, serviceChange(change), from.said);
      announceError({ ...error, pKey: group.pk });
    });
    return { outcome: 'ok' };
  }

  /** An error of the PLC: recorded as an event of the channel (naming the group), and logged. */
  function announceError(error: { channel: string; name: string | null; code: string; pKey?: string }): void {
    work.run(() =>
      work.emit({
        type: 'plc.groupError',
        key: error.channel,
        data: error,
        refs: error.name === null ? undefined : [{ kind: 'locationGroup', key: error.name }],
      }),
    );
    log.warn(error, 'PLC reported an error');
  }

  /** One report of a batch, as if reported alone. */
  function report(r: StateReport, from: Reporter): StateOutcome {
    const one = { ...from, said: r.said ?? from.said };
    return 'at' in r ? locationState(r.at, r.change, one) : groupState(r.group, r.change, one);
  }

  /**
   * Tells `listener` of every location and group that comes to exist under a name,
   * after the commit: a state reported while it was not there can be applied now.
   * Returns the unsubscribe function.
   */
  function named(listener: (place: NamedPlace) => void): () => void {
    const off = [
      work.bus.on('location.created', (e) => listener({ location: e.data.locationId })),
      work.bus.on('location.changed', (e) => {
        if (e.data.from !== undefined) listener({ location: e.data.locationId });
      }),
      work.bus.on('locationGroup.created', (e) => listener({ group: e.data.name })),
      work.bus.on('locationGroup.changed', (e) => {
        if (e.data.from !== undefined) listener({ group: e.data.name });
      }),
    ];
    return () => {
      for (const unsubscribe of off) unsubscribe();
    };
  }

  return {
    locationState,
    groupState,
    plcError,
    report,
    named,
    hasGroup: (name: string) => groupByName(name) !== undefined,
  };
}
