import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { Icon } from './icons.tsx';

// The question before a step that cannot be undone, on the movements and tasks
// screens (their outcomes and failed reads are the shell's, feedback.tsx).

/**
 * The question before an irreversible step, inside the record's card: what will
 * happen, the step, and a way back. The focus moves to the way back: the question is
 * met at once by keyboard and screen reader, and a stray Enter undoes nothing.
 */
export function Confirm(props: {
  label: string;
  question: string;
  confirm: string;
  back: string;
  busy: boolean;
  onConfirm: () => void;
  onBack: () => void;
  children?: ComponentChildren;
}) {
  const first = useRef<HTMLButtonElement>(null);
  // As it is drawn (not after the paint): the next key pressed already lands on it.
  useLayoutEffect(() => first.current?.focus(), []);
  return (
    <div class="card-form" role="group" aria-label={props.label}>
      <p class="confirm-question">
        <Icon name="warning" />
        <span>{props.question}</span>
      </p>
      {props.children}
      <div class="actions">
        <button type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.confirm}
        </button>
        <button type="button" ref={first} disabled={props.busy} onClick={props.onBack}>
          {props.back}
        </button>
      </div>
    </div>
  );
}
