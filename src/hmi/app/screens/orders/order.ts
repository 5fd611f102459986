import { hasText, t } from '../../i18n.ts';
import type { LiveEvent } from '../../live.ts';
import type * as Wire from '../../../../contract/replies.ts';

// A transport order as the HMI shows it (docs/transport-orders.md), and how a
// transportOrder.* event changes one. Shared by the orders board and the unit trace.

export const PRIORITIES = ['HIGHEST', 'HIGH', 'NORMAL', 'LOW', 'LOWEST'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** The four states that end an order; nothing moves out of them. */
export const ENDED_STATES = ['FINISHED', 'CANCELED', 'ONFAILURE', 'INTERRUPTED'] as const;

export const ORDER_EVENTS = [
  'transportOrder.created',
  'transportOrder.started',
  'transportOrder.finished',
  'transportOrder.canceled',
  'transportOrder.redirected',
  'transportOrder.changed',
] as const;

/**
 * A transport order as the board holds it: the fields it shows, read over REST or built
 * from the order's events (which state the state and the priority as text).
 */
export type TransportOrder = Pick<
  Wire.TransportOrder,
  'persistentKey' | 'transportUnitBK' | 'sourceLocation' | 'targetLocation' | 'targetLocationGroup' | 'createDt' | 'startDate' | 'endDate' | 'message'
> & { state: string; priority: string };

/** A transportOrder.* event (src/contract/events.ts). */
export type OrderEvent = LiveEvent<(typeof ORDER_EVENTS)[number]>;

export const isEnded = (state: string): boolean => (ENDED_STATES as readonly string[]).includes(state);

/** Highest priority first: the order a unit's waiting orders start in. */
export const priorityRank = (p: string): number => {
  const i = (PRIORITIES as readonly string[]).indexOf(p);
  return i < 0 ? PRIORITIES.length : i;
};

export const isOrderEvent = (event: LiveEvent): event is OrderEvent => (ORDER_EVENTS as readonly string[]).includes(event.type);
export const orderKeyOf = (event: OrderEvent): string => event.data.pKey;

/**
 * The order after the event: its fields as the event states them. A `created` event
 * carries all the board shows (its time is the creation); any other needs the order as
 * read before (undefined without one: the caller reads it from the appliance).
 */
export function applyOrderEvent(order: TransportOrder | undefined, event: OrderEvent): TransportOrder | undefined {
  const d = event.data;
  const base: TransportOrder | undefined =
    order ??
    (event.type === 'transportOrder.created'
      ? {
          persistentKey: d.pKey,
          transportUnitBK: d.transportUnitBK,
          priority: d.priority,
          state: d.state,
          sourceLocation: event.data.sourceLocation,
          targetLocation: null,
          targetLocationGroup: null,
          createDt: event.at,
        }
      : undefined);
  if (!base) return undefined;
  const next: TransportOrder = {
    ...base,
    transportUnitBK: d.transportUnitBK,
    state: d.state,
    priority: d.priority,
    targetLocation: d.targetLocation,
    targetLocationGroup: d.targetLocationGroup,
  };
  if (d.state === 'STARTED' && !next.startDate) next.startDate = event.at;
  if (isEnded(d.state) && !next.endDate) next.endDate = event.at;
  const message = 'message' in d ? d.message : undefined;
  if (message === null) delete next.message;
  else if (typeof message === 'string') next.message = message;
  return next;
}

export const stateText = (state: string): string => (hasText(`orders.state.${state}`) ? t(`orders.state.${state}`) : state);
export const priorityText = (priority: string): string => (hasText(`orders.priority.${priority}`) ? t(`orders.priority.${priority}`) : priority);

// How priorities and states show (styles/tones.css); LOW and LOWEST have their look, and
// a state's chip its grey frame, in orders.css.
const PRIORITY_TONES: Readonly<Record<string, { edge: string; chip: string }>> = {
  HIGHEST: { edge: ' edge-critical', chip: ' fill-critical' },
  HIGH: { edge: ' edge-major', chip: ' fill-major' },
  NORMAL: { edge: ' edge-accent', chip: ' frame-accent' },
};
const STATE_TONES: Readonly<Record<string, string>> = {
  STARTED: ' fill-accent',
  ONFAILURE: ' frame-danger',
  INTERRUPTED: ' frame-danger',
};

/** The classes of a priority's chip. */
export const priorityChip = (priority: string): string => `chip prio prio-${priority}${PRIORITY_TONES[priority]?.chip ?? ''}`;
/** The tone of the left edge of an order's card, by its priority; with a leading space, or empty. */
export const priorityEdge = (priority: string): string => PRIORITY_TONES[priority]?.edge ?? '';
/** The classes of a state's chip. */
export const stateChip = (state: string): string => `chip state-chip${STATE_TONES[state] ?? ''}`;

/** "L", "group G", or "L in G". */
export function targetText(location: string | null, group: string | null): string {
  if (location && group) return t('orders.targetIn', { location, group });
  if (group) return t('orders.groupOnly', { group });
  return location ?? '–';
}
