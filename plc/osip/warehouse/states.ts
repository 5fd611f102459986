import type { GroupState, GroupStateChange, PlcOperations, StateOutcome } from '../../port.ts';
import { ERR_CODES } from '../codes.ts';
import { isAbsent } from '../coordinate.ts';
import type { ChannelContext, HandlingResult } from '../port.ts';
import type { ErrTelegram, LocuTelegram, SysuTelegram } from '../telegrams.ts';
import { reporter } from './units.ts';
import { errReply, locationRef, result } from './fields.ts';

// LOCU, SYSU and ERR_: state bitmaps (docs/plc.md), read into the adapter's
// locationState, groupState and plcError. Positions count from the right: applied to a
// location c0 = incoming locked, c1 = outgoing locked, c2/c3 = the availability in/out
// of its group (or of the LOCU's group when one is named), c7–c4 = plcState as four
// digits (`****` unchanged); applied to a group (SYSU, ERR_, LOCU without location)
// c0 = in, c1 = out. `0` = active/available, `1` = locked, `*` = unchanged.

const STATE_BITS = /^[*01]+$/;
const PLC_STATE = /^[0-9]{4}$/;

/** Position `i` from the right as a group state; undefined = unchanged. */
function stateAt(code: string, i: number): GroupState | undefined {
  const c = code[code.length - 1 - i];
  return c === '0' ? 'AVAILABLE' : c === '1' ? 'NOT_AVAILABLE' : undefined;
}

/** Position `i` from the right as a lock: `1` locked, `0` active; undefined = unchanged. */
const lockedAt = (code: string, i: number): boolean | undefined => {
  const c = code[code.length - 1 - i];
  return c === '1' ? true : c === '0' ? false : undefined;
};

/** Positions `i` (in) and `i + 1` (out) as a group's state change; undefined when either is not `*`, `0` or `1`. */
function groupChange(code: string, i: number): GroupStateChange | undefined {
  const bits = code.slice(code.length - 2 - i, code.length - i);
  if (bits.length !== 2 || !STATE_BITS.test(bits)) return undefined;
  return { in: stateAt(code, i), out: stateAt(code, i + 1) };
}

/** Which telegram with which code said so: kept on the state events. */
const saidBy = (t: LocuTelegram | SysuTelegram | ErrTelegram) => `${t.type} ${t.errorCode}`;

const answer = (done: StateOutcome): HandlingResult =>
  done.outcome === 'ok'
    ? result('ok', undefined, done.location === undefined ? undefined : { location: done.location })
    : result(done.outcome, errReply(ERR_CODES.unknownEntity));

export function createStateTelegrams(adapter: PlcOperations) {
  function locu(t: LocuTelegram, channel: ChannelContext): HandlingResult {
    const code = t.errorCode;
    const bits = code.slice(4);
    const digits = code.slice(0, 4);
    if (!STATE_BITS.test(bits) || (digits !== '****' && !PLC_STATE.test(digits))) {
      return result('bad-field', errReply(ERR_CODES.badField));
    }
    const from = reporter(channel, saidBy(t));
    const name = t.locationGroupName;
    if (isAbsent(t.rawLocation)) {
      // No location: the code addresses the group, as SYSU does (plcState has nowhere to go).
      if (name === undefined) return result('unknown-location', errReply(ERR_CODES.unknownEntity));
      return answer(adapter.groupState(name, groupChange(code, 0)!, from));
    }
    const group = groupChange(code, 2)!;
    return answer(
      adapter.locationState(
        locationRef(channel.options.locationAddressing, t.location, t.rawLocation),
        {
          plcState: digits === '****' ? undefined : Number(digits),
          inboundLocked: lockedAt(code, 0),
          outboundLocked: lockedAt(code, 1),
          groupIn: group.in,
          groupOut: group.out,
          group: name,
        },
        from,
      ),
    );
  }

  function sysu(t: SysuTelegram | ErrTelegram, channel: ChannelContext): HandlingResult {
    const name = t.locationGroupName;
    const from = reporter(channel, saidBy(t));
    // ERR_ without a group: the error is only recorded.
    if (t.type === 'ERR_' && name === undefined) return answer(adapter.plcError(undefined, t.errorCode, {}, from));
    if (name === undefined) return result('unknown-group', errReply(ERR_CODES.unknownEntity));
    const change = groupChange(t.errorCode, 0);
    // An unknown group is the first thing wrong with such a telegram, a bad bitmap the second.
    if (!change) return adapter.hasGroup(name) ? result('bad-field', errReply(ERR_CODES.badField)) : result('unknown-group', errReply(ERR_CODES.unknownEntity));
    return answer(t.type === 'ERR_' ? adapter.plcError(name, t.errorCode, change, from) : adapter.groupState(name, change, from));
  }

  return { locu, sysu };
}
