import { z } from 'zod';
import { name, ol, text } from '../../../core/schema.ts';
import { COORDINATE_RULE, parseCoordinate } from '../../../core/coordinate.ts';

export const coordinate = z.string().refine((v) => parseCoordinate(v) !== undefined, `must be ${COORDINATE_RULE}`);

/** `POST /v1/locations`; `links` and other read-only fields a client echoes are ignored. */
export const newLocation = z.object({
  locationId: coordinate,
  locationGroupName: name(),
  plcCode: name(64).nullable().optional(),
  erpCode: name(64).nullable().optional(),
  type: name(64).nullable().optional(),
  accountId: name().optional(),
  description: text().nullable().optional(),
  sortOrder: z.number().int().nullable().optional(),
  stockZone: name(64).nullable().optional(),
});

/** `PUT /v1/locations`: the whole location with its pKey. */
export const locationUpdate = newLocation.extend({ pKey: name(), ol: ol.optional() });

/** `PATCH /v1/location/{pKey}?op=change-state`. */
/** Why a state changes (kept on its events): who locked a location at 3 a.m., and why. */
export const stateReason = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');

export const changeStateBody = z.object({
  errorCode: z.string(),
  plcState: z.number().int().min(-1).max(9999).optional(),
  reason: stateReason.optional(),
});

const part = z.string().max(20).optional();
/** Wildcard search `?area=&aisle=&x=&y=&z=`: `%` and `_` as in SQL LIKE. */
export const coordinateSearch = z.object({ area: part, aisle: part, x: part, y: part, z: part });
