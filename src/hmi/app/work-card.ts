import type { Signal } from '@preact/signals';
import type { RefObject } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { Toast } from './feedback.tsx';
import type { LiveList } from './lists/live-list.ts';

// What the cards of the movements and the tasks screens have in common: a step's outcome
// told and put in the screen's live list, the focus kept where the user works, the
// record's state shown alike (styles/work.css, styles/tones.css).

/** What a card tells its screen about a step on its record. */
export interface WorkOutcome<T> {
  /** Done: the record as the appliance answered, and what to tell. */
  done: (item: T, message: string) => void;
  /** Refused (the message in the user's language): told, and the record read afresh. */
  failed: (pKey: string, message: string) => void;
}

export function workOutcome<T>(list: LiveList<T>, toast: Signal<Toast | undefined>): WorkOutcome<T> {
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
