import { get } from '../../api.ts';
import type { LiveListSpec } from '../../lists/live-list.ts';
import { pagesOf } from '../../lists/pages.ts';
import type * as Wire from '../../../../contract/replies.ts';

// A movement as GET /v1/movements sends it (docs/movements.md), and the screen's filter
// translated to the API's two lookups: by unit (`barcode`, `types`, `states`; oldest
// first) or by source (`state`, `types`, `source`; in work order, an operator's queue).
// The API combines a barcode with no source, so the form offers one or the other.

export const MOVEMENT_STATES = ['INACTIVE', 'ACTIVE', 'CANCELLED', 'DONE'] as const;
export const MOVEMENT_TYPES = ['INBOUND', 'OUTBOUND', 'REPLENISHMENT', 'RELOCATION', 'MANUAL'] as const;
export type MovementState = (typeof MOVEMENT_STATES)[number];

/** A movement as the API sends it. */
export type Movement = Wire.Movement;

/** Not yet done nor cancelled: what can still be worked on. */
export const isOpen = (m: Movement) => m.state === 'INACTIVE' || m.state === 'ACTIVE';

/** The target is a location (not a group): the unit can be put down on it as it is. */
export const targetIsLocation = (m: Movement) => m.target !== m.targetLocationGroup;

/** `open` is the work queue: INACTIVE and ACTIVE; `all` any state. */
export type StateChoice = 'open' | 'all' | MovementState;

export interface MovementFilter {
  state: StateChoice;
  /** One type, or '' for any. */
  type: string;
  /** A location coordinate or a group name; '' for any. */
  source: string;
  /** A transport unit's barcode; '' for any. Takes the place of `source`. */
  barcode: string;
}

export const NO_FILTER: MovementFilter = { state: 'open', type: '', source: '', barcode: '' };

const statesOf = (choice: StateChoice): readonly MovementState[] =>
  choice === 'open' ? ['INACTIVE', 'ACTIVE'] : choice === 'all' ? MOVEMENT_STATES : [choice];

/** The API's query for the filter. */
export function queryOf(f: MovementFilter): Record<string, string | undefined> {
  const states = f.state === 'all' ? '' : statesOf(f.state).join(',');
  const types = f.type || undefined;
  if (f.barcode) return { barcode: f.barcode, states: states || undefined, types };
  // `state=` present but empty: the source lookup for any state (work order all the same).
  return { state: states, types, source: f.source || undefined };
}

/** Work order (priority, then the earliest due, none last, then the oldest); a unit's movements oldest first. */
function orderOf(f: MovementFilter): (a: Movement, b: Movement) => number {
  const age = (a: Movement, b: Movement) => a.createdAt.localeCompare(b.createdAt);
  if (f.barcode) return age;
  return (a, b) =>
    a.priority - b.priority ||
    Number(a.latestDueAt === undefined) - Number(b.latestDueAt === undefined) ||
    (a.latestDueAt ?? '').localeCompare(b.latestDueAt ?? '') ||
    age(a, b);
}

/** Whether a movement (one that changed, or arrived live) belongs in the filtered list. */
function showsOf(f: MovementFilter): (m: Movement) => boolean | 'unknown' {
  const states = statesOf(f.state);
  return (m) => {
    if (!states.includes(m.state) || (f.type && m.type !== f.type)) return false;
    if (f.barcode) return m.transportUnitBk === f.barcode;
    if (!f.source || m.sourceLocation === f.source || m.sourceLocationGroupName === f.source) return true;
    // A group of groups: whether the source's group lies below it only the appliance knows.
    return f.source.includes('/') ? false : 'unknown';
  };
}

export function movementList(f: MovementFilter): LiveListSpec<Movement> {
  return {
    read: pagesOf('/v1/movements', queryOf(f)),
    readOne: async (pKey) => (await get<Movement>(`/v1/movements/${encodeURIComponent(pKey)}`)).body,
    keyOf: (m) => m.pKey,
    versionOf: (m) => m.ol,
    order: orderOf(f),
    shows: showsOf(f),
  };
}
