import { z } from 'zod';
import { instant, resource } from '../../http/openapi/representation.ts';
import { GROUP_STATES } from './error-code.ts';
import { TRANSPORT_UNIT_STATES } from './transport-units/store.ts';

// The representations of the common base module (the `…VO` functions of its routes.ts
// files) as schemas of the API description.

export const AccountSchema = resource('Account', 'An account (a client of the warehouse).', {
  identifier: z.string(),
  name: z.string(),
});

export const LocationGroupSchema = resource('LocationGroup', 'A location group; links: itself and, below a parent, `parent`.', {
  name: z.string(),
  description: z.string().optional(),
  accountId: z.string().optional(),
  groupType: z.string().optional(),
  operationMode: z.enum(['INFEED', 'OUTFEED', 'INFEED_AND_OUTFEED', 'NO_OPERATION']),
  parentName: z.string().optional(),
  groupStateIn: z.enum(GROUP_STATES),
  groupStateOut: z.enum(GROUP_STATES),
  childLocationGroupNames: z.array(z.string()),
});

export const LocationSchema = resource('Location', 'A location, named by its coordinate AREA/AISLE/X/Y/Z.', {
  locationId: z.string(),
  accountId: z.string(),
  locationGroupName: z.string(),
  plcCode: z.string().nullable(),
  erpCode: z.string().optional(),
  type: z.string().optional(),
  description: z.string().optional(),
  sortOrder: z.number().int().optional(),
  stockZone: z.string().optional(),
  incomingActive: z.boolean(),
  outgoingActive: z.boolean(),
  plcState: z.number().int(),
  lastMovement: instant.optional(),
});

const dimensions = {
  description: z.string().optional(),
  length: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
};

export const LocationTypeSchema = resource('LocationType', 'A location type; dimensions in millimetres.', {
  type: z.string(),
  ...dimensions,
});

export const TransportUnitTypeSchema = resource('TransportUnitType', 'A transport unit type; dimensions in millimetres, weights in kilograms.', {
  type: z.string(),
  ...dimensions,
  weightTare: z.number().optional(),
  weightMax: z.number().optional(),
});

export const TransportUnitSchema = resource(
  'TransportUnit',
  'A transport unit (pallet, bin) by its barcode; links: itself, `actual-location`, `transport-unit-type`.',
  {
    barcode: z.string(),
    transportUnitType: z.string(),
    actualLocation: z.string(),
    actualLocationDate: instant,
    targetLocation: z.string().optional(),
    state: z.enum(TRANSPORT_UNIT_STATES),
    weight: z.number().optional(),
  },
);
