import { AsyncLocalStorage } from 'node:async_hooks';

// Who caused a change: the user of a token, an API key, a PLC channel, the hub, or the
// appliance itself. Every recorded event names one. The HTTP edge, the PLC adapter and
// the hub link run their work "as" the caller; the unit of work reads the actor from
// here, so services never pass it around. AsyncLocalStorage carries it across the
// awaits of an asynchronous handler (a password hash before the transaction).

export type ActorKind = 'user' | 'apiKey' | 'plc' | 'hub' | 'system';

export interface Actor {
  kind: ActorKind;
  name: string;
}

/** The appliance itself: start-up seeding, timers, retention, alarms it raises on its own. */
const SYSTEM: Actor = Object.freeze({ kind: 'system', name: 'appliance' });

const current = new AsyncLocalStorage<Actor>();

/** Runs `fn` (and whatever it awaits) on behalf of `actor`. */
export function asActor<T>(actor: Actor, fn: () => T): T {
  return current.run(actor, fn);
}

/** The actor of the work running now; the appliance when nobody else is. */
export function currentActor(): Actor {
  return current.getStore() ?? SYSTEM;
}
