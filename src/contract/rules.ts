// The rules a client holds a value to before it sends it, as the server holds it to
// them: the HMI's forms import these at run time (the only part of the contract that
// runs in the browser; the rest is types). Plain values without dependencies, so the
// HMI's bundle takes in these few lines and nothing of the server.

export { BARCODE_PATTERN, BARCODE_RULE } from '../core/barcode.ts';
export { COORDINATE_CHARACTER, COORDINATE_PART_MAX, COORDINATE_PARTS } from '../core/coordinate.ts';
export { OSIP_LOCATION_PART_WIDTH, OSIP_LOCATION_WIDTH } from '../../plc/osip/widths.ts';
