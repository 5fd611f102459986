import { z } from 'zod';
import { instant, resource } from '../../http/openapi/representation.ts';
import { MOVEMENT_MODES, MOVEMENT_STATES, MOVEMENT_TYPES } from './store.ts';

// The Movement representation (`movementVO`) as a schema of the API description.

export const MovementSchema = resource(
  'Movement',
  'A movement of a transport unit; links: itself, `transport-unit` and, while not completed, `movement-move`, `movement-cancel`, `movement-complete`.',
  {
    transportUnitBk: z.string(),
    type: z.enum(MOVEMENT_TYPES),
    initiator: z.string().optional(),
    mode: z.enum(MOVEMENT_MODES),
    sku: z.string().optional(),
    priority: z.number().int().meta({ description: 'A higher value means lower precedence.' }),
    state: z.enum(MOVEMENT_STATES),
    sourceLocation: z.string(),
    sourceLocationGroupName: z.string(),
    target: z.string().meta({ description: 'A location coordinate or a location group name.' }),
    targetLocationGroup: z.string(),
    startedAt: instant.optional(),
    latestDueAt: instant.optional(),
    finishedAt: instant.optional(),
    createdAt: instant,
  },
);
