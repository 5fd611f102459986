import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { errorText, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';

// What became of the last action on this screen (created, refused and why), told at
// the bottom of the screen in the user's language. A success goes after a while; a
// refusal stays until the next outcome or a close, so it can be read.

export const outcome = signal<{ kind: 'done' | 'failed'; message: string } | undefined>(undefined);

export const done = (message: string) => (outcome.value = { kind: 'done', message });
export const failed = (message: string) => (outcome.value = { kind: 'failed', message });

const DONE_MS = 6000;

export function Outcome() {
  useEffect(() => {
    if (outcome.value?.kind !== 'done') return;
    const timer = setTimeout(() => (outcome.value = undefined), DONE_MS);
    return () => clearTimeout(timer);
  }, [outcome.value]);
  useEffect(() => () => void (outcome.value = undefined), []);
  return (
    <div class="toasts">
      <div role="status">{outcome.value?.kind === 'done' && <p class="toast done">{outcome.value.message}</p>}</div>
      <div role="alert">
        {outcome.value?.kind === 'failed' && (
          <p class="toast failed">
            <Icon name="warning" />
            <span>{outcome.value.message}</span>
            <button type="button" onClick={() => (outcome.value = undefined)}>
              {t('action.close')}
            </button>
          </p>
        )}
      </div>
    </div>
  );
}

/** A list that could not be read, with a retry. */
export function ReadFailure({ error, retry }: { error: unknown; retry: () => void }) {
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
