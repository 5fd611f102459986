import { expect } from 'vitest';
import { expectApiError, expectServerError, type RecordedEvent, type Reply, type TestAppliance } from './appliance.ts';

// The checks every resource's tests make the same way: a refusal in the spec's error
// format, and a refusal that changed nothing (no state the API shows, no event).

/** A reply check: the API-declined body with this status and message key; the message containing `text`, `obj` as given. */
export const apiError =
  (status: number, key: string, text?: string, obj?: unknown[]) =>
  (reply: Reply): void => {
    expectApiError(reply, status, key);
    if (text) expect(reply.body.message).toContain(text);
    if (obj) expect(reply.body.obj).toEqual(obj);
  };

/** A reply check: the server-declined body with this status. */
export const serverError =
  (status: number) =>
  (reply: Reply): void =>
    expectServerError(reply, status);

/** A reply check: 400 `core.validation.error` naming the field. */
export const validation = (field: string) => apiError(400, 'core.validation.error', field);

/** Keeps every event the appliance commits from now on (those `keep` picks) in `into`, oldest first. */
export function recordEvents(wms: TestAppliance, into: RecordedEvent[], keep: (event: RecordedEvent) => boolean = () => true): () => void {
  return wms.app.bus.onAny((event) => {
    if (keep(event)) into.push(event);
  });
}

export interface Watched<A extends unknown[]> {
  /** What the API shows of the state the requests could change (`args` as the refusal is given them). */
  state: (...args: A) => Promise<unknown>;
  /** The events recorded (recordEvents): none may be added by a refusal. */
  events?: readonly RecordedEvent[];
  /** Events a refusal may cause without changing anything (a user's login). */
  ignore?: (event: RecordedEvent) => boolean;
}

/**
 * A refusal that changes nothing: the returned function sends a request, checks its
 * reply with `check`, and proves that the watched state is as before and that no event
 * was committed meanwhile. Returns the reply for further checks.
 */
export function refusal<A extends unknown[]>(watch: Watched<A>) {
  return async (send: () => Promise<Reply>, check: (reply: Reply) => void, ...args: A): Promise<Reply> => {
    const before = await watch.state(...args);
    const from = watch.events?.length ?? 0;
    const reply = await send();
    check(reply);
    expect(await watch.state(...args)).toEqual(before);
    if (watch.events) expect(watch.events.slice(from).filter((e) => !watch.ignore?.(e))).toEqual([]);
    return reply;
  };
}
