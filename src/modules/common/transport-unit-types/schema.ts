import { z } from 'zod';
import { millimetres, name, ol, text } from '../../../core/schema.ts';

const kilograms = z.number().min(0).max(1_000_000);

/** Create and update body of a transport unit type; dimensions in millimetres, weights in kilograms. */
export const transportUnitTypeBody = z.object({
  type: name(64),
  description: text().optional(),
  length: millimetres.optional(),
  width: millimetres.optional(),
  height: millimetres.optional(),
  weightTare: kilograms.optional(),
  weightMax: kilograms.optional(),
});

export const transportUnitTypeUpdate = transportUnitTypeBody.extend({ pKey: name(), ol: ol.optional() });
