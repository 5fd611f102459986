import { signal } from '@preact/signals';
import { get, post } from './api.ts';
import { subscribe } from './live.ts';
import { ALARM_EVENTS } from './live-types.ts';
import { readAgain } from './read-again.ts';
import { can } from './session.ts';
import type * as Wire from '../../contract/replies.ts';

// This box in its hot-standby pair (docs/ha.md), kept by the shell for every screen: the
// top bar says which box is active and whether the pair is healthy. No event carries the
// pair's state, so it is read from GET /v1/ha now and then while the tab is in front, and
// at once when an alarm about the pair (kind `pair.*`) is raised or cleared. A box alone
// is read once and shows nothing: it joins a pair only with a restart (its settings),
// and an open page shows the pair from its next load.

export type PairStatus = Wire.PairStatus;

/** How often the status is read while the tab is in front: a failover takes seconds. */
const EVERY_MS = 5000;
/** How long a switchover asked here is shown as under way at most, should no read ever show it done. */
const HANDOVER_MS = 60_000;

/** GET /v1/ha as last read; undefined before the first read and without `ha:read`. */
export const pairStatus = signal<PairStatus | undefined>(undefined);
/** The last read failed (the box restarts in its new role, the network): what is shown is as of before. */
export const pairReadFailed = signal(false);
/** A switchover asked from this page: the box that handed over, until another box is seen active. */
export const handover = signal<{ from: string; at: number } | undefined>(undefined);

/** A status of a box of a pair (not of a box alone). */
export const inPair = (status: PairStatus | undefined): status is PairStatus & { pair: string; node: string } =>
  !!status && status.pair !== null && status.node !== null;

/** Counts watches: a read that returns after its watch ended is dropped. */
let watch = 0;
/** A watch runs: reads are wanted. */
let watching = false;

/** Reads the status; a call while a read is under way reads once more after it. */
export const refreshPair = readAgain(async () => {
  const mine = watch;
  if (!watching) return;
  try {
    const status = (await get<PairStatus>('/v1/ha')).body;
    if (mine !== watch) return;
    pairStatus.value = status;
    pairReadFailed.value = false;
    endHandover(status);
  } catch {
    if (mine === watch) pairReadFailed.value = true;
  }
});

function endHandover(status: PairStatus): void {
  const asked = handover.value;
  if (!asked) return;
  const holder = status.lease?.holder;
  if ((holder && holder !== asked.from) || Date.now() - asked.at > HANDOVER_MS) handover.value = undefined;
}

/** Watches the pair while the user may read it; returns the stop. */
export function watchPair(): () => void {
  if (!can('ha:read')) return () => {};
  const mine = ++watch;
  watching = true;
  const stopped = () => mine !== watch;
  // A box alone asks nothing more once it has said so.
  const alone = () => pairStatus.value?.role === 'alone';
  let timer: number | undefined;
  let reading = false;
  // Read, then again EVERY_MS after the read ends; a hidden tab pauses (after its first
  // read: a page opened behind another still knows its pair), showing it reads at once.
  let first = true;
  const poll = async () => {
    timer = undefined;
    if (stopped() || (document.hidden && !first)) return;
    first = false;
    reading = true;
    await refreshPair();
    reading = false;
    if (!stopped() && !alone()) timer = window.setTimeout(poll, EVERY_MS);
  };
  const onVisibility = () => {
    if (document.hidden || reading || alone()) return;
    clearTimeout(timer);
    void poll();
  };
  const onEvent = () => {
    if (!alone()) void refreshPair();
  };
  const off = subscribe(ALARM_EVENTS, (event) => event.data.kind.startsWith('pair.') && onEvent(), onEvent);
  document.addEventListener('visibilitychange', onVisibility);
  void poll();
  return () => {
    watch++;
    watching = false;
    clearTimeout(timer);
    off();
    document.removeEventListener('visibilitychange', onVisibility);
    pairStatus.value = undefined;
    pairReadFailed.value = false;
    handover.value = undefined;
  };
}

/**
 * Hands the active role to the standby (POST /v1/ha/switchover, only on the active);
 * throws ApiFailure when refused. The box stops serving for a moment and comes back as
 * the standby: the reads that follow show the handover until another box is active.
 */
export async function switchOver(): Promise<void> {
  const status = (await post<PairStatus>('/v1/ha/switchover')).body;
  handover.value = { from: status.node ?? '', at: Date.now() };
  pairStatus.value = status;
  void refreshPair();
}
