// What the encoder throws. Writing is strict (docs/plc.md): a value that does
// not fit is a programming or configuration error, never silently truncated.

export type EncodeProblem = 'too-long' | 'non-ascii' | 'bad-value' | 'coordinate';

export class OsipEncodeError extends Error {
  /** The field that could not be written, e.g. `barcode`, `header.sender`. */
  readonly field: string;
  readonly problem: EncodeProblem;

  constructor(field: string, problem: EncodeProblem, message: string) {
    super(`OSIP ${field}: ${message}`);
    this.name = 'OsipEncodeError';
    this.field = field;
    this.problem = problem;
  }
}

/**
 * A coordinate that cannot travel as 5 × 4 characters (a part longer than 4, not
 * 5 parts, or a part that needs padding when padding is off). The adapter catches
 * this to answer "no target" (or to fall back to a PLC code) instead of failing.
 */
export class CoordinateNotWritableError extends OsipEncodeError {
  readonly coordinate: string;

  constructor(coordinate: string, message: string, field = 'location') {
    super(field, 'coordinate', `${JSON.stringify(coordinate)} ${message}`);
    this.name = 'CoordinateNotWritableError';
    this.coordinate = coordinate;
  }
}
