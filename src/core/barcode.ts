// A transport unit's barcode (its business key): 1 to 64 letters, digits, `_`, `.` and
// `-`, the characters a label printer and a keyboard-wedge scanner pass through as
// they are. The REST schemas, the load-unit rules and the HMI's forms check this one.

export const BARCODE_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export const BARCODE_RULE = 'must be 1-64 characters of A-Z a-z 0-9 _ . -';
