import type { GroupStateChange } from '../../src/modules/common/location-groups/service.ts';
import { ERR_CODES, isAbsent } from '../osip/index.ts';
import type { ErrTelegram, LocuTelegram, SysuTelegram } from '../osip/index.ts';
import type { ChannelContext, HandlingResult } from '../port.ts';
import { errReply, findLocation, publishAll, result, type AdapterDeps, type AfterCommit, type LocationGroup } from './shared.ts';

// LOCU, SYSU and ERR_: state bitmaps (plc-osip.md §B4.2, §B4.3). Positions count from
// the right: applied to a location c0 = incomingActive, c1 = outgoingActive, c2/c3 =
// groupStateIn/Out of its group (or of the LOCU's group when one is named), c7–c4 =
// plcState as four digits (`****` unchanged); applied to a group (SYSU, ERR_, LOCU
// without location) c0 = groupStateIn, c1 = groupStateOut. `0` = active/available,
// `1` = locked, `*` = unchanged. Group states cascade to every group below.

const STATE_BITS = /^[*01]+$/;
const PLC_STATE = /^[0-9]{4}$/;

type GroupState = NonNullable<GroupStateChange['groupStateIn']>;

/** Position `i` from the right as a group state; undefined = unchanged. */
function stateAt(code: string, i: number): GroupState | undefined {
  const c = code[code.length - 1 - i];
  return c === '0' ? 'AVAILABLE' : c === '1' ? 'NOT_AVAILABLE' : undefined;
}

/** Positions `i` (in) and `i + 1` (out) as a group's state change; undefined when either is not `*`, `0` or `1`. */
function groupChange(code: string, i: number): GroupStateChange | undefined {
  const bits = code.slice(code.length - 2 - i, code.length - i);
  if (bits.length !== 2 || !STATE_BITS.test(bits)) return undefined;
  return { groupStateIn: stateAt(code, i), groupStateOut: stateAt(code, i + 1) };
}

export function createStates(deps: AdapterDeps) {
  const { db, common, bus, log } = deps;
  const groupByName = (name: string): LocationGroup | undefined => common.locationGroups.byNames([name])[0];

  /** A group's state in one transaction, its state events after the commit. */
  function applyGroupState(group: LocationGroup, change: GroupStateChange, after: AfterCommit): void {
    const changes = db.transaction(() => common.locationGroups.applyStateInTransaction(group, change))();
    after.push(() => common.locationGroups.publishStateChanges(changes));
  }

  function locu(t: LocuTelegram, channel: ChannelContext): HandlingResult {
    const code = t.errorCode;
    const bits = code.slice(4);
    const digits = code.slice(0, 4);
    if (!STATE_BITS.test(bits) || (digits !== '****' && !PLC_STATE.test(digits))) {
      return result('bad-field', errReply(ERR_CODES.badField));
    }
    const plcState = digits === '****' ? undefined : Number(digits);

    const group = t.locationGroupName === undefined ? undefined : groupByName(t.locationGroupName);
    if (t.locationGroupName !== undefined && !group) return result('unknown-group', errReply(ERR_CODES.unknownEntity));
    const after: AfterCommit = [];
    if (isAbsent(t.rawLocation)) {
      // No location: the code addresses the group, as SYSU does (plcState has nowhere to go).
      if (!group) return result('unknown-location', errReply(ERR_CODES.unknownEntity));
      applyGroupState(group, groupChange(code, 0)!, after);
      publishAll(after, log);
      return result('ok');
    }

    const location = findLocation(common, channel.options.locationAddressing, t.location, t.rawLocation);
    if (!location) return result('unknown-location', errReply(ERR_CODES.unknownEntity));
    db.transaction(() => {
      if (!group || group.pk === location.groupPk) {
        // The location's flags and plcState, c2/c3 on its own group.
        after.push(common.locations.changeStateInTransaction(location.pk, `****${bits}`, plcState).publish);
        return;
      }
      // c2/c3 go to the named group instead of the location's own.
      const changes = common.locationGroups.applyStateInTransaction(group, groupChange(code, 2)!);
      after.push(() => common.locationGroups.publishStateChanges(changes));
      after.push(common.locations.changeStateInTransaction(location.pk, `******${bits.slice(2)}`, plcState).publish);
    })();
    publishAll(after, log);
    return result('ok');
  }

  function sysu(t: SysuTelegram | ErrTelegram, channel: ChannelContext): HandlingResult {
    const name = t.locationGroupName;
    const error = t.type === 'ERR_' ? { name: name ?? null, code: t.errorCode, channel: channel.name } : undefined;
    // ERR_ without a group: the error is only recorded.
    if (error && name === undefined) {
      publishAll([() => announceError(error)], log);
      return result('ok');
    }
    const group = name === undefined ? undefined : groupByName(name);
    if (!group) return result('unknown-group', errReply(ERR_CODES.unknownEntity));
    const change = groupChange(t.errorCode, 0);
    if (!change) return result('bad-field', errReply(ERR_CODES.badField));
    const after: AfterCommit = [];
    applyGroupState(group, change, after);
    if (error) after.push(() => announceError({ ...error, pKey: group.pk }));
    publishAll(after, log);
    return result('ok');
  }

  function announceError(error: Record<string, unknown>): void {
    log.warn(error, 'PLC reported an error');
    bus.publish('plc.groupError', error);
  }

  return { locu, sysu };
}
