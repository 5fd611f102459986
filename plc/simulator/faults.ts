// Pure edits of an encoded telegram, for the fault injections of docs/plc.md ("The simulator")
// Each returns the text the simulator will frame and send; the simulator's methods
// (sendBadSeq, sendUnknownType, …) combine them with its sequence counter and framing.

/** Replaces `value.length` characters at `offset`. */
export function overwrite(text: string, offset: number, value: string): string {
  if (offset + value.length > text.length) throw new RangeError(`cannot write ${value.length} characters at ${offset} of ${text.length}`);
  return text.slice(0, offset) + value + text.slice(offset + value.length);
}

/** The header's length field (offset 3, 5 characters), e.g. `00159` or `0016X`. */
export function withLengthText(text: string, lengthText: string): string {
  return overwrite(text, 3, fiveChars('length field', lengthText));
}

/** The sequence number (offset 18, 5 characters), e.g. a non-numeric `00A42`. */
export function withSeqText(text: string, seqText: string): string {
  return overwrite(text, 18, fiveChars('sequence number', seqText));
}

/** The telegram type (offset 23, 4 characters), e.g. `ZZZZ`. */
export function withType(text: string, type: string): string {
  if (type.length !== 4) throw new RangeError(`a telegram type has 4 characters: "${type}"`);
  return overwrite(text, 23, type);
}

/** The first `keep` characters: a telegram cut short before its last field. */
export function truncated(text: string, keep: number): string {
  if (keep < 0 || keep >= text.length) throw new RangeError(`keep must be 0–${text.length - 1}: ${keep}`);
  return text.slice(0, keep);
}

function fiveChars(what: string, value: string): string {
  if (value.length !== 5) throw new RangeError(`${what} has 5 characters: "${value}"`);
  return value;
}
