import type { EventInput } from '../../core/event-catalogue.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { Movement } from './lookups.ts';

// The events of the movements module (`movement.*`, docs/events.md), as the lifecycle
// (service.ts) and the completion (completion.ts) record them: each is about the
// movement and names its unit, so that a unit's history shows its movements too.

/** What every movement event carries about the movement. */
export const eventData = (m: Movement) => ({ pKey: m.pk, transportUnitBk: m.transportUnitBk, type: m.type, state: m.state });

/** Records a movement event in the running unit of work: about the movement, naming its unit. */
export const emitMovement = (work: UnitOfWork, m: Movement, e: Pick<Extract<EventInput, { type: `movement.${string}` }>, 'type' | 'data'>, reason?: string) =>
  work.emit({ ...e, key: m.pk, refs: [{ kind: 'transportUnit', key: m.transportUnitBk }], reason } as EventInput);
