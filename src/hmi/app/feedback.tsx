import { signal, useSignal, type Signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { errorText, t } from './i18n.ts';
import { Icon } from './icons.tsx';

// How every screen tells the user what became of things, in one way so that a user
// meets the same toast and the same failed read wherever they are (and the browser
// tests find them by the same roles and classes): the outcome of an action at the
// bottom of the screen, a refusal beside the form it concerns, and a read that failed,
// with a retry. A success said before a failure is over: whichever way the failure is
// told, the success leaves, so that it never stands beside (or above) a newer error.

/** What became of an action, in the user's language. */
export interface Toast {
  kind: 'done' | 'failed';
  message: string;
}

/** Tells an outcome: the cards and forms of a screen report to its toast through one. */
export type Outcome = (kind: Toast['kind'], message: string) => void;

/** How long a success stays; a failure stays until the next outcome or a close, so it can be read. */
const TOAST_MS = 6000;

/** Failures told so far on the page, in a form or by a failed read: a success toast older than one is stale. */
const failuresTold = signal(0);

/** The screen's toast: empty at first; set it, or report to it through `outcomeTo`. */
export const useToast = (): Signal<Toast | undefined> => useSignal<Toast | undefined>(undefined);

export const outcomeTo =
  (toast: Signal<Toast | undefined>): Outcome =>
  (kind, message) =>
    (toast.value = { kind, message });

/**
 * The toast at the bottom of a screen. A success is a status (announced politely) and
 * goes after a while; a failure is an alert and stays until closed or replaced: it
 * stays in view also when the record it concerns has left the list.
 */
export function Toasts({ toast }: { toast: Signal<Toast | undefined> }) {
  const shown = toast.value;
  useEffect(() => {
    if (shown?.kind !== 'done') return;
    const timer = setTimeout(() => (toast.value = undefined), TOAST_MS);
    return () => clearTimeout(timer);
  }, [shown]);
  const failures = failuresTold.value;
  const seen = useRef(failures);
  // Layout effects, here and where a failure is counted: the success leaves in the
  // same turn as the refusal appears, so no frame (and no reader) sees both.
  useLayoutEffect(() => {
    if (failures === seen.current) return;
    seen.current = failures;
    if (toast.peek()?.kind === 'done') toast.value = undefined;
  }, [failures]);
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

/** A refusal beside the form it concerns (empty: none); told, it ends the screen's success toast. */
export function FormError({ message }: { message: string | undefined }) {
  useLayoutEffect(() => {
    if (message) failuresTold.value++;
  }, [message]);
  return (
    <p class="error-text" role="alert">
      {message}
    </p>
  );
}

/** A read that failed, told in the user's language (never the body), with a retry where one helps. */
export function Failure({ error, retry }: { error: unknown; retry?: () => void }) {
  useLayoutEffect(() => {
    failuresTold.value++;
  }, [error]);
  return (
    <div class="failure" role="alert">
      <Icon name="warning" />
      <span>{errorText(error)}</span>
      {retry && (
        <button type="button" onClick={retry}>
          {t('action.retry')}
        </button>
      )}
    </div>
  );
}

/**
 * A form's send and its way back, side by side. The send is off while the request is
 * under way (a second press would send twice); the way back stays, to leave at once.
 */
export function FormActions({ send, back, busy, onBack, danger }: { send: string; back: string; busy: boolean; onBack: () => void; danger?: boolean }) {
  return (
    <div class="actions">
      <button type="submit" class={danger ? 'primary danger' : 'primary'} disabled={busy}>
        {send}
      </button>
      <button type="button" onClick={() => onBack()}>
        {back}
      </button>
    </div>
  );
}
