import { z } from 'zod';
import { millimetres, name, ol, text } from '../../../core/schema.ts';

/** Create and update body of a location type; dimensions in millimetres. */
export const locationTypeBody = z.object({
  type: name(64),
  description: text().optional(),
  length: millimetres.optional(),
  width: millimetres.optional(),
  height: millimetres.optional(),
});

export const locationTypeUpdate = locationTypeBody.extend({ pKey: name(), ol: ol.optional() });
