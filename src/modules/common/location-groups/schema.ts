import { z } from 'zod';
import { stateReason } from '../locations/schema.ts';
import { name, ol, text } from '../../../core/schema.ts';
import { GROUP_STATES } from '../error-code.ts';

export const groupState = z.enum(GROUP_STATES);
export const operationMode = z.enum(['INFEED', 'OUTFEED', 'INFEED_AND_OUTFEED', 'NO_OPERATION']);

/** `POST /v1/location-groups`. */
export const newLocationGroup = z.object({
  name: name(),
  description: text().optional(),
  accountId: name().optional(),
  groupType: name().optional(),
  operationMode: operationMode.optional(),
  parentName: name().nullable().optional(),
  groupStateIn: groupState.optional(),
  groupStateOut: groupState.optional(),
});

/** `PATCH /v1/location-groups/{pKey}`: any subset; `parentName: null` makes it a root. */
export const locationGroupPatch = newLocationGroup.partial().extend({
  description: text().nullable().optional(),
  groupType: name().nullable().optional(),
  ol: ol.optional(),
});

/** Bitmap body of the state change by name. */
export const errorCodeBody = z.object({ errorCode: z.string(), reason: stateReason.optional() });

/** The optional body of a state change by query parameters. */
export const reasonBody = z.strictObject({ reason: stateReason.optional() }).optional();

/** `?statein=&stateout=` of the state change by pKey. */
export const stateQuery = z
  .object({ statein: groupState.optional(), stateout: groupState.optional(), op: z.string() })
  .refine((q) => q.statein !== undefined || q.stateout !== undefined, { message: 'statein or stateout is required' });
