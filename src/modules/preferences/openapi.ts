import { z } from 'zod';
import { resource } from '../../http/openapi/representation.ts';
import { CLASS_OF, SCOPES, TYPES } from './schema.ts';

// The Preference representation (`preferenceVO`) as a schema of the API description.

export const PreferenceSchema = resource('Preference', 'An application, module, role or user preference; the kind is told by `@class`.', {
  '@class': z.enum(SCOPES.map((s) => CLASS_OF[s]) as [string, ...string[]]),
  key: z.string(),
  owner: z.string().optional().meta({ description: 'The module, role or user; absent for application preferences.' }),
  description: z.string().optional(),
  value: z.string().meta({ description: 'The value as text, whatever its type.' }),
  groupName: z.string().optional(),
  type: z.enum(TYPES),
});
