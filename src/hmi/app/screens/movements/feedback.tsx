import { useSignal, type Signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { errorText, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';

// What the movements and tasks screens tell about an action: its outcome at the bottom
// of the screen (it stays in view, also when the record leaves the list), a failed
// read with a retry, and the question before a step that cannot be undone.

export interface Toast {
  kind: 'done' | 'failed';
  message: string;
}

/** How long a success stays; a failure stays until the next outcome or a close. */
const TOAST_MS = 6000;

export function useToast(): Signal<Toast | undefined> {
  const toast = useSignal<Toast | undefined>(undefined);
  useEffect(() => {
    if (toast.value?.kind !== 'done') return;
    const timer = setTimeout(() => (toast.value = undefined), TOAST_MS);
    return () => clearTimeout(timer);
  }, [toast.value]);
  return toast;
}

export function Toasts({ toast }: { toast: Signal<Toast | undefined> }) {
  const shown = toast.value;
  return (
    <div class="toasts">
      <div role="status">{shown?.kind === 'done' && <p class="toast done">{shown.message}</p>}</div>
      <div role="alert">
        {shown?.kind === 'failed' && (
          <p class="toast failed">
            <Icon name="warning" />
            <span>{shown.message}</span>
            <button type="button" onClick={() => (toast.value = undefined)}>
              {t('action.close')}
            </button>
          </p>
        )}
      </div>
    </div>
  );
}

export function Failure({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <div class="failure" role="alert">
      <Icon name="warning" />
      <span>{errorText(error)}</span>
      <button type="button" onClick={retry}>
        {t('action.retry')}
      </button>
    </div>
  );
}

/**
 * The question before an irreversible step, inside the record's card: what will
 * happen, the step, and a way back. The focus moves to the way back: the question is
 * met at once by keyboard and screen reader, and a stray Enter undoes nothing.
 */
export function Confirm(props: { label: string; question: string; confirm: string; back: string; busy: boolean; onConfirm: () => void; onBack: () => void; children?: ComponentChildren }) {
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    <div class="work-confirm" role="group" aria-label={props.label}>
      <p class="work-question">
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
