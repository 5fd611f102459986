import { setTimeout as sleep } from 'node:timers/promises';

// What a box of a pair tries again until it works (docs/ha.md): reaching its NATS node
// (it may start after the appliance, or be electing leaders), finding where its database
// stands, fetching a copy of the active. Once a second, for as long as the box runs: a
// stop ends the wait at once.

const RETRY_MS = 1000;

/**
 * `attempt` until it resolves, once a second; `failed` hears of each failure with its
 * number (0, 1, …). Undefined once `stop` is aborted.
 */
export async function everySecond<T>(attempt: () => Promise<T>, stop: AbortSignal, failed: (err: unknown, n: number) => void): Promise<T | undefined> {
  for (let n = 0; !stop.aborted; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (stop.aborted) return undefined;
      failed(err, n);
      await sleep(RETRY_MS, undefined, { signal: stop }).catch(() => undefined);
    }
  }
  return undefined;
}
