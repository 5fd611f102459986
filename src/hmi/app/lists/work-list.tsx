import type { Signal } from '@preact/signals';
import type { RefObject, VNode } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { Failure, type Toast } from '../feedback.tsx';
import { t } from '../i18n.ts';
import { subscribe, type EventWith } from '../live.ts';
import { wallboard } from '../prefs.ts';
import type { LiveList, Versioned } from './live-list.ts';

// What the movements and the tasks screens have in common around their live list: the
// list read and kept up to date by the events, a card's outcome told and put in the
// list, and the list as shown (failed read, loading, none, the cards, `Show more`).

/** What a card tells its screen about a step on its record. */
export interface WorkOutcome<T> {
  /** Done: the record as the appliance answered, and what to tell. */
  done: (item: T, message: string) => void;
  /** Refused (the message in the user's language): told, and the record read afresh. */
  failed: (pKey: string, message: string) => void;
}

/**
 * For a card whose step took the pressed button away (a move done, back from a
 * question): the returned call sends the focus to the card's first button once the card
 * is drawn again. That happens in the same turn as the drawing, not on a timer after
 * it: a key pressed at once lands on the button the user sees focused, never on one
 * the timer focuses a moment later. Called only before a change that redraws the card.
 */
export function useRefocus(card: RefObject<HTMLElement | null>): () => void {
  const wanted = useRef(false);
  useLayoutEffect(() => {
    if (!wanted.current) return;
    wanted.current = false;
    card.current?.querySelector<HTMLButtonElement>('.actions button')?.focus();
  });
  return () => {
    wanted.current = true;
  };
}

/** Reads the list, and reads again each record an event names; a resync reads it all again. */
export function useLiveList<T extends Versioned>(list: LiveList<T>, events: readonly EventWith<'pKey'>[]): void {
  useEffect(() => {
    void list.reload();
    return subscribe(
      events,
      (event) => event.data.pKey !== undefined && list.touch(event.data.pKey),
      () => void list.reload(),
    );
  }, [list]);
}

/**
 * How a record's state shows on its card (styles/tones.css): the card's edge and
 * ground, the state chip's fill or frame. Movements and tasks name the same look alike.
 */
const LOOKS: Readonly<Record<string, { card: string; chip: string }>> = {
  ACTIVE: { card: ' edge-accent', chip: ' fill-accent' },
  PAUSED: { card: ' edge-minor', chip: ' fill-minor' },
  DONE: { card: ' edge-ok settled', chip: ' frame-ok' },
  FINISHED: { card: ' edge-ok settled', chip: ' frame-ok' },
  CANCELLED: { card: ' settled', chip: '' },
};

/** The classes of a work card and of its state chip, each with a leading space when there are any. */
export const workLook = (state: string) => LOOKS[state] ?? { card: '', chip: '' };

export function workOutcome<T extends Versioned>(list: LiveList<T>, toast: Signal<Toast | undefined>): WorkOutcome<T> {
  return {
    done: (item, message) => {
      list.put(item);
      toast.value = { kind: 'done', message };
    },
    failed: (pKey, message) => {
      toast.value = { kind: 'failed', message };
      // The refusal may come from a change not seen yet: show the record as it is now.
      list.touch(pKey);
    },
  };
}

/** The list under the screen's title (`labelledBy`): `none` when nothing is to be shown; a card per record. */
export function WorkList<T extends Versioned>({
  list,
  labelledBy,
  none,
  card,
}: {
  list: LiveList<T>;
  labelledBy: string;
  none: string;
  card: (item: T) => VNode;
}) {
  const shown = list.shown.value;
  return (
    <>
      {list.error.value !== undefined && <Failure error={list.error.value} retry={() => void list.reload()} />}
      {shown === undefined ? (
        list.error.value === undefined && <p class="empty">{t('screen.loading')}</p>
      ) : shown.length === 0 && list.next.value === undefined ? (
        <p class="empty work-none">{none}</p>
      ) : (
        <ul class="plain-list work-list" aria-labelledby={labelledBy} aria-busy={list.busy.value}>
          {shown.map(card)}
        </ul>
      )}
      {list.next.value !== undefined && shown !== undefined && !wallboard.value && (
        <button type="button" class="more" disabled={list.busy.value} onClick={() => void list.more()}>
          {t('action.more')}
        </button>
      )}
    </>
  );
}
