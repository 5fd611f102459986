import type { Logger } from '../../src/core/log.ts';
import type { UnitOfWork } from '../../src/core/unit-of-work.ts';
import type { CommonServices } from '../../src/modules/common/service.ts';
import type { RoutingService } from '../../src/modules/routing/service.ts';
import type { TransportOrderService } from '../../src/modules/transport-orders/service.ts';
import { CoordinateNotWritableError, fieldFromCoordinate, isAbsent } from '../osip/index.ts';
import type { AdapterOptions, HandlingResult, ReplyInput, TelegramFacts } from '../port.ts';

// What the adapter's parts share: the services they call, the lookups of a reported
// location and transport unit, and writing a location into a 20-character field.

export interface AdapterDeps {
  work: UnitOfWork;
  common: CommonServices;
  transportOrders: TransportOrderService;
  routing: RoutingService;
  log: Logger;
}

export type Location = NonNullable<ReturnType<CommonServices['locations']['findByPk']>>;
export type TransportUnit = NonNullable<ReturnType<CommonServices['transportUnits']['findByBarcode']>>;
export type LocationGroup = ReturnType<CommonServices['locationGroups']['byPKey']>;

export const LOCATION_FIELD_WIDTH = 20;

export const result = (outcome: string, reply?: ReplyInput, facts?: TelegramFacts): HandlingResult => ({
  replies: reply ? [reply] : [],
  outcome,
  ...(facts ? { facts } : {}),
});

/** An ERR_ reply with one of our codes; the group field stays `*` × 20. */
export const errReply = (code: string): ReplyInput => ({ type: 'ERR_', errorCode: code });

/**
 * The location a field names, looked up as the channel says: by coordinate
 * (the field cut into 5 × 4), by PLC code (the field's text without surrounding
 * blanks), or by coordinate and then by PLC code. Undefined for an absent field or
 * an unknown location.
 */
export function findLocation(
  common: CommonServices,
  addressing: AdapterOptions['locationAddressing'],
  coordinate: string | undefined,
  rawField: string,
): Location | undefined {
  if (isAbsent(rawField)) return undefined;
  if (addressing !== 'plcCode' && coordinate !== undefined) {
    const found = common.locations.findByLocationId(coordinate);
    if (found || addressing === 'coordinate') return found;
  }
  const plcCode = rawField.trim();
  return plcCode === '' ? undefined : common.locations.findByPlcCode(plcCode);
}

/**
 * The transport unit a barcode field names: by the barcode with the channel's padding
 * removed (`4711`), then by the 20 characters as sent (`00000000000000004711`), so a
 * unit stored either way is found.
 */
export function findUnit(common: CommonServices, barcode: string, rawBarcode: string): TransportUnit | undefined {
  return common.transportUnits.findByBarcode(barcode) ?? (rawBarcode !== barcode ? common.transportUnits.findByBarcode(rawBarcode) : undefined);
}

const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * A location as the 20 characters of a telegram field: its coordinate as 5 × 4
 * (default padding: text parts `_`, numbers `0`), else its PLC code when that fits
 * (right-padded with blanks, which a PLC-code reader trims). Undefined when neither
 * can be written; the caller answers without that location and warns.
 */
export function locationField(common: CommonServices, locationId: string): string | undefined {
  try {
    return fieldFromCoordinate(locationId);
  } catch (err) {
    if (!(err instanceof CoordinateNotWritableError)) throw err;
  }
  const plcCode = common.locations.findByLocationId(locationId)?.plcCode;
  if (!plcCode || plcCode.length > LOCATION_FIELD_WIDTH || !PRINTABLE.test(plcCode) || isAbsent(plcCode)) return undefined;
  return plcCode.padEnd(LOCATION_FIELD_WIDTH, ' ');
}

/** A group name that fits the 20-character field of a RES_; undefined otherwise. */
export function groupField(name: string | null | undefined): string | undefined {
  if (!name || name.length > LOCATION_FIELD_WIDTH || !PRINTABLE.test(name)) return undefined;
  return name;
}

/** The names of a location's group and of the groups above it, nearest first. */
export function groupChainOf(common: CommonServices, location: Location): string[] {
  return [
    location.groupName,
    ...common.locationGroups.ancestors(location.groupPk).map((pk) => common.locationGroups.byPKey(pk).name),
  ];
}
