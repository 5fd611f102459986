// How wide a location is in an OSIP telegram: a 20-character field, five parts of 4
// characters without separators (docs/plc.md, "Telegram catalogue"). A PLC code fills
// the field alone. The HMI warns with these when a coordinate could not travel.

export const OSIP_LOCATION_WIDTH = 20;
export const OSIP_LOCATION_PART_WIDTH = 4;
