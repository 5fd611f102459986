import type { GroupState, GroupStateChange, StateReport } from '../port.ts';
import type { SignalValue } from './driver.ts';
import type { ChannelPoint } from './points.ts';

// What a signal's value means for the warehouse (docs/plc.md, "Signal channels"):
// values as drivers report them (a bit may come as a number, a word as a flag) read as
// the number, flag or text a point expects.

/** Most a location's plcState holds (as an OSIP LOCU carries it). */
const MAX_PLC_STATE = 9999;

const asNumber = (v: SignalValue): number => (typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'number' ? v : Number(v.trim()));

export const asBit = (v: SignalValue): boolean =>
  typeof v === 'boolean' ? v : typeof v === 'number' ? v !== 0 : v.trim() !== '' && v.trim() !== '0' && v.trim().toLowerCase() !== 'false';

/** The same value, as far as acting on it goes (a bit reported once as 1, once as true, has not changed). */
export function sameValue(a: SignalValue | undefined, b: SignalValue): boolean {
  if (a === undefined) return false;
  if (typeof a === typeof b) return a === b;
  if (typeof a === 'string' || typeof b === 'string') return String(a) === String(b);
  return asNumber(a) === asNumber(b);
}

/**
 * A group's availability from its signal: a bit says in and out together (set:
 * available); a word says each on its own, bit 0 in and bit 1 out (3: both available).
 */
export function groupChange(value: SignalValue, kind: 'bit' | 'word'): GroupStateChange {
  const state = (on: boolean): GroupState => (on ? 'AVAILABLE' : 'NOT_AVAILABLE');
  if (kind === 'bit') return { in: state(asBit(value)), out: state(asBit(value)) };
  const n = asNumber(value);
  return { in: state((n & 1) !== 0), out: state((n & 2) !== 0) };
}

/** A barcode as scanned: without padding (NUL, spaces); undefined for a no-read (nothing, or only `?`). */
export function scannedBarcode(value: SignalValue): string | undefined {
  // eslint-disable-next-line no-control-regex
  const text = String(value).replace(/^[\x00\s]+|[\x00\s]+$/g, '');
  if (text === '' || /^\?+$/.test(text) || /^no ?read$/i.test(text)) return undefined;
  return text;
}

/**
 * A state point's value as the adapter takes it (`said`: the point's kind, address and
 * value, kept on the events), or why it is not taken: a plcState that is no whole number
 * 0–9999 (`out-of-range`), a point that has no state (`ignored`).
 */
export function stateReportOf(point: ChannelPoint, value: SignalValue): StateReport | { outcome: 'out-of-range' | 'ignored'; why?: string } {
  const p = point.config;
  const said = `${p.kind} ${point.watched[0]!.address}=${String(value)}`;
  switch (p.kind) {
    case 'plcState': {
      const n = asNumber(value);
      if (!Number.isInteger(n) || n < 0 || n > MAX_PLC_STATE) {
        return { outcome: 'out-of-range', why: `plcState ${String(value)} is not a whole number 0–${MAX_PLC_STATE}; ignored` };
      }
      return { at: { coordinate: p.location }, change: { plcState: n }, said };
    }
    case 'inboundLock':
      return { at: { coordinate: p.location }, change: { inboundLocked: asBit(value) }, said };
    case 'outboundLock':
      return { at: { coordinate: p.location }, change: { outboundLocked: asBit(value) }, said };
    case 'groupState':
      return { group: p.group, change: groupChange(value, point.watched[0]!.kind === 'bit' ? 'bit' : 'word'), said };
    default:
      return { outcome: 'ignored' };
  }
}
