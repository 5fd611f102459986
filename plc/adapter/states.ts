import type { GroupStateChange } from '../../src/modules/common/location-groups/service.ts';
import { ERR_CODES, isAbsent } from '../osip/index.ts';
import type { ErrTelegram, LocuTelegram, SysuTelegram } from '../osip/index.ts';
import type { ChannelContext, HandlingResult } from '../port.ts';
import { errReply, findLocation, result, type AdapterDeps, type LocationGroup } from './shared.ts';

// LOCU, SYSU and ERR_: state bitmaps (docs/plc.md). Positions count from
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
  const { work, common, log } = deps;
  const groupByName = (name: string): LocationGroup | undefined => common.locationGroups.byNames([name])[0];
  /** Kept on the state events: which telegram with which code said so (the actor names the channel). */
  const reasonOf = (t: LocuTelegram | SysuTelegram | ErrTelegram) => `${t.type} ${t.errorCode}`;

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
    if (isAbsent(t.rawLocation)) {
      // No location: the code addresses the group, as SYSU does (plcState has nowhere to go).
      if (!group) return result('unknown-location', errReply(ERR_CODES.unknownEntity));
      common.locationGroups.changeState(group.pk, groupChange(code, 0)!, reasonOf(t));
      return result('ok');
    }

    const location = findLocation(common, channel.options.locationAddressing, t.location, t.rawLocation);
    if (!location) return result('unknown-location', errReply(ERR_CODES.unknownEntity));
    work.run(() => {
      if (!group || group.pk === location.groupPk) {
        // The location's flags and plcState, c2/c3 on its own group.
        common.locations.changeState(location.pk, `****${bits}`, plcState, reasonOf(t));
        return;
      }
      // c2/c3 go to the named group instead of the location's own.
      common.locationGroups.changeState(group.pk, groupChange(code, 2)!, reasonOf(t));
      common.locations.changeState(location.pk, `******${bits.slice(2)}`, plcState, reasonOf(t));
    });
    return result('ok', undefined, { location: location.locationId });
  }

  function sysu(t: SysuTelegram | ErrTelegram, channel: ChannelContext): HandlingResult {
    const name = t.locationGroupName;
    const error = t.type === 'ERR_' ? { channel: channel.name, name: name ?? null, code: t.errorCode } : undefined;
    // ERR_ without a group: the error is only recorded.
    if (error && name === undefined) {
      announceError(error);
      return result('ok');
    }
    const group = name === undefined ? undefined : groupByName(name);
    if (!group) return result('unknown-group', errReply(ERR_CODES.unknownEntity));
    const change = groupChange(t.errorCode, 0);
    if (!change) return result('bad-field', errReply(ERR_CODES.badField));
    work.run(() => {
      common.locationGroups.changeState(group.pk, change, reasonOf(t));
      if (error) announceError({ ...error, pKey: group.pk });
    });
    return result('ok');
  }

  /** An ERR_ of the PLC: recorded as an event of the channel (naming the group), and logged. */
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

  return { locu, sysu };
}
