import { z } from 'zod';
import { BARCODE_PATTERN, BARCODE_RULE } from '../../../core/barcode.ts';
import { name, ol } from '../../../core/schema.ts';
import { coordinate } from '../locations/schema.ts';
import { TRANSPORT_UNIT_STATES } from './store.ts';

/** Barcodes: 1 to 64 of letters, digits, `_`, `.`, `-` (OSIP carries up to 20). */
export const barcode = z.string().regex(BARCODE_PATTERN, BARCODE_RULE);

/** A location given as its coordinate, or as a Location object carrying `locationId`. */
const locationRef = z.union([coordinate, z.object({ locationId: coordinate }).transform((l) => l.locationId)]);

/** A transport unit type given by name, or as an object carrying `type`. */
const typeRef = z.union([name(64), z.object({ type: name(64) }).transform((t) => t.type)]);

const transportUnitState = z.enum(TRANSPORT_UNIT_STATES);

/** `POST /v1/transport-units` with a JSON body. */
export const newTransportUnit = z.object({
  barcode: barcode.optional(),
  actualLocation: locationRef,
  transportUnitType: typeRef,
  state: transportUnitState.optional(),
  weight: z.number().min(0).nullable().optional(),
  targetLocation: locationRef.nullable().optional(),
});

/** `POST /v1/transport-units?bk=&actualLocation=&tut=`. */
export const transportUnitParams = z.object({
  bk: barcode.optional(),
  actualLocation: coordinate,
  tut: name(64),
});

/** The optional `?bk=` of `POST /v1/transport-units` with a JSON body: a barcode like the body's. */
export const bkQuery = z.object({ bk: barcode.optional() });

/** `PUT /v1/transport-units?bk=`: the fields to change. */
export const transportUnitUpdate = newTransportUnit.partial().extend({ ol: ol.optional() });

/** `PATCH /v1/transport-units?bk=&newLocation=`. */
export const moveParams = z.object({ bk: z.string().min(1), newLocation: coordinate });
